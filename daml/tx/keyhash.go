package tx

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ledger-cli/ledger/daml/value"
)

// ErrContractIDInKey is KeyHash's error for a key holding a contract id,
// which Canton forbids (ContractIdInContractKey).
var ErrContractIDInKey = errors.New("contract ids are not supported in contract keys")

// KeyHash is the hash of a contract key as Canton 3.5 computes it
// (SValueHash.assertHashContractKey): SHA-256 of
//
//	0x03 (encoding version: typed normal form) ‖ 0x09 (purpose: contract key)
//	‖ 0x01 ‖ string(package name) ‖ qualified name of the template ‖ value(key)
//
// where a string is its UTF-8 length (4-byte big-endian) then its bytes, a
// dotted name is its number of segments (4 bytes) then each as a string, a
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
//
// bytes(unscaled) is the length-prefixed two's-complement big-endian form
// of the unscaled integer (Java's BigInteger.toByteArray): the scale is not
// hashed. Type constructors hash without their package, so a key keeps its
// hash across package versions. A key holding a contract id has no hash
// (ErrContractIDInKey).
func KeyHash(packageName, module, entity string, key value.Value) (Hash, error) {
	var e keyEncoder
	e.buf = append(e.buf, 3, 9, 1)
	e.str(packageName)
	e.dotted(module)
	e.dotted(entity)
	if err := e.value(key); err != nil {
		return Hash{}, err
	}
	return sha256.Sum256(e.buf), nil
}

type keyEncoder struct{ buf []byte }

func (e *keyEncoder) int32(i int32) { e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(i)) }
func (e *keyEncoder) int64(i int64) { e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(i)) }

func (e *keyEncoder) str(s string) {
	e.int32(int32(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *keyEncoder) dotted(name string) {
	e.int32(int32(strings.Count(name, ".") + 1))
	for _, seg := range strings.Split(name, ".") {
		e.str(seg)
	}
}

func (e *keyEncoder) qualified(id *value.Identifier) {
	e.dotted(id.ModuleName)
	e.dotted(id.EntityName)
}

func (e *keyEncoder) value(v value.Value) error {
	switch x := v.(type) {
	case value.Unit:
		e.buf = append(e.buf, 6)
	case value.Bool:
		b := byte(0)
		if x {
			b = 1
		}
		e.buf = append(e.buf, 5, b)
	case value.Int64:
		e.buf = append(e.buf, 0)
		e.int64(int64(x))
	case value.Date:
		e.buf = append(e.buf, 7)
		e.int32(int32(x))
	case value.Timestamp:
		e.buf = append(e.buf, 3)
		e.int64(int64(x))
	case value.Numeric:
		b := javaBytes(x.Unscaled())
		e.buf = append(e.buf, 1)
		e.int32(int32(len(b)))
		e.buf = append(e.buf, b...)
	case value.Party:
		e.buf = append(e.buf, 4)
		e.str(string(x))
	case value.Text:
		e.buf = append(e.buf, 2)
		e.str(string(x))
	case value.ContractID:
		return ErrContractIDInKey
	case value.Optional:
		if x.Value == nil {
			e.buf = append(e.buf, 12, 0)
			return nil
		}
		e.buf = append(e.buf, 12, 1)
		return e.value(x.Value)
	case *value.List:
		e.buf = append(e.buf, 11)
		e.int32(int32(x.Len()))
		for el := range x.All() {
			if err := e.value(el); err != nil {
				return err
			}
		}
	case *value.Record:
		e.buf = append(e.buf, 8)
		e.qualified(x.TypeCon)
		n := len(x.Fields)
		for n > 0 {
			if o, ok := x.Fields[n-1].Value.(value.Optional); !ok || o.Value != nil {
				break
			}
			n--
		}
		for _, f := range x.Fields[:n] {
			e.str(f.Label)
			if err := e.value(f.Value); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, 0xff)
	case *value.Variant:
		e.buf = append(e.buf, 9)
		e.qualified(x.TypeCon)
		e.str(x.Constructor)
		e.int32(int32(x.Rank))
		return e.value(x.Value)
	case *value.Enum:
		e.buf = append(e.buf, 10)
		e.qualified(x.TypeCon)
		e.str(x.Constructor)
		e.int32(int32(x.Rank))
	case *value.TextMap:
		e.buf = append(e.buf, 13)
		e.int32(int32(x.Len()))
		for _, en := range x.Entries() {
			e.str(en.Key)
			if err := e.value(en.Value); err != nil {
				return err
			}
		}
	case *value.GenMap:
		e.buf = append(e.buf, 14)
		e.int32(int32(x.Len()))
		for _, en := range x.Entries() {
			if err := e.value(en.Key); err != nil {
				return err
			}
			if err := e.value(en.Value); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("a %s is not serializable and cannot be part of a contract key", v.Kind())
	}
	return nil
}

// javaBytes is Java's BigInteger.toByteArray: the shortest two's-complement
// big-endian bytes of x, at least one.
func javaBytes(x *big.Int) []byte {
	y := x
	if x.Sign() < 0 {
		y = new(big.Int).Not(x) // -x - 1
	}
	n := y.BitLen()/8 + 1
	b := y.FillBytes(make([]byte, n))
	if x.Sign() < 0 {
		for i := range b {
			b[i] = ^b[i]
		}
	}
	return b
}
