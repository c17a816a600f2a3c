package contract

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/value"
)

// Serialization versions of a contract (Canton's SerializationVersion):
// "2.1" for contracts without a key, "2" for contracts with one, "dev".
const (
	SerializationV1  = "2.1"
	SerializationV2  = "2"
	SerializationDev = "dev"
)

// CreatedAtNow is the creation time of a contract created in the
// transaction being built, before its ledger time is known (Canton's
// CreationTime.Now, encoded as Long.MinValue). Such contracts cannot be
// authenticated.
const CreatedAtNow = value.Timestamp(math.MinInt64)

// Contract is a contract as Canton's event blob carries it
// (FatContractInstance).
type Contract struct {
	// Version is the serialization version: SerializationV1, or
	// SerializationV2 (or dev) for a contract with a key.
	Version     string
	ID          value.ContractID
	PackageName string
	// TemplateID names the template in the package that created the
	// contract.
	TemplateID value.Identifier
	// Argument is the create argument as stored: records without labels
	// or type constructors, variants and enums without ranks, generic maps
	// in the order written. Translate gives it its types.
	Argument value.Value
	// Signatories and Stakeholders are sorted and distinct; Stakeholders
	// holds the signatories and the observers.
	Signatories  []string
	Stakeholders []string
	// CreatedAt is the ledger time of the creating transaction, or
	// CreatedAtNow.
	CreatedAt value.Timestamp
	Key       *Key
	// AuthenticationData is Canton's opaque authentication data; for V1
	// ids, AuthenticationDataV1(salt).
	AuthenticationData []byte
}

// Key is a contract key with its maintainers (sorted, distinct, a subset
// of the signatories) and its hash (tx.KeyHash).
type Key struct {
	Value       value.Value
	Maintainers []string
	Hash        [32]byte
}

// Metadata returns the parties and key the contract's unicum commits to.
func (c *Contract) Metadata() Metadata {
	md := Metadata{Signatories: c.Signatories, Stakeholders: c.Stakeholders}
	if c.Key != nil {
		h := c.Key.Hash
		md.KeyHash = &h
		md.Maintainers = c.Key.Maintainers
	}
	return md
}

// Field numbers of Canton's transaction.proto and value.proto (package
// com.digitalasset.daml.lf).
const (
	fVersionedVersion = 1
	fVersionedPayload = 2

	fContractID          = 1
	fPackageName         = 2
	fTemplateID          = 3
	fCreateArg           = 4
	fNonMaintainerSigs   = 5
	fNonSigStakeholders  = 6
	fCreatedAt           = 7
	fAuthenticationData  = 8
	fPackageVersion      = 9
	fKeyWithMaintainers  = 1001
	fIdentifierPackageID = 1
	fIdentifierModule    = 2
	fIdentifierName      = 3
	fKeyValue            = 1
	fKeyMaintainers      = 2
	fKeyHash             = 3

	fUnit        = 1
	fBool        = 2
	fInt64       = 3
	fDate        = 4
	fTimestamp   = 5
	fNumeric     = 6
	fParty       = 7
	fText        = 8
	fContractIDV = 9
	fOptional    = 10
	fList        = 11
	fMap         = 12
	fRecord      = 13
	fVariant     = 14
	fEnum        = 15
	fTextMap     = 16
)

