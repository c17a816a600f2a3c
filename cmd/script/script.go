// Package script holds `ledger script`: run one Daml Script of a DAR
// against a node over the JSON Ledger API, as `daml script` does.
package script

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/client/scriptledger"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/script"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// maxInputBytes bounds --input-file.
const maxInputBytes = 16 << 20

// Options are the inputs of `ledger script`.
type Options struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)

	Dar        string
	ScriptName string
	InputFile  string
	OutputFile string
	UploadDar  bool
}

// NewCmdScript builds `ledger script`.
func NewCmdScript(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "script DAR --script-name Module:name",
		Short: "Run a Daml Script of a DAR against a node",
		Long: `Run one Daml Script of a DAR against a node, as daml script does: its
commands go to the node over the JSON Ledger API (--url and the usual
connection flags), so it runs against Canton as against ledger serve. Use it
for setup scripts: allocate parties, create the first contracts.

A script that takes an argument reads it from --input-file, in the JSON
encoding of the Ledger API for its type; --output-file writes the script's
result the same way. --upload-dar uploads the DAR first (the node must know
the templates the script uses).

Time commands (getTime, setTime, passTime) need a node whose clock can be set:
ledger serve --static-time. Against another node they fail saying so.`,
		Example: `  ledger serve --static-time &
  ledger script my-app.dar --script-name Setup:initialize --upload-dar
  ledger script my-app.dar --script-name Setup:withParties --input-file parties.json --output-file result.json`,
		Args: cmdutil.ExactArgs(1),
	}
	cf := cmdutil.AddConnFlags(cmd)
	cmd.Flags().StringVar(&opts.ScriptName, "script-name", "", "the script to run: Module:name of the DAR's main package (required)")
	cmd.Flags().StringVar(&opts.InputFile, "input-file", "", "read the script's argument, as JSON, from `FILE`")
	cmd.Flags().StringVar(&opts.OutputFile, "output-file", "", "write the script's result, as JSON, to `FILE`")
	cmd.Flags().BoolVar(&opts.UploadDar, "upload-dar", false, "upload the DAR to the node before running the script")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		opts.Dar = args[0]
		if opts.ScriptName == "" {
			return cmdutil.UsageError("give the script to run with --script-name Module:name")
		}
		opts.Connect = cf.Connect
		if runF != nil {
			return runF(opts)
		}
		return scriptRun(opts)
	}
	return cmd
}

func scriptRun(opts *Options) error {
	darBytes, err := os.ReadFile(opts.Dar)
	if err != nil {
		return err
	}
	dar, err := archive.DecodeDar(darBytes, archive.Options{})
	if err != nil {
		return fmt.Errorf("%s: %w", opts.Dar, err)
	}
	r, err := script.New(dar.Packages, dar.Main, interp.Limits{})
	if err != nil {
		return fmt.Errorf("%s: %w", opts.Dar, err)
	}
	name, sig, err := r.LookupSignature(opts.ScriptName)
	if err != nil {
		return cmdutil.UsageError("--script-name: %v", err)
	}
	env := typed.NewEnv(dar.Packages...)
	var input value.Value
	switch {
	case sig.Input != nil && opts.InputFile == "":
		return cmdutil.UsageError("--input-file: script %s takes an argument of type %s: give it as JSON in a file", opts.ScriptName, sig.Input)
	case sig.Input == nil && opts.InputFile != "":
		return cmdutil.UsageError("--input-file: script %s takes no argument", opts.ScriptName)
	case sig.Input != nil:
		if input, err = readInput(env, sig, opts.InputFile); err != nil {
			return err
		}
	}
	var outPlan *typed.Plan
	if opts.OutputFile != "" {
		if outPlan, err = env.Plan(sig.Result); err != nil {
			return cmdutil.UsageError("--output-file: the result of %s, of type %s, has no JSON encoding: %v", opts.ScriptName, sig.Result, err)
		}
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx := context.Background()
	if opts.UploadDar {
		if err := conn.Client.UploadDar(ctx, darBytes, client.UploadOptions{}); err != nil {
			return fmt.Errorf("uploading %s: %w", opts.Dar, err)
		}
	} else if status, err := conn.Client.PackageStatus(ctx, string(dar.Main)); err == nil && status != ledgerapi.PackageStatusRegistered {
		// Without the DAR a node refuses the script's templates — or, a
		// ledger serve without --strict-packages, runs them by its
		// generic contract model, which is not the DAR's code.
		return fmt.Errorf("the node does not have %s's main package %s: upload it (ledger dars upload %s) or run with --upload-dar",
			opts.Dar, dar.Main, opts.Dar)
	}
	user := conn.UserID
	if user == "" {
		// No token to take it from (a node without authentication):
		// submissions still name a user, as daml script's default
		// application does.
		user = "daml-script"
	}
	ledger := scriptledger.New(conn.Client, dar.Packages, user)
	res, err := r.Run(ctx, name, ledger, script.Options{Input: input})
	if res != nil {
		for _, t := range res.Trace {
			fmt.Fprintln(opts.IO.ErrOut, t)
		}
	}
	if err != nil {
		var f *script.Failure
		if errors.As(err, &f) {
			return fmt.Errorf("script %s failed: %w", opts.ScriptName, f)
		}
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "%s: ok, %d commands\n", opts.ScriptName, res.Commands)
	if outPlan != nil {
		b, err := outPlan.EncodeJSON(res.Value)
		if err != nil {
			return fmt.Errorf("--output-file: %w", err)
		}
		if err := os.WriteFile(opts.OutputFile, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("--output-file: %w", err)
		}
	}
	return nil
}

// readInput decodes the script's argument from the JSON file.
func readInput(env *typed.Env, sig script.Signature, path string) (value.Value, error) {
	p, err := env.Plan(sig.Input)
	if err != nil {
		return nil, cmdutil.UsageError("--input-file: the script's argument, of type %s, has no JSON encoding: %v", sig.Input, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--input-file: %w", err)
	}
	if fi.Size() > maxInputBytes {
		return nil, fmt.Errorf("--input-file: %s is %d bytes, more than the %d an argument may have", path, fi.Size(), maxInputBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--input-file: %w", err)
	}
	v, err := p.DecodeJSON(b, typed.DecodeOptions{Path: "input"})
	if err != nil {
		return nil, fmt.Errorf("--input-file %s: %s", path, strings.TrimSpace(err.Error()))
	}
	return v, nil
}
