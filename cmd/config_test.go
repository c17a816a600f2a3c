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

// TestConfigSetValidates: a value every later command would refuse is not
// saved (issue 12, item 22).
func TestConfigSetValidates(t *testing.T) {
	isolateConfig(t)
	for _, tc := range []struct{ key, value, want string }{
		{"timeout", "abc", `timeout "abc": use a positive duration`},
		{"timeout", "0s", "positive duration"},
		{"url", "notaurl", `node URL "notaurl" has no scheme: write http://notaurl`},
		{"url", "127.0.0.1:7575", "write http://127.0.0.1:7575"},
		{"url", "ftp://host", "must be http://host"},
		{"oauth-token-url", "idp.example/token", "must be an http:// or https:// URL"},
		{"user", "bad user", "user"},
	} {
		r := runCLI(t, "", "config", "set", tc.key, tc.value)
		if r.code != cmdutil.ExitUsage || !strings.Contains(r.err, tc.want) || !strings.Contains(r.err, "nothing was saved") {
			t.Errorf("config set %s %q: exit %d, stderr %q; want 2 and %q", tc.key, tc.value, r.code, r.err, tc.want)
		}
	}
	path, _ := cmdutil.ConfigPath()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("a refused value was saved to %s", path)
	}
	runCLI(t, "", "config", "set", "timeout", "2s").must(t, 0)
	runCLI(t, "", "config", "set", "url", "https://participant.example:7575/api").must(t, 0)
	// A bad URL from a flag names where it came from.
	r := runCLI(t, "", "parties", "list", "--url", "127.0.0.1:7575").must(t, 2)
	if !strings.Contains(r.err, "has no scheme: write http://127.0.0.1:7575") || !strings.Contains(r.err, "flag --url") {
		t.Errorf("--url without a scheme: %s", r.err)
	}
}
