package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOfflineFlowScript builds the binary and runs scripts/offline-flow.sh,
// the offline signing flow as a user runs it in a shell.
func TestOfflineFlowScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a shell script")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	bin := filepath.Join(t.TempDir(), "ledger")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bash, "scripts/offline-flow.sh")
	cmd.Env = append(os.Environ(), "LEDGER="+bin, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("offline-flow.sh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "offline flow: ok") {
		t.Fatalf("the script did not finish:\n%s", out)
	}
	t.Logf("%s", out)
}