// EncodeBlob writes c as Canton's event blob
// (TransactionCoder.encodeFatContractInstance): Versioned{version, payload
// = FatContractInstance}. The argument is written without labels or type
// constructors; fields appear in field-number order and proto3 defaults
// are left out, as protobuf-java writes them, so that a blob Canton wrote
// and DecodeBlob read encodes back to the same bytes.
func EncodeBlob(c *Contract) ([]byte, error) {
	if c.Version == "" {
		return nil, errors.New("contract: no serialization version")
	}
	cid, err := hex.DecodeString(string(c.ID))
	if err != nil {
		return nil, fmt.Errorf("contract id %q: not hex", clip(string(c.ID)))
	}
	var p []byte
	p = appendBytesField(p, fContractID, cid)
	p = appendStringField(p, fPackageName, c.PackageName)
	p = protowire.AppendTag(p, fTemplateID, protowire.BytesType)
	p = protowire.AppendBytes(p, encodeIdentifier(c.TemplateID))
	arg, err := EncodeValue(c.Argument)
	if err != nil {
		return nil, fmt.Errorf("contract argument: %w", err)
	}
	p = appendBytesField(p, fCreateArg, arg)
	var maintainers []string
	if c.Key != nil {
		maintainers = sortedSet(c.Key.Maintainers)
	}
	sigs := sortedSet(c.Signatories)
	if len(sigs) == 0 {
		return nil, errors.New("contract: no signatory")
	}
	for _, m := range maintainers {
		if _, isSignatory := slices.BinarySearch(sigs, m); !isSignatory {
			return nil, fmt.Errorf("contract: key maintainer %s is not a signatory", m)
		}
	}
	for _, s := range sigs {
		if _, isMaintainer := slices.BinarySearch(maintainers, s); !isMaintainer {
			p = protowire.AppendTag(p, fNonMaintainerSigs, protowire.BytesType)
			p = protowire.AppendString(p, s)
		}
	}
	for _, s := range sortedSet(c.Stakeholders) {
		if _, isSignatory := slices.BinarySearch(sigs, s); !isSignatory {
			p = protowire.AppendTag(p, fNonSigStakeholders, protowire.BytesType)
			p = protowire.AppendString(p, s)
		}
	}
	if c.CreatedAt != 0 {
		p = protowire.AppendTag(p, fCreatedAt, protowire.Fixed64Type)
		p = protowire.AppendFixed64(p, uint64(c.CreatedAt))
	}
	p = appendBytesField(p, fAuthenticationData, c.AuthenticationData)
	if c.Key != nil {
		if c.Version == SerializationV1 {
			return nil, errors.New("contract: a contract with a key needs serialization version 2")
		}
		k, err := EncodeValue(c.Key.Value)
		if err != nil {
			return nil, fmt.Errorf("contract key: %w", err)
		}
		var kb []byte
		kb = appendBytesField(kb, fKeyValue, k)
		for _, m := range maintainers {
			kb = protowire.AppendTag(kb, fKeyMaintainers, protowire.BytesType)
			kb = protowire.AppendString(kb, m)
		}
		kb = appendBytesField(kb, fKeyHash, c.Key.Hash[:])
		p = protowire.AppendTag(p, fKeyWithMaintainers, protowire.BytesType)
		p = protowire.AppendBytes(p, kb)
	}
	var out []byte
	out = appendStringField(out, fVersionedVersion, c.Version)
	out = appendBytesField(out, fVersionedPayload, p)
	return out, nil
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendStringField(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

func encodeIdentifier(id value.Identifier) []byte {
	var b []byte
	b = appendStringField(b, fIdentifierPackageID, id.PackageID)
	for seg := range strings.SplitSeq(id.ModuleName, ".") {
		b = protowire.AppendTag(b, fIdentifierModule, protowire.BytesType)
		b = protowire.AppendString(b, seg)
	}
	for seg := range strings.SplitSeq(id.EntityName, ".") {
		b = protowire.AppendTag(b, fIdentifierName, protowire.BytesType)
		b = protowire.AppendString(b, seg)
	}
	return b
}

// EncodeValue writes v as Canton's value.proto Value, without labels or
// type constructors (ValueCoder.encodeValue).
func EncodeValue(v value.Value) ([]byte, error) {
	return appendValue(nil, v, 0)
}

func appendMessageField(b []byte, num protowire.Number, body func([]byte) ([]byte, error)) ([]byte, error) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	at := len(b)
	b, err := body(b)
	if err != nil {
		return nil, err
	}
	// Move the body right to make room for its length.
	n := len(b) - at
	size := protowire.SizeVarint(uint64(n))
	b = append(b, make([]byte, size)...)
	copy(b[at+size:], b[at:at+n])
	protowire.AppendVarint(b[at:at], uint64(n))
	return b, nil
}

func appendValue(b []byte, v value.Value, depth int) ([]byte, error) {
	if depth > maxNesting {
		return nil, ErrNesting
	}
	switch x := v.(type) {
	case value.Unit:
		return append(protowire.AppendTag(b, fUnit, protowire.BytesType), 0), nil
	case value.Bool:
		return protowire.AppendVarint(protowire.AppendTag(b, fBool, protowire.VarintType), uint64(boolByte(bool(x)))), nil
	case value.Int64:
		return protowire.AppendVarint(protowire.AppendTag(b, fInt64, protowire.VarintType), protowire.EncodeZigZag(int64(x))), nil
	case value.Date:
		return protowire.AppendVarint(protowire.AppendTag(b, fDate, protowire.VarintType), uint64(int64(x))), nil
	case value.Timestamp:
		return protowire.AppendFixed64(protowire.AppendTag(b, fTimestamp, protowire.Fixed64Type), uint64(x)), nil
	case value.Numeric:
		return protowire.AppendString(protowire.AppendTag(b, fNumeric, protowire.BytesType), x.String()), nil
	case value.Party:
		return protowire.AppendString(protowire.AppendTag(b, fParty, protowire.BytesType), string(x)), nil
	case value.Text:
		if strings.IndexByte(string(x), 0) >= 0 {
			return nil, errors.New("a text holds a null character, which Canton does not store")
		}
		return protowire.AppendString(protowire.AppendTag(b, fText, protowire.BytesType), string(x)), nil
	case value.ContractID:
		cid, err := hex.DecodeString(string(x))
		if err != nil {
			return nil, fmt.Errorf("contract id %q: not hex", clip(string(x)))
		}
		return protowire.AppendBytes(protowire.AppendTag(b, fContractIDV, protowire.BytesType), cid), nil
	case value.Optional:
		return appendMessageField(b, fOptional, func(b []byte) ([]byte, error) {
			if x.Value == nil {
				return b, nil
			}
			return appendMessageField(b, 1, func(b []byte) ([]byte, error) { return appendValue(b, x.Value, depth+1) })
		})
	case *value.List:
		return appendMessageField(b, fList, func(b []byte) ([]byte, error) {
			var err error
			for el := range x.All() {
				if b, err = appendMessageField(b, 1, func(b []byte) ([]byte, error) { return appendValue(b, el, depth+1) }); err != nil {
					return nil, err
				}
			}
			return b, nil
		})
	case *value.TextMap:
		return appendMessageField(b, fTextMap, func(b []byte) ([]byte, error) {
			var err error
			for _, en := range x.Entries() {
				if strings.IndexByte(en.Key, 0) >= 0 {
					return nil, errors.New("a text map key holds a null character, which Canton does not store")
				}
				b, err = appendMessageField(b, 1, func(b []byte) ([]byte, error) {
					b = appendStringField(b, 1, en.Key)
					return appendMessageField(b, 2, func(b []byte) ([]byte, error) { return appendValue(b, en.Value, depth+1) })
				})
				if err != nil {
					return nil, err
				}
			}
			return b, nil
		})
	case *value.GenMap:
		return appendMessageField(b, fMap, func(b []byte) ([]byte, error) {
			var err error
			for _, en := range x.Entries() {
				b, err = appendMessageField(b, 1, func(b []byte) ([]byte, error) {
					b, err := appendMessageField(b, 1, func(b []byte) ([]byte, error) { return appendValue(b, en.Key, depth+1) })
					if err != nil {
						return nil, err
					}
					return appendMessageField(b, 2, func(b []byte) ([]byte, error) { return appendValue(b, en.Value, depth+1) })
				})
				if err != nil {
					return nil, err
				}
			}
			return b, nil
		})
	case *value.Record:
		return appendMessageField(b, fRecord, func(b []byte) ([]byte, error) {
			var err error
			for _, f := range x.Fields {
				b, err = appendMessageField(b, 1, func(b []byte) ([]byte, error) {
					return appendMessageField(b, 1, func(b []byte) ([]byte, error) { return appendValue(b, f.Value, depth+1) })
				})
				if err != nil {
					return nil, err
				}
			}
			return b, nil
		})
	case *value.Variant:
		return appendMessageField(b, fVariant, func(b []byte) ([]byte, error) {
			b = appendStringField(b, 1, x.Constructor)
			return appendMessageField(b, 2, func(b []byte) ([]byte, error) { return appendValue(b, x.Value, depth+1) })
		})
	case *value.Enum:
		return appendMessageField(b, fEnum, func(b []byte) ([]byte, error) {
			return appendStringField(b, 1, x.Constructor), nil
		})
	}
	return nil, errNotSerializable(v)
}

// DecodeError is a blob that does not decode: Field names where (as a
// path of the protobuf messages), Reason what is wrong.
type DecodeError struct {
	Field  string
	Reason string
}

func (e *DecodeError) Error() string {
	if e.Field == "" {
		return "event blob: " + e.Reason
	}
	return "event blob: " + e.Field + ": " + e.Reason
}

// DecodeBlob reads a Canton event blob (TransactionCoder.decodeFatContractInstance)
// with Canton's checks: known serialization version, no unknown fields,
// a valid contract id, package name, template id and parties, strictly
// sorted non-maintainer signatories and non-signatory stakeholders, at
// least one signatory, no party both maintainer and non-maintainer
// signatory nor signatory and non-signatory stakeholder, a creation time
// in range (or CreatedAtNow), and an argument that decodes (nesting at
// most 100, valid scalars, text without null characters, text-map keys
// distinct).
//
// It is stricter than Canton where Canton's protobuf parser is lenient: a
// singular field or oneof member given twice, and a bool other than 0 or 1,
// are refused (protobuf-java keeps the last or any non-zero); a contract
// with a key must have serialization version 2 or dev (Canton computes a
// legacy key hash for version 2.1 and then fails on upgrade checks).
// Field 9 (package_version, dev only) is read and ignored, as Canton does.
//
// Work and memory are linear in len(blob): every loop consumes input.
func DecodeBlob(blob []byte) (*Contract, error) {
	d := decoder{}
	var version string
	var payload []byte
	var seen fieldSet
	err := d.message(blob, "Versioned", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case fVersionedVersion:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			s, n, err := d.str(b)
			version = s
			return n, err
		case fVersionedPayload:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			payload = v
			return n, nil
		}
		return 0, errUnknownField
	})
	if err != nil {
		return nil, err
	}
	switch version {
	case SerializationV1, SerializationV2, SerializationDev:
	default:
		return nil, &DecodeError{"Versioned.version", fmt.Sprintf("unsupported serialization version %q (2.1, 2 or dev)", clip(version))}
	}
	c := &Contract{Version: version}
	if err := d.fatContract(payload, c); err != nil {
		return nil, err
	}
	return c, nil
}

