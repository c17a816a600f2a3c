package cmd

import (
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
