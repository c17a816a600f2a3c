package contract

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/value"
)

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

// repeated walks a message whose only field is 1, a repeated message (a
// List, Record, TextMap or Map), calling each with every element's bytes.
func (d *decoder) repeated(b []byte, name string, each func(v []byte) error) error {
	return d.message(b, name, func(num protowire.Number, typ protowire.Type, b []byte) (int, error) {
		if num != 1 || typ != protowire.BytesType {
			return 0, errUnknownField
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return n, nil
		}
		return n, each(v)
	})
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
			//lint:ignore ST1005 Canton's message, word for word
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
		//lint:ignore ST1005 Canton's message, word for word
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
		//lint:ignore ST1005 Canton's message, word for word
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
		err := d.repeated(b, "List", func(v []byte) error {
			el, err := d.value(v, next)
			elems = append(elems, el)
			return err
		})
		if err != nil {
			return nil, err
		}
		return value.NewList(elems...), nil
	case fRecord:
		fields := make([]value.Field, 0, countRepeated(b))
		err := d.repeated(b, "Record", func(v []byte) error {
			fv, err := d.singleValueMessage(v, "Record.Field", next)
			fields = append(fields, value.Field{Value: fv})
			return err
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
		err := d.repeated(b, "TextMap", func(v []byte) error {
			k, ev, err := d.entry(v, "TextMap.Entry", true, next)
			if err != nil {
				return err
			}
			entries = append(entries, value.TextMapEntry{Key: string(k.(value.Text)), Value: ev})
			return nil
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
		err := d.repeated(b, "Map", func(v []byte) error {
			k, ev, err := d.entry(v, "Map.Entry", false, next)
			if err != nil {
				return err
			}
			entries = append(entries, value.GenMapEntry{Key: k, Value: ev})
			return nil
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
