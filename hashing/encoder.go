package hashing

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
	"unicode/utf8"
)

// encoder appends the hash preimage of one node or message to buf and, when
// tracing, records each piece.
type encoder struct {
	buf   []byte
	trace *Trace
	// ids caches identifier encodings by their protobuf bytes: the same
	// template and record ids recur throughout a transaction. Nil when tracing.
	ids map[string][]byte
	// recent holds identifiers found in ids, checked first: a transaction
	// uses few types, and a slot test is cheaper than hashing the id's
	// hundred-odd bytes for the map. Keys are slices of the input.
	recent [idSlots]idSlot
}

// idSlots is the number of recent identifiers an encoder keeps.
const idSlots = 32

type idSlot struct {
	tail     uint64 // the id's last eight bytes, to rule out most mismatches
	key, enc []byte
}

// idSlotOf picks the slot of an identifier of at least eight bytes whose
// last eight bytes are tail.
func idSlotOf(tail uint64, n int) int {
	return int((tail^uint64(n))*0x9e3779b97f4a7c15>>59) & (idSlots - 1)
}

func (e *encoder) section(name string) {
	if e.trace != nil {
		e.trace.Lines = append(e.trace.Lines, TraceLine{Comment: name})
	}
}

// note records the bytes written since start. It is kept out of line so
// that the many inlined primitives do not each reserve stack for a trace
// line in the recursive value encoder's frames.
//
//go:noinline
func (e *encoder) note(start int, comment string) {
	e.trace.Lines = append(e.trace.Lines, TraceLine{Bytes: append([]byte(nil), e.buf[start:]...), Comment: comment})
}

// extend lengthens buf by n bytes, to be written by the caller, and
// returns where they start. Reslicing buf in place stores only its length,
// where append also stores its pointer (with a write-barrier check) and
// capacity on every call.
func (e *encoder) extend(n int) int {
	l := len(e.buf)
	if cap(e.buf)-l < n {
		e.grow(n)
	}
	e.buf = e.buf[:l+n]
	return l
}

// grow makes room for n more bytes in buf.
func (e *encoder) grow(n int) { e.buf = slices.Grow(e.buf, n) }

func (e *encoder) byte1(b byte, comment string) {
	e.buf = append(e.buf, b)
	if e.trace != nil {
		e.note(len(e.buf)-1, comment)
	}
}

// The primitives below are small enough to be inlined into the value
// encoder; their trace lines are written out of line.

func (e *encoder) bool(v bool) { e.flag(v, "true (bool)", "false (bool)") }

func (e *encoder) some(present bool) { e.flag(present, "Some", "None") }

// flag writes one byte, 1 or 0, with the trace comment yes or no.
func (e *encoder) flag(v bool, yes, no string) {
	b := byte(0)
	if v {
		b = 1
	}
	e.buf = append(e.buf, b)
	if e.trace != nil {
		if !v {
			yes = no
		}
		e.note(len(e.buf)-1, yes)
	}
}

func (e *encoder) int32(v uint32) {
	e.buf = binary.BigEndian.AppendUint32(e.buf, v)
	if e.trace != nil {
		e.noteInt32(v)
	}
}

func (e *encoder) noteInt32(v uint32) {
	e.note(len(e.buf)-4, strconv.FormatInt(int64(int32(v)), 10)+" (int)")
}

func (e *encoder) int64(v uint64) {
	e.buf = binary.BigEndian.AppendUint64(e.buf, v)
	if e.trace != nil {
		e.noteInt64(v)
	}
}

func (e *encoder) noteInt64(v uint64) {
	e.note(len(e.buf)-8, strconv.FormatInt(int64(v), 10)+" (long)")
}

func (e *encoder) string(s []byte) error {
	if !validUTF8(s) {
		return invalidUTF8(s)
	}
	e.checkedString(s)
	return nil
}

// checkedString writes a string already known to be valid UTF-8.
func (e *encoder) checkedString(s []byte) {
	i := e.extend(4 + len(s))
	b := e.buf[i:]
	binary.BigEndian.PutUint32(b, uint32(len(s)))
	copy(b[4:], s)
	if e.trace != nil {
		e.noteString(s)
	}
}

