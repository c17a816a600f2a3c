package archive

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DecodePayload reads a package's payload as GET /v2/packages/{id} sends
// it: the same package as its Archive, and refused under another id.
func TestDecodePayload(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "canton-builtin-admin-workflow-ping.dar"))
	if err != nil {
		t.Fatal(err)
	}
	for name, dalf := range zipEntries(t, data) {
		if !strings.HasSuffix(name, ".dalf") {
			continue
		}
		want, err := DecodeArchive(dalf, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var payload []byte
		for b := dalf; len(b) > 0; {
			var f field
			if f, b, err = nextField(b); err != nil {
				t.Fatal(err)
			}
			if f.Num == 3 {
				payload = f.Bytes
			}
		}
		got, err := DecodePayload(string(want.ID), payload, Options{})
		if err != nil || got.ID != want.ID || got.Name != want.Name || len(got.Modules) != len(want.Modules) {
			t.Fatalf("%s: %v", name, err)
		}
		other := strings.Repeat("0", 64)
		if _, err := DecodePayload(other, payload, Options{}); !errors.Is(err, ErrHashMismatch) {
			t.Fatalf("%s under another id: %v", name, err)
		}
	}
}
