package cmd

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

// flagMeanings is what each flag name that once meant two things means
// now, across the whole CLI (issue 25, item 13): the commands that have it
// (visible), and what its help says. A command that gives one of these
// names another meaning has to be added here, next to the one it clashes
// with. A name with no commands is an old name, hidden everywhere.
var flagMeanings = []struct {
	name     string
	meaning  string
	commands []string
	usage    string // a regular expression each command's help line matches
}{
	{"from", "the offset a stream starts after", []string{"completions", "updates"}, `^offset to start after`},
	{"to", "the last offset a stream reads", []string{"updates"}, `^last offset`},
	{"page-size", "elements per request of a paged read", []string{"bench", "completions", "contracts", "updates"}, `per (list )?request`},
	{"stream-idle-timeout", "how long one list request waits for more (Canton's stream_idle_timeout_ms)",
		[]string{"completions", "updates"}, `^how long one list request waits`},
	{"idle-timeout", "how long ledger serve keeps an idle keep-alive connection", []string{"serve"}, `keep-alive`},
	{"dar", "DARs this process reads itself: to check types, re-run Daml code or serve; never sent to another node",
		[]string{"prepare", "serve", "show", "sign", "submit", "verify"}, `DAR`},
	{"upload-dar", "a DAR sent to the node (bench: the file; script: the script's DAR)", []string{"bench", "script"}, `upload`},
	{"args", "a template's create arguments", []string{"bench", "prepare", "submit"}, `^create arguments`},
	{"arg", "the argument of what is exercised or called: a choice's, each of a function's", []string{"daml eval", "prepare", "submit"}, `argument`},
	{"in", "the file a command reads its input from (the counterpart of --out)", []string{"keys import"}, `^file holding`},
	{"begin", "old name of completions --from", nil, ``},
	{"limit", "old name of --page-size", nil, ``},
	{"jsonl", "old name of contracts -o json", nil, ``},
}

// TestFlagNamesHaveOneMeaning walks every command's flags: each name of
// flagMeanings is visible exactly on its commands, with help that says
// its meaning, and each hidden flag is an old name kept working for a
// visible flag of the same command (or --jsonl, the old -o json).
func TestFlagNamesHaveOneMeaning(t *testing.T) {
	ios, _, _, _ := cmdutil.Test()
	root := NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New()})
	on := map[string][]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), "ledger ")
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				on[f.Name] = append(on[f.Name], path)
				for _, m := range flagMeanings {
					if m.name == f.Name && !regexp.MustCompile(m.usage).MatchString(f.Usage) {
						t.Errorf("%s --%s: help %q does not say %s", path, f.Name, f.Usage, m.meaning)
					}
				}
				return
			}
			if f.Name == "jsonl" && path == "contracts" {
				return
			}
			alias := f.Annotations[cmdutil.AliasAnnotation]
			if len(alias) != 1 || c.LocalFlags().Lookup(alias[0]) == nil || c.LocalFlags().Lookup(alias[0]).Hidden {
				t.Errorf("%s --%s is hidden but is not an old name of a visible flag of the command", path, f.Name)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	for _, m := range flagMeanings {
		got := on[m.name]
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(m.commands, ",") {
			t.Errorf("--%s (%s) is a visible flag of %q, want exactly %q", m.name, m.meaning, got, m.commands)
		}
	}
}

// TestOldFlagNamesStillWork: the old names set the new flags, and count as
// given (so --begin still keeps a pruned node's reads where they were asked
// to start).
func TestOldFlagNamesStillWork(t *testing.T) {
	ios, _, _, _ := cmdutil.Test()
	var got *CompletionsOptions
	cmd := NewCmdCompletions(&cmdutil.Factory{IO: ios, Config: viper.New()}, func(o *CompletionsOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--party", "a::1220ab", "--begin", "7", "--limit", "9", "--idle-timeout", "3s"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Begin != "7" || !got.BeginSet || got.Limit != 9 || got.IdleTimeout.String() != "3s" {
		t.Errorf("old names: begin %q (set %v), limit %d, idle %s", got.Begin, got.BeginSet, got.Limit, got.IdleTimeout)
	}
	var up *UpdatesOptions
	cmd = NewCmdUpdates(&cmdutil.Factory{IO: ios, Config: viper.New()}, func(o *UpdatesOptions) error { up = o; return nil })
	cmd.SetArgs([]string{"--party", "a::1220ab", "--limit", "9", "--idle-timeout", "3s"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if up.Limit != 9 || up.IdleTimeout.String() != "3s" {
		t.Errorf("updates old names: limit %d, idle %s", up.Limit, up.IdleTimeout)
	}
	if r := runCLI(t, "", "completions", "--help"); strings.Contains(r.out, "--begin") || strings.Contains(r.out, "--limit") || strings.Contains(r.out, " --idle-timeout") {
		t.Errorf("completions --help shows an old name:\n%s", r.out)
	}
}
