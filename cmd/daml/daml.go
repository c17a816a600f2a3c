// Package daml holds `ledger daml`: the commands that run a DAR's Daml-LF
// code here, offline (daml eval).
package daml

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/eval"
	"github.com/ledger-cli/ledger/daml/interp"
)

// NewCmdDaml builds `ledger daml`, the commands that run Daml-LF offline.
func NewCmdDaml(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daml",
		Short: "Run Daml-LF code of a DAR offline",
		Long: `Run the Daml-LF code of a DAR with ledger's own interpreter, without a node
or a JVM.`,
		Example: `  ledger daml eval model.dar Main:answer`,
	}
	cmd.AddCommand(NewCmdDamlEval(f, nil))
	return cmd
}

// EvalOptions are the inputs of `ledger daml eval`.
type EvalOptions struct {
	IO     *cmdutil.IOStreams
	Format string

	Dar    string
	Value  string
	Args   []string
	Types  []string
	Scales []int
	Dev    bool
	Steps  int64
	Depth  int
	Memory cmdutil.ByteSize
}

// NewCmdDamlEval builds `ledger daml eval`.
func NewCmdDamlEval(f *cmdutil.Factory, runF func(*EvalOptions) error) *cobra.Command {
	opts := &EvalOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "eval DAR VALUE [--arg JSON]... [--type TYPE]... [--scale N]...",
		Short: "Evaluate a top-level value of a DAR",
		Long: `Evaluate a top-level value of a DAR, applied to the arguments given with
--arg, and print the result.

VALUE is Module:name in the DAR's main package, or package:Module:name where
package is a package name (daml-stdlib) or id. Each --arg is JSON read by the
type of the next parameter: numbers (or strings) for Int64 and Numeric,
strings for Text, Party, Date ("2024-02-29"), Timestamp and ContractId,
true/false, arrays for lists, null or the value for Optional, objects by
field for records, {"tag": "C", "value": …} for variants and the constructor's
name for enums.

A polymorphic value needs its types: --type gives the type variables in
order (Int, Text, Decimal, Numeric 10, [Party], Optional Int, Module:Entity
of the DAR), --scale the scale of each Numeric it takes of any scale. A
type-class constraint (Ord a, Show a, NumericScale n) is not an --arg: once
the type is known, the DAR's instance for it is passed (Ord Int for
--type Int). Without them the command says which to give.

Updates are not run: a value of type Update prints as a function. A Daml
error is printed with its Canton error id, the Daml location and a
backtrace; the exit status is then 1.`,
		Example: `  # a function of the standard library, with two arguments
  ledger daml eval model.dar daml-stdlib:DA.Text:splitOn --arg '", "' --arg '"a, b"'

  # a record argument, the result as JSON
  ledger daml eval model.dar daml-stdlib:DA.Time:convertRelTimeToMicroseconds \
      --arg '{"microseconds": 1500}' -o json

  # a function with a type-class constraint, and one of any Numeric scale
  ledger daml eval model.dar daml-stdlib:DA.List:sort --type Int --arg '[3, 1, 2]'
  ledger daml eval model.dar daml-stdlib:DA.Numeric:mul --scale 10 --arg '"1.5"' --arg '"2.5"'

  # a value of the DAR's own code, with tighter step and memory budgets
  ledger daml eval model.dar Main:answer --steps 1000000 --memory 64MiB`,
		Args: cmdutil.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dar, opts.Value = args[0], args[1]
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return damlEvalRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Args, "arg", nil, "an argument, as JSON (repeat for each parameter)")
	cmd.Flags().StringArrayVar(&opts.Types, "type", nil, "a type variable's type, e.g. Int, Decimal or [Text] (repeat for each, in order)")
	cmd.Flags().IntSliceVar(&opts.Scales, "scale", nil, "the scale (0 to 37) of a Numeric of any scale the value takes (repeat for each, in order)")
	cmd.Flags().BoolVar(&opts.Dev, "dev", false, "accept Daml-LF 2.dev packages")
	cmd.Flags().Int64Var(&opts.Steps, "steps", 0, "step budget of the evaluation (default 100,000,000)")
	cmd.Flags().IntVar(&opts.Depth, "depth", 0, "depth limit of the evaluation (default 250,000)")
	cmd.Flags().Var(&opts.Memory, "memory", "memory budget of the evaluation: bytes of values it may build, e.g. 64MiB (default 512MiB)")
	return cmd
}

// damlEvalOutput is the -o json form of a result.
type damlEvalOutput struct {
	Value json.RawMessage `json:"value"`
	Type  string          `json:"type"`
	Steps int64           `json:"steps"`
}

func damlEvalRun(ctx context.Context, opts *EvalOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	dar, err := archive.ReadDarFile(opts.Dar, archive.Options{AllowDev: opts.Dev})
	if err != nil {
		return err
	}
	raw := make([]json.RawMessage, len(opts.Args))
	for i, a := range opts.Args {
		if !json.Valid([]byte(a)) {
			return cmdutil.UsageError("--arg %d is not JSON: %s (quote text: '\"text\"')", i+1, a)
		}
		raw[i] = json.RawMessage(a)
	}
	for _, n := range opts.Scales {
		if n < 0 || n > 37 {
			return cmdutil.UsageError("--scale %d: a Numeric scale is 0 to 37", n)
		}
	}
	res, err := eval.RunWith(ctx, dar, opts.Value, raw, eval.Instantiation{Types: opts.Types, Scales: opts.Scales},
		interp.Limits{Steps: opts.Steps, Depth: opts.Depth, Memory: int64(opts.Memory)})
	if err != nil {
		var inst *eval.InstantiationError
		if errors.As(err, &inst) {
			return cmdutil.UsageError("%s", inst.Msg)
		}
		var ie *interp.Error
		if errors.As(err, &ie) {
			return fmt.Errorf("%s: %w", ie.ID, ie)
		}
		return err
	}
	if opts.Format != cmdutil.FormatTable {
		value, err := res.JSON()
		if err != nil {
			return err
		}
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, damlEvalOutput{
			Value: value, Type: res.Type.String(), Steps: res.Steps,
		})
	}
	fmt.Fprintln(opts.IO.Out, res.Value)
	return nil
}
