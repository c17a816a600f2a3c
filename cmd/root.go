// Package cmd holds ledger's cobra commands, as the GitHub CLI writes them:
// each command an Options struct, a NewCmdX(f, runF) that only parses flags
// into it, and an xRun(opts) that calls wallet, client or the node and
// renders through display — no business logic here. A noun with several
// verbs has its own package (keys, parties, users, config), and so has a
// command that runs a node or Daml code (serve, quickstart, token, bench,
// daml): this package, where sign and verify live, imports neither node nor
// server. The verbs of one word (prepare, sign, execute, …) are one file
// each in this package. cmdutil holds what commands share: IO streams,
// output formats, the client's settings, exit codes, hints and prompts.
package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/bench"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/config"
	"github.com/ledger-cli/ledger/cmd/daml"
	"github.com/ledger-cli/ledger/cmd/dars"
	"github.com/ledger-cli/ledger/cmd/keys"
	"github.com/ledger-cli/ledger/cmd/packages"
	"github.com/ledger-cli/ledger/cmd/parties"
	"github.com/ledger-cli/ledger/cmd/quickstart"
	"github.com/ledger-cli/ledger/cmd/serve"
	"github.com/ledger-cli/ledger/cmd/token"
	"github.com/ledger-cli/ledger/cmd/users"
)

// Execute runs the root command and returns the process exit status.
func Execute() int {
	f := cmdutil.NewFactory()
	root := NewCmdRoot(f)
	err := root.Execute()
	if err != nil {
		var ee *cmdutil.ExitError
		if !errors.As(err, &ee) || ee.Err != nil {
			fmt.Fprintf(f.IO.ErrOut, "error: %s\n", err)
		}
	}
	return cmdutil.ExitCode(err)
}

// NewCmdRoot builds the command tree around f.
func NewCmdRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "ledger",
		Short: "Client, offline signer and local node for Canton's JSON Ledger API v2",
		Long: `ledger talks to Canton participant nodes over the JSON Ledger API v2.

It prepares transactions, recomputes their hash locally (schemes V2 and V3)
without trusting the node, renders them for review, signs them with ed25519
keys (also on an air-gapped machine) and executes them. It also runs a local
participant node (ledger serve) that speaks the same API.

Start with:  ledger quickstart`,
		Version:       cmdutil.ReadBuild().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			_, err := f.OutputFormat()
			return err
		},
	}
	cmdutil.Group(root)
	root.FParseErrWhitelist.UnknownFlags = false // "ledger --bogus" stays an error
	root.SetVersionTemplate("ledger {{.Version}}\n")
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cmdutil.UsageError("%s\nRun '%s --help' for usage.", err, c.CommandPath())
	})

	root.PersistentFlags().StringP("output", "o", cmdutil.FormatTable, "output format: table, json or yaml (files are written with --out)")
	bindConfig(f.Config, root)

	root.AddCommand(
		// Commands are registered here, one line each.
		quickstart.NewCmdQuickstart(f, NewCmdRoot, nil),
		NewCmdHash(f, nil),
		NewCmdVerify(f, nil),
		NewCmdSign(f, nil),
		token.NewCmdToken(f, nil),
		NewCmdShow(f, nil),
		keys.NewCmdKeys(f),
		serve.NewCmdServe(f, nil),
		config.NewCmdConfig(f),
		NewCmdPrepare(f, nil),
		NewCmdExecute(f, nil),
		NewCmdSubmit(f, nil),
		NewCmdCompletions(f, nil),
		NewCmdContracts(f, nil),
		NewCmdUpdates(f, nil),
		NewCmdUpdate(f, nil),
		NewCmdEvents(f, nil),
		NewCmdPrune(f, nil),
		parties.NewCmdParties(f),
		dars.NewCmdDars(f),
		packages.NewCmdPackages(f),
		users.NewCmdUsers(f),
		bench.NewCmdBench(f, nil),
		NewCmdVersion(f, nil),
		NewCmdStatus(f, nil),
		NewCmdErrors(f, nil),
		daml.NewCmdDaml(f),
	)
	return root
}

// bindConfig wires viper: LEDGER_* environment variables and the persistent
// flags of root. Flags win over the environment.
func bindConfig(v *viper.Viper, root *cobra.Command) {
	v.SetEnvPrefix("LEDGER")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	_ = v.BindPFlag("output", root.PersistentFlags().Lookup("output"))
}