var errUnknownField = errors.New("unknown field")

// fieldSet records which singular fields of a message have been seen: a
// bit per field number below 63, bit 63 for the key (field 1001).
type fieldSet uint64

func (s *fieldSet) once(num protowire.Number, got, want protowire.Type) error {
	if got != want {
		return errUnknownField
	}
	bit := fieldSet(1) << 63
	if num < 63 {
		bit = fieldSet(1) << num
	}
	if *s&bit != 0 {
		return fmt.Errorf("field %d given twice", num)
	}
	*s |= bit
	return nil
}

type decoder struct{}

// message walks the fields of a protobuf message, calling field with each
// field's number, wire type and the bytes from its value on; field returns
// how many bytes the value took, or errUnknownField.
func (d *decoder) message(b []byte, name string, field func(num protowire.Number, typ protowire.Type, b []byte) (int, error)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return &DecodeError{name, "malformed protobuf: " + protowire.ParseError(n).Error()}
		}
		b = b[n:]
		m, err := field(num, typ, b)
		if err != nil {
			var de *DecodeError
			if errors.As(err, &de) {
				return err
			}
			if errors.Is(err, errUnknownField) {
				return &DecodeError{name, fmt.Sprintf("unknown field %d (wire type %d)", num, typ)}
			}
			return &DecodeError{fmt.Sprintf("%s.%d", name, num), err.Error()}
		}
		if m < 0 {
			return &DecodeError{fmt.Sprintf("%s.%d", name, num), "malformed protobuf: " + protowire.ParseError(m).Error()}
		}
		b = b[m:]
	}
	return nil
}

