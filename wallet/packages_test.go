package wallet

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// goldenDars are the DARs that hold the packages of the golden Canton Coin
// transfer: splice-amulet 0.1.14 (and its dependencies) and 0.1.6, under
// which its ExternalPartyAmuletRules was created.
var goldenDars = []string{"splice-amulet-0.1.14.dar", "splice-amulet-0.1.6.dar"}

// sharedDar returns the path of a DAR in ../shared/dars, or skips.
func sharedDar(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "dars", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found in ../shared/dars (the shared folder beside the repository); skipping", name)
	}
	return path
}

// goldenDarDir is a directory holding links to the golden's DARs.
func goldenDarDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range goldenDars {
		abs, err := filepath.Abs(sharedDar(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func goldenPrepared(t testing.TB) *damlpb.PreparedTransaction {
	t.Helper()
	pt, err := vectors.FirstPrepared(filepath.Join("..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

// darPayloads serves the packages of DARs as GET /v2/packages/{id} does:
// the payload of each dalf.
func darPayloads(t testing.TB, paths ...string) func(context.Context, string) ([]byte, error) {
	t.Helper()
	payloads := map[string][]byte{}
	for _, path := range paths {
		d, err := archive.ReadDarFile(path, archive.Options{KeepArchives: true})
		if err != nil {
			t.Fatal(err)
		}
		for id, dalf := range d.Archives {
			payloads[string(id)] = dalfPayload(t, dalf)
		}
	}
	return func(_ context.Context, id string) ([]byte, error) {
		p, ok := payloads[id]
		if !ok {
			return nil, fmt.Errorf("404: no package %s", id)
		}
		return p, nil
	}
}

// dalfPayload is field 3 of an Archive.
func dalfPayload(t testing.TB, dalf []byte) []byte {
	t.Helper()
	for len(dalf) > 0 {
		num, typ, n := protowire.ConsumeTag(dalf)
		if n < 0 {
			t.Fatal("malformed dalf")
		}
		dalf = dalf[n:]
		if num == 3 && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(dalf)
			return v
		}
		dalf = dalf[protowire.ConsumeFieldValue(num, typ, dalf):]
	}
	t.Fatal("dalf without payload")
	return nil
}

// TestPackagesFromDars: a directory of DARs gives the golden transfer every
// package it names and their dependencies; one DAR less leaves exactly the
// package of the upgraded ExternalPartyAmuletRules (splice-amulet 0.1.6)
// missing, named by its id.
func TestPackagesFromDars(t *testing.T) {
	pt := goldenPrepared(t)
	dir := goldenDarDir(t)
	ps, err := LoadPackages(&Envelope{}, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := ps.For(pt)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range pkgs {
		got[string(p.ID)] = true
	}
	for _, id := range NamedPackages(pt) {
		if !got[id] {
			t.Errorf("named package %s not among the %d returned", id, len(pkgs))
		}
	}
	t.Logf("%d packages named, %d needed", len(NamedPackages(pt)), len(pkgs))

	ps, err = LoadPackages(&Envelope{}, []string{filepath.Join(dir, goldenDars[0])})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ps.For(pt)
	var missing *MissingPackagesError
	if !errors.As(err, &missing) || len(missing.IDs) != 1 || !strings.HasPrefix(missing.IDs[0], "979ec710") {
		t.Fatalf("without splice-amulet 0.1.6: %v", err)
	}
}

// TestPackagesFromEnvelope: the packages prepare --with-packages fetches
// travel in the envelope (through its JSON) and are all the golden needs;
// one whose payload is not what its id says is refused before anything is
// decoded.
func TestPackagesFromEnvelope(t *testing.T) {
	pt := goldenPrepared(t)
	var paths []string
	for _, name := range goldenDars {
		paths = append(paths, sharedDar(t, name))
	}
	fetched, absent, err := FetchPackages(context.Background(), pt, darPayloads(t, paths...))
	if err != nil || len(absent) > 0 {
		t.Fatal(err, absent)
	}
	env := &Envelope{PreparedTransaction: "AA==", Info: &EnvelopeInfo{Format: EnvelopeFormat, Version: EnvelopeVersion, Packages: fetched}}
	b, err := env.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := LoadPackages(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := ps.For(pt)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != len(fetched) {
		t.Errorf("%d packages fetched, %d needed", len(fetched), len(pkgs))
	}
	for _, p := range pkgs {
		if ps.From(p.ID) != "the envelope" {
			t.Errorf("package %s from %q", p.ID, ps.From(p.ID))
		}
	}

	// The same packages in the signer's own DARs: those are the source.
	ps, err = LoadPackages(back, []string{goldenDarDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	if pkgs, err = ps.For(pt); err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		if ps.From(p.ID) == "the envelope" {
			t.Errorf("package %s from the envelope, though a DAR given holds it", p.ID)
		}
	}

	bad := slices.Clone(back.Info.Packages)
	bad[3].Payload = slices.Clone(bad[3].Payload)
	bad[3].Payload[len(bad[3].Payload)/2] ^= 1
	back.Info.Packages = bad
	_, err = LoadPackages(back, nil)
	var perr *PackageError
	if !errors.As(err, &perr) || perr.PackageID != bad[3].PackageID || !errors.Is(err, archive.ErrHashMismatch) {
		t.Fatalf("a changed payload: %v", err)
	}
}

// TestPackagePayloadFiles: a directory may hold PACKAGE_ID.payload files
// as ledger packages get writes them (here those of splice-amulet 0.1.6); one that does not hash to its name,
// or that hashes but is no package, is refused naming it.
func TestPackagePayloadFiles(t *testing.T) {
	pt := goldenPrepared(t)
	dir := t.TempDir()
	d, err := archive.ReadDarFile(sharedDar(t, goldenDars[1]), archive.Options{KeepArchives: true})
	if err != nil {
		t.Fatal(err)
	}
	var payload []byte
	id := ""
	for pkg, dalf := range d.Archives {
		id, payload = string(pkg), dalfPayload(t, dalf)
		if err := os.WriteFile(filepath.Join(dir, id+PayloadSuffix), payload, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := LoadPackages(&Envelope{}, []string{dir, sharedDar(t, goldenDars[0])})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ps.For(pt); err != nil {
		t.Fatalf("splice-amulet 0.1.6 as payload files: %v", err)
	}

	for name, content := range map[string][]byte{
		id + PayloadSuffix: append(slices.Clone(payload), 0),
		sha256Hex([]byte("no package")) + PayloadSuffix: []byte("no package"),
	} {
		bad := t.TempDir()
		path := filepath.Join(bad, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPackages(&Envelope{}, []string{bad})
		var perr *PackageError
		if !errors.As(err, &perr) || perr.From != path {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestForgedDarPackage: a DAR whose dalf states another package's id (a
// dalf of the Ping DAR renamed to the golden's splice-amulet 0.1.6, in its
// zip name and its hash field) is
// refused when the transaction needs that package, naming the DAR.
func TestForgedDarPackage(t *testing.T) {
	pt := goldenPrepared(t)
	old := ""
	for _, ic := range pt.GetMetadata().GetInputContracts() {
		if strings.HasPrefix(ic.GetV1().GetTemplateId().GetPackageId(), "979ec710") {
			old = ic.GetV1().GetTemplateId().GetPackageId()
		}
	}
	ping := filepath.Join("..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar")
	zr, err := zip.OpenReader(ping)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	// The main dalf's name states old too, as the Daml compiler names a
	// dalf by its package id.
	var main, renamed string
	for _, f := range zr.File {
		if base := path.Base(f.Name); strings.HasPrefix(base, "canton-builtin-admin-workflow-ping-") && strings.HasSuffix(base, ".dalf") {
			main = f.Name
			renamed = main[:len(main)-len("0123456789012345678901234567890123456789012345678901234567890123.dalf")] + old + ".dalf"
		}
	}
	if main == "" {
		t.Fatal("no main dalf in the Ping DAR")
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		name := f.Name
		switch {
		case strings.HasSuffix(name, ".dalf"):
			b = restateArchiveHash(t, b, old)
			if name == main {
				name = renamed
			}
		case name == "META-INF/MANIFEST.MF":
			unwrapped := strings.NewReplacer("\r\n ", "", "\n ", "").Replace(string(b))
			b = []byte(strings.ReplaceAll(unwrapped, main, renamed))
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(t.TempDir(), "forged.dar")
	if err := os.WriteFile(forged, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ps, err := LoadPackages(&Envelope{}, []string{forged, sharedDar(t, goldenDars[0])})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ps.For(pt)
	var perr *PackageError
	if !errors.As(err, &perr) || perr.PackageID != old || perr.From != forged || !errors.Is(err, archive.ErrHashMismatch) {
		t.Fatalf("a forged dalf: %v", err)
	}
}

// restateArchiveHash rewrites an Archive's hash field (4) to id.
func restateArchiveHash(t *testing.T, dalf []byte, id string) []byte {
	t.Helper()
	var out []byte
	for len(dalf) > 0 {
		num, typ, n := protowire.ConsumeTag(dalf)
		m := protowire.ConsumeFieldValue(num, typ, dalf[n:])
		if n < 0 || m < 0 {
			t.Fatal("malformed dalf")
		}
		if num == 4 {
			out = protowire.AppendTag(out, 4, protowire.BytesType)
			out = protowire.AppendString(out, id)
		} else {
			out = append(out, dalf[:n+m]...)
		}
		dalf = dalf[n+m:]
	}
	return out
}

// TestEnvelopePackageLimit: an envelope carrying more packages than any
// transaction needs is refused before any is hashed or decoded.
func TestEnvelopePackageLimit(t *testing.T) {
	pkgs := make([]EnvelopePackage, MaxEnvelopePackages+1)
	for i := range pkgs {
		payload := []byte(fmt.Sprint(i))
		pkgs[i] = EnvelopePackage{PackageID: sha256Hex(payload), Payload: payload}
	}
	_, err := LoadPackages(&Envelope{Info: &EnvelopeInfo{Packages: pkgs}}, nil)
	if err == nil || !strings.Contains(err.Error(), "more than the limit of 1000") {
		t.Fatalf("%d packages: %v", len(pkgs), err)
	}
	if _, err := LoadPackages(&Envelope{Info: &EnvelopeInfo{Packages: pkgs[:MaxEnvelopePackages]}}, nil); err != nil {
		t.Fatalf("%d packages: %v", MaxEnvelopePackages, err)
	}
}
