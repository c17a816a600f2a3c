package contract

import (
	"encoding/hex"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

// authenticationDataVersion is the version of Canton's
// UntypedVersionedMessage around v30.ContractAuthenticationData.
const authenticationDataVersion = 30

// hmacSHA256 is Canton's HmacAlgorithm enum value for HMAC-SHA256.
const hmacSHA256 = 1

// AuthenticationDataV1 returns the authentication data of a V1 contract
// (ContractAuthenticationDataV1.toLfBytes), 42 bytes:
// UntypedVersionedMessage{1 data = ContractAuthenticationData{1 salt =
// Salt{1 hmac = HMAC_SHA256, 2 salt}}, 2 version = 30}.
func AuthenticationDataV1(s Salt) []byte {
	var salt []byte
	salt = protowire.AppendTag(salt, 1, protowire.VarintType)
	salt = protowire.AppendVarint(salt, hmacSHA256)
	salt = protowire.AppendTag(salt, 2, protowire.BytesType)
	salt = protowire.AppendBytes(salt, s[:])
	var data []byte
	data = protowire.AppendTag(data, 1, protowire.BytesType)
	data = protowire.AppendBytes(data, salt)
	var out []byte
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, data)
	out = protowire.AppendTag(out, 2, protowire.VarintType)
	return protowire.AppendVarint(out, authenticationDataVersion)
}

// ParseAuthenticationDataV1 reads the salt from V1 authentication data
// (ContractAuthenticationData.fromLfBytes): version 30, an HMAC-SHA256
// salt of 32 bytes, no unknown fields.
func ParseAuthenticationDataV1(b []byte) (Salt, error) {
	var d decoder
	var s Salt
	var data []byte
	version := uint64(0)
	var seen fieldSet
	err := d.message(b, "UntypedVersionedMessage", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			data = v
			return n, nil
		case 2:
			if err := seen.once(num, typ, protowire.VarintType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeVarint(b)
			version = v
			return n, nil
		}
		return 0, errUnknownField
	})
	if err != nil {
		return s, err
	}
	if version != authenticationDataVersion {
		return s, fmt.Errorf("authentication data: unknown version %d (want %d)", version, authenticationDataVersion)
	}
	var saltMsg []byte
	hasSalt := false
	seen = 0
	if err := d.message(data, "ContractAuthenticationData", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 {
			return 0, errUnknownField
		}
		if err := seen.once(num, typ, protowire.BytesType); err != nil {
			return 0, err
		}
		v, n := protowire.ConsumeBytes(b)
		saltMsg, hasSalt = v, true
		return n, nil
	}); err != nil {
		return s, err
	}
	if !hasSalt {
		return s, errors.New("authentication data: salt is missing")
	}
	var alg uint64
	var salt []byte
	seen = 0
	if err := d.message(saltMsg, "Salt", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case 1:
			if err := seen.once(num, typ, protowire.VarintType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeVarint(b)
			alg = v
			return n, nil
		case 2:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			salt = v
			return n, nil
		}
		return 0, errUnknownField
	}); err != nil {
		return s, err
	}
	if alg != hmacSHA256 {
		return s, fmt.Errorf("authentication data: salt algorithm %d is not HMAC-SHA256 (1)", alg)
	}
	if len(salt) != len(s) {
		return s, fmt.Errorf("authentication data: invalid contract salt size (%d bytes, want %d)", len(salt), len(s))
	}
	copy(s[:], salt)
	return s, nil
}

// AuthenticationError says why a contract does not match its id. The node
// reports it as DISCLOSED_CONTRACT_AUTHENTICATION_FAILED.
type AuthenticationError struct {
	ContractID value.ContractID
	Reason     string
}

func (e *AuthenticationError) Error() string {
	return fmt.Sprintf("contract %s failed authentication: %s", e.ContractID, e.Reason)
}

// Authenticate checks that a contract is the one its id names, as Canton's
// ContractValidator.authenticateHash does: the id's suffix version picks
// the hash method, the salt comes from the authentication data, the
// creation time must be a real time, and the unicum recomputed from the
// salt, creation time, parties, key and contract hash must be the id's.
//
// ca10 and ca11 contracts are hashed as stored and need no types (types
// may be nil); given types, their argument is also checked against the
// template's type in the target package, as Canton does. ca12 contracts are hashed after translation to their
// template's type in the target package (Translate); target "" means the
// package that created the contract, whose id the blob names.
func Authenticate(c *Contract, types *typed.Env, target lf.PackageID) error {
	fail := func(format string, args ...any) error {
		return &AuthenticationError{ContractID: c.ID, Reason: fmt.Sprintf(format, args...)}
	}
	id, err := ParseID(c.ID)
	if err != nil {
		return fail("%v", err)
	}
	if id.IsLocal() {
		return fail("the contract id has no suffix")
	}
	salt, err := ParseAuthenticationDataV1(c.AuthenticationData)
	if err != nil {
		return fail("%v", err)
	}
	if c.CreatedAt == CreatedAtNow {
		return fail("Cannot authenticate contract with creation time Now")
	}
	m := id.Version.Method()
	if types != nil && m != TypedNormalForm {
		// Canton type-checks the contract against the target package
		// before it authenticates it (LfContractValidation); the hash of
		// ca10 and ca11 ids does not tell values of different types
		// apart (0 and False are both left out of an UpgradeFriendly record).
		if _, err := Translate(types, templateIn(c, target), c.Argument); err != nil {
			return fail("%v", err)
		}
	}
	h, err := ContractHash(c, m, types, target)
	if err != nil {
		return fail("%v", err)
	}
	u := ComputeUnicum(salt, c.CreatedAt, c.Metadata(), h)
	if u != id.Unicum {
		want := id.Suffixed(id.Version, u)
		return fail("Mismatching contract id suffixes. Expected: %s vs actual: %s",
			hex.EncodeToString(want.Bytes()[1+discriminatorLen:]), hex.EncodeToString(id.Bytes()[1+discriminatorLen:]))
	}
	return nil
}

// ContractHash hashes a contract by method m: as stored for Legacy and
// UpgradeFriendly, after translation to the template's type in the target
// package ("" for the creating package) for TypedNormalForm.
func ContractHash(c *Contract, m Method, types *typed.Env, target lf.PackageID) (Hash, error) {
	if m != TypedNormalForm {
		return HashUntyped(m, c.PackageName, c.TemplateID, c.Argument)
	}
	arg, err := Translate(types, templateIn(c, target), c.Argument)
	if err != nil {
		return Hash{}, err
	}
	return HashTyped(c.PackageName, c.TemplateID.ModuleName, c.TemplateID.EntityName, arg)
}

// templateIn names c's template in the target package ("" for the
// creating one).
func templateIn(c *Contract, target lf.PackageID) lf.TypeConName {
	if target == "" {
		target = lf.PackageID(c.TemplateID.PackageID)
	}
	return lf.TypeConName{Package: target, Module: lf.SplitDotted(c.TemplateID.ModuleName), Name: lf.SplitDotted(c.TemplateID.EntityName)}
}

// AuthenticateBlob decodes an event blob and authenticates its contract
// (see Authenticate).
func AuthenticateBlob(blob []byte, types *typed.Env, target lf.PackageID) (*Contract, error) {
	c, err := DecodeBlob(blob)
	if err != nil {
		return nil, err
	}
	if err := Authenticate(c, types, target); err != nil {
		return nil, err
	}
	return c, nil
}
