// Package pbwire is the one protobuf wire reader of ledger: daml/archive
// decodes Daml-LF archives with it and hashing reads prepared transactions
// with it. A Field is one decoded field; Next reads the field at the start
// of a message, with a fast path for the shape nearly every field has (a
// one-byte tag and a varint or length of one or two bytes); Header and
// LenField are those fast paths alone, small enough to inline into a
// caller's loop.
package pbwire

import (
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field is one decoded protobuf field: its number, wire type and value.
// Varint and fixed-width values are in Int; length-delimited ones (and a
// group's content) in Bytes.
type Field struct {
	Num   protowire.Number
	Type  protowire.Type
	Int   uint64
	Bytes []byte
}

// Header decodes the start of a field with a one-byte tag (a field
// number from 1 to 15) and a varint of one or two bytes: its number, wire
// type, the varint (the value or the length) and the bytes read. n is 0 for
// any other field, which Next decodes.
func Header(b []byte) (num protowire.Number, typ protowire.Type, v uint64, n int) {
	if len(b) < 2 || b[0] >= 0x80 || b[0] < 8 {
		return 0, 0, 0, 0
	}
	v, n = uint64(b[1]), 2
	if v >= 0x80 {
		if len(b) < 3 || b[2] >= 0x80 {
			return 0, 0, 0, 0
		}
		v, n = v&0x7f|uint64(b[2])<<7, 3
	}
	return protowire.Number(b[0] >> 3), protowire.Type(b[0] & 7), v, n
}

// HeaderAny is Header for any valid tag and varint, not inlined:
// Expr's sorts from field 16 on have two-byte tags. n is 0 for a field of
// another wire type or a malformed one, which Next decodes or refuses.
func HeaderAny(b []byte) (num protowire.Number, typ protowire.Type, v uint64, n int) {
	num, typ, n = protowire.ConsumeTag(b)
	if n < 0 || typ != protowire.VarintType && typ != protowire.BytesType {
		return 0, 0, 0, 0
	}
	v, m := protowire.ConsumeVarint(b[n:])
	if m < 0 {
		return 0, 0, 0, 0
	}
	return num, typ, v, n + m
}

// Next decodes the field at the start of b and returns it with the rest of
// b. A group is skipped whole (Type StartGroupType, Bytes its encoding up to
// and with its end tag): a message that expects none refuses it by its wire
// type, and one that keeps unknown fields skips it as protobuf does. A field
// number above protobuf's maximum is refused.
func Next(b []byte) (Field, []byte, error) {
	// Fast path: a one-byte tag and a varint (the value or the length) of
	// one or two bytes, which nearly every field of a package has.
	if len(b) >= 2 && b[0] < 0x80 && b[0] >= 8 {
		num, typ := protowire.Number(b[0]>>3), protowire.Type(b[0]&7)
		v, n := uint64(b[1]), 2
		if v >= 0x80 {
			if len(b) < 3 || b[2] >= 0x80 {
				goto slow
			}
			v, n = v&0x7f|uint64(b[2])<<7, 3
		}
		switch typ {
		case protowire.VarintType:
			return Field{Num: num, Type: typ, Int: v}, b[n:], nil
		case protowire.BytesType:
			if uint64(len(b)-n) >= v {
				end := n + int(v)
				return Field{Num: num, Type: typ, Bytes: b[n:end]}, b[end:], nil
			}
		}
	}
slow:
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return Field{}, nil, fmt.Errorf("malformed field tag: %w", protowire.ParseError(n))
	}
	if num > protowire.MaxValidNumber {
		return Field{}, nil, fmt.Errorf("field number %d is above the protobuf maximum", num)
	}
	b = b[n:]
	f := Field{Num: num, Type: typ}
	switch typ {
	case protowire.VarintType:
		f.Int, n = protowire.ConsumeVarint(b)
	case protowire.Fixed64Type:
		f.Int, n = protowire.ConsumeFixed64(b)
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(b)
		f.Int = uint64(v)
	case protowire.BytesType:
		f.Bytes, n = protowire.ConsumeBytes(b)
	default:
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n >= 0 {
			f.Bytes = b[:n]
		}
	}
	if n < 0 {
		return Field{}, nil, fmt.Errorf("field %d: malformed value: %w", num, protowire.ParseError(n))
	}
	return f, b[n:], nil
}

