package cmd

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/display/format"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/wallet"
)

// SignOptions are the inputs of `ledger sign`.
type SignOptions struct {
	IO  *cmdutil.IOStreams
	Now func() time.Time

	File           string
	KeyFile        string
	PassphraseFile string
	Party          string
	Yes            bool
	Format         string
	// Out is the signed envelope's file ("" = standard output).
	Out        string
	PolicyFile string
	VerifyOnly bool
	PubKeys    []string
	// AllowForeignKey signs with a key that is not the party's namespace
	// key (a key registered for a party with several keys).
	AllowForeignKey bool
	// Dars give packages to re-run the Daml code with (--dar).
	Dars []string
}

// NewCmdSign builds `ledger sign`.
func NewCmdSign(f *cmdutil.Factory, runF func(*SignOptions) error) *cobra.Command {
	opts := &SignOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "sign FILE|- --key KEYFILE",
		Short: "Review and sign a prepared transaction, offline",
		Long: `Sign a prepared transaction with an ed25519 key, with no network access.

FILE is an envelope written by "ledger prepare" (or by an earlier "ledger
sign"), or a prepare response exactly as a Canton node returns it.

Before signing, sign:
  - recomputes the hash under the scheme the file names and refuses (exit 3)
    when it differs from the node's preparedTransactionHash;
  - refuses an unknown or unspecified scheme and a max_record_time already past;
  - re-runs the transaction's Daml code offline when its packages are at
    hand (see below) and refuses (exit 3, nothing written) any difference;
  - refuses anything outside --policy, when given ("requireReinterpretation":
    true refuses to sign without re-running the Daml code);
  - refuses a key that is not the namespace key of the party it signs for
    (--allow-foreign-key when the key is registered for the party);
  - shows what the transaction does and asks for confirmation on a terminal
    (--yes skips the question; without a terminal and without --yes it
    refuses); with the transaction on standard input ("sign -") it asks on
    the controlling terminal. Every warning is printed, --yes or not;
  - asks for the key's passphrase only after that confirmation.

It signs the hash it recomputed, never the hash as received, and adds the
signature to partySignatures (SIGNATURE_FORMAT_CONCAT,
SIGNING_ALGORITHM_SPEC_ED25519, signedBy = the key's fingerprint). Other
signatures already in the file are kept, so several parties or keys can sign
in turn. The signed envelope, JSON like every envelope, goes to --out FILE
(written atomically), or to standard output. With --out, -o json or -o yaml
prints what was signed (party, fingerprint, file) for scripts.

With --verify-only nothing is signed: every signature in the file is checked
against the recomputed hash and the keys given with --pubkey or --key.

` + reinterpretationHelp,
		Example: `  # on the air-gapped machine
  ledger sign tx.json --key alice.key --out tx.signed.json

  # in a script, with the passphrase in a file and a policy
  ledger sign tx.json --key alice.key --passphrase-file pass.txt --policy policy.json --yes > tx.signed.json

  # re-run the Daml code with the DARs at hand before signing
  ledger sign tx.json --key alice.key --dar splice-dars/ --out tx.signed.json

  # check the signatures of a signed envelope
  ledger sign --verify-only tx.signed.json --pubkey 2RwUiIHVUVdulxzD8NKtPmIaaBqMer1A90rDjoklJPY=`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if err := cmdutil.EnvelopeFormat(opts.Format, opts.Out); err != nil && !opts.VerifyOnly {
				return err
			}
			if !opts.VerifyOnly && opts.KeyFile == "" {
				return cmdutil.UsageError("--key KEYFILE is required (or --verify-only to check signatures)")
			}
			if runF != nil {
				return runF(opts)
			}
			return signRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.KeyFile, "key", "", "key file to sign with (see ledger keys generate)")
	cmd.Flags().StringVar(&opts.PassphraseFile, "passphrase-file", "", "read the key file's passphrase from this file (else $LEDGER_KEY_PASSPHRASE, else a prompt)")
	cmd.Flags().StringVar(&opts.Party, "party", "", "party to sign for (default: the single act_as party)")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "sign without asking for confirmation")
	cmd.Flags().StringVar(&opts.Out, "out", "", "write the signed envelope to this file (default: standard output)")
	cmd.Flags().StringVar(&opts.PolicyFile, "policy", "", "refuse anything outside this policy (templates, choices, parties, synchronizers, hashing schemes, minimum time left, maximum transfer amounts)")
	cmd.Flags().BoolVar(&opts.VerifyOnly, "verify-only", false, "check the signatures in FILE instead of signing")
	cmd.Flags().BoolVar(&opts.AllowForeignKey, "allow-foreign-key", false, "sign with a key that is not the party's namespace key (one registered for the party)")
	cmd.Flags().StringArrayVar(&opts.PubKeys, "pubkey", nil, "public key to check signatures against (base64, hex or SPKI PEM file); repeatable")
	addDarFlag(cmd.Flags(), &opts.Dars)
	return cmd
}

