package ledgerapi

import (
	"bytes"
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
	i := 0
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}