// str reads a length-delimited UTF-8 string, as protobuf-java checks proto3
// strings.
func (d *decoder) str(b []byte) (string, int, error) {
	v, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return "", n, nil
	}
	if !utf8.Valid(v) {
		return "", 0, errors.New("string is not valid UTF-8")
	}
	return string(v), n, nil
}

func (d *decoder) fatContract(b []byte, c *Contract) error {
	const msg = "FatContractInstance"
	var seen fieldSet
	var arg, keyMsg []byte
	var hasTemplate, hasKey bool
	var nonMaintainerSigs, nonSigStakeholders []string
	err := d.message(b, msg, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case fContractID:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return n, nil
			}
			cid, err := value.ParseContractID(hex.EncodeToString(v))
			if err != nil {
				return 0, fmt.Errorf("contract_id: %w", err)
			}
			c.ID = cid
			return n, nil
		case fPackageName:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			s, n, err := d.str(b)
			c.PackageName = s
			return n, err
		case fTemplateID:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return n, nil
			}
			hasTemplate = true
			id, err := d.identifier(v)
			c.TemplateID = id
			return n, err
		case fCreateArg:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			arg = v
			return n, nil
		case fNonMaintainerSigs, fNonSigStakeholders:
			if typ != protowire.BytesType {
				return 0, errUnknownField
			}
			s, n, err := d.str(b)
			if num == fNonMaintainerSigs {
				nonMaintainerSigs = append(nonMaintainerSigs, s)
			} else {
				nonSigStakeholders = append(nonSigStakeholders, s)
			}
			return n, err
		case fCreatedAt:
			if err := seen.once(num, typ, protowire.Fixed64Type); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeFixed64(b)
			c.CreatedAt = value.Timestamp(int64(v))
			return n, nil
		case fAuthenticationData:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			c.AuthenticationData = slices.Clone(v)
			return n, nil
		case fPackageVersion:
			switch typ {
			case protowire.VarintType:
				_, n := protowire.ConsumeVarint(b)
				return n, nil
			case protowire.BytesType: // packed
				_, n := protowire.ConsumeBytes(b)
				return n, nil
			}
			return 0, errUnknownField
		case fKeyWithMaintainers:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			keyMsg, hasKey = v, true
			return n, nil
		}
		return 0, errUnknownField
	})
	if err != nil {
		return err
	}
	if c.ID == "" {
		return &DecodeError{msg + ".contract_id", "missing"}
	}
	if c.PackageName == "" {
		return &DecodeError{msg + ".package_name", "packageName must not be empty"}
	}
	if !validPackageName(c.PackageName) {
		return &DecodeError{msg + ".package_name", fmt.Sprintf("invalid package name %q", clip(c.PackageName))}
	}
	if !hasTemplate {
		return &DecodeError{msg + ".template_id", "missing"}
	}
	if c.Argument, err = DecodeValue(arg); err != nil {
		return &DecodeError{msg + ".create_arg", err.Error()}
	}
	var maintainers []string
	if hasKey {
		if c.Version == SerializationV1 {
			return &DecodeError{msg + ".contract_key_with_maintainers", "a contract key needs serialization version 2 or dev, not 2.1"}
		}
		k, err := d.key(keyMsg)
		if err != nil {
			return err
		}
		c.Key = k
		maintainers = k.Maintainers
	}
	if nonMaintainerSigs, err = strictlySortedParties(nonMaintainerSigs); err != nil {
		return &DecodeError{msg + ".non_maintainer_signatories", err.Error()}
	}
	if len(maintainers) == 0 && len(nonMaintainerSigs) == 0 {
		return &DecodeError{msg, "maintainers or non_maintainer_signatories should be non empty"}
	}
	if nonSigStakeholders, err = strictlySortedParties(nonSigStakeholders); err != nil {
		return &DecodeError{msg + ".non_signatory_stakeholders", err.Error()}
	}
	for _, p := range nonMaintainerSigs {
		if _, found := slices.BinarySearch(maintainers, p); found {
			return &DecodeError{msg, fmt.Sprintf("party %s is declared as maintainer and nonMaintainerSignatory", p)}
		}
	}
	c.Signatories = sortedSet(append(slices.Clone(maintainers), nonMaintainerSigs...))
	for _, p := range nonSigStakeholders {
		if _, found := slices.BinarySearch(c.Signatories, p); found {
			return &DecodeError{msg, fmt.Sprintf("party %s is declared as signatory and nonSignatoryStakeholder", p)}
		}
	}
	c.Stakeholders = sortedSet(append(slices.Clone(c.Signatories), nonSigStakeholders...))
	if c.CreatedAt != CreatedAtNow && (c.CreatedAt < value.MinTimestamp || c.CreatedAt > value.MaxTimestamp) {
		return &DecodeError{msg + ".created_at", fmt.Sprintf("out of bound Timestamp %d", int64(c.CreatedAt))}
	}
	return nil
}

