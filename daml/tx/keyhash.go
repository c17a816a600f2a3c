package tx

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ledger-cli/ledger/daml/value"
)

// ErrContractIDInKey is KeyHash's error for a key holding a contract id,
// which Canton forbids (ContractIdInContractKey).
var ErrContractIDInKey = errors.New("contract ids are not supported in contract keys")

// MaxValueNesting is Daml-LF's bound on value nesting
// (Value.MAXIMUM_NESTING): a value nests at most 100 levels below its top.
const MaxValueNesting = 100

// ErrValueNesting is returned for a value nested deeper than Daml allows.
var ErrValueNesting = fmt.Errorf("value nests deeper than %d levels", MaxValueNesting)

// KeyHash is the hash of a contract key as Canton 3.5 computes it
// (SValueHash.assertHashContractKey): SHA-256 of
//
//	0x03 (encoding version: typed normal form) ‖ 0x09 (purpose: contract key)
//	‖ 0x01 ‖ string(package name) ‖ qualified name of the template ‖ value(key)
//
// (see HashTypedNormalForm). A key holding a contract id has no hash
// (ErrContractIDInKey).
func KeyHash(packageName, module, entity string, key value.Value) (Hash, error) {
	return HashTypedNormalForm([]byte{0x09, 0x01}, packageName, module, entity, key)
}

// HashTypedNormalForm is SHA-256 of
//
//	0x03 (encoding version: typed normal form) ‖ purpose
//	‖ string(package name) ‖ qualified name of the template ‖ value(v)
//
// as Canton's SValueHash hashes contract keys (purpose 0x09 0x01) and
// contracts of ids version ca12 (purpose 0x05, package contract), where a
// string is its UTF-8 length (4-byte big-endian) then its bytes, a dotted
// name is its number of segments (4 bytes) then each as a string, a
// qualified name the module's dotted name then the entity's, and a value
// is a tag byte then its content:
//
//	Int64 0 ‖ long           Numeric 1 ‖ bytes(unscaled)   Text 2 ‖ string
//	Timestamp 3 ‖ long µs    Party 4 ‖ string             Bool 5 ‖ 0/1
//	Unit 6                   Date 7 ‖ int days
//	Record 8 ‖ qname ‖ (string(label) ‖ value)* ‖ 0xff, trailing None fields left out
//	Variant 9 ‖ qname ‖ string(constructor) ‖ int(rank) ‖ value
//	Enum 10 ‖ qname ‖ string(constructor) ‖ int(rank)
//	List 11 ‖ int(n) ‖ value*    Optional 12 ‖ 0 | 1 ‖ value
//	TextMap 13 ‖ int(n) ‖ (string ‖ value)*    GenMap 14 ‖ int(n) ‖ (value ‖ value)*
//	ContractId 15 ‖ bytes(id)  (a key's purpose refuses it: ErrContractIDInKey)
//
// bytes(unscaled) is the length-prefixed two's-complement big-endian form
// of the unscaled integer (Java's BigInteger.toByteArray, JavaBytes): the
// scale is not hashed. Type constructors hash without their package, so a
// value keeps its hash across package versions. v must be typed: records
// carry their type constructor and labels, variants and enums their rank,
// generic maps are in Daml's order; it nests at most MaxValueNesting
// levels (ErrValueNesting).
func HashTypedNormalForm(purpose []byte, packageName, module, entity string, v value.Value) (Hash, error) {
	e := typedEncoder{buf: make([]byte, 0, 512), key: len(purpose) > 0 && purpose[0] == 0x09}
	e.buf = append(append(e.buf, 0x03), purpose...)
	e.str(packageName)
	e.dotted(module)
	e.dotted(entity)
	if err := e.value(v, 0); err != nil {
		return Hash{}, err
	}
	return sha256.Sum256(e.buf), nil
}

// Tags of the typed normal form (SValueHash).
const (
	tagInt64 = iota
	tagNumeric
	tagText
	tagTimestamp
	tagParty
	tagBool
	tagUnit
	tagDate
	tagRecord
	tagVariant
	tagEnum
	tagList
	tagOptional
	tagTextMap
	tagGenMap
	tagContractID
)

// errUntyped is returned for a value without its type.
var errUntyped = errors.New("value has no type constructor: translate it by its type first (Translate)")

type typedEncoder struct {
	buf []byte
	key bool // a contract key: contract ids are refused
}

func (e *typedEncoder) int32(i int32) { e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(i)) }
func (e *typedEncoder) int64(i int64) { e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(i)) }

func (e *typedEncoder) bytes(b []byte) {
	e.int32(int32(len(b)))
	e.buf = append(e.buf, b...)
}

func (e *typedEncoder) str(s string) {
	e.int32(int32(len(s)))
	e.buf = append(e.buf, s...)
}

