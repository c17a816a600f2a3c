package contract

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// Method is how a contract is hashed for its id's unicum
// (Canton's Hash.HashingMethod).
type Method uint8

// The three contract-hash methods, one per V1 id version.
const (
	Legacy          Method = iota // ca10: Hash.hashContractInstance, upgradeFriendly = false
	UpgradeFriendly               // ca11: Hash.hashContractInstance, upgradeFriendly = true
	TypedNormalForm               // ca12: SValueHash.hashContractInstance
)

func (m Method) String() string {
	switch m {
	case Legacy:
		return "Legacy"
	case UpgradeFriendly:
		return "UpgradeFriendly"
	case TypedNormalForm:
		return "TypedNormalForm"
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// Hash is a 32-byte SHA-256 digest.
type Hash [32]byte

func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Header bytes of a contract hash: the value-encoding version and the
// purpose ThinContractInstance.
const (
	versionLegacy          = 0x00
	versionUpgradeFriendly = 0x01
	versionTypedNormalForm = 0x03
	purposeContract        = 0x05
)

// maxNesting is Daml-LF's bound on value nesting (Value.MAXIMUM_NESTING):
// a value nests at most 100 levels below its top.
const maxNesting = tx.MaxValueNesting

// ErrNesting is returned for a value nested deeper than Daml allows, by
// every method.
var ErrNesting = tx.ErrValueNesting

// HashUntyped hashes a contract as Canton's Hash.hashContractInstance does,
// by the Legacy or UpgradeFriendly method, from the argument as stored (no
// types needed; labels, type constructors and ranks are ignored):
//
//	SHA-256(version ‖ 0x05 ‖ str(packageName) ‖ str(packageId)
//	        ‖ dotted(module) ‖ dotted(entity) ‖ value(arg))
//
// with version 0x00 (Legacy) or 0x01 (UpgradeFriendly); see the package
// documentation for the value encodings.
func HashUntyped(m Method, packageName string, template value.Identifier, arg value.Value) (Hash, error) {
	e := hashEncoder{buf: make([]byte, 0, 512)}
	switch m {
	case Legacy:
		e.byte(versionLegacy)
	case UpgradeFriendly:
		e.byte(versionUpgradeFriendly)
	default:
		return Hash{}, fmt.Errorf("HashUntyped: method %s needs the package's types (use HashTyped)", m)
	}
	e.byte(purposeContract)
	e.str(packageName)
	e.str(template.PackageID)
	e.dotted(template.ModuleName)
	e.dotted(template.EntityName)
	var err error
	if m == Legacy {
		err = e.legacy(arg, 0)
	} else {
		err = e.upgradeFriendly(arg, 0)
	}
	if err != nil {
		return Hash{}, err
	}
	return sha256.Sum256(e.buf), nil
}

// HashTyped hashes a contract by the TypedNormalForm method
// (SValueHash.hashContractInstance). arg must be typed: records carry their
// type constructor and labels, variants and enums their rank, numerics the
// scale of their type, and generic maps are in Daml's order — as the
// interpreter builds values, or as Translate returns them.
//
//	SHA-256(0x03 ‖ 0x05 ‖ str(packageName) ‖ dotted(module) ‖ dotted(entity) ‖ typed(arg))
//
// The encoding is tx.HashTypedNormalForm's, which hashes contract keys too.
func HashTyped(packageName, module, entity string, arg value.Value) (Hash, error) {
	h, err := tx.HashTypedNormalForm([]byte{purposeContract}, packageName, module, entity, arg)
	return Hash(h), err
}

type hashEncoder struct{ buf []byte }

func (e *hashEncoder) byte(b byte)             { e.buf = append(e.buf, b) }
func (e *hashEncoder) int32(i int32)           { e.buf = binary.BigEndian.AppendUint32(e.buf, uint32(i)) }
func (e *hashEncoder) int64(i int64)           { e.buf = binary.BigEndian.AppendUint64(e.buf, uint64(i)) }
func (e *hashEncoder) bytes(b []byte)          { e.int32(int32(len(b))); e.buf = append(e.buf, b...) }
func (e *hashEncoder) str(s string)            { e.int32(int32(len(s))); e.buf = append(e.buf, s...) }
func (e *hashEncoder) bool(b bool)             { e.byte(boolByte(b)) }
func (e *hashEncoder) numeric(n value.Numeric) { e.bytes(tx.JavaBytes(n.Unscaled())) }

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// dotted writes a dotted name as its number of segments and each segment.
func (e *hashEncoder) dotted(name string) {
	e.int32(int32(strings.Count(name, ".") + 1))
	for seg := range strings.SplitSeq(name, ".") {
		e.str(seg)
	}
}

func (e *hashEncoder) cid(c value.ContractID) error {
	b, err := hex.DecodeString(string(c))
	if err != nil {
		return fmt.Errorf("contract id %q is not hex", clip(string(c)))
	}
	e.bytes(b)
	return nil
}

// scalar writes the values whose encoding is the same in the Legacy and
// UpgradeFriendly methods; ok is false for the others.
func (e *hashEncoder) scalar(v value.Value) (ok bool, err error) {
	switch x := v.(type) {
	case value.Unit:
		e.byte(0)
	case value.Bool:
		e.bool(bool(x))
	case value.Int64:
		e.int64(int64(x))
	case value.Numeric:
		e.numeric(x)
	case value.Timestamp:
		e.int64(int64(x))
	case value.Date:
		e.int32(int32(x))
	case value.Party:
		e.str(string(x))
	case value.Text:
		e.str(string(x))
	case value.ContractID:
		return true, e.cid(x)
	case *value.Enum:
		e.str(x.Constructor)
	default:
		return false, nil
	}
	return true, nil
}

// legacy writes v as the Legacy method does: an Optional is an int 0 or 1
// then the value, a record its number of fields then each field.
func (e *hashEncoder) legacy(v value.Value, depth int) error {
	if depth > maxNesting {
		return ErrNesting
	}
	if ok, err := e.scalar(v); ok || err != nil {
		return err
	}
	switch x := v.(type) {
	case value.Optional:
		if x.Value == nil {
			e.int32(0)
			return nil
		}
		e.int32(1)
		return e.legacy(x.Value, depth+1)
	case *value.Record:
		e.int32(int32(len(x.Fields)))
		for _, f := range x.Fields {
			if err := e.legacy(f.Value, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return e.collection(v, depth, e.legacy)
}

// collection writes lists, maps and variants, whose encoding is the same
// in both untyped methods but for the elements, written by elem.
func (e *hashEncoder) collection(v value.Value, depth int, elem func(value.Value, int) error) error {
	switch x := v.(type) {
	case *value.List:
		e.int32(int32(x.Len()))
		for el := range x.All() {
			if err := elem(el, depth+1); err != nil {
				return err
			}
		}
	case *value.TextMap:
		e.int32(int32(x.Len()))
		for _, en := range x.Entries() {
			e.str(en.Key)
			if err := elem(en.Value, depth+1); err != nil {
				return err
			}
		}
	case *value.GenMap:
		e.int32(int32(x.Len()))
		for _, en := range x.Entries() {
			if err := elem(en.Key, depth+1); err != nil {
				return err
			}
			if err := elem(en.Value, depth+1); err != nil {
				return err
			}
		}
	case *value.Variant:
		e.str(x.Constructor)
		return elem(x.Value, depth+1)
	default:
		return errNotSerializable(v)
	}
	return nil
}

// upgradeFriendly writes v as the UpgradeFriendly method does: an Optional
// is a byte 0 or 1 then the value; a record writes, for each field whose
// value is not a default (see field), its 0-based index and the value,
// then 0xFF.
func (e *hashEncoder) upgradeFriendly(v value.Value, depth int) error {
	if depth > maxNesting {
		return ErrNesting
	}
	if ok, err := e.scalar(v); ok || err != nil {
		return err
	}
	switch x := v.(type) {
	case value.Optional:
		if x.Value == nil {
			e.byte(0)
			return nil
		}
		e.byte(1)
		return e.upgradeFriendly(x.Value, depth+1)
	case *value.Record:
		return e.ufRecord(x, depth)
	}
	return e.collection(v, depth, e.upgradeFriendly)
}

// ufRecord writes a record by the UpgradeFriendly method. Fields holding a
// default — 0, 0.0, "", false, (), the epoch, None, [] or an empty map —
// are left out; a Some field writes its content without the optional's
// tag; and, as Canton does (its addRecord), a non-empty map is written
// without its field index.
func (e *hashEncoder) ufRecord(r *value.Record, depth int) error {
	for i, f := range r.Fields {
		index := func() { e.int32(int32(i)) }
		var err error
		switch x := f.Value.(type) {
		case value.Unit:
		case value.Bool:
			if x {
				index()
				e.byte(1)
			}
		case value.Int64:
			if x != 0 {
				index()
				e.int64(int64(x))
			}
		case value.Numeric:
			if !x.IsZero() {
				index()
				e.numeric(x)
			}
		case value.Text:
			if x != "" {
				index()
				e.str(string(x))
			}
		case value.Timestamp:
			if x != 0 {
				index()
				e.int64(int64(x))
			}
		case value.Date:
			if x != 0 {
				index()
				e.int32(int32(x))
			}
		case value.Party:
			index()
			e.str(string(x))
		case *value.Enum:
			index()
			e.str(x.Constructor)
		case value.ContractID:
			index()
			err = e.cid(x)
		case *value.Record, *value.Variant:
			index()
			err = e.upgradeFriendly(x, depth+1)
		case *value.List:
			if x.Len() > 0 {
				index()
				err = e.upgradeFriendly(x, depth+1)
			}
		case value.Optional:
			if x.Value != nil {
				index()
				err = e.upgradeFriendly(x.Value, depth+2)
			}
		case *value.TextMap:
			if x.Len() > 0 {
				err = e.upgradeFriendly(x, depth+1)
			}
		case *value.GenMap:
			if x.Len() > 0 {
				err = e.upgradeFriendly(x, depth+1)
			}
		default:
			err = errNotSerializable(f.Value)
		}
		if err != nil {
			return err
		}
	}
	e.byte(0xff)
	return nil
}

// errNotSerializable refuses a value a contract cannot hold: a function,
// struct, Any or type representation, or no value at all (nil).
func errNotSerializable(v value.Value) error {
	if v == nil {
		return errors.New("a value is missing (nil)")
	}
	return fmt.Errorf("a %s is not serializable and cannot be part of a contract", v.Kind())
}
