package hashing

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// field is one decoded protobuf field: its number and either the bytes of a
// length-delimited value or the integer of a varint or fixed-width value.
type field struct {
	num   protowire.Number
	typ   protowire.Type
	bytes []byte
	int   uint64
}

// reader walks the fields of one protobuf message.
type reader struct {
	b []byte
}

// next returns the next field; ok is false at the end of the message. It is
// read for callers off the hot paths.
func (r *reader) next() (f field, ok bool, err error) {
	ok, err = r.read(&f)
	return f, ok, err
}

// read writes the next field into *f; ok is false at the end of the
// message. The fast paths cover a one-byte tag with a length of one or two
// bytes, or with a one-byte varint, which is what most fields of a prepared
// transaction look like; everything else goes through nextSlow. Hot loops
// use read rather than next: a field returned by value is stored piecewise
// and then copied whole, and the processor cannot forward those narrow
// stores to the wide load, which costs a stall per field.
func (r *reader) read(f *field) (ok bool, err error) {
	if tag, p, rest, ok := lenField(r.b); ok && tag >= 8 {
		r.b = rest
		f.num, f.typ, f.bytes, f.int = protowire.Number(tag>>3), protowire.BytesType, p, 0
		return true, nil
	}
	if b := r.b; len(b) >= 2 && b[0] >= 8 && b[0] < 0x80 && b[0]&7 == 0 && b[1] < 0x80 {
		r.b = b[2:]
		f.num, f.typ, f.bytes, f.int = protowire.Number(b[0]>>3), protowire.VarintType, nil, uint64(b[1])
		return true, nil
	}
	return r.nextSlow(f)
}

func (r *reader) nextSlow(f *field) (ok bool, err error) {
	*f = field{}
	if len(r.b) == 0 {
		return false, nil
	}
	num, typ, n := protowire.ConsumeTag(r.b)
	if n < 0 {
		return false, malformed("bad field tag: %v", protowire.ParseError(n))
	}
	if num > protowire.MaxValidNumber {
		return false, malformed("field number %d is above the protobuf maximum", num)
	}
	r.b = r.b[n:]
	f.num, f.typ = num, typ
	switch typ {
	case protowire.VarintType:
		f.int, n = protowire.ConsumeVarint(r.b)
	case protowire.Fixed64Type:
		f.int, n = protowire.ConsumeFixed64(r.b)
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(r.b)
		f.int = uint64(v)
	case protowire.BytesType:
		f.bytes, n = protowire.ConsumeBytes(r.b)
	default:
		n = protowire.ConsumeFieldValue(num, typ, r.b)
	}
	if n < 0 {
		*f = field{}
		return false, malformed("field %d: %v", num, protowire.ParseError(n))
	}
	r.b = r.b[n:]
	return true, nil
}

// repeated returns the payload of the next occurrence of the repeated
// message field num, skipping other fields; ok is false at the end.
func (r *reader) repeated(num protowire.Number, name string) (payload []byte, ok bool, err error) {
	var f field
	for len(r.b) > 0 {
		if tag, p, rest, ok := lenField(r.b); ok && protowire.Number(tag>>3) == num {
			r.b = rest
			return p, true, nil
		}
		ok, err := r.read(&f)
		if err != nil || !ok {
			return nil, false, err
		}
		if f.num != num {
			continue
		}
		if err := want(f, protowire.BytesType, name); err != nil {
			return nil, false, err
		}
		return f.bytes, true, nil
	}
	return nil, false, nil
}

// seen tracks which singular fields of a message were already read, so that
// a field appearing twice is refused instead of merged or overwritten.
type seen uint64

func (s *seen) once(num protowire.Number, name string) error {
	bit := uint64(1) << (uint(num) & 63)
	if *s&seen(bit) != 0 {
		return errorf("field %s appears more than once", name)
	}
	*s |= seen(bit)
	return nil
}

// want checks the wire type of a known field.
func want(f field, typ protowire.Type, name string) error {
	if f.typ != typ {
		return malformed("field %s has wire type %d, want %d", name, f.typ, typ)
	}
	return nil
}

// The three shapes of known field, each checked once.
func (s *seen) bytesField(f field, name string) ([]byte, error) {
	if err := want(f, protowire.BytesType, name); err != nil {
		return nil, err
	}
	return f.bytes, s.once(f.num, name)
}

func (s *seen) varintField(f field, name string) (uint64, error) {
	if err := want(f, protowire.VarintType, name); err != nil {
		return 0, err
	}
	return f.int, s.once(f.num, name)
}

func repeatedBytes(f field, name string) ([]byte, error) {
	return f.bytes, want(f, protowire.BytesType, name)
}

// boolValue decodes a proto bool; only 0 and 1 are canonical.
func boolValue(v uint64, name string) (bool, error) {
	switch v {
	case 0:
		return false, nil
	case 1:
		return true, nil
	}
	return false, errorf("%s: bool encoded as %d", name, v)
}

// wellFormed checks that b parses as a protobuf message, for embedded
// messages whose content is not hashed: the participant's decoder refuses
// them when malformed, so the hasher must too.
func wellFormed(b []byte) error {
	r := reader{b}
	for {
		_, ok, err := r.next()
		if err != nil || !ok {
			return err
		}
	}
}

// lenField splits a length-delimited field with a one-byte tag and a length
// of one or two bytes off the front of b: the shape of nearly every nested
// value, record field and list element. It is small enough to be inlined.
// ok is false for any other shape (and for fields of fewer than three
// bytes), and the caller then reads b with the general reader, which also
// produces the errors. The tag may name field 0, which no message has:
// callers compare it with the tags they expect. The payload's capacity runs
// on into the rest of b (a three-index slice would not inline): never
// append to it.
func lenField(b []byte) (tag byte, payload, rest []byte, ok bool) {
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