// dotted writes a dotted name as its count of segments and each segment,
// cut in place: it runs for every record and variant a contract hash
// meets, where an iterator's closure per name showed in profiles.
func (e *typedEncoder) dotted(name string) {
	e.int32(int32(strings.Count(name, ".") + 1))
	for {
		i := strings.IndexByte(name, '.')
		if i < 0 {
			e.str(name)
			return
		}
		e.str(name[:i])
		name = name[i+1:]
	}
}

func (e *typedEncoder) typeCon(id *value.Identifier) {
	e.dotted(id.ModuleName)
	e.dotted(id.EntityName)
}

func (e *typedEncoder) value(v value.Value, depth int) error {
	if depth > MaxValueNesting {
		return ErrValueNesting
	}
	switch x := v.(type) {
	case value.Unit:
		e.buf = append(e.buf, tagUnit)
	case value.Bool:
		b := byte(0)
		if x {
			b = 1
		}
		e.buf = append(e.buf, tagBool, b)
	case value.Int64:
		e.buf = append(e.buf, tagInt64)
		e.int64(int64(x))
	case value.Date:
		e.buf = append(e.buf, tagDate)
		e.int32(int32(x))
	case value.Timestamp:
		e.buf = append(e.buf, tagTimestamp)
		e.int64(int64(x))
	case value.Numeric:
		e.buf = append(e.buf, tagNumeric)
		e.bytes(JavaBytes(x.Unscaled()))
	case value.Party:
		e.buf = append(e.buf, tagParty)
		e.str(string(x))
	case value.Text:
		e.buf = append(e.buf, tagText)
		e.str(string(x))
	case value.ContractID:
		if e.key {
			return ErrContractIDInKey
		}
		b, err := hex.DecodeString(string(x))
		if err != nil {
			return fmt.Errorf("contract id %q is not hex", clip(string(x)))
		}
		e.buf = append(e.buf, tagContractID)
		e.bytes(b)
	case value.Optional:
		if x.Value == nil {
			e.buf = append(e.buf, tagOptional, 0)
			return nil
		}
		e.buf = append(e.buf, tagOptional, 1)
		return e.value(x.Value, depth+1)
	case *value.List:
		e.buf = append(e.buf, tagList)
		e.int32(int32(x.Len()))
		for el := range x.All() {
			if err := e.value(el, depth+1); err != nil {
				return err
			}
		}
	case *value.TextMap:
		e.buf = append(e.buf, tagTextMap)
		e.int32(int32(x.Len()))
		for _, en := range x.Entries() {
			e.str(en.Key)
			if err := e.value(en.Value, depth+1); err != nil {
				return err
			}
		}
	case *value.GenMap:
		e.buf = append(e.buf, tagGenMap)
		e.int32(int32(x.Len()))
		for _, en := range x.Entries() {
			if err := e.value(en.Key, depth+1); err != nil {
				return err
			}
			if err := e.value(en.Value, depth+1); err != nil {
				return err
			}
		}
	case *value.Record:
		if x.TypeCon == nil {
			return errUntyped
		}
		e.buf = append(e.buf, tagRecord)
		e.typeCon(x.TypeCon)
		n := len(x.Fields)
		for n > 0 {
			if o, ok := x.Fields[n-1].Value.(value.Optional); !ok || o.Value != nil {
				break
			}
			n--
		}
		for _, f := range x.Fields[:n] {
			if f.Label == "" {
				return errUntyped
			}
			e.str(f.Label)
			if err := e.value(f.Value, depth+1); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, 0xff)
	case *value.Variant:
		if x.TypeCon == nil {
			return errUntyped
		}
		e.buf = append(e.buf, tagVariant)
		e.typeCon(x.TypeCon)
		e.str(x.Constructor)
		e.int32(int32(x.Rank))
		return e.value(x.Value, depth+1)
	case *value.Enum:
		if x.TypeCon == nil {
			return errUntyped
		}
		e.buf = append(e.buf, tagEnum)
		e.typeCon(x.TypeCon)
		e.str(x.Constructor)
		e.int32(int32(x.Rank))
	case nil:
		return errors.New("a value is missing (nil)")
	default:
		what := "a contract"
		if e.key {
			what = "a contract key"
		}
		return fmt.Errorf("a %s is not serializable and cannot be part of %s", v.Kind(), what)
	}
	return nil
}

// JavaBytes is Java's BigInteger.toByteArray: the shortest two's-complement
// big-endian bytes of x, at least one.
func JavaBytes(x *big.Int) []byte {
	y := x
	if x.Sign() < 0 {
		y = new(big.Int).Not(x) // -x - 1
	}
	b := y.FillBytes(make([]byte, y.BitLen()/8+1))
	if x.Sign() < 0 {
		for i := range b {
			b[i] = ^b[i]
		}
	}
	return b
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
