package integration

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// The conformance script calls `ledger serve` with Canton's official
// TypeScript client (conformance/ledger-client, see its README). These
// tests need node and `npm ci` in that directory; without them they skip.

// scriptTimeout only stops a hung script; it is not a speed requirement.
const scriptTimeout = 5 * time.Minute

var summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped`)

// conformanceDir returns conformance/ledger-client, or skips the test when
// node or the installed client is missing.
func conformanceDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs ledger serve as a process and a Node script")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: install Node.js 20+ and run `npm ci` in conformance/ledger-client to run the client conformance script")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "conformance", "ledger-client"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@canton-network", "core-ledger-client")); err != nil {
		t.Skipf("%s/node_modules has no @canton-network/core-ledger-client: run `npm ci` there to run the client conformance script", dir)
	}
	return dir
}

// serveForScript starts `ledger serve` with HS256 auth on a temp database
// and returns it with its secret file; the process is stopped at cleanup.
func serveForScript(t *testing.T) (*process, string) {
	t.Helper()
	db, secretFile := processFiles(t)
	p := startProcess(t, db, secretFile)
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("ledger serve did not stop cleanly: %v\nstderr:\n%s", err, p.stderr)
		}
	})
	return p, secretFile
}

// mintToken mints a user token with `ledger token`, as the README tells
// users to.
func mintToken(t *testing.T, secretFile, user string) string {
	t.Helper()
	out, err := exec.Command(binary, "token", "--secret-file", secretFile, "--user", user, "--ttl", "1h").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("ledger token --user %s: %v\n%s", user, err, ee.Stderr)
		}
		t.Fatalf("ledger token --user %s: %v", user, err)
	}
	return strings.TrimSpace(string(out))
}

// runScript runs conformance.mjs with env added; it returns the output and
// the exit code.
func runScript(t *testing.T, dir string, env ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	args := []string{"conformance.mjs"}
	if exec.Command("node", "--experimental-websocket", "-e", "").Run() == nil {
		args = append([]string{"--experimental-websocket"}, args...) // Node 20 has WebSocket behind it
	}
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("conformance script did not finish within %v; output so far:\n%s", scriptTimeout, out.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	default:
		t.Fatalf("running node conformance.mjs: %v", err)
		return "", -1
	}
}

func TestLedgerClientConformance(t *testing.T) {
	dir := conformanceDir(t)
	p, secretFile := serveForScript(t)
	const user = "conformance-user"
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	out, code := runScript(t, dir,
		"LEDGER_URL="+p.url,
		"LEDGER_ADMIN_TOKEN="+mintToken(t, secretFile, ledger.AdminUserID),
		"LEDGER_USER_ID="+user,
		"LEDGER_USER_TOKEN="+mintToken(t, secretFile, user),
		"LEDGER_TRACE_FILE="+trace,
	)
	checkTraceOpenAPI(t, trace)
	t.Logf("conformance script output:\n%s", out)
	if code != 0 {
		t.Fatalf("conformance script exited %d: the official client disagrees with ledger serve (FAIL lines above); ledger serve stderr:\n%s", code, p.stderr)
	}
	m := summaryLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatal("conformance script printed no summary line")
	}
	if m[1] == "0" || m[2] != "0" {
		t.Fatalf("summary %q: want some checks passed and none failed", m[0])
	}
}

// TestLedgerClientConformanceFails checks that the script can fail: with a
// token the node does not accept, every authenticated call is refused.
func TestLedgerClientConformanceFails(t *testing.T) {
	dir := conformanceDir(t)
	p, _ := serveForScript(t)
	other := filepath.Join(t.TempDir(), "other-secret")
	if err := os.WriteFile(other, []byte("not-the-node-secret-0123456789abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := runScript(t, dir, "LEDGER_URL="+p.url, "LEDGER_ADMIN_TOKEN="+mintToken(t, other, ledger.AdminUserID))
	if code != 1 {
		t.Fatalf("with a foreign token the script exited %d, want 1; output:\n%s", code, out)
	}
	m := summaryLine.FindStringSubmatch(out)
	if m == nil || m[2] == "0" {
		t.Fatalf("with a foreign token the summary reports no failure; output:\n%s", out)
	}
	if !strings.Contains(out, "-> 401 ") {
		t.Errorf("failure lines do not show the node's 401; output:\n%s", out)
	}
}

func TestLedgerClientConformanceUsage(t *testing.T) {
	dir := conformanceDir(t)
	out, code := runScript(t, dir, "LEDGER_URL=")
	if code != 2 || !strings.Contains(out, "LEDGER_URL is not set") {
		t.Fatalf("without LEDGER_URL: exit %d, output %q; want exit 2 naming LEDGER_URL", code, out)
	}
}