// validUTF8 is utf8.Valid with a faster path for ASCII text of eight bytes
// or more, which is most of what is hashed (parties, labels, ids): it reads
// eight bytes at a time, the last word overlapping the one before, and
// leaves any text with a non-ASCII byte to utf8.Valid from that word on.
func validUTF8(s []byte) bool {
	const hi = 0x8080808080808080
	if len(s) < 8 {
		if len(s) >= 4 {
			// Two words of four, overlapping when shorter than eight.
			if (binary.LittleEndian.Uint32(s)|binary.LittleEndian.Uint32(s[len(s)-4:]))&0x80808080 == 0 {
				return true
			}
		}
		return utf8.Valid(s)
	}
	i := 0
	for ; i+32 <= len(s); i += 32 {
		w := s[i : i+32]
		if (binary.LittleEndian.Uint64(w)|binary.LittleEndian.Uint64(w[8:])|
			binary.LittleEndian.Uint64(w[16:])|binary.LittleEndian.Uint64(w[24:]))&hi != 0 {
			break
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(s[i:])&hi != 0 {
			// Every byte before i is ASCII, so i starts a rune.
			return utf8.Valid(s[i:])
		}
	}
	if i < len(s) && binary.LittleEndian.Uint64(s[len(s)-8:])&hi != 0 {
		return utf8.Valid(s[i:])
	}
	return true
}

func invalidUTF8(s []byte) error {
	return errorf("string %q is not valid UTF-8; protobuf decoders refuse it", clip(s))
}

func (e *encoder) noteString(s []byte) {
	n := len(e.buf) - len(s)
	e.trace.Lines = append(e.trace.Lines, TraceLine{Bytes: append([]byte(nil), e.buf[n-4:n]...), Comment: strconv.Itoa(len(s)) + " (int)"})
	e.note(n, string(s)+" (string)")
}

// hexID writes a contract id: int32(length of the decoded bytes) ‖ bytes.
// The id is checked and decoded in one pass.
func (e *encoder) hexID(id []byte) error {
	if len(id) == 0 || len(id)%2 != 0 {
		return checkHexID(id)
	}
	e.int32(uint32(len(id) / 2))
	start := e.extend(len(id) / 2)
	dst := e.buf[start:]
	var bad byte
	for i := range dst {
		hi, lo := lowerHex[id[2*i]], lowerHex[id[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo
	}
	if bad > 0x0f {
		e.buf = e.buf[:start-4]
		return checkHexID(id) // names the offending byte
	}
	if e.trace != nil {
		e.note(start, string(id)+" (contractId)")
	}
	return nil
}

// lowerHex maps '0'-'9' and 'a'-'f' to their values and every other byte,
// upper-case hex digits included, to 0xff.
var lowerHex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - 'a' + 10
	}
	return t
}()

// reserveCount writes a placeholder for an int32 count that is known only
// after the elements are written, so that containers are read in one pass.
func (e *encoder) reserveCount() countSlot {
	s := countSlot{pos: len(e.buf)}
	e.buf = append(e.buf, 0, 0, 0, 0)
	if e.trace != nil {
		s.line = len(e.trace.Lines)
		e.trace.Lines = append(e.trace.Lines, TraceLine{})
	}
	return s
}

// fillCount writes n into a reserved slot.
func (e *encoder) fillCount(s countSlot, n int) {
	binary.BigEndian.PutUint32(e.buf[s.pos:], uint32(n))
	if e.trace != nil {
		e.trace.Lines[s.line] = TraceLine{Bytes: append([]byte(nil), e.buf[s.pos:s.pos+4]...), Comment: strconv.Itoa(n) + " (int)"}
	}
}

type countSlot struct{ pos, line int }

// raw writes bytes with no length prefix: seeds and hashes.
func (e *encoder) raw(b []byte, comment string) {
	i := e.extend(len(b))
	copy(e.buf[i:], b)
	if e.trace != nil {
		e.note(i, comment)
	}
}

// digest hashes the preimage written so far.
func (e *encoder) digest() [32]byte { return sha256.Sum256(e.buf) }

// stringList writes a repeated string field; when sorted is true the
// elements must be strictly ascending, as Canton hashes these lists as
// sorted sets.
func (e *encoder) stringList(items [][]byte, sorted bool) error {
	e.int32(uint32(len(items)))
	for i, s := range items {
		if sorted && i > 0 && string(items[i-1]) >= string(s) {
			if string(items[i-1]) == string(s) {
				return errorf("%q is listed twice; the participant hashes this list as a set", s)
			}
			return errorf("%q comes after %q; the participant hashes this list sorted, so the signature would not match", s, items[i-1])
		}
		if err := e.string(s); err != nil {
			return atIndex(err, "", i)
		}
	}
	return nil
}

// purpose writes the 4-byte hash purpose PreparedSubmission (48).
func (e *encoder) purpose() { e.raw(purposePreparedSubmission[:], "Hash Purpose") }

var purposePreparedSubmission = [4]byte{0, 0, 0, 0x30}
