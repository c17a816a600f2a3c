package hashing

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// checkHexID accepts a contract id as the participant writes it: non-empty,
// even-length, lower-case hex.
func checkHexID(id []byte) error {
	if len(id) == 0 {
		return errorf("contract id is empty")
	}
	if len(id)%2 != 0 {
		return errorf("contract id %q has an odd number of hex digits", clip(id))
	}
	for i, c := range id {
		if lowerHex[c] > 0x0f {
			return errorf("contract id %q is not lower-case hex (byte %d is %q)", clip(id), i, c)
		}
	}
	return nil
}

// Daml numerics carry at most 38 significant digits with a scale of at most 37.
const (
	numericMaxPrecision = 38
	numericMaxScale     = 37
)

// checkNumeric accepts exactly the text the participant hashes for a Daml
// numeric: -?([1-9][0-9]*|0)\.[0-9]*, not negative zero, within Daml's
// precision and scale. Anything else would be re-rendered before hashing.
func checkNumeric(s []byte) error {
	if canonicalNumeric(s) {
		return nil
	}
	return checkNumericSlow(s)
}

// canonicalNumeric is a fast test for the common case: true only for text
// that checkNumericSlow accepts. Digits are checked eight at a time;
// anything it does not accept, negative values below one included, is left
// to checkNumericSlow, which also words the error.
func canonicalNumeric(s []byte) bool {
	if len(s) > 0 && s[0] == '-' {
		// Not negative zero: the integer part is not 0, so the value is not zero.
		s = s[1:]
		if len(s) > 0 && s[0] == '0' {
			return false
		}
	}
	dot := bytes.IndexByte(s, '.')
	if dot <= 0 || dot > 1 && s[0] == '0' {
		return false
	}
	scale := len(s) - dot - 1
	significant := dot + scale
	if s[0] == '0' {
		significant = scale
	}
	return scale <= numericMaxScale && significant <= numericMaxPrecision &&
		allDigits(s[:dot]) && allDigits(s[dot+1:])
}

// allDigits reports whether every byte of s is an ASCII digit. For a word
// of bytes, w+0x46 sets a byte's high bit when the byte is above '9' and
// w-0x30 when it is below '0'; carries and borrows cross bytes only when
// some byte is already out of range, so they cannot hide a failure.
func allDigits(s []byte) bool {
	const ones, hi = 0x0101010101010101, 0x8080808080808080
	for len(s) >= 8 {
		w := binary.LittleEndian.Uint64(s)
		if (w|(w+0x46*ones)|(w-0x30*ones))&hi != 0 {
			return false
		}
		s = s[8:]
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func checkNumericSlow(s []byte) error {
	i := 0
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		i++
	}
	intStart := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	intDigits := i - intStart
	if intDigits == 0 || intDigits > 1 && s[intStart] == '0' || i == len(s) || s[i] != '.' {
		return errorf("numeric %q is not canonical: want digits, a decimal point and the scale's digits, e.g. \"12.3400000000\"", clip(s))
	}
	i++
	fracStart := i
	allZero := intDigits == 1 && s[intStart] == '0'
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return errorf("numeric %q is not canonical: unexpected %q", clip(s), s[i])
		}
		if s[i] != '0' {
			allZero = false
		}
	}
	scale := len(s) - fracStart
	if neg && allZero {
		return errorf("numeric %q is negative zero; the participant hashes it without the sign", clip(s))
	}
	if scale > numericMaxScale {
		return errorf("numeric %q has scale %d, above Daml's maximum of %d", clip(s), scale, numericMaxScale)
	}
	significant := intDigits + scale
	if intDigits == 1 && s[intStart] == '0' {
		significant = scale
	}
	if significant > numericMaxPrecision {
		return errorf("numeric %q has %d digits, above Daml's maximum precision of %d", clip(s), significant, numericMaxPrecision)
	}
	return nil
}

// checkUUID accepts the lower-case canonical UUID text the participant renders.
func checkUUID(s []byte) error {
	if len(s) != 36 {
		return errorf("transaction_uuid %q is not a canonical UUID", clip(s))
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return errorf("transaction_uuid %q is not a canonical UUID", clip(s))
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return errorf("transaction_uuid %q is not a lower-case canonical UUID", clip(s))
			}
		}
	}
	return nil
}

// parseNodeID reads a node id written as canonical decimal text.
func parseNodeID(s []byte) (int32, error) {
	if len(s) == 0 || len(s) > 10 || len(s) > 1 && s[0] == '0' {
		return 0, errorf("node id %q is not a canonical non-negative decimal", clip(s))
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, errorf("node id %q is not a canonical non-negative decimal", clip(s))
		}
		n = n*10 + int64(c-'0')
	}
	if n > 1<<31-1 {
		return 0, errorf("node id %q does not fit an int32", clip(s))
	}
	return int32(n), nil
}

// clip shortens text quoted in an error message.
func clip(b []byte) string {
	if len(b) > 80 {
		return fmt.Sprintf("%s…(%d bytes)", b[:64], len(b))
	}
	return string(b)
}
