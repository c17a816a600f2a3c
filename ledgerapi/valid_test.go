package ledgerapi

import (
	"bytes"
	"encoding/json"
	"testing"
)

var quickValidSamples = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+3`, `true`, `false`, `null`, ` {"a": [1, 2, {"b": null}]} `,
	`{"a":"x\"y"}`, `"é"`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `{"a"}`, `{"a":}`, `tru`, `nul`, `"a`,
	`[1 2]`, `{} {}`, `"\u00zz"`, "\"\x01\"", `{"a":1}}`, `1e`, `.5`,
}

// checkQuickValid: QuickValid never accepts what json.Valid refuses.
func checkQuickValid(t *testing.T, in []byte) {
	t.Helper()
	if QuickValid(in) && !json.Valid(in) {
		t.Fatalf("QuickValid accepts %q, which json.Valid refuses", in)
	}
}

func TestQuickValid(t *testing.T) {
	for _, s := range quickValidSamples {
		checkQuickValid(t, []byte(s))
		if json.Valid([]byte(s)) && !QuickValid([]byte(s)) {
			t.Errorf("QuickValid refuses %q", s)
		}
	}
}

func FuzzQuickValid(f *testing.F) {
	for _, s := range quickValidSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkQuickValid(t, in) })
}

// plainPrefixBytewise and asciiBytewise are PlainPrefix and ascii a byte at
// a time: the word-at-a-time ones must agree with them.
func plainPrefixBytewise(b []byte) int {
	i := 0
	for i < len(b) && plainByte[b[i]] {
		i++
	}
	return i
}

func asciiBytewise(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func checkPlainPrefix(t *testing.T, b []byte) {
	t.Helper()
	if got, want := PlainPrefix(b), plainPrefixBytewise(b); got != want {
		t.Fatalf("PlainPrefix(%q) = %d, want %d", b, got, want)
	}
	if got, want := ascii(b), asciiBytewise(b); got != want {
		t.Fatalf("ascii(%q) = %v, want %v", b, got, want)
	}
}

// TestPlainPrefixEveryByte puts every byte value at every position of
// plain runs of several lengths, and next to the bytes that border the
// word tests' ranges.
func TestPlainPrefixEveryByte(t *testing.T) {
	for n := 1; n <= 25; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				for _, fill := range []byte{'a', 0x7e, 0x20, '!', '#', '[', ']'} {
					b := bytes.Repeat([]byte{fill}, n)
					b[pos] = byte(c)
					checkPlainPrefix(t, b)
					if pos+1 < n {
						b[pos+1] = 0xff
						checkPlainPrefix(t, b)
					}
				}
			}
		}
	}
}

func FuzzPlainPrefix(f *testing.F) {
	f.Add([]byte(`Bench::1220acb93f55ac5861621c222d37895ed98162bb9b0804a7b46172b2f5abf5c8b70e"`))
	f.Add([]byte("abcdefgh\x7fabc"))
	f.Fuzz(func(t *testing.T, b []byte) { checkPlainPrefix(t, b) })
}
