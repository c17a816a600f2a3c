package ledgerapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
)

// QuickValid reports that b is one JSON value (whitespace around it
// allowed) that json.Valid accepts, checked in one pass by the scanner the
// decoders use: a few times faster than json.Valid on the plain values a
// node stores. It answers false for values it does not check itself
// (nesting deeper than 64), so false may still be valid JSON: a caller on a
// fast path falls back to encoding/json then.
func QuickValid(b []byte) bool {
	s := scanner{b: b}
	s.ws()
	if !s.skip(0) || !s.end() {
		return false
	}
	if bytes.IndexByte(b, '\\') >= 0 || !ascii(b) {
		return json.Valid(b)
	}
	return true
}

// PlainPrefix is the length of b's leading run of bytes that stand for
// themselves in a plain JSON string (printable ASCII but the quote and the
// backslash): where a string's content ends if it is plain.
func PlainPrefix(b []byte) int {
	return plainFrom(b, 0)
}

// plainFrom is the end of the run of plain bytes of b from i. It looks at
// eight bytes at a time while all are plain: the strings of a stream's
// elements (contract ids, parties, arguments) are long and plain.
func plainFrom(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		if !plainWord(binary.LittleEndian.Uint64(b[i:])) {
			break
		}
	}
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

const (
	lowBits  = 0x0101010101010101 // one in every byte
	highBits = 0x8080808080808080
)

// plainWord reports whether the eight bytes of w are all plain (plainByte).
// Each test is exact for "some byte is": a borrow or carry only reaches a
// byte above one that already answers yes.
func plainWord(w uint64) bool {
	control := (w - 0x20*lowBits) &^ w & highBits // a byte below 0x20
	high := (w + lowBits | w) & highBits          // a byte of 0x7f or more
	q := w ^ '"'*lowBits
	quote := (q - lowBits) &^ q & highBits // a zero byte of w xor quotes
	e := w ^ '\\'*lowBits
	escape := (e - lowBits) &^ e & highBits
	return control|high|quote|escape == 0
}
