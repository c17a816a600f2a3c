package contract

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

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
