package cmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/wallet"
)

// ShowOptions are the inputs of `ledger show`.
type ShowOptions struct {
	IO     *cmdutil.IOStreams
	Now    func() time.Time
	Format string

	File    string
	Scheme  string
	FullIDs bool
	Width   int
	Dars    []string
}

// NewCmdShow builds `ledger show`.
func NewCmdShow(f *cmdutil.Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "show FILE|-",
		Short: "Show what a prepared transaction does, for review before signing",
		Long: `Decode a prepared transaction and show it for a person who has to decide
whether to sign it. Nothing is taken on trust from the node that prepared it:
the hash is recomputed here, and the rendering comes from the same bytes
that are hashed.

The output starts with one sentence saying what the transaction does, then
warnings, its net effects (contracts created and archived), who submits it,
the time left to sign, the recomputed hash, the tree of nodes (create,
exercise, fetch, rollback, look-up by key) with decoded Daml values, the
input contracts, what an envelope adds without signing it (node, traffic
cost, signatures already present) and every party id in full. Party,
contract and package ids are shortened ("alice::1220a1a2…bebf",
"0007e7…21c5") unless --full-ids.

FILE (or standard input for "-") is a prepare response as a Canton node
returns it, an envelope written by "ledger prepare" or "ledger sign", or a
bare base64 preparedTransaction (hashed with V2 unless --scheme says
otherwise). Colour is used on a terminal, unless NO_COLOR is set to a
non-empty value or CLICOLOR=0; CLICOLOR_FORCE=1 forces it.

-o json and -o yaml print the decoded structure for scripts: full ids,
int64 and numeric values as exact text, times as UTC RFC 3339.

` + reinterpretationHelp + `
The review then opens with "re-interpreted: matches the Daml code of …";
without packages it warns that the effects shown are the preparing node's
word. With --dar each argument's fields are also listed with their Daml types.

Exit status: 0 when shown, 3 when the input's preparedTransactionHash
differs from the recomputed hash or the transaction is not what its Daml
code makes (the transaction is still shown), 1 when the input cannot be
decoded or hashed or packages it needs are missing, 2 on a usage error.`,
		Example: `  # review a prepare response before signing it
  ledger show prepared.json

  # every id in full, e.g. to compare party ids character by character
  ledger show --full-ids tx.json

  # a bare base64 transaction prepared with V3
  ledger show --scheme v3 tx.b64

  # re-run its Daml code offline with the DARs at hand
  ledger show tx.json --dar splice-dars/

  # what the transaction creates, for a script
  ledger show -o json tx.json | jq '.effects.created'`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if opts.Width < 0 {
				return cmdutil.UsageError("--width must be positive, got %d", opts.Width)
			}
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Scheme, "scheme", "", "hashing scheme: v2 or v3 (default: the one the input names, V2 for bare base64)")
	cmd.Flags().BoolVar(&opts.FullIDs, "full-ids", false, "print party, contract and package ids in full")
	cmd.Flags().IntVar(&opts.Width, "width", display.DefaultWidth, "fit the text output to this many columns")
	addDarFlag(cmd.Flags(), &opts.Dars)
	return cmd
}

func showRun(opts *ShowOptions) error {
	var flagScheme hashing.Scheme
	if opts.Scheme != "" {
		s, err := hashing.ParseScheme(opts.Scheme)
		if err != nil {
			return cmdutil.UsageError("--scheme: %s", err)
		}
		flagScheme = s
	}
	src := wallet.Source{Path: opts.File, Stdin: opts.IO.In}
	name := src.Name()
	rv, err := wallet.Open(src, wallet.OpenOptions{Now: opts.Now(), Scheme: flagScheme, Dars: opts.Dars})
	var conflict *wallet.SchemeConflictError
	switch {
	case errors.Is(err, wallet.ErrNoScheme):
		return fmt.Errorf("%w; pass --scheme if you know it", err)
	case errors.As(err, &conflict):
		return cmdutil.UsageError("--scheme %s contradicts %s, which names %s: drop --scheme", conflict.Given, conflict.Source, conflict.Named)
	case err != nil:
		return reinterpretationError(err)
	}
	env, scheme := rv.Envelope, rv.Scheme
	if opts.Format != cmdutil.FormatTable {
		err = cmdutil.WriteStructured(opts.IO.Out, opts.Format, rv.Review)
	} else {
		err = display.RenderText(opts.IO.Out, rv.Review, display.TextOptions{
			Color:   opts.IO.ColorEnabled(),
			Width:   opts.Width,
			FullIDs: opts.FullIDs,
		})
	}
	if err != nil {
		return err
	}
	if len(opts.Dars) > 0 && opts.Format == cmdutil.FormatTable && rv.Reinterpretation != nil {
		args, err := typedArguments(env, rv.Reinterpretation.Packages)
		if err != nil {
			return err
		}
		if err := display.RenderTypedArguments(opts.IO.Out, args); err != nil {
			return err
		}
	}
	switch {
	case rv.HashErr != nil:
		return fmt.Errorf("%s: the hash cannot be recomputed, do not sign: %w", name, rv.HashErr)
	case rv.NodeHash != nil && !rv.MatchesNode():
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, fmt.Errorf(
			"%s: the node's preparedTransactionHash differs from the hash recomputed under %s: do not sign", name, scheme))
	case rv.Reinterpretation != nil && !rv.Reinterpretation.Matches():
		return reinterpretationError(&wallet.NotDamlCodeError{Source: name, Difference: rv.Reinterpretation.Difference})
	}
	return nil
}