func strictlySortedParties(ps []string) ([]string, error) {
	for i, p := range ps {
		if !value.ValidParty(p) {
			return nil, fmt.Errorf("Cannot decode party: invalid party %q", clip(p))
		}
		if i > 0 && ps[i-1] >= p {
			return nil, fmt.Errorf("parties are not strictly sorted: %q after %q", clip(p), clip(ps[i-1]))
		}
	}
	return ps, nil
}

func (d *decoder) identifier(b []byte) (value.Identifier, error) {
	const msg = "FatContractInstance.template_id"
	var id value.Identifier
	var seen fieldSet
	var module, name []string
	err := d.message(b, msg, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case fIdentifierPackageID:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			s, n, err := d.str(b)
			id.PackageID = s
			return n, err
		case fIdentifierModule, fIdentifierName:
			if typ != protowire.BytesType {
				return 0, errUnknownField
			}
			s, n, err := d.str(b)
			if num == fIdentifierModule {
				module = append(module, s)
			} else {
				name = append(name, s)
			}
			return n, err
		}
		return 0, errUnknownField
	})
	if err != nil {
		return id, err
	}
	if !validPackageID(id.PackageID) {
		return id, &DecodeError{msg, fmt.Sprintf("Invalid package id '%s'", clip(id.PackageID))}
	}
	if len(module) == 0 || !allNames(module) {
		return id, &DecodeError{msg, fmt.Sprintf("Invalid module segments %q", module)}
	}
	if len(name) == 0 || !allNames(name) {
		return id, &DecodeError{msg, fmt.Sprintf("Invalid name segments %q", name)}
	}
	id.ModuleName = strings.Join(module, ".")
	id.EntityName = strings.Join(name, ".")
	return id, nil
}

