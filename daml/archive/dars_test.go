package archive

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// sharedDars returns the folder of real DARs beside the repository
// (../shared/dars from the module root), or skips the test.
func sharedDars(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", dir)
	}
	return dir
}
