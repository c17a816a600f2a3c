package archive

import (
	"fmt"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one decoded protobuf field: its number, wire type and value.
// Varint and fixed-width values are in u; length-delimited ones in b.
type field struct {
	num protowire.Number
	typ protowire.Type
	u   uint64
	b   []byte
}

// fieldHeader decodes the start of a field with a one-byte tag (a field
// number from 1 to 15) and a varint of one or two bytes: its number, wire
// type, the varint (the value or the length) and the bytes read. n is 0 for
// any other field, which nextField decodes.
func fieldHeader(b []byte) (num protowire.Number, typ protowire.Type, v uint64, n int) {
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

// fieldHeaderAny is fieldHeader for any valid tag and varint, not inlined:
// Expr's sorts from field 16 on have two-byte tags. n is 0 for a field of
// another wire type or a malformed one, which nextField decodes or refuses.
func fieldHeaderAny(b []byte) (num protowire.Number, typ protowire.Type, v uint64, n int) {
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

// nextField decodes the field at the start of b and returns it with the
// rest of b. Groups are refused: no Daml-LF message uses them.
func nextField(b []byte) (field, []byte, error) {
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
			return field{num: num, typ: typ, u: v}, b[n:], nil
		case protowire.BytesType:
			if uint64(len(b)-n) >= v {
				end := n + int(v)
				return field{num: num, typ: typ, b: b[n:end]}, b[end:], nil
			}
		}
	}
slow:
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return field{}, nil, fmt.Errorf("malformed field tag: %w", protowire.ParseError(n))
	}
	b = b[n:]
	f := field{num: num, typ: typ}
	switch typ {
	case protowire.VarintType:
		f.u, n = protowire.ConsumeVarint(b)
	case protowire.Fixed64Type:
		f.u, n = protowire.ConsumeFixed64(b)
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(b)
		f.u = uint64(v)
	case protowire.BytesType:
		f.b, n = protowire.ConsumeBytes(b)
	default:
		return field{}, nil, fmt.Errorf("field %d: unsupported wire type %d", num, typ)
	}
	if n < 0 {
		return field{}, nil, fmt.Errorf("field %d: malformed value: %w", num, protowire.ParseError(n))
	}
	return f, b[n:], nil
}

func (f field) wantType(t protowire.Type) error {
	if f.typ != t {
		return f.typeError(t)
	}
	return nil
}

// typeError is kept out of line so that the checks above inline into their
// callers: they run for nearly every field of a package.
//
//go:noinline
func (f field) typeError(t protowire.Type) error {
	return fmt.Errorf("field %d has wire type %d, want %d", f.num, f.typ, t)
}

// bytes returns a length-delimited value (message, bytes or string).
func (f field) bytes() ([]byte, error) {
	if f.typ != protowire.BytesType {
		return nil, f.typeError(protowire.BytesType)
	}
	return f.b, nil
}

// str returns a string value, which protobuf requires to be UTF-8.
func (f field) str() (string, error) {
	if err := f.wantType(protowire.BytesType); err != nil {
		return "", err
	}
	if !utf8.Valid(f.b) {
		return "", fmt.Errorf("field %d is not valid UTF-8", f.num)
	}
	return string(f.b), nil
}

// int32 returns an int32 or enum value, truncated as protobuf does.
func (f field) int32() (int32, error) {
	if f.typ != protowire.VarintType {
		return 0, f.typeError(protowire.VarintType)
	}
	return int32(f.u), nil
}

func (f field) bool() (bool, error) {
	if f.typ != protowire.VarintType {
		return false, f.typeError(protowire.VarintType)
	}
	return f.u != 0, nil
}

func (f field) sint64() (int64, error) {
	if f.typ != protowire.VarintType {
		return 0, f.typeError(protowire.VarintType)
	}
	return protowire.DecodeZigZag(f.u), nil
}

func (f field) sfixed64() (int64, error) {
	if f.typ != protowire.Fixed64Type {
		return 0, f.typeError(protowire.Fixed64Type)
	}
	return int64(f.u), nil
}

