package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The binary the shell tests run, built once for all of them.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildOut  []byte
)

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// ledgerBinary builds the ledger binary of this tree, once.
func ledgerBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ledger-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "ledger")
		buildOut, buildErr = exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return builtBin
}

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
	bin := ledgerBinary(t)
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
