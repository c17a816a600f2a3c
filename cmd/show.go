package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/envelope"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
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
otherwise). Colour is used on a terminal unless NO_COLOR is set.

-o json and -o yaml print the decoded structure for scripts: full ids,
int64 and numeric values as exact text, times as UTC RFC 3339.

Exit status: 0 when shown, 3 when the input's preparedTransactionHash
differs from the recomputed hash (the transaction is still shown), 1 when
the input cannot be decoded or hashed, 2 on a usage error.`,
		Example: `  # review a prepare response before signing it
  ledger show prepared.json

  # every id in full, e.g. to compare party ids character by character
  ledger show --full-ids tx.json

  # a bare base64 transaction prepared with V3
  ledger show --scheme v3 tx.b64

  # what the transaction creates, for a script
  ledger show -o json tx.json | jq '.effects.created'`,
		Args: exactArgs(1),
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
	env, raw, scheme, nodeHash, err := loadForShow(opts.File, opts.IO, flagScheme)
	if err != nil {
		return err
	}
	name := opts.File
	if opts.File == "-" {
		name = "standard input"
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		return fmt.Errorf("%s: preparedTransaction does not decode as a PreparedTransaction: %w", name, err)
	}
	res, hashErr := hashing.Compute(raw, scheme, hashing.Options{})
	review, err := display.Summarize(&pt, res, opts.Now())
	if err != nil {
		if hashErr != nil {
			return fmt.Errorf("%s: %w", name, hashErr)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if hashErr != nil {
		review.HashError = hashErr.Error()
	}
	review.Origin = originOf(env)
	match := true
	if nodeHash != nil && res != nil {
		match = review.CompareNodeHash(nodeHash)
	}

	if opts.Format != cmdutil.FormatTable {
		err = cmdutil.WriteStructured(opts.IO.Out, opts.Format, review)
	} else {
		err = display.RenderText(opts.IO.Out, review, display.TextOptions{
			Color:   opts.IO.ColorEnabled(),
			Width:   opts.Width,
			FullIDs: opts.FullIDs,
		})
	}
	if err != nil {
		return err
	}
	switch {
	case hashErr != nil:
		return fmt.Errorf("%s: the hash cannot be recomputed, do not sign: %w", name, hashErr)
	case !match:
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, fmt.Errorf(
			"%s: the node's preparedTransactionHash differs from the hash recomputed under %s: do not sign", name, scheme))
	}
	return nil
}

// loadForShow reads FILE in any of the forms `ledger hash` accepts and
// returns it with the prepared transaction's bytes, the scheme to hash it
// under and the node's hash (nil when the input has none). A --scheme that
// contradicts the scheme a JSON input names is a usage error.
func loadForShow(path string, ios *cmdutil.IOStreams, flagScheme hashing.Scheme) (env *envelope.Envelope, raw []byte, scheme hashing.Scheme, nodeHash []byte, err error) {
	fail := func(err error) (*envelope.Envelope, []byte, hashing.Scheme, []byte, error) {
		return nil, nil, 0, nil, err
	}
	if env, err = envelope.ReadFile(path, ios.In); err != nil {
		return fail(err)
	}
	if raw, err = env.Raw(); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	if nodeHash, err = env.NodeHash(); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	if flagScheme != 0 && env.HashingSchemeVersion == "" {
		return env, raw, flagScheme, nodeHash, nil
	}
	if scheme, err = env.Scheme(); err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	if flagScheme != 0 && flagScheme != scheme {
		return fail(cmdutil.UsageError("--scheme %s contradicts %s, which names %s: drop --scheme", flagScheme, path, scheme))
	}
	return env, raw, scheme, nodeHash, nil
}

// originOf lifts the unsigned context of an envelope or prepare response
// into the review; a bare base64 input has none.
func originOf(env *envelope.Envelope) *display.Origin {
	if env.Form == envelope.FormBase64 {
		return nil
	}
	o := &display.Origin{Form: env.Form.String()}
	if info := env.Info; info != nil {
		o.NodeURL, o.PreparedAt = info.NodeURL, info.PreparedAt
	}
	o.Cost = env.CostEstimation
	for _, ps := range env.PartySignatures.Signatures {
		for _, s := range ps.Signatures {
			o.Signatures = append(o.Signatures, display.SignatureRef{Party: ps.Party, SignedBy: s.SignedBy})
		}
	}
	return o
}