func (d *decoder) key(b []byte) (*Key, error) {
	const msg = "FatContractInstance.contract_key_with_maintainers"
	var seen fieldSet
	var keyBytes, hash []byte
	var maintainers []string
	err := d.message(b, msg, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		switch num {
		case fKeyValue, fKeyHash:
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			if num == fKeyValue {
				keyBytes = v
			} else {
				hash = v
			}
			return n, nil
		case fKeyMaintainers:
			if typ != protowire.BytesType {
				return 0, errUnknownField
			}
			s, n, err := d.str(b)
			maintainers = append(maintainers, s)
			return n, err
		}
		return 0, errUnknownField
	})
	if err != nil {
		return nil, err
	}
	k := &Key{}
	if k.Value, err = DecodeValue(keyBytes); err != nil {
		return nil, &DecodeError{msg + ".key", err.Error()}
	}
	for _, m := range maintainers {
		if !value.ValidParty(m) {
			return nil, &DecodeError{msg + ".maintainers", fmt.Sprintf("Cannot decode party: invalid party %q", clip(m))}
		}
	}
	k.Maintainers = sortedSet(maintainers)
	if len(k.Maintainers) == 0 {
		return nil, &DecodeError{msg, "key without maintainers"}
	}
	if len(hash) != len(k.Hash) {
		return nil, &DecodeError{msg + ".hash", fmt.Sprintf("hash should have 32 bytes, got %d", len(hash))}
	}
	copy(k.Hash[:], hash)
	return k, nil
}

// DecodeValue reads Canton's value.proto Value (ValueCoder.decodeValue):
// records without labels, variants and enums without ranks, generic maps
// in the order written, text maps sorted (a key given twice is refused).
// Values nest at most 100 levels below the top.
func DecodeValue(b []byte) (value.Value, error) {
	var d decoder
	return d.value(b, 0)
}

func (d *decoder) value(b []byte, nesting int) (value.Value, error) {
	if nesting > maxNesting {
		return nil, fmt.Errorf("Provided proto value to decode exceeds maximum nesting level of %d", maxNesting)
	}
	var out value.Value
	err := d.message(b, "Value", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if out != nil && num >= fUnit && num <= fTextMap {
			return 0, errors.New("more than one member of the oneof sum is set")
		}
		var err error
		switch num {
		case fBool, fInt64, fDate:
			if typ != protowire.VarintType {
				return 0, errUnknownField
			}
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return n, nil
			}
			switch num {
			case fBool:
				if v > 1 {
					return 0, fmt.Errorf("bool %d is neither 0 nor 1", v)
				}
				out = value.Bool(v == 1)
			case fInt64:
				out = value.Int64(protowire.DecodeZigZag(v))
			default:
				out, err = value.DateFromDays(int64(int32(v)))
				if err != nil {
					err = fmt.Errorf("error decoding date: %w", err)
				}
			}
			return n, err
		case fTimestamp:
			if typ != protowire.Fixed64Type {
				return 0, errUnknownField
			}
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return n, nil
			}
			out, err = value.TimestampFromMicros(int64(v))
			if err != nil {
				err = fmt.Errorf("error decoding timestamp: %w", err)
			}
			return n, err
		case fNumeric, fParty, fText:
			if typ != protowire.BytesType {
				return 0, errUnknownField
			}
			s, n, err := d.str(b)
			if n < 0 || err != nil {
				return n, err
			}
			switch num {
			case fNumeric:
				num, err := value.ParseNumeric(s)
				if err != nil {
					return 0, fmt.Errorf("error decoding numeric: %w", err)
				}
				out = num
			case fParty:
				if !value.ValidParty(s) {
					return 0, fmt.Errorf("error decoding party: invalid party %q", clip(s))
				}
				out = value.Party(s)
			default:
				if strings.IndexByte(s, 0) >= 0 {
					return 0, errors.New("text contains null character")
				}
				out = value.Text(s)
			}
			return n, nil
		}
		if typ != protowire.BytesType || num < fUnit || num > fTextMap {
			return 0, errUnknownField
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return n, nil
		}
		out, err = d.compound(num, v, nesting)
		return n, err
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, errors.New("Value not set")
	}
	return out, nil
}

