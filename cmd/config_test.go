package cmd

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

func TestConfigCommandsAndPrecedence(t *testing.T) {
	n := startLiveNode(t) // also isolates the config file
	runCLI(t, "", "config", "set", "url", "http://127.0.0.1:1", "--profile", "broken").must(t, 0)
	runCLI(t, "", "config", "set", "url", n.url, "--profile", "local").must(t, 0)
	runCLI(t, "", "config", "set", "token", n.admin, "--profile", "local").must(t, 0)
	runCLI(t, "", "config", "use", "local").must(t, 0)
	runCLI(t, "", "config", "use", "nope").must(t, 1)
	runCLI(t, "", "config", "set", "uri", "x").must(t, 2)

	if r := runCLI(t, "", "config", "get", "url").must(t, 0); strings.TrimSpace(r.out) != n.url {
		t.Errorf("get url: %q", r.out)
	}
	r := runCLI(t, "", "config", "list").must(t, 0)
	if !strings.Contains(r.out, "* local") || strings.Contains(r.out, n.admin) {
		t.Errorf("list (token must be masked):\n%s", r.out)
	}
	path, _ := cmdutil.ConfigPath()
	if st, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o600) {
		t.Errorf("config file %v %v", st, err)
	}

	// The current profile reaches the node …
	runCLI(t, "", "parties", "list").must(t, 0)
	// … the environment beats the profile …
	t.Setenv("LEDGER_URL", "http://127.0.0.1:1")
	runCLI(t, "", "parties", "list", "--timeout", "2s").must(t, 1)
	// … and the flag beats the environment.
	runCLI(t, "", "parties", "list", "--url", n.url).must(t, 0)
	t.Setenv("LEDGER_URL", "")
	// --profile and LEDGER_PROFILE choose another profile.
	runCLI(t, "", "parties", "list", "--profile", "broken", "--timeout", "2s").must(t, 1)
	t.Setenv("LEDGER_PROFILE", "broken")
	runCLI(t, "", "parties", "list", "--timeout", "2s").must(t, 1)
	runCLI(t, "", "parties", "list", "--profile", "local").must(t, 0)

	runCLI(t, "", "config", "set", "token", "--unset", "--profile", "local").must(t, 0)
	if r := runCLI(t, "", "config", "get", "token", "--profile", "local"); r.code != 1 {
		t.Errorf("unset token still there: %+v", r)
	}
}
