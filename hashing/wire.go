package hashing

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/internal/pbwire"
)

// field is one decoded protobuf field, as the wire reader shared with
// daml/archive gives it.
type field = pbwire.Field

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
	if tag, p, rest, ok := pbwire.LenField(r.b); ok && tag >= 8 {
		r.b = rest
		f.Num, f.Type, f.Bytes, f.Int = protowire.Number(tag>>3), protowire.BytesType, p, 0
		return true, nil
	}
	if b := r.b; len(b) >= 2 && b[0] >= 8 && b[0] < 0x80 && b[0]&7 == 0 && b[1] < 0x80 {
		r.b = b[2:]
		f.Num, f.Type, f.Bytes, f.Int = protowire.Number(b[0]>>3), protowire.VarintType, nil, uint64(b[1])
		return true, nil
	}
	return r.nextSlow(f)
}

func (r *reader) nextSlow(f *field) (ok bool, err error) {
	if len(r.b) == 0 {
		*f = field{}
		return false, nil
	}
	got, rest, err := pbwire.Next(r.b)
	if err != nil {
		*f = field{}
		return false, malformed("%v", err)
	}
	*f, r.b = got, rest
	return true, nil
}

// repeated returns the payload of the next occurrence of the repeated
// message field num, skipping other fields; ok is false at the end.
func (r *reader) repeated(num protowire.Number, name string) (payload []byte, ok bool, err error) {
	var f field
	for len(r.b) > 0 {
		if tag, p, rest, ok := pbwire.LenField(r.b); ok && protowire.Number(tag>>3) == num {
			r.b = rest
			return p, true, nil
		}
		ok, err := r.read(&f)
		if err != nil || !ok {
			return nil, false, err
		}
		if f.Num != num {
			continue
		}
		if err := want(f, protowire.BytesType, name); err != nil {
			return nil, false, err
		}
		return f.Bytes, true, nil
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
	if f.Type != typ {
		return malformed("field %s has wire type %d, want %d", name, f.Type, typ)
	}
	return nil
}

// The three shapes of known field, each checked once.
func (s *seen) bytesField(f field, name string) ([]byte, error) {
	if err := want(f, protowire.BytesType, name); err != nil {
		return nil, err
	}
	return f.Bytes, s.once(f.Num, name)
}

func (s *seen) varintField(f field, name string) (uint64, error) {
	if err := want(f, protowire.VarintType, name); err != nil {
		return 0, err
	}
	return f.Int, s.once(f.Num, name)
}

func repeatedBytes(f field, name string) ([]byte, error) {
	return f.Bytes, want(f, protowire.BytesType, name)
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