func (f Field) WantType(t protowire.Type) error {
	if f.Type != t {
		return f.TypeError(t)
	}
	return nil
}

// TypeError is kept out of line so that the checks above inline into their
// callers: they run for nearly every field of a package.
//
//go:noinline
func (f Field) TypeError(t protowire.Type) error {
	return fmt.Errorf("field %d has wire type %d, want %d", f.Num, f.Type, t)
}

// Delimited returns a length-delimited value (message, bytes or string).
func (f Field) Delimited() ([]byte, error) {
	if f.Type != protowire.BytesType {
		return nil, f.TypeError(protowire.BytesType)
	}
	return f.Bytes, nil
}

// Text returns a string value, which protobuf requires to be UTF-8.
func (f Field) Text() (string, error) {
	if err := f.WantType(protowire.BytesType); err != nil {
		return "", err
	}
	if !utf8.Valid(f.Bytes) {
		return "", fmt.Errorf("field %d is not valid UTF-8", f.Num)
	}
	return string(f.Bytes), nil
}

// Int32 returns an int32 or enum value, truncated as protobuf does.
func (f Field) Int32() (int32, error) {
	if f.Type != protowire.VarintType {
		return 0, f.TypeError(protowire.VarintType)
	}
	return int32(f.Int), nil
}

func (f Field) Bool() (bool, error) {
	if f.Type != protowire.VarintType {
		return false, f.TypeError(protowire.VarintType)
	}
	return f.Int != 0, nil
}

func (f Field) Sint64() (int64, error) {
	if f.Type != protowire.VarintType {
		return 0, f.TypeError(protowire.VarintType)
	}
	return protowire.DecodeZigZag(f.Int), nil
}

func (f Field) Sfixed64() (int64, error) {
	if f.Type != protowire.Fixed64Type {
		return 0, f.TypeError(protowire.Fixed64Type)
	}
	return int64(f.Int), nil
}

// Int32s appends the values of a repeated int32 field, packed or not.
func (f Field) Int32s(dst []int32) ([]int32, error) {
	switch f.Type {
	case protowire.VarintType:
		return append(dst, int32(f.Int)), nil
	case protowire.BytesType:
		b := f.Bytes
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, fmt.Errorf("field %d: malformed packed value: %w", f.Num, protowire.ParseError(n))
			}
			dst = append(dst, int32(v))
			b = b[n:]
		}
		return dst, nil
	}
	return nil, fmt.Errorf("field %d has wire type %d, want a varint or packed varints", f.Num, f.Type)
}

// LenField splits a length-delimited field with a one-byte tag and a length
// of one or two bytes off the front of b: the shape of nearly every nested
// value, record field and list element. It is small enough to be inlined.
// ok is false for any other shape (and for fields of fewer than three
// bytes), and the caller then reads b with Next, which also
// produces the errors. The tag may name field 0, which no message has:
// callers compare it with the tags they expect. The payload's capacity runs
// on into the rest of b (a three-index slice would not inline): never
// append to it.
func LenField(b []byte) (tag byte, payload, rest []byte, ok bool) {
	if len(b) < 3 || b[0]&0x87 != 2 {
		return
	}
	n, i := int(b[1]), 2
	if n >= 0x80 {
		if b[2] >= 0x80 {
			return
		}
		n, i = n&0x7f|int(b[2])<<7, 3
	}
	if n > len(b)-i {
		return
	}
	return b[0], b[i : i+n], b[i+n:], true
}
