package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

// TestREADMEFlagsExist (issue 25, acceptance): every `ledger …` command
// line of README.md — in its code blocks and its inline code — names
// commands and flags that exist (by their current names, not hidden old
// ones), and every flag it names alone (`--from`)
// is a flag of some command; so the README stays true when a flag is
// renamed.
func TestREADMEFlagsExist(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	root := newRoot()
	var lines []string
	inBlock := false
	var prose strings.Builder
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock {
			lines = append(lines, l)
		} else {
			prose.WriteString(l + " ")
		}
	}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose.String(), -1) {
		span := m[1]
		if strings.HasPrefix(span, "--") || strings.HasPrefix(span, "-o") {
			for _, f := range regexp.MustCompile(`--[a-z][a-z0-9-]*`).FindAllString(span, -1) {
				if !anyCommandHas(root, f[2:]) {
					t.Errorf("README.md names %s (in `%s`), which no command has", f, span)
				}
			}
			continue
		}
		lines = append(lines, span)
	}
	for _, l := range lines {
		checkCommandLine(t, root, "README.md", l, true)
	}
}

// TestHelpExamplesFlagsExist: every `ledger …` line of every command's
// Example and Long help names a command and flags that exist.
func TestHelpExamplesFlagsExist(t *testing.T) {
	root := newRoot()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, l := range strings.Split(c.Example, "\n") {
			checkCommandLine(t, root, c.CommandPath()+" --help", l, true)
		}
		for _, l := range strings.Split(c.Long, "\n") { // prose: only lines that name a command
			checkCommandLine(t, root, c.CommandPath()+" --help", l, false)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

func newRoot() *cobra.Command {
	ios, _, _, _ := cmdutil.Test()
	root := cmd.NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New()})
	root.InitDefaultCompletionCmd() // cobra adds these when it runs
	root.InitDefaultHelpCmd()
	return root
}

var (
	shellComment = regexp.MustCompile(`(^|\s)#(\s|$)`)
	commandWord  = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

// ledgerCall is a ledger command line within a line of text: from
// "ledger" to the end of the command (a pipe, a redirection, a comment, a
// separator, or the end of the code).
var ledgerCall = regexp.MustCompile(`(?:^|[\s$(=])ledger ([^|;&#>)` + "`" + `]*)`)

// checkCommandLine checks the ledger command lines of line: each names a
// command that exists, and flags that command has. In code (code true) a
// line naming no command is an error; in prose it is a sentence.
func checkCommandLine(t *testing.T, root *cobra.Command, where, line string, code bool) {
	t.Helper()
	if loc := shellComment.FindStringIndex(line); loc != nil {
		line = line[:loc[0]]
	}
	for _, m := range ledgerCall.FindAllStringSubmatch(line, -1) {
		words := strings.Fields(m[1])
		if len(words) == 0 || strings.HasPrefix(words[0], "-") {
			continue
		}
		var path []string
		for _, w := range words {
			if !commandWord.MatchString(w) {
				break
			}
			path = append(path, w)
		}
		c, _, err := root.Find(path)
		if err != nil || c == root {
			if code && len(path) > 0 && !proseWord(path[0]) {
				t.Errorf("%s: %q: no command %q", where, strings.TrimSpace(m[0]), strings.Join(path, " "))
			}
			continue
		}
		for _, w := range words {
			if !strings.HasPrefix(w, "--") || w == "--" {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			name = strings.TrimRight(name, `.,;:'"`+"`")
			if name == "" || name == "help" {
				continue
			}
			switch f := lookup(c, name); {
			case f == nil:
				t.Errorf("%s: %q: %s has no flag --%s", where, strings.TrimSpace(m[0]), c.CommandPath(), name)
			case f.Hidden:
				t.Errorf("%s: %q: --%s is an old name, hidden from %s --help; use the current one", where, strings.TrimSpace(m[0]), name, c.CommandPath())
			}
		}
	}
}

// proseWord: "ledger" followed by an English word in a sentence ("ledger
// is one Go binary") is not a command line.
func proseWord(w string) bool {
	switch w {
	case "is", "talks", "does", "and", "has", "the", "with", "itself", "it", "prints", "can", "runs", "never", "on", "end", "api", "as", "a", "in", "to", "of", "for", "that", "serve's":
		return true
	}
	return false
}

func lookup(c *cobra.Command, name string) *pflag.Flag {
	if f := c.Flags().Lookup(name); f != nil {
		return f
	}
	return c.InheritedFlags().Lookup(name)
}

func anyCommandHas(root *cobra.Command, name string) bool {
	found := name == "help" || name == "version"
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if lookup(c, name) != nil {
			found = true
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return found
}
