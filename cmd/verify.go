package cmd

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/wallet"
)

// VerifyOptions are the inputs of `ledger verify`.
type VerifyOptions struct {
	IO     *cmdutil.IOStreams
	Format string

	File    string
	Scheme  string
	Trace   bool
	PubKeys []string
	KeyFile string
	Dars    []string
}

// NewCmdVerify builds `ledger verify`.
func NewCmdVerify(f *cmdutil.Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "verify FILE|-",
		Short: "Check a node's preparedTransactionHash against a local recomputation",
		Long: `Recompute the hash of a prepared transaction and compare it with the
preparedTransactionHash the node returned, under the scheme the node named in
hashingSchemeVersion.

FILE is a prepare response as a Canton node returns it, or an envelope.

Exit status: 0 when the hashes are equal, 3 when they differ, 1 on any other
error (unreadable input, a transaction the hasher refuses).

With --trace a mismatch also shows where the two encodings part: the node's
hashingDetails (prepare with verboseHashing) are compared byte by byte with
ours; without them, our full trace is printed for comparison.

On a signed envelope, every signature is also checked against the recomputed
hash, with the public keys given by --pubkey or --key; a signature that does
not verify makes the exit status 1.

` + reinterpretationHelp + `
Without packages only the hash is checked, and verify says so.`,
		Example: `  ledger verify prepared.json
  ledger verify tx.json --dar splice-dars/   # also re-run the Daml code offline
  ledger verify --trace prepared.json   # locate a mismatch
  ledger verify tx.signed.json --pubkey alice.pub.pem`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Scheme, "scheme", "", "hash under this scheme instead of the one the input names (v2 or v3)")
	cmd.Flags().BoolVar(&opts.Trace, "trace", false, "on a mismatch, show where the encodings part")
	cmd.Flags().StringArrayVar(&opts.PubKeys, "pubkey", nil, "public key to check signatures against (base64, hex, or a PEM file); repeatable")
	cmd.Flags().StringVar(&opts.KeyFile, "key", "", "check signatures against this key file's public key (no passphrase needed)")
	addDarFlag(cmd.Flags(), &opts.Dars)
	return cmd
}

type verifyOutput struct {
	Match                bool   `json:"match"`
	HashingSchemeVersion string `json:"hashingSchemeVersion"`
	RecomputedHash       string `json:"recomputedHash"`
	NodeHash             string `json:"nodeHash"`
	Diagnosis            string `json:"diagnosis,omitempty"`
	DifferenceOffset     *int   `json:"differenceOffset,omitempty"`
	DifferenceContext    string `json:"differenceContext,omitempty"`
	// Reinterpreted is whether the Daml code was re-run (packages at
	// hand); MatchesDamlCode whether it made exactly this transaction,
	// DamlDifference the first difference when not.
	Reinterpreted   bool   `json:"reinterpreted"`
	MatchesDamlCode bool   `json:"matchesDamlCode,omitempty"`
	DamlCode        string `json:"damlCode,omitempty"`
	DamlDifference  string `json:"damlDifference,omitempty"`
}

