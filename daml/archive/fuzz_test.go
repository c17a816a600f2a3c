package archive

import (
	"archive/zip"
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive/archivetest"
	"github.com/ledger-cli/ledger/daml/lf"
)

// fuzzSeeds returns the dalfs of the Ping DAR in testdata, smallest first.
func fuzzSeeds(f *testing.F) [][]byte {
	b, err := os.ReadFile("testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		f.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		f.Fatal(err)
	}
	var dalfs [][]byte
	for _, zf := range zr.File {
		if len(zf.Name) > 5 && zf.Name[len(zf.Name)-5:] == ".dalf" {
			dalf, err := readZipFile(zf, DefaultMaxDalfSize, nil)
			if err != nil {
				f.Fatal(err)
			}
			dalfs = append(dalfs, dalf)
		}
	}
	slices.SortFunc(dalfs, func(a, b []byte) int { return len(a) - len(b) })
	return dalfs
}

// FuzzDecodeArchive checks that no dalf makes DecodeArchive panic, and that
// a decoded package's id is the hash it was checked against.
func FuzzDecodeArchive(f *testing.F) {
	// The stable packages (a few hundred bytes to 18 kB) and the Ping
	// package itself (148 kB: templates, choices, updates), not the 455 kB
	// daml-prim, which would slow every mutation.
	for _, d := range fuzzSeeds(f) {
		if len(d) < 200_000 {
			f.Add(d)
		}
	}
	f.Fuzz(func(t *testing.T, dalf []byte) {
		p, err := DecodeArchive(dalf, Options{AllowDev: true})
		if (p == nil) == (err == nil) {
			t.Fatalf("DecodeArchive returned package %v and error %v", p, err)
		}
		if p != nil && len(p.ID) != 64 {
			t.Fatalf("package id %q is not a SHA-256", p.ID)
		}
	})
}

// FuzzDecodeDar checks that no DAR makes DecodeDar panic.
func FuzzDecodeDar(f *testing.F) {
	for _, name := range []string{"dummy-1.15.dar", "illformed.dar"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seeds := fuzzSeeds(f)
	f.Add(buildDar(f, "Manifest-Version: 1.0\r\nMain-Dalf: a.dalf\r\nDalfs: a.dalf, b.dal\r\n f\r\nFormat: daml-lf\r\n\r\n",
		map[string][]byte{"a.dalf": seeds[0], "b.dalf": seeds[1]}))
	// Hostile DARs: a dalf of 2 MiB of zeros (a zip bomb by its ratio), a
	// manifest naming one dalf a thousand times, and Ping with a choice
	// argument whose type doubles forty times through the type table.
	f.Add(buildDar(f, "Manifest-Version: 1.0\r\nMain-Dalf: a.dalf\r\nDalfs: a.dalf, z.dalf\r\nFormat: daml-lf\r\n\r\n",
		map[string][]byte{"a.dalf": seeds[0], "z.dalf": make([]byte, 2<<20)}))
	f.Add(buildDar(f, "Manifest-Version: 1.0\r\nMain-Dalf: a.dalf\r\nDalfs: a.dalf"+strings.Repeat(",a.dalf", 1000)+"\r\nFormat: daml-lf\r\n\r\n",
		map[string][]byte{"a.dalf": seeds[0]}))
	ping, err := os.ReadFile("testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(archivetest.Doubling(f, ping, 40, "3.5.0"))
	f.Fuzz(func(t *testing.T, dar []byte) {
		d, err := DecodeDar(dar, Options{AllowDev: true, MaxDalfSize: 1 << 20})
		if (d == nil) == (err == nil) {
			t.Fatalf("DecodeDar returned %v and error %v", d, err)
		}
		if d != nil && d.MainPackage() == nil {
			t.Fatalf("decoded DAR has no main package %s", d.Main)
		}
	})
}

// buildDar zips a manifest and files into a DAR.
func buildDar(tb testing.TB, manifest string, files map[string][]byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(manifestPath)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write([]byte(manifest))
	for name, b := range files {
		w, err := zw.Create(name)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzLazyValues checks that a package decoded with LazyValues, every
// value's body then asked for, panics on no payload and agrees with the
// eager decoder: both accept it, with the same bodies, or both refuse it
// (the lazy one when the package decodes or when a body is asked for).
func FuzzLazyValues(f *testing.F) {
	for _, d := range fuzzSeeds(f) {
		if len(d) < 200_000 {
			if _, payload, err := splitArchive(d); err == nil {
				f.Add(payload)
			}
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		const id = lf.PackageID("0000000000000000000000000000000000000000000000000000000000000000")
		eager, eagerErr := decodePayload(id, payload, Options{AllowDev: true}, new(scratch))
		lazy, err := decodePayload(id, bytes.Clone(payload), Options{AllowDev: true, LazyValues: true}, new(scratch))
		if err == nil {
			for i, m := range lazy.Modules {
				for j, v := range m.Values {
					body, berr := v.Expr()
					if berr != nil {
						err = berr
						continue
					}
					if eagerErr == nil && !reflect.DeepEqual(body, eager.Modules[i].Values[j].Body) {
						t.Fatalf("%s:%s: lazily %v, eagerly %v", m.Name, v.Name, body, eager.Modules[i].Values[j].Body)
					}
				}
			}
		}
		if (err == nil) != (eagerErr == nil) {
			t.Fatalf("lazily: %v; eagerly: %v", err, eagerErr)
		}
	})
}
