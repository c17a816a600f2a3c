package hashing

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCanonicalNumericFastPath checks that the fast numeric test accepts
// only what the full check accepts, and that it does accept the common
// shapes, so the fast path is really taken.
func TestCanonicalNumericFastPath(t *testing.T) {
	alphabet := []byte("019.-/:a")
	var walk func(prefix []byte, n int)
	walk = func(prefix []byte, n int) {
		if canonicalNumeric(prefix) && checkNumericSlow(prefix) != nil {
			t.Fatalf("fast path accepts %q, the full check refuses it", prefix)
		}
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			walk(append(prefix, c), n-1)
		}
	}
	walk(nil, 6)

	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := []byte(strings.Repeat("-", r.IntN(2)) + strings.Repeat("0", r.IntN(3)) + "123456789012345678901234567890123456789"[:r.IntN(30)] + "." + strings.Repeat("7", r.IntN(40)))
		if r.IntN(4) == 0 {
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
		if canonicalNumeric(b) && checkNumericSlow(b) != nil {
			t.Fatalf("fast path accepts %q, the full check refuses it", b)
		}
	}
	for _, s := range []string{"0.", "0.0000000000", "12.3400000000", "9999999999999999999999999999.0000000000", "1.1234567890123456789012345678901234567", "-12.5", "-9999999999999999999999999999.0000000000"} {
		if !canonicalNumeric([]byte(s)) {
			t.Errorf("fast path refuses canonical %q", s)
		}
	}
}
