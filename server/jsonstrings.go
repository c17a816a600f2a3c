package server

import "bytes"

// Canton's JSON layer reads a request body as Pekko does, bytes to a Java
// string with malformed UTF-8 replaced by U+FFFD, then parses it with circe
// (jawn's CharBasedParser), which appends the UTF-16 unit of each \uXXXX
// escape without checking that surrogates come in pairs. Neither step
// refuses anything. The strings then reach the Ledger API as protobuf, whose
// encoder (CodedOutputStream, via ScalaPB's marshaller, even in-process)
// writes an unpaired surrogate as "?". So in Canton a malformed UTF-8 byte
// becomes U+FFFD and a lone surrogate escape becomes "?", with a 200.
// encoding/json already does the first; loneSurrogates does the second.

// loneSurrogates rewrites every \uXXXX escape of an unpaired surrogate
// (D800–DFFF not forming a high-low pair) inside the JSON strings of b as
// "?". It returns b itself when there is none.
func loneSurrogates(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u`)) {
		return b
	}
	var out []byte
	last := 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch {
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(b) && b[i+1] == 'u':
			u, ok := hex4(b, i+2)
			if !ok || u < 0xD800 || u > 0xDFFF {
				i += 1 // past the u; the hex digits are plain characters
				continue
			}
			if u < 0xDC00 && i+11 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if low, ok := hex4(b, i+8); ok && low >= 0xDC00 && low <= 0xDFFF {
					i += 11 // a pair
					continue
				}
			}
			out = append(append(out, b[last:i]...), '?')
			last = i + 6
			i += 5
		case c == '\\':
			i++ // an escaped character, a quote perhaps
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
