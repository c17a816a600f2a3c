package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

// TestOnlineCommandsHaveHelpAndExamples walks the commands of this file set.
func TestOnlineCommandsHaveHelpAndExamples(t *testing.T) {
	ios, _, _, _ := cmdutil.Test()
	root := NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New()})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Long == "" || c.Example == "" {
			t.Errorf("%s: Long and Example are required", c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	for _, name := range []string{"config", "prepare", "execute", "submit", "completions", "parties", "users",
		"contracts", "updates", "update", "events", "prune"} {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name {
			t.Fatalf("%s not registered", name)
		}
		walk(c)
	}
}

// TestHelpExamplesUseOutputAsAFormat: -o/--output is a format on every
// command and --out names a file, so no help example may give -o a file
// name (issue 12, item 19: "ledger keys generate -o alice.key" failed).
func TestHelpExamplesUseOutputAsAFormat(t *testing.T) {
	ios, _, _, _ := cmdutil.Test()
	root := NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New()})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, text := range []string{c.Example, c.Long} {
			words := strings.Fields(text)
			for i, w := range words {
				if (w == "-o" || w == "--output") && i+1 < len(words) {
					if err := cmdutil.ValidateFormat(strings.Trim(words[i+1], "`'\",.;)")); err != nil {
						t.Errorf("%s: help says %q %q: %v", c.CommandPath(), w, words[i+1], err)
					}
				}
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// TestOutputTakesAFormatEverywhere: a file name given to -o is a usage
// error that points at --out, on every command, including the ones that
// write files.
func TestOutputTakesAFormatEverywhere(t *testing.T) {
	isolateConfig(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"keys", "generate", "-o", filepath.Join(dir, "alice.key"), "--insecure-plaintext"},
		{"prepare", "--create", "#p:M:T", "--args", "{}", "--act-as", "a::1", "-o", "tx.json", "--url", "http://127.0.0.1:1"},
		{"sign", "tx.json", "--key", "k.key", "-o", "tx.signed.json"},
		{"completions", "--party", "a::1", "-o", "out.ndjson", "--url", "http://127.0.0.1:1"},
		{"parties", "list", "-o", "parties.json", "--url", "http://127.0.0.1:1"},
	} {
		r := runCLI(t, "", args...)
		if r.code != cmdutil.ExitUsage || !strings.Contains(r.err, "use --out FILE") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and \"use --out FILE\"", args, r.code, r.err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "alice.key")); err == nil {
		t.Error("keys generate -o FILE wrote a key file")
	}
}

// TestUsageMistakes: an unknown verb is a usage error with cobra's
// suggestions, not the help with exit status 0; a missing argument shows
// the usage line; "completions bash" points at "completion bash" (issue
// 12, item 23).
func TestUsageMistakes(t *testing.T) {
	isolateConfig(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"parties", "lst"}, []string{`unknown command "lst" for "ledger parties"`, "Did you mean this?", "list"}},
		{[]string{"users", "delet", "alice"}, []string{`unknown command "delet"`, "delete"}},
		{[]string{"keys", "gen", "--out", "x.key"}, []string{`unknown command "gen"`, "generate"}},
		{[]string{"config", "sett", "url", "http://x"}, []string{`unknown command "sett"`, "set"}},
		{[]string{"keys", "show"}, []string{"missing FILE", "Usage: ledger keys show FILE"}},
		{[]string{"users", "grant"}, []string{"missing USER", "Usage: ledger users grant USER"}},
		{[]string{"keys", "show", "a", "b"}, []string{`unexpected argument "b"`, "Usage: ledger keys show FILE"}},
		{[]string{"completions", "bash"}, []string{"ledger completion bash"}},
	} {
		r := runCLI(t, "", tc.args...)
		if r.code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s%s", tc.args, r.code, r.out, r.err)
		}
		for _, w := range tc.want {
			if !strings.Contains(r.err, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", tc.args, w, r.err)
			}
		}
	}
	// The noun alone still prints its help.
	if r := runCLI(t, "", "users"); r.code != 0 || !strings.Contains(r.out, "delete") || !strings.Contains(r.out, "update") {
		t.Errorf("ledger users: exit %d\n%s", r.code, r.out)
	}
}

// TestNoYAMLEnvelopes: envelopes are JSON; -o yaml never makes prepare or
// sign write a YAML envelope that show, sign, hash, verify and execute
// would refuse (issue 12, item 20).
func TestNoYAMLEnvelopes(t *testing.T) {
	isolateConfig(t)
	for _, args := range [][]string{
		{"prepare", "--create", "#p:M:T", "--args", "{}", "--act-as", "a::1", "-o", "yaml", "--url", "http://127.0.0.1:1"},
		{"sign", "tx.json", "--key", "k.key", "-o", "yaml"},
	} {
		r := runCLI(t, "", args...)
		if r.code != cmdutil.ExitUsage || !strings.Contains(r.err, "envelopes are JSON only") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.err)
		}
	}
	ios, _, _, _ := cmdutil.Test()
	root := NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New()})
	for _, name := range []string{"prepare", "sign"} {
		c, _, _ := root.Find([]string{name})
		if !strings.Contains(c.Long, "JSON") || !strings.Contains(c.Long, "YAML envelope is never written") && !strings.Contains(c.Long, "JSON like every envelope") {
			t.Errorf("%s --help does not say envelopes are JSON", name)
		}
	}
}

// TestGroupUsageShowsOnlyVerbs: a noun's help gives the verb line only
// ("ledger users [command]"), its verbs their own usage line.
func TestGroupUsageShowsOnlyVerbs(t *testing.T) {
	ios, _, _, _ := cmdutil.Test()
	root := NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New()})
	for _, name := range []string{"users", "keys", "parties", "config"} {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name {
			t.Fatalf("%s not registered", name)
		}
		usage := c.UsageString()
		if strings.Contains(usage, "ledger "+name+" [flags]") || !strings.Contains(usage, "ledger "+name+" [command]") {
			t.Errorf("%s usage:\n%s", name, usage)
		}
		for _, verb := range c.Commands() {
			if verb.Runnable() && !strings.Contains(verb.UsageString(), verb.UseLine()) {
				t.Errorf("%s usage lacks its use line %q:\n%s", verb.CommandPath(), verb.UseLine(), verb.UsageString())
			}
		}
	}
}
