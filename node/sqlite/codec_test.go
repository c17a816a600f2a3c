package sqlite

import "testing"

// TestDecodePlainListAgreesWithJSON checks the fast path against
// encoding/json on the lists encodeList writes and on shapes it must leave
// to the general decoder.
func TestDecodePlainListAgreesWithJSON(t *testing.T) {
	lists := [][]string{
		{}, {"a"}, {"alice::1220ab", "bob::1220cd"}, {"", "x"}, {"a,b", "c"}, {`q"uote`}, {`back\slash`},
		{"naïve"}, {"tab\there"}, {`","`}, {"x", ""},
	}
	for _, xs := range lists {
		enc := encodeList(xs)
		got, err := decodeList(enc)
		if err != nil {
			t.Fatalf("%q: %v", enc, err)
		}
		if len(got) != len(xs) {
			t.Fatalf("%q decoded to %q", enc, got)
		}
		for i := range xs {
			if got[i] != xs[i] {
				t.Fatalf("%q decoded to %q", enc, got)
			}
		}
	}
	for _, bad := range []string{`["a"`, `["a",1]`, `[""a"]`, `{"a":1}`} {
		if _, err := decodeList(bad); err == nil {
			t.Errorf("%q decoded without error", bad)
		}
	}
}
