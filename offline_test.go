//go:build linux

package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGoldenVerifiesWithoutNetwork runs the built binary in a network
// namespace of its own (unshare -rn: no interface but a down loopback) on
// the real Canton Coin transfer with its DARs: verify re-runs the Daml code
// and exits 0, as it must on an air-gapped signer. It skips where user
// namespaces are not allowed, or without the shared DARs.
func TestGoldenVerifiesWithoutNetwork(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil || exec.Command(unshare, "-rn", "true").Run() != nil {
		t.Skip("unshare -rn is not available here (no user namespaces)")
	}
	dars := t.TempDir()
	for _, name := range []string{"splice-amulet-0.1.14.dar", "splice-amulet-0.1.6.dar"} {
		abs, err := filepath.Abs(filepath.Join("..", "shared", "dars", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(abs); err != nil {
			t.Skipf("%s not found in ../shared/dars (the shared folder beside the repository); skipping", name)
		}
		if err := os.Symlink(abs, filepath.Join(dars, name)); err != nil {
			t.Fatal(err)
		}
	}
	line, err := os.ReadFile(filepath.Join("testdata", "vectors", "npm-peers", "golden-ledgerhq-v2.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	cols := strings.Split(strings.SplitN(string(line), "\n", 2)[0], "\t")
	hash, err := hex.DecodeString(cols[1])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"preparedTransaction": cols[0],
		"preparedTransactionHash": base64.StdEncoding.EncodeToString(hash), "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2"})
	tx := filepath.Join(t.TempDir(), "golden.json")
	if err := os.WriteFile(tx, body, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(unshare, "-rn", ledgerBinary(t), "verify", tx, "--dar", dars)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("verify without a network: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "OK: re-interpreted: matches the Daml code of splice-amulet 0.1.14") {
		t.Errorf("verify:\n%s", out)
	}
	t.Logf("%s(in %s, the DARs decoded from disk)", out, time.Since(start).Round(time.Millisecond))
}
