package contract

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
)

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

var (
	sharedOnce sync.Once
	sharedEnv  *typed.Env
	sharedErr  error
	sharedDir  string
)

// sharedTypes decodes the real DARs of ../shared/dars once, or skips.
func sharedTypes(t testing.TB) *typed.Env {
	t.Helper()
	sharedOnce.Do(func() {
		sharedDir = filepath.Join(moduleRoot(), "..", "shared", "dars")
		entries, err := os.ReadDir(sharedDir)
		if err != nil {
			sharedErr = err
			return
		}
		var pkgs []*lf.Package
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".dar") || e.Name() == "dummy-1.15.dar" || e.Name() == "illformed.dar" {
				continue
			}
			d, err := archive.ReadDarFile(filepath.Join(sharedDir, e.Name()), archive.Options{AllowDev: true})
			if err != nil {
				sharedErr = err
				return
			}
			pkgs = append(pkgs, d.Packages...)
		}
		sharedEnv = typed.NewEnv(pkgs...)
	})
	if sharedErr != nil {
		if os.IsNotExist(sharedErr) {
			t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", sharedDir)
		}
		t.Fatal(sharedErr)
	}
	return sharedEnv
}

type cantonBlob struct {
	name string
	pkg  lf.PackageID
	blob []byte
}

func cantonBlobs(t testing.TB) []cantonBlob {
	t.Helper()
	f, err := os.Open("testdata/canton_blobs.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []cantonBlob
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		cols := strings.Split(l, "\t")
		b, err := base64.StdEncoding.DecodeString(cols[2])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cantonBlob{cols[0], lf.PackageID(cols[1]), b})
	}
	return out
}

// TestCantonBlobs authenticates the ca12 blobs Canton wrote, with the
// types of the real splice DARs: decode, re-encode byte for byte,
// translate the argument to the template's type, hash (TypedNormalForm),
// recompute the unicum.
func TestCantonBlobs(t *testing.T) {
	env := sharedTypes(t)
	for _, cb := range cantonBlobs(t) {
		t.Run(cb.name, func(t *testing.T) {
			c, err := DecodeBlob(cb.blob)
			if err != nil {
				t.Fatal(err)
			}
			again, err := EncodeBlob(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, cb.blob) {
				t.Errorf("re-encoded blob differs:\n got %x\nwant %x", again, cb.blob)
			}
			if env.Package(cb.pkg) == nil {
				t.Fatalf("package %s is not among the shared DARs", cb.pkg)
			}
			if err := Authenticate(c, env, cb.pkg); err != nil {
				t.Fatal(err)
			}
			if err := Authenticate(c, nil, ""); err == nil {
				t.Error("a ca12 contract authenticated without types")
			}
		})
	}
}
