package archive

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
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

// sharedDars returns the folder of real DARs beside the repository
// (../shared/dars from the module root), or skips the test.
func sharedDars(t testing.TB) string {
	t.Helper()
	dir := sharedDarsIfPresent()
	if dir == "" {
		t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", sharedDarsDir())
	}
	return dir
}

func sharedDarsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars")
}

// sharedDarsIfPresent returns the folder of the real DARs, or "".
func sharedDarsIfPresent() string {
	dir := sharedDarsDir()
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

// zipEntries returns the files of a zip by name.
func zipEntries(t testing.TB, dar []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(dar), int64(len(dar)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
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
		out[f.Name] = b
	}
	return out
}

var dalfNameID = regexp.MustCompile(`-([0-9a-f]{64})\.dalf$`)

// TestSharedDars decodes every real DAR once and checks each package id
// against the SHA-256 of its payload, computed here, and against the id in
// the dalf's file name.
func TestSharedDars(t *testing.T) {
	dir := sharedDars(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.dar"))
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{
		"dummy-1.15.dar": "the package is Daml-LF 1.15; only Daml-LF 2.x is supported",
		"illformed.dar":  "declared type Bool does not match its body",
	}
	decoded := 0
	for _, file := range files {
		name := filepath.Base(file)
		dar, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeDar(dar, Options{AllowDev: true})
		if want, ok := refused[name]; ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v, want one containing %q", name, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		decoded++
		entries := zipEntries(t, dar)
		for _, dalf := range d.Manifest.Dalfs {
			sum := sha256.Sum256(payloadOf(t, entries[dalf]))
			id := lf.PackageID(hex.EncodeToString(sum[:]))
			if d.Package(id) == nil {
				t.Errorf("%s: %s: no decoded package has the payload's id %s", name, dalf, id)
			}
			if m := dalfNameID.FindStringSubmatch(dalf); m == nil || m[1] != string(id) {
				t.Errorf("%s: %s: file name does not end in the package id %s", name, dalf, id)
			}
			if dalf == d.Manifest.MainDalf && d.Main != id {
				t.Errorf("%s: main package %s, want %s", name, d.Main, id)
			}
		}
	}
	if decoded == 0 {
		t.Fatalf("no DAR decoded in %s", dir)
	}
}

func TestDevNeedsOption(t *testing.T) {
	dar, err := os.ReadFile(filepath.Join(sharedDars(t), "DamlDefinitionsServiceMain.dar"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = DecodeDar(dar, Options{})
	if !errors.Is(err, ErrUnsupportedVersion) || !strings.Contains(err.Error(), "Daml-LF 2.dev, which is accepted only in dev mode") {
		t.Errorf("error %v, want the 2.dev refusal", err)
	}
}

// TestTestdataDars runs without the shared folder.
func TestTestdataDars(t *testing.T) {
	tests := []struct {
		file string
		err  string // "" when the DAR must decode
	}{
		{"canton-builtin-admin-workflow-ping.dar", ""},
		{"dummy-1.15.dar", `archive: testdata/dummy-1.15.dar: dalf "archive.dalf": ArchivePayload: unsupported Daml-LF version: the package is Daml-LF 1.15; only Daml-LF 2.x is supported`},
		{"illformed.dar", `archive: testdata/illformed.dar: dalf "archive.dalf": ArchivePayload: package: module 0 (Mod): value 0 (x): declared type Bool does not match its body, a literal of type ()`},
	}
	for _, tt := range tests {
		d, err := ReadDarFile(filepath.Join("testdata", tt.file), Options{})
		if tt.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.file, err)
			} else if d.MainPackage() == nil {
				t.Errorf("%s: no main package", tt.file)
			}
			continue
		}
		if err == nil || err.Error() != tt.err {
			t.Errorf("%s: error\n%v\nwant\n%s", tt.file, err, tt.err)
		}
	}
}

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name, text string
		main       string
		dalfs      []string
		err        string
	}{
		{name: "continuation lines, CRLF",
			text:  "Manifest-Version: 1.0\r\nMain-Dalf: dir/ma\r\n in.dalf\r\nDalfs: dir/main.dalf, dir/d\r\n ep.dalf\r\nFormat: daml-lf\r\n\r\n",
			main:  "dir/main.dalf",
			dalfs: []string{"dir/main.dalf", "dir/dep.dalf"}},
		{name: "main dalf not listed first",
			text:  "Main-Dalf: m.dalf\nDalfs: a.dalf,m.dalf , b.dalf\nFormat: daml-lf\n",
			main:  "m.dalf",
			dalfs: []string{"m.dalf", "a.dalf", "b.dalf"}},
		{name: "second section ignored",
			text:  "Main-Dalf: m.dalf\nDalfs: m.dalf\nFormat: daml-lf\n\nName: x\nDalfs: other.dalf\n",
			main:  "m.dalf",
			dalfs: []string{"m.dalf"}},
		{name: "no main", text: "Dalfs: a.dalf\nFormat: daml-lf\n", err: "no Main-Dalf attribute"},
		{name: "no dalfs", text: "Main-Dalf: a.dalf\nFormat: daml-lf\n", err: "no Dalfs attribute"},
		{name: "no format", text: "Main-Dalf: a.dalf\nDalfs: a.dalf\n", err: "no Format attribute (want daml-lf)"},
		{name: "other format", text: "Main-Dalf: a\nDalfs: a\nFormat: zip\n", err: `format "zip" is not daml-lf`},
		{name: "dangling continuation", text: " x\n", err: "line 1: continuation line with nothing to continue"},
		{name: "not an attribute", text: "Main-Dalf\n", err: `line 1: "Main-Dalf" is not "Name: value"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(tt.text))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.MainDalf != tt.main || strings.Join(m.Dalfs, "|") != strings.Join(tt.dalfs, "|") {
				t.Errorf("main %q dalfs %q, want %q %q", m.MainDalf, m.Dalfs, tt.main, tt.dalfs)
			}
		})
	}
}

func TestDarErrors(t *testing.T) {
	good := testPackage{values: []pb{value(0, exprTrue)}}.dalf()
	manifest := "Main-Dalf: a.dalf\nDalfs: a.dalf, b.dalf\nFormat: daml-lf\n"
	// invalid: the error is ErrInvalidDar, what Canton's DAR reader calls
	// an invalid DAR (INVALID_DAR on upload) rather than a parse error.
	tests := []struct {
		name    string
		dar     []byte
		err     string
		invalid bool
	}{
		{"not a zip", []byte("PK nonsense"), "archive: DAR is not a zip file: zip: not a valid zip file", true},
		{"no manifest", buildDar(t, "", nil)[:0], "archive: DAR is not a zip file", true},
		{"bad manifest", buildDar(t, "Main-Dalf: a.dalf\n", map[string][]byte{"a.dalf": good}), "archive: META-INF/MANIFEST.MF: ", true},
		{"missing dalf", buildDar(t, manifest, map[string][]byte{"a.dalf": good}),
			`archive: manifest names dalf "b.dalf", which the DAR does not contain`, false},
		{"broken dalf", buildDar(t, manifest, map[string][]byte{"a.dalf": good, "b.dalf": good[:10]}),
			`archive: dalf "b.dalf": Archive: field 3: malformed value: unexpected EOF`, false},
		{"good", buildDar(t, manifest, map[string][]byte{"a.dalf": good, "b.dalf": good}), "", false},
	}
	for _, tt := range tests {
		d, err := DecodeDar(tt.dar, Options{})
		if tt.err == "" {
			if err != nil || len(d.Packages) != 1 || d.MainPackage() == nil {
				t.Errorf("%s: %v, %d packages", tt.name, err, len(d.Packages))
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
		if errors.Is(err, ErrInvalidDar) != tt.invalid {
			t.Errorf("%s: errors.Is(%v, ErrInvalidDar) = %v, want %v", tt.name, err, !tt.invalid, tt.invalid)
		}
	}
}

// TestDecodeDarWorkersAgree decodes every DAR one dalf at a time and with
// several goroutines: the same packages in the same order, or the same
// error.
func TestDecodeDarWorkersAgree(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.dar")
	if dir := sharedDarsIfPresent(); dir != "" {
		shared, _ := filepath.Glob(filepath.Join(dir, "*.dar"))
		files = append(files, shared...)
	}
	for _, file := range files {
		dar, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{}, {AllowDev: true}} {
			want, wantErr := decodeDarWorkers(context.Background(), dar, opts, 1)
			for _, workers := range []int{2, 64} {
				got, gotErr := decodeDarWorkers(context.Background(), dar, opts, workers)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("%s, %d workers: error %v, one at a time %v", file, workers, gotErr, wantErr)
				}
				if wantErr != nil {
					continue
				}
				// Each package is decoded alone either way; what the
				// goroutines could change is which, in what order.
				if !reflect.DeepEqual(got.Manifest, want.Manifest) || got.Main != want.Main || len(got.Packages) != len(want.Packages) {
					t.Fatalf("%s, %d workers: main %s, %d packages; one at a time %s, %d", file, workers, got.Main, len(got.Packages), want.Main, len(want.Packages))
				}
				for i, p := range got.Packages {
					if q := want.Packages[i]; p.ID != q.ID || !reflect.DeepEqual(p.ModuleNames(), q.ModuleNames()) {
						t.Fatalf("%s, %d workers: package %d is %s, one at a time %s", file, workers, i, p.ID, q.ID)
					}
				}
			}
		}
	}
}

// TestDecodeDarWorkersFirstError checks that with several goroutines the
// error reported is still that of the first failing dalf in manifest order.
func TestDecodeDarWorkersFirstError(t *testing.T) {
	good := testPackage{values: []pb{value(0, exprTrue)}}.dalf()
	big := testPackage{values: []pb{value(0, exprTrue), value(0, exprTrue)}}.dalf()
	manifest := "Main-Dalf: a.dalf\nDalfs: a.dalf, b.dalf, c.dalf, d.dalf\nFormat: daml-lf\n"
	tests := []struct {
		name  string
		files map[string][]byte
		err   string
	}{
		{"broken, then missing", map[string][]byte{"a.dalf": good, "b.dalf": good[:10], "d.dalf": big}, `dalf "b.dalf": `},
		{"missing, then broken", map[string][]byte{"a.dalf": good, "c.dalf": good[:10], "d.dalf": big}, `manifest names dalf "b.dalf"`},
		{"two broken", map[string][]byte{"a.dalf": good, "b.dalf": good, "c.dalf": good[:12], "d.dalf": big[:10]}, `dalf "c.dalf": `},
	}
	for _, tt := range tests {
		dar := buildDar(t, manifest, tt.files)
		for _, workers := range []int{1, 2, 4} {
			_, err := decodeDarWorkers(context.Background(), dar, Options{}, workers)
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("%s, %d workers: error %v, want one starting %q", tt.name, workers, err, tt.err)
			}
		}
	}
}

// TestDecodeParallelPanics checks that a panic while decoding a dalf on a
// worker is raised again in the caller's goroutine.
func TestDecodeParallelPanics(t *testing.T) {
	dalfs := []string{"a", "b", "c", "d", "e"}
	defer func() {
		if r := recover(); r != "dalf 2" {
			t.Fatalf("recovered %v, want the panic of dalf 2", r)
		}
	}()
	decodeParallel(dalfs, nil, 3, func(i int, buf []byte, sc *scratch) ([]byte, bool) {
		if i == 2 {
			panic("dalf 2")
		}
		return buf, false
	})
	t.Fatal("decodeParallel returned")
}