func verifyRun(opts *VerifyOptions) error {
	var scheme hashing.Scheme
	if opts.Scheme != "" {
		s, err := hashing.ParseScheme(opts.Scheme)
		if err != nil {
			return cmdutil.UsageError("--scheme: %s", err)
		}
		scheme = s
	}
	req := wallet.VerifyRequest{Scheme: scheme, Trace: opts.Trace, Dars: opts.Dars}
	keysGiven := len(opts.PubKeys) > 0 || opts.KeyFile != ""
	if opts.Format == cmdutil.FormatTable && keysGiven {
		req.Keys = func() ([]signer.PublicKey, error) { return publicKeys(opts.PubKeys, opts.KeyFile) }
	}
	v, err := wallet.Verify(wallet.Source{Path: opts.File, Stdin: opts.IO.In}, req)
	if err != nil {
		return reinterpretationError(err)
	}
	check := v.Check
	out := verifyOutput{
		Match:                check.Match,
		HashingSchemeVersion: check.Scheme.String(),
		RecomputedHash:       base64.StdEncoding.EncodeToString(check.Recomputed[:]),
		NodeHash:             base64.StdEncoding.EncodeToString(check.NodeHash),
		Diagnosis:            check.Diagnosis,
	}
	if d := check.Difference; d != nil {
		out.DifferenceOffset, out.DifferenceContext = &d.Offset, d.Context
	}
	if r := v.Reinterpretation; r != nil {
		out.Reinterpreted, out.MatchesDamlCode, out.DamlCode = true, r.Matches(), r.Code
		if r.Difference != nil {
			out.DamlDifference = r.Difference.String()
		}
	}
	if opts.Format != cmdutil.FormatTable {
		if err := cmdutil.WriteStructured(opts.IO.Out, opts.Format, out); err != nil {
			return err
		}
	} else {
		writeVerifyText(opts, check, out)
		if check.Match {
			writeReinterpretationText(opts, v.Reinterpretation)
		}
	}
	if !check.Match {
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, nil)
	}
	if r := v.Reinterpretation; r != nil && !r.Matches() {
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, nil)
	}
	if n := len(v.Envelope.PartySignatures.Signatures); n > 0 && opts.Format == cmdutil.FormatTable {
		if !keysGiven {
			fmt.Fprintf(opts.IO.Out, "%d party signature(s) present; pass --pubkey or --key to check them\n", n)
			return nil
		}
		return writeSignatureChecks(opts.IO.Out, v.Signatures)
	}
	return nil
}

func writeVerifyText(opts *VerifyOptions, check *wallet.HashCheck, out verifyOutput) {
	w := opts.IO.Out
	if check.Match {
		fmt.Fprintf(w, "OK: the node's hash matches the local recomputation (%s)\n  %s\n", check.Scheme, out.RecomputedHash)
		return
	}
	fmt.Fprintf(w, "MISMATCH under %s\n", check.Scheme)
	fmt.Fprintf(w, "  recomputed: %s  (%s)\n", out.RecomputedHash, hex.EncodeToString(check.Recomputed[:]))
	fmt.Fprintf(w, "  node:       %s  (%s)\n", out.NodeHash, hex.EncodeToString(check.NodeHash))
	fmt.Fprintf(w, "Do not sign this transaction: %s.\n", check.Diagnosis)
	if !opts.Trace {
		return
	}
	if d := check.Difference; d != nil {
		fmt.Fprintf(w, "\nThe encodings part at byte %d of the traces (%s):\n  ours:   %s\n  theirs: %s\n", d.Offset, d.Context, d.Ours, d.Theirs)
		return
	}
	fmt.Fprintf(w, "\nThe input has no hashingDetails to compare with; our encoding follows.\n\n%s", check.Result.Trace)
}

// writeReinterpretationText says whether the Daml code was re-run and what
// it found.
func writeReinterpretationText(opts *VerifyOptions, r *wallet.Reinterpretation) {
	w := opts.IO.Out
	switch {
	case r == nil:
		fmt.Fprintf(w, "NOT RE-INTERPRETED: no Daml packages at hand, so the transaction is the preparing node's word;\n  pass --dar with its DARs, or prepare it with --with-packages, to re-run its Daml code\n")
	case r.Matches():
		fmt.Fprintf(w, "OK: re-interpreted: matches the Daml code of %s\n  whether its input contracts are still active is the synchronizer's to decide when it executes\n", r.Code)
		for _, p := range r.Named {
			fmt.Fprintf(w, "  code: %s %s %s, from %s\n", p.Name, p.Version, p.ID, p.From)
		}
	default:
		fmt.Fprintf(w, "DIFFERENT from the Daml code of %s: %s\nDo not sign this transaction.\n", r.Code, r.Difference)
	}
}
