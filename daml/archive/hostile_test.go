package archive

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive/archivetest"
	"github.com/ledger-cli/ledger/daml/lf"
)

// limitOf returns the limit a DAR's refusal names, or fails.
func limitOf(t *testing.T, err error) *LimitError {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("error %v is not a *LimitError", err)
	}
	return le
}

// TestZeroBombRefused: a 256 MiB run of zeros named as a dalf (a 260 kB
// DAR) is refused from the zip's directory, before anything is inflated:
// no real DAR compresses a hundred times.
func TestZeroBombRefused(t *testing.T) {
	dar := archivetest.ZeroBomb(t, archivetest.SharedDar(t, archivetest.PingDar), 256<<20)
	t.Logf("the DAR is %d bytes", len(dar))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeDar(dar, Options{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrZipBomb) {
		t.Fatalf("error %v, want ErrZipBomb", err)
	}
	if le := limitOf(t, err); le.Limit != "MaxCompressionRatio" || le.Entry != "zeros.dalf" {
		t.Errorf("limit %+v", le)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("refusing it allocated %d bytes", alloc)
	}
	t.Log(err)
}

// TestDarLimits: each limit of Options refuses a real DAR that exceeds it,
// naming the limit; the defaults take every real DAR (TestSharedDars).
// (MaxCompressionRatio: TestZeroBombRefused.)
func TestDarLimits(t *testing.T) {
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	for _, tc := range []struct {
		limit string
		opts  Options
	}{
		{"MaxDarSize", Options{MaxDarSize: 1 << 20}},
		{"MaxDalfSize", Options{MaxDalfSize: 100 << 10}},
		{"MaxManifestSize", Options{MaxManifestSize: 100}},
		{"MaxDalfs", Options{MaxDalfs: 3}},
	} {
		t.Run(tc.limit, func(t *testing.T) {
			_, err := DecodeDar(ping, tc.opts)
			if le := limitOf(t, err); le.Limit != tc.limit {
				t.Errorf("limit %q, want %q: %v", le.Limit, tc.limit, err)
			}
			t.Log(err)
		})
	}
	if _, err := DecodeDar(ping, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestRepeatedManifest: a manifest naming one dalf 100,000 times has it
// decoded once; at 200,000 times the manifest exceeds 1 MiB and is
// refused before it is parsed.
func TestRepeatedManifest(t *testing.T) {
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	dar := archivetest.RepeatedManifest(t, ping, 100_000)
	start := time.Now()
	d, err := DecodeDar(dar, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("decoding took %v", el)
	}
	if len(d.Manifest.Dalfs) != 1 || len(d.Packages) != 1 {
		t.Errorf("%d dalfs, %d packages; want 1 and 1", len(d.Manifest.Dalfs), len(d.Packages))
	}
	_, err = DecodeDar(archivetest.RepeatedManifest(t, ping, 200_000), Options{})
	if le := limitOf(t, err); le.Limit != "MaxManifestSize" {
		t.Errorf("limit %q: %v", le.Limit, err)
	}
}

// TestDecodeDarCancelled: a DAR decoded under an ended context stops with
// the context's error, on one worker or several.
func TestDecodeDarCancelled(t *testing.T) {
	dar := archivetest.SharedDar(t, "splice-amulet-0.1.14.dar")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, workers := range []int{1, 2} {
		_, err := decodeDarWorkers(ctx, dar, Options{}, workers)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%d workers: error %v, want context.Canceled", workers, err)
		}
	}
}

// TestKeepArchives: with KeepArchives each package's dalf is kept, its
// bytes those DecodeArchive decodes to the same package.
func TestKeepArchives(t *testing.T) {
	d, err := DecodeDar(archivetest.SharedDar(t, archivetest.PingDar), Options{KeepArchives: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Archives) != len(d.Packages) {
		t.Fatalf("%d archives for %d packages", len(d.Archives), len(d.Packages))
	}
	for _, p := range d.Packages {
		q, err := DecodeArchive(d.Archives[p.ID], Options{})
		if err != nil || q.ID != p.ID {
			t.Errorf("archive of %s decodes to %v, %v", p.ID, q, err)
		}
	}
}

// TestReadDarArchives: a DAR's dalfs read without decoding are those
// DecodeDar decodes, by the same ids, each decoding to its package; the
// limits refuse what they refuse DecodeDar, before anything inflates.
func TestReadDarArchives(t *testing.T) {
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	d, err := DecodeDar(ping, Options{})
	if err != nil {
		t.Fatal(err)
	}
	archives, err := readDarArchives(ping, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(archives) != len(d.Packages) {
		t.Fatalf("%d archives for %d packages", len(archives), len(d.Packages))
	}
	for _, p := range d.Packages {
		q, err := DecodeArchive(archives[p.ID], Options{})
		if err != nil || q.ID != p.ID {
			t.Errorf("archive of %s decodes to %v, %v", p.ID, q, err)
		}
	}
	for _, opts := range []Options{{MaxDarSize: 1 << 20}, {MaxDalfSize: 100 << 10}, {MaxManifestSize: 100}, {MaxDalfs: 3}} {
		_, want := DecodeDar(ping, opts)
		_, err := readDarArchives(ping, opts)
		if le := limitOf(t, err); le.Limit != limitOf(t, want).Limit {
			t.Errorf("%+v: %v, DecodeDar: %v", opts, err, want)
		}
	}
	if _, err := readDarArchives(archivetest.RepeatedManifest(t, ping, 200_000), Options{}); limitOf(t, err).Limit != "MaxManifestSize" {
		t.Errorf("a manifest of 200,000 names: %v", err)
	}
}

// TestDecodeArchives: dalfs decoded several at once are the packages
// DecodeArchive makes of each, in order; a dalf that fails has its error
// at its place, the others still decoded.
func TestDecodeArchives(t *testing.T) {
	archives, err := readDarArchives(archivetest.SharedDar(t, archivetest.PingDar), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dalfs [][]byte
	for _, b := range archives {
		dalfs = append(dalfs, b)
	}
	bad := len(dalfs) / 2
	dalfs[bad] = append([]byte(nil), dalfs[bad]...)
	dalfs[bad][len(dalfs[bad])-1] ^= 1 // the hash field's last character
	pkgs, errs := DecodeArchives(dalfs, Options{})
	for i, b := range dalfs {
		want, wantErr := DecodeArchive(b, Options{})
		switch {
		case i == bad:
			if errs[i] == nil || wantErr == nil || !errors.Is(errs[i], ErrHashMismatch) {
				t.Errorf("dalf %d: %v, DecodeArchive: %v", i, errs[i], wantErr)
			}
		case errs[i] != nil || pkgs[i].ID != want.ID || len(pkgs[i].Modules) != len(want.Modules):
			t.Errorf("dalf %d: %v %v, DecodeArchive: %v", i, pkgs[i], errs[i], want)
		}
	}
}

// TestOpenDarArchives: a DAR's dalfs opened without inflating are keyed
// by the id their names end with; one whose name names another package
// than its content is refused when read (ErrHashMismatch), and one whose
// name carries no id is read at once and keyed by its hash field.
func TestOpenDarArchives(t *testing.T) {
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	want, err := readDarArchives(ping, Options{})
	if err != nil {
		t.Fatal(err)
	}
	entries := archivetest.Unzip(t, ping)
	var named []int
	for i, e := range entries {
		if _, ok := idInDalfName(e.Name); ok {
			named = append(named, i)
		}
	}
	if len(named) < 3 {
		t.Fatalf("%d dalfs named with their ids", len(named))
	}
	a, b, c := named[0], named[1], named[2]
	entries[a].Data, entries[b].Data = entries[b].Data, entries[a].Data
	idA, _ := idInDalfName(entries[a].Name)
	idC, _ := idInDalfName(entries[c].Name)
	// c's name loses its id; the manifest names it by its new name.
	renamed := strings.TrimSuffix(entries[c].Name, "-"+string(idC)+".dalf") + ".dalf"
	for i := range entries {
		if entries[i].Name == manifestPath {
			entries[i].Data = []byte(strings.ReplaceAll(unwrap.Replace(string(entries[i].Data)), entries[c].Name, renamed))
		}
	}
	entries[c].Name = renamed
	dalfs, err := openDarArchives(archivetest.Zip(t, entries), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dalfs[idA].Read(); !errors.Is(err, ErrHashMismatch) {
		t.Errorf("a dalf holding another package than its name says: %v", err)
	}
	got, err := dalfs[idC].Read()
	if err != nil || !bytes.Equal(got, want[idC]) {
		t.Errorf("a dalf named without its id: %v", err)
	}
	for id, d := range dalfs {
		if id == idA || id == lf.PackageID(mustID(t, entries[b].Name)) {
			continue
		}
		if got, err := d.Read(); err != nil || !bytes.Equal(got, want[id]) {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// unwrap joins a manifest's continuation lines.
var unwrap = strings.NewReplacer("\r\n ", "", "\n ", "")

func mustID(t *testing.T, name string) string {
	t.Helper()
	id, ok := idInDalfName(name)
	if !ok {
		t.Fatalf("%s has no id", name)
	}
	return string(id)
}