// errRefused is returned when the user declines at the prompt.
var errRefused = errors.New("not signed: declined at the prompt")

func signRun(opts *SignOptions) error {
	src := wallet.Source{Path: opts.File, Stdin: opts.IO.In}
	if opts.VerifyOnly {
		return verifyOnlyRun(opts, src)
	}
	req := wallet.SignRequest{Now: opts.Now(), Party: opts.Party, KeyFile: opts.KeyFile, AllowForeignKey: opts.AllowForeignKey, Dars: opts.Dars}
	if opts.PolicyFile != "" {
		var err error
		if req.Policy, err = wallet.LoadPolicy(opts.PolicyFile); err != nil {
			return err
		}
	}
	// The question and the passphrase go to the terminal when standard
	// input carried the transaction.
	ios := opts.IO
	done := func() {}
	defer func() { done() }()
	req.Confirm = func(c *wallet.Confirmation) error {
		if opts.File == "-" && !opts.Yes {
			pios, closeTTY, err := ios.PromptStreams()
			if err != nil {
				return fmt.Errorf("refusing to sign without confirmation: the transaction came on standard input and there is %w; review with \"ledger show\" and pass --yes", err)
			}
			ios, done = pios, closeTTY
		}
		return confirmSigning(ios, opts.Yes, c)
	}
	req.Passphrase = func() ([]byte, error) {
		return cmdutil.KeyPassphrase(ios, opts.PassphraseFile, opts.KeyFile, false)()
	}
	signed, err := wallet.Sign(src, req)
	if err != nil {
		return signRefusal(opts, err)
	}
	env := signed.Reviewed.Envelope
	if opts.Out != "" {
		if err := env.WriteFile(opts.Out); err != nil {
			return err
		}
		if opts.Format != cmdutil.FormatTable {
			return cmdutil.WriteStructured(opts.IO.Out, opts.Format, SignResult{Party: signed.Party, Fingerprint: signed.Fingerprint, Envelope: opts.Out})
		}
		fmt.Fprintf(opts.IO.ErrOut, "signed as %s with key %s; wrote %s\n", signed.Party, signed.Fingerprint, opts.Out)
		return nil
	}
	data, err := env.Marshal()
	if err != nil {
		return err
	}
	_, err = opts.IO.Out.Write(data)
	return err
}

// verifyOnlyRun is sign --verify-only: the signatures in the file are
// checked against the hash recomputed here, once it is the node's.
func verifyOnlyRun(opts *SignOptions, src wallet.Source) error {
	rv, err := wallet.Open(src, wallet.OpenOptions{Now: opts.Now(), RefuseBare: true, Dars: opts.Dars})
	if err != nil {
		return reinterpretationError(err)
	}
	var mismatch *wallet.HashMismatchError
	if err := rv.CheckHash(); errors.As(err, &mismatch) {
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, fmt.Errorf("%s: %w, so its signatures are not checked: %s", rv.Name, err, mismatch.Diagnosis))
	} else if err != nil {
		return err
	}
	keys, err := publicKeys(opts.PubKeys, opts.KeyFile)
	if err != nil {
		return err
	}
	checks, err := rv.VerifySignatures(keys)
	if err != nil {
		return err
	}
	return writeSignatureChecks(opts.IO.Out, checks)
}

// SignResult is what sign prints with --out and -o json|yaml.
type SignResult struct {
	Party       string `json:"party"`
	Fingerprint string `json:"fingerprint"`
	Envelope    string `json:"envelope"`
}

