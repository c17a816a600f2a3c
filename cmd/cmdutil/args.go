package cmdutil

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// ExactArgs is cobra.ExactArgs with a usage exit code and an error that
// names the missing argument and shows the usage line.
func ExactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < n:
			return missingArgs(cmd, args, n)
		case len(args) > n:
			return extraArgs(cmd, args, n)
		}
		return nil
	}
}

// MaxArgs is cobra.MaximumNArgs with a usage exit code and the usage line.
func MaxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return extraArgs(cmd, args, n)
		}
		return nil
	}
}

func missingArgs(cmd *cobra.Command, args []string, n int) error {
	names := argNames(cmd.Use)
	what := fmt.Sprintf("%d argument(s)", n-len(args))
	if len(names) >= n {
		what = strings.Join(names[len(args):n], " ")
	}
	return usageWithLine(cmd, "missing %s", what)
}

func extraArgs(cmd *cobra.Command, args []string, n int) error {
	if n == 0 {
		return usageWithLine(cmd, "unexpected argument %q: %s takes none", args[0], cmd.CommandPath())
	}
	return usageWithLine(cmd, "unexpected argument %q: %s takes %d", args[n], cmd.CommandPath(), n)
}

// usageWithLine is a usage error followed by the command's usage line.
func usageWithLine(cmd *cobra.Command, format string, args ...any) error {
	return UsageError("%s\nUsage: %s\nRun '%s --help' for more.", fmt.Sprintf(format, args...), cmd.UseLine(), cmd.CommandPath())
}

// argNames are the positional arguments a Use line names: the words after
// the command's name up to the first flag, option or group ("show FILE|-",
// "update PARTY --set …" → FILE|-, PARTY).
func argNames(use string) []string {
	words := strings.Fields(use)
	var names []string
	for _, w := range words[min(1, len(words)):] {
		if strings.ContainsAny(w[:1], "-[(") {
			break
		}
		names = append(names, w)
	}
	return names
}

// Group makes cmd a noun that only holds verbs (ledger users, ledger keys):
// alone it prints its help; with an unknown verb it is a usage error with
// cobra's suggestions ("did you mean list?") instead of the help and exit
// status 0 that cobra gives a command without a Run.
func Group(cmd *cobra.Command) *cobra.Command {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, set only on its own path
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
		}
		return UsageError("%s\nRun '%s --help' for usage.", msg, c.CommandPath())
	}
	cmd.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
	// The RunE above makes the noun runnable, and cobra would print
	// "ledger users [flags]" above "ledger users [command]": a noun's help
	// shows only the verbs' line. Its verbs inherit the template, where
	// the condition keeps their own line.
	cmd.SetUsageTemplate(strings.Replace(cmd.UsageTemplate(), "{{if .Runnable}}", "{{if and .Runnable (not .HasAvailableSubCommands)}}", 1))
	// "ledger users lst --url U": report the verb, not the verb's flag.
	cmd.FParseErrWhitelist.UnknownFlags = true
	return cmd
}
