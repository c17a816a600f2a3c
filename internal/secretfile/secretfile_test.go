package secretfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	private := write("private", "s3cret", 0o600)
	if b, err := ReadFile("secret file", private, 64); err != nil || string(b) != "s3cret" {
		t.Fatalf("private file: %q, %v", b, err)
	}
	if _, err := ReadFile("secret file", write("big", strings.Repeat("x", 65), 0o600), 64); err == nil || !strings.Contains(err.Error(), "larger than 64 bytes") {
		t.Errorf("oversized file: %v", err)
	}
	if _, err := ReadFile("secret file", filepath.Join(dir, "missing"), 64); err == nil || !strings.HasPrefix(err.Error(), "secret file: ") {
		t.Errorf("missing file: %v", err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o660, 0o602} {
		p := write("shared", "s3cret", mode)
		_, err := ReadFile("secret file", p, 64)
		if err == nil || !strings.Contains(err.Error(), "may be read by other users") || !strings.Contains(err.Error(), "run: chmod 600 "+p) {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
}
