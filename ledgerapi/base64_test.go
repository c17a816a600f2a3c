package ledgerapi

import (
	"bytes"
	"errors"
	"testing"
)

// TestDecodeBase64MatchesJava pins the one Base64 rule: what Java's basic
// decoder (Canton's ByteString codec) accepts and refuses.
func TestDecodeBase64MatchesJava(t *testing.T) {
	good := []struct {
		in   string
		want []byte
	}{
		{"", []byte{}},
		{"QQ==", []byte("A")},
		{"QQ", []byte("A")},     // padding is optional
		{"QUI=", []byte("AB")},  // one pad
		{"QUI", []byte("AB")},   // or none
		{"QUJD", []byte("ABC")}, // no padding needed
		{"QR==", []byte("A")},   // non-zero trailing bits: Java ignores them
		{"QUJ=", []byte("AB")},  // likewise
		{"+/+/", []byte{0xfb, 0xff, 0xbf}},
	}
	for _, c := range good {
		got, err := DecodeBase64(c.in)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("DecodeBase64(%q) = %x, %v; want %x", c.in, got, err, c.want)
		}
	}
	bad := []struct {
		in     string
		offset int
	}{
		{"a-b_", 1},     // URL-safe alphabet
		{"Q", 1},        // a lone character carries no byte
		{"QQ=", 3},      // padding present but short
		{"QQ==QQ==", 4}, // data after padding
		{"QQ\n==", 2},   // line break (Go skips it, Java refuses)
		{"QQ\r==", 2},   //
		{" QQ==", 0},    // space
		{"QUJD=", 4},    // padding after a full quartet
	}
	for _, c := range bad {
		_, err := DecodeBase64(c.in)
		var be *Base64Error
		if !errors.As(err, &be) {
			t.Errorf("DecodeBase64(%q) = %v, want a *Base64Error", c.in, err)
			continue
		}
		if be.Offset != c.offset {
			t.Errorf("DecodeBase64(%q): offset %d, want %d (%v)", c.in, be.Offset, c.offset, err)
		}
	}
	_, err := DecodeBase64("a-b_")
	if want := `The string is not a valid Base64: a-b_ (unexpected '-' at offset 1)`; err == nil || err.Error() != want {
		t.Errorf("error text %q, want %q", err, want)
	}
}
