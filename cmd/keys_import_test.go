package cmd

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysImportRefusesASeedOthersMayRead: a seed is a private key, yet a
// 0644 seed file was imported while a 0644 passphrase file is refused.
func TestKeysImportRefusesASeedOthersMayRead(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed.txt")
	if err := os.WriteFile(seed, []byte(base64.StdEncoding.EncodeToString(make([]byte, 32))+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(seed, 0o644); err != nil { // past the umask
		t.Fatal(err)
	}
	out := filepath.Join(dir, "imported.key")
	r := runCLI(t, "", "keys", "import", "--out", out, "--from", seed, "--insecure-plaintext").must(t, 1)
	if !strings.Contains(r.err, "chmod 600 "+seed) {
		t.Errorf("the refusal does not give the chmod to run:\n%s", r.err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a key file was written from a seed others may read (%v)", err)
	}
	if err := os.Chmod(seed, 0o600); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "", "keys", "import", "--out", out, "--from", seed, "--insecure-plaintext").must(t, 0)
}