// int32s appends the values of a repeated int32 field, packed or not.
func (f field) int32s(dst []int32) ([]int32, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(dst, int32(f.u)), nil
	case protowire.BytesType:
		b := f.b
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, fmt.Errorf("field %d: malformed packed value: %w", f.num, protowire.ParseError(n))
			}
			dst = append(dst, int32(v))
			b = b[n:]
		}
		return dst, nil
	}
	return nil, fmt.Errorf("field %d has wire type %d, want a varint or packed varints", f.num, f.typ)
}

func unknownField(msg string, f field) error {
	return fmt.Errorf("%s: unknown field %d", msg, f.num)
}

// countFields counts the fields of message b by number, for numbers below
// len(counts), so that repeated fields can be collected into slices of the
// right size. It stops at the first malformed field, which the caller's own
// pass reports.
func countFields(b []byte, counts []int) {
	for len(b) > 0 {
		if num, typ, v, n := fieldHeader(b); n > 0 {
			skip := -1
			switch {
			case typ == protowire.VarintType:
				skip = n
			case typ == protowire.BytesType && uint64(len(b)-n) >= v:
				skip = n + int(v)
			}
			if skip > 0 {
				b = b[skip:]
				if int(num) < len(counts) {
					counts[num]++
				}
				continue
			}
		}
		f, rest, err := nextField(b)
		if err != nil {
			return
		}
		b = rest
		if int(f.num) < len(counts) {
			counts[f.num]++
		}
	}
}

// in names the protobuf message an error was found in: "Expr: …".
func in(message string, err error) error { return fmt.Errorf("%s: %w", message, err) }

// msg is a small message split into its fields by number (1 to 7, the last
// occurrence of a field winning, as protobuf has it).
type msg struct {
	name string
	f    [8]field
	has  [8]bool
}

// split splits b, a message called name with no repeated field, into m;
// fields above 7 are unknown.
func split(b []byte, name string, m *msg) error {
	_, err := splitRep(b, name, 0, m, nil)
	return err
}

// splitRep splits b like split, and appends to reps the values of its
// repeated field, which must be length-delimited. A caller passes a small
// array of its own as reps, so that short lists cost no allocation.
func splitRep(b []byte, name string, repeated protowire.Number, m *msg, reps [][]byte) ([][]byte, error) {
	m.name = name
	for len(b) > 0 {
		// The common case without building a field: a one-byte tag and a
		// value or length of one or two bytes.
		if num, typ, v, n := fieldHeader(b); n > 0 {
			switch {
			case typ == protowire.VarintType && num < 8 && num != repeated:
				m.f[num] = field{num: num, typ: typ, u: v}
				m.has[num] = true
				b = b[n:]
				continue
			case typ == protowire.BytesType && uint64(len(b)-n) >= v && (num < 8 || num == repeated):
				end := n + int(v)
				if num == repeated {
					reps = append(reps, b[n:end])
				} else {
					m.f[num] = field{num: num, typ: typ, b: b[n:end]}
					m.has[num] = true
				}
				b = b[end:]
				continue
			}
		}
		f, rest, err := nextField(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b = rest
		switch {
		case f.num == repeated:
			v, err := f.bytes()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			reps = append(reps, v)
		case f.num >= 1 && f.num < 8:
			m.f[f.num], m.has[f.num] = f, true
		default:
			return nil, unknownField(name, f)
		}
	}
	return reps, nil
}

// int32 returns field n, 0 when absent.
func (m *msg) int32(n int) (int32, error) {
	if !m.has[n] {
		return 0, nil
	}
	v, err := m.f[n].int32()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", m.name, err)
	}
	return v, nil
}

// bytes returns the length-delimited field n, which must be present.
func (m *msg) bytes(n int, what string) ([]byte, error) {
	if !m.has[n] {
		return nil, fmt.Errorf("%s: no %s", m.name, what)
	}
	v, err := m.f[n].bytes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
	return v, nil
}
