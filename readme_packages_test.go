//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestREADMEWithPackages runs the README block that signs with
// --with-packages, which the walkthrough skips because it needs Canton's
// Ping DAR from a checkout: the walkthrough's node, key and Alice first
// (its blocks up to the one that allocates her), then that block, in a
// working directory that holds the DAR where a checkout has it. The
// review opens with the re-interpreted line, and the Ping is signed and
// executed.
func TestREADMEWithPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a README block")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	block := readmeMarkedBlock(t, "README.md", "TestREADMEWithPackages")
	var script strings.Builder
	script.WriteString("set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true' EXIT\n")
	for _, b := range readmeBlocks(t, "README.md") {
		script.WriteString(b.text)
		if strings.Contains(b.text, "allocate-external") {
			break
		}
	}
	fmt.Fprintf(&script, "printf '\\n=== README.md:%d\\n'\n%s", block.line, block.text)

	bin := filepath.Dir(ledgerBinary(t))
	home, work := t.TempDir(), t.TempDir()
	const dar = "daml/archive/testdata/canton-builtin-admin-workflow-ping.dar"
	b, err := os.ReadFile(dar)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(work, filepath.Dir(dar)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, dar), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", freePorts(t, script.String()))
	cmd.Dir = work
	cmd.Env = readmeEnv(home, bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README block failed (%v):\n%s", err, out)
	}
	if !strings.Contains(string(out), "re-interpreted: matches the Daml code of canton-builtin-admin-workflow-ping") {
		t.Errorf("the review does not open with the re-interpreted line:\n%s", out)
	}
	t.Logf("%s", out)
}

// readmeMarkedBlock returns the ```sh block of a Markdown file whose
// README-test comment names marker.
func readmeMarkedBlock(t *testing.T, path, marker string) shBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	prev := ""
	var cur *shBlock
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh" && strings.HasPrefix(strings.TrimSpace(prev), readmeSkip) && strings.Contains(prev, marker):
			cur = &shBlock{line: n}
		case cur != nil && strings.TrimSpace(line) == "```":
			return *cur
		case cur != nil:
			cur.text += line + "\n"
		}
		prev = line
	}
	t.Fatalf("%s has no ```sh block marked for %s", path, marker)
	return shBlock{}
}
