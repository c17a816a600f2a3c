package archive

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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

// ArchivePayload splits a dalf into the id and payload that DecodeArchive
// reads, and refuses a dalf whose hash field is not its payload's SHA-256.
func TestArchivePayload(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "canton-builtin-admin-workflow-ping.dar"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, dalf := range zipEntries(t, data) {
		if !strings.HasSuffix(name, ".dalf") {
			continue
		}
		n++
		want, err := DecodeArchive(dalf, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		id, payload, err := ArchivePayload(dalf)
		if err != nil || id != string(want.ID) {
			t.Fatalf("%s: id %q, %v; want %s", name, id, err, want.ID)
		}
		if got, err := DecodePayload(id, payload, Options{}); err != nil || got.Name != want.Name {
			t.Fatalf("%s: the payload does not decode as the archive's: %v", name, err)
		}
		// the hash field (4) names another package
		forged := append(slices.Clone(dalf), 4<<3|2, 64)
		forged = append(forged, strings.Repeat("0", 64)...)
		if _, _, err := ArchivePayload(forged); !errors.Is(err, ErrHashMismatch) {
			t.Fatalf("%s with a forged hash field: %v", name, err)
		}
		if _, _, err := ArchivePayload(dalf[:len(dalf)-1]); err == nil {
			t.Fatalf("%s truncated: no error", name)
		}
	}
	if n == 0 {
		t.Fatal("no dalf in the DAR")
	}
}
