package contract

import (
	"bytes"
	"testing"
)

// FuzzDecodeBlob feeds arbitrary bytes to the blob decoder, seeded with
// the real blobs. Whatever decodes must encode, and its encoding must
// decode to a contract that encodes to the same bytes; authentication and
// hashing of a decoded contract must return, not panic.
func FuzzDecodeBlob(f *testing.F) {
	for _, b := range goldenBlobs(f) {
		f.Add(b)
	}
	for _, cb := range cantonBlobs(f) {
		f.Add(cb.blob)
	}
	f.Add(blobParts("2.1", nestedLists(100), sigs("alice")))
	f.Fuzz(func(t *testing.T, blob []byte) {
		c, err := DecodeBlob(blob)
		if err != nil {
			return
		}
		_ = Authenticate(c, nil, "")
		_, _ = HashUntyped(UpgradeFriendly, c.PackageName, c.TemplateID, c.Argument)
		_, _ = HashUntyped(Legacy, c.PackageName, c.TemplateID, c.Argument)
		enc, err := EncodeBlob(c)
		if err != nil {
			t.Fatalf("decoded contract does not encode: %v", err)
		}
		back, err := DecodeBlob(enc)
		if err != nil {
			t.Fatalf("encoded contract does not decode: %v", err)
		}
		again, err := EncodeBlob(back)
		if err != nil || !bytes.Equal(enc, again) {
			t.Fatalf("encoding is not stable: %v", err)
		}
	})
}
