package cmdutil

import (
	"github.com/spf13/cobra"
)

// ExactArgs is cobra.ExactArgs with a usage exit code.
func ExactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return UsageError("%s", err)
		}
		return nil
	}
}

// MaxArgs is cobra.MaximumNArgs with a usage exit code.
func MaxArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.MaximumNArgs(n)(cmd, args); err != nil {
			return UsageError("%s", err)
		}
		return nil
	}
}
