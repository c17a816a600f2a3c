package cmd

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

// TestVersion: ledger --version and ledger version say the version, the
// commit and the Go version; with a node URL, the node's version too
// (issue 12, item 31).
func TestVersion(t *testing.T) {
	url := startOpenNode(t)
	r := runCLI(t, "", "--version").must(t, 0)
	if !strings.HasPrefix(r.out, "ledger ") || !strings.Contains(r.out, runtime.Version()) {
		t.Errorf("--version: %q", r.out)
	}
	r = runCLI(t, "", "version").must(t, 0)
	if !strings.Contains(r.out, "go     "+runtime.Version()) || strings.Contains(r.out, "node") {
		t.Errorf("version without a node:\n%s", r.out)
	}
	r = runCLI(t, "", "version", "--url", url, "-o", "json").must(t, 0)
	var v VersionResult
	if err := json.Unmarshal([]byte(r.out), &v); err != nil || v.Go != runtime.Version() || v.Node == nil || !strings.HasPrefix(v.Node.Version, "3.") {
		t.Errorf("version -o json with a node: %v\n%s", err, r.out)
	}
	t.Setenv("LEDGER_URL", "http://127.0.0.1:1")
	r = runCLI(t, "", "version").must(t, 1)
	if !strings.Contains(r.out, "ledger ") || !strings.Contains(r.err, "nothing listens at http://127.0.0.1:1") {
		t.Errorf("version with a node that does not answer:\nstdout %s\nstderr %s", r.out, r.err)
	}
	if r := runCLI(t, "", "versoin"); r.code != cmdutil.ExitUsage || !strings.Contains(r.err, "version") {
		t.Errorf("a misspelt version: exit %d %s", r.code, r.err)
	}
}

func TestBuildString(t *testing.T) {
	b := cmdutil.Build{Version: "v1.2.3", Commit: "0123456789abcdef0123", CommitTime: "2026-07-24T12:00:00Z", Modified: true, Go: "go1.26.8", Platform: "linux/amd64"}
	if got, want := b.String(), "v1.2.3 (commit 0123456789ab, 2026-07-24T12:00:00Z, modified) go1.26.8 linux/amd64"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