// signRefusal turns the wallet's refusal to sign into what the user reads:
// a hash mismatch is shown in full and exits 3; the others say what to do,
// naming the flag that changes the outcome.
func signRefusal(opts *SignOptions, err error) error {
	var mismatch *wallet.HashMismatchError
	var expired *wallet.DeadlinePassedError
	var outside *wallet.PolicyError
	var party *wallet.PartyError
	var foreign *wallet.ForeignKeyError
	switch {
	case errors.As(err, &mismatch):
		fmt.Fprintf(opts.IO.ErrOut, "refusing to sign: the prepared transaction does not hash to the node's preparedTransactionHash under %s\n  recomputed: %s\n  node:       %s\n%s\n",
			mismatch.Scheme, b64(mismatch.Recomputed[:]), b64(mismatch.NodeHash), mismatch.Diagnosis)
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, nil)
	case errors.As(err, &expired):
		return fmt.Errorf("%w; prepare it again with a later --max-record-time", err)
	case errors.As(err, &outside):
		return fmt.Errorf("refusing to sign: outside the policy in %s:\n  %s", opts.PolicyFile, strings.Join(outside.Violations, "\n  "))
	case errors.As(err, &party) && party.Party == "":
		return cmdutil.UsageError("the transaction acts as %d parties (%s): choose one with --party", len(party.ActAs), strings.Join(party.ActAs, ", "))
	case errors.As(err, &party):
		return cmdutil.UsageError("--party %s", err)
	case errors.As(err, &foreign):
		return fmt.Errorf("refusing to sign: %w; check --key, or pass --allow-foreign-key if the key is registered for the party", err)
	}
	return reinterpretationError(err)
}

// confirmSigning shows the review and asks, unless yes. Every warning
// reaches standard error either way. Without a terminal there is nobody to
// ask, so it refuses.
func confirmSigning(ios *cmdutil.IOStreams, yes bool, c *wallet.Confirmation) error {
	rv, keyErr := c.Reviewed, c.KeyWarning
	w := ios.ErrOut
	if yes {
		fmt.Fprintf(w, "%s\n", rv.Review.Summary)
		for _, warning := range rv.Review.Warnings {
			fmt.Fprintf(w, "warning: %s\n", format.Escape(warning))
		}
		if keyErr != nil {
			fmt.Fprintf(w, "warning: %s\n", keyErr)
		}
		return nil
	}
	if !ios.IsStdinTTY() {
		return errors.New("refusing to sign without confirmation: standard input is not a terminal; review with \"ledger show\" and pass --yes")
	}
	if err := display.RenderText(w, rv.Review, display.TextOptions{Color: ios.ColorEnabled()}); err != nil {
		return err
	}
	if keyErr != nil {
		fmt.Fprintf(w, "\nwarning: %s\n", keyErr)
	}
	ok, err := cmdutil.Confirm(ios, fmt.Sprintf("\nSign as %s with key %s? [y/N] ", c.Party, c.Fingerprint))
	if err != nil || !ok {
		return errRefused
	}
	return nil
}

// publicKeys are the keys named by --pubkey (text or files) and --key.
func publicKeys(pubKeys []string, keyFile string) ([]signer.PublicKey, error) {
	var keys []signer.PublicKey
	for _, text := range pubKeys {
		k, err := parsePubKeyArg(text)
		if err != nil {
			return nil, cmdutil.UsageError("--pubkey %s: %s", text, err)
		}
		keys = append(keys, k)
	}
	if keyFile != "" {
		kf, err := signer.ReadKeyFile(keyFile)
		if err != nil {
			return nil, err
		}
		keys = append(keys, kf.Public)
	}
	return keys, nil
}

// writeSignatureChecks prints one line per signature checked and fails
// when any does not verify.
func writeSignatureChecks(w io.Writer, checks []wallet.SignatureCheck) error {
	if len(checks) == 0 {
		return errors.New("the envelope has no signatures to check")
	}
	failed := 0
	for _, c := range checks {
		var unknown *wallet.UnknownKeyError
		if errors.As(c.Err, &unknown) {
			failed++
			fmt.Fprintf(w, "FAIL  %s  signedBy %s: %s: pass it with --pubkey\n", c.Party, c.SignedBy, c.Err)
		} else if c.Err != nil {
			failed++
			fmt.Fprintf(w, "FAIL  %s  signedBy %s: %s\n", c.Party, c.SignedBy, c.Err)
		} else {
			fmt.Fprintf(w, "OK    %s  signedBy %s\n", c.Party, c.SignedBy)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d signatures do not verify", failed, len(checks))
	}
	return nil
}

// parsePubKeyArg accepts a public key as text or as the path of a file
// holding one (e.g. an SPKI PEM from ledger keys export).
func parsePubKeyArg(text string) (signer.PublicKey, error) {
	if k, err := signer.ParsePublicKey(text); err == nil {
		return k, nil
	}
	data, err := os.ReadFile(text)
	if err != nil {
		return signer.PublicKey{}, fmt.Errorf("neither a public key nor a readable file")
	}
	return signer.ParsePublicKey(string(data))
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
