package validate_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/validate"
	"github.com/ledger-cli/ledger/internal/dalfedit"
)

// mainDalf returns the bytes of a DAR's main dalf.
func mainDalf(t testing.TB, dar []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(dar), int64(len(dar)))
	if err != nil {
		t.Fatal(err)
	}
	var manifest []byte
	for _, f := range zr.File {
		if f.Name == "META-INF/MANIFEST.MF" {
			rc, _ := f.Open()
			manifest, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	m, err := archive.ParseManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == m.MainDalf {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			return b
		}
	}
	t.Fatal("no main dalf")
	return nil
}

var minors = []string{"1", "2", "3", "dev"}

// addSeed adds a dalf as a seed: its Package bytes and minor version.
func addSeed(f *testing.F, dalf []byte) {
	pkg, minor, err := dalfedit.Unwrap(dalf)
	if err != nil {
		f.Fatal(err)
	}
	for i, m := range minors {
		if m == minor {
			f.Add(pkg, uint8(i))
		}
	}
}

// FuzzValidate checks packages that decode against the packages of the Ping
// and my-exercise-app DARs: the checker must answer (accept or refuse with
// a validation error) within its budget, never panic, and never fail
// inside itself (EInternal). The input is a Package message and a minor
// version, wrapped into a dalf with its hash (raw dalf bytes would almost
// never pass the hash check). Seeds: the real main packages and the
// ill-typed ones of TestIllTypedPackagesRefused.
//
//	go test ./daml/validate/ -run XXX -fuzz FuzzValidate -fuzztime 60s -fuzzminimizetime 0 -parallel 1
//
// (-fuzzminimizetime 0: minimizing a 150 KB package takes the fuzzer minutes
// per new input.)
func FuzzValidate(f *testing.F) {
	dir := sharedDars(f)
	var deps []*lf.Package
	for _, name := range []string{"canton-builtin-admin-workflow-ping.dar", "my-exercise-app.dar"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			f.Fatal(err)
		}
		addSeed(f, mainDalf(f, b))
		deps = append(deps, readDar(f, filepath.Join(dir, name)).Packages...)
	}
	for _, tc := range illTypedCases {
		addSeed(f, mainDalf(f, mutatedDar(f, tc.dar, tc.edit)))
	}
	f.Fuzz(func(t *testing.T, pkg []byte, minor uint8) {
		dalf := dalfedit.Wrap(pkg, minors[int(minor)%len(minors)])
		p, err := archive.DecodeArchive(dalf, archive.Options{AllowDev: true})
		if err != nil {
			return
		}
		lookup := lookupIn(append([]*lf.Package{p}, deps...)...)
		err = validate.Package(context.Background(), p, lookup, validate.Options{MaxSteps: 2_000_000})
		var ve *validate.Error
		if err != nil && (!errors.As(err, &ve) || ve.Kind == "EInternal" || !strings.HasPrefix(err.Error(), "validation error")) {
			t.Fatalf("checker failed: %v", err)
		}
	})
}
