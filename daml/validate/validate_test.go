package validate_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/validate"
)

func sharedDars(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", dir)
	}
	return dir
}

// realDars lists the DARs of the shared folder that must pass: all but the
// deliberately broken ones.
func realDars(t testing.TB) []string {
	dir := sharedDars(t)
	paths, err := filepath.Glob(filepath.Join(dir, "*.dar"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		switch filepath.Base(p) {
		case "illformed.dar", "dummy-1.15.dar":
			continue
		}
		out = append(out, p)
	}
	return out
}

func readDar(t testing.TB, path string) *archive.Dar {
	t.Helper()
	d, err := archive.ReadDarFile(path, archive.Options{AllowDev: true})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func lookupIn(pkgs ...*lf.Package) validate.Lookup {
	m := map[lf.PackageID]*lf.Package{}
	for _, p := range pkgs {
		m[p.ID] = p
	}
	return func(id lf.PackageID) *lf.Package { return m[id] }
}

// TestRealDarsPass: every package of every real DAR is well typed.
func TestRealDarsPass(t *testing.T) {
	for _, path := range realDars(t) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".dar"), func(t *testing.T) {
			d := readDar(t, path)
			c := validate.NewChecker(lookupIn(d.Packages...), validate.Options{})
			for _, p := range d.Packages {
				if err := c.Check(context.Background(), p); err != nil {
					t.Errorf("package %s (%s %s): %v", p.ID, p.Name, p.Version, err)
				}
			}
		})
	}
}