// compound reads the length-delimited members of Value's oneof.
func (d *decoder) compound(num protowire.Number, b []byte, nesting int) (value.Value, error) {
	next := nesting + 1
	switch num {
	case fUnit:
		if err := d.message(b, "Empty", func(protowire.Number, protowire.Type, []byte) (int, error) {
			return 0, errUnknownField
		}); err != nil {
			return nil, err
		}
		return value.Unit{}, nil
	case fContractIDV:
		cid, err := value.ParseContractID(hex.EncodeToString(b))
		if err != nil {
			return nil, fmt.Errorf("error decoding contractId: %w", err)
		}
		return cid, nil
	case fOptional:
		var inner []byte
		var seen fieldSet
		if err := d.message(b, "Optional", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
			if num != 1 {
				return 0, errUnknownField
			}
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			v, n := protowire.ConsumeBytes(b)
			inner = v
			return n, nil
		}); err != nil {
			return nil, err
		}
		// An absent or empty value is the default instance: None.
		if len(inner) == 0 {
			return value.None, nil
		}
		v, err := d.value(inner, next)
		if err != nil {
			return nil, err
		}
		return value.Some(v), nil
	case fList:
		elems := make([]value.Value, 0, countRepeated(b))
		err := d.message(b, "List", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
			if num != 1 || typ != protowire.BytesType {
				return 0, errUnknownField
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return n, nil
			}
			el, err := d.value(v, next)
			elems = append(elems, el)
			return n, err
		})
		if err != nil {
			return nil, err
		}
		return value.NewList(elems...), nil
	case fRecord:
		fields := make([]value.Field, 0, countRepeated(b))
		err := d.message(b, "Record", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
			if num != 1 || typ != protowire.BytesType {
				return 0, errUnknownField
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return n, nil
			}
			fv, err := d.singleValueMessage(v, "Record.Field", next)
			fields = append(fields, value.Field{Value: fv})
			return n, err
		})
		if err != nil {
			return nil, err
		}
		return &value.Record{Fields: fields}, nil
	case fVariant:
		var ctor string
		var arg []byte
		var hasArg bool
		var seen fieldSet
		err := d.message(b, "Variant", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
			switch num {
			case 1:
				if err := seen.once(num, typ, protowire.BytesType); err != nil {
					return 0, err
				}
				s, n, err := d.str(b)
				ctor = s
				return n, err
			case 2:
				if err := seen.once(num, typ, protowire.BytesType); err != nil {
					return 0, err
				}
				v, n := protowire.ConsumeBytes(b)
				arg, hasArg = v, true
				return n, nil
			}
			return 0, errUnknownField
		})
		if err != nil {
			return nil, err
		}
		if !validName(ctor) {
			return nil, fmt.Errorf("error decoding variant constructor: invalid name %q", clip(ctor))
		}
		if !hasArg {
			arg = nil
		}
		v, err := d.value(arg, next)
		if err != nil {
			return nil, err
		}
		return &value.Variant{Constructor: ctor, Value: v}, nil
	case fEnum:
		var ctor string
		var seen fieldSet
		err := d.message(b, "Enum", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
			if num != 1 {
				return 0, errUnknownField
			}
			if err := seen.once(num, typ, protowire.BytesType); err != nil {
				return 0, err
			}
			s, n, err := d.str(b)
			ctor = s
			return n, err
		})
		if err != nil {
			return nil, err
		}
		if !validName(ctor) {
			return nil, fmt.Errorf("error decoding variant constructor: invalid name %q", clip(ctor))
		}
		return &value.Enum{Constructor: ctor}, nil
	case fTextMap:
		entries := make([]value.TextMapEntry, 0, countRepeated(b))
		err := d.message(b, "TextMap", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
			if num != 1 || typ != protowire.BytesType {
				return 0, errUnknownField
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return n, nil
			}
			k, ev, err := d.entry(v, "TextMap.Entry", true, next)
			if err != nil {
				return 0, err
			}
			entries = append(entries, value.TextMapEntry{Key: string(k.(value.Text)), Value: ev})
			return n, nil
		})
		if err != nil {
			return nil, err
		}
		m, err := value.NewTextMap(entries)
		if err != nil {
			return nil, err
		}
		return m, nil
	case fMap:
		entries := make([]value.GenMapEntry, 0, countRepeated(b))
		err := d.message(b, "Map", func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
			if num != 1 || typ != protowire.BytesType {
				return 0, errUnknownField
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return n, nil
			}
			k, ev, err := d.entry(v, "Map.Entry", false, next)
			if err != nil {
				return 0, err
			}
			entries = append(entries, value.GenMapEntry{Key: k, Value: ev})
			return n, nil
		})
		if err != nil {
			return nil, err
		}
		return value.GenMapInOrder(entries), nil
	}
	return nil, errUnknownField
}

// countRepeated counts the fields of a message, so that the slice of a
// list, record or map is allocated once at its size. Each field takes at
// least two bytes, so the count is at most len(b)/2; on malformed input it
// returns what it counted, and the decoding that follows reports the
// error.
func countRepeated(b []byte) int {
	n := 0
	for len(b) > 0 {
		num, typ, m := protowire.ConsumeTag(b)
		if m < 0 {
			break
		}
		k := protowire.ConsumeFieldValue(num, typ, b[m:])
		if k < 0 {
			break
		}
		b = b[m+k:]
		n++
	}
	return n
}

// singleValueMessage reads a message whose only field 1 is a Value
// (Record.Field); a missing value is an unset Value.
func (d *decoder) singleValueMessage(b []byte, name string, nesting int) (value.Value, error) {
	var inner []byte
	var seen fieldSet
	if err := d.message(b, name, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 {
			return 0, errUnknownField
		}
		if err := seen.once(num, typ, protowire.BytesType); err != nil {
			return 0, err
		}
		v, n := protowire.ConsumeBytes(b)
		inner = v
		return n, nil
	}); err != nil {
		return nil, err
	}
	return d.value(inner, nesting)
}

// entry reads a map entry: field 1 the key (a string for a text map, a
// Value otherwise), field 2 the value.
func (d *decoder) entry(b []byte, name string, textKey bool, nesting int) (value.Value, value.Value, error) {
	var key, val []byte
	var textKeyValue string
	var seen fieldSet
	if err := d.message(b, name, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 && num != 2 {
			return 0, errUnknownField
		}
		if err := seen.once(num, typ, protowire.BytesType); err != nil {
			return 0, err
		}
		if num == 1 && textKey {
			s, n, err := d.str(b)
			textKeyValue = s
			return n, err
		}
		v, n := protowire.ConsumeBytes(b)
		if num == 1 {
			key = v
		} else {
			val = v
		}
		return n, nil
	}); err != nil {
		return nil, nil, err
	}
	var k value.Value
	if textKey {
		if strings.IndexByte(textKeyValue, 0) >= 0 {
			return nil, nil, errors.New("text contains null character")
		}
		k = value.Text(textKeyValue)
	} else {
		var err error
		if k, err = d.value(key, nesting); err != nil {
			return nil, nil, err
		}
	}
	v, err := d.value(val, nesting)
	if err != nil {
		return nil, nil, err
	}
	return k, v, nil
}

// validName is Daml-LF's Name: [A-Za-z_$][A-Za-z0-9_$]*, at most 1000
// characters.
func validName(s string) bool {
	if s == "" || len(s) > 1000 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '$':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func allNames(ss []string) bool {
	for _, s := range ss {
		if !validName(s) {
			return false
		}
	}
	return true
}

// validPackageName is Daml-LF's PackageName: 1 to 255 of [A-Za-z0-9_-].
func validPackageName(s string) bool { return matching(s, "-_", 255) }

// validPackageID is Daml-LF's PackageId: 1 to 64 of [A-Za-z0-9_ -].
func validPackageID(s string) bool { return matching(s, "-_ ", 64) }

func matching(s, extra string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}
