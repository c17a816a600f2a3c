package cmd

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/envelope"
	"github.com/ledger-cli/ledger/policy"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/signer"
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
	OutPath        string
	PolicyFile     string
	VerifyOnly     bool
	PubKeys        []string
}

// NewCmdSign builds `ledger sign`.
func NewCmdSign(f *cmdutil.Factory, runF func(*SignOptions) error) *cobra.Command {
	opts := &SignOptions{IO: f.IO, Now: f.Now}
	var out string
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
  - refuses anything outside --policy, when given;
  - shows what the transaction does and asks for confirmation on a terminal
    (--yes skips the question; without a terminal and without --yes it refuses).

It signs the hash it recomputed, never the hash as received, and adds the
signature to partySignatures (SIGNATURE_FORMAT_CONCAT,
SIGNING_ALGORITHM_SPEC_ED25519, signedBy = the key's fingerprint). Other
signatures already in the file are kept, so several parties or keys can sign
in turn. The signed envelope goes to -o FILE (written atomically), or to
standard output.

With --verify-only nothing is signed: every signature in the file is checked
against the recomputed hash and the keys given with --pubkey or --key.`,
		Example: `  # on the air-gapped machine
  ledger sign tx.json --key alice.key -o tx.signed.json

  # in a script, with the passphrase in a file and a policy
  ledger sign tx.json --key alice.key --passphrase-file pass.txt --policy policy.json --yes > tx.signed.json

  # check the signatures of a signed envelope
  ledger sign --verify-only tx.signed.json --pubkey 2RwUiIHVUVdulxzD8NKtPmIaaBqMer1A90rDjoklJPY=`,
		Args:        exactArgs(1),
		Annotations: map[string]string{cmdutil.AnnotationWritesFile: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			var err error
			if opts.Format, opts.OutPath, err = f.OutputTarget(out); err != nil {
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
	cmd.Flags().StringVar(&out, "out", "", "write the signed envelope to this file (same as -o FILE)")
	cmd.Flags().StringVar(&opts.PolicyFile, "policy", "", "refuse anything outside this policy (templates, choices, parties)")
	cmd.Flags().BoolVar(&opts.VerifyOnly, "verify-only", false, "check the signatures in FILE instead of signing")
	cmd.Flags().StringArrayVar(&opts.PubKeys, "pubkey", nil, "public key to check signatures against (base64, hex or SPKI PEM file); repeatable")
	return cmd
}

// errRefused is returned when the user declines at the prompt.
var errRefused = errors.New("not signed: declined at the prompt")

func signRun(opts *SignOptions) error {
	env, err := envelope.ReadFile(opts.File, opts.IO.In)
	if err != nil {
		return err
	}
	if env.Form == envelope.FormBase64 {
		return fmt.Errorf("%s is a bare prepared transaction: sign needs the node's preparedTransactionHash and hashingSchemeVersion; give it the prepare response or the envelope from ledger prepare", opts.File)
	}
	check, err := env.Verify(0, false)
	if errors.Is(err, envelope.ErrNoNodeHash) {
		return fmt.Errorf("%s has no preparedTransactionHash: the node's hash is needed to make sure the file was not changed", opts.File)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", opts.File, err)
	}
	if !check.Match {
		fmt.Fprintf(opts.IO.ErrOut, "refusing to sign: the prepared transaction does not hash to the node's preparedTransactionHash under %s\n  recomputed: %s\n  node:       %s\n%s\n",
			check.Scheme, b64(check.Recomputed[:]), b64(check.NodeHash), check.Diagnosis)
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, nil)
	}
	if opts.VerifyOnly {
		return verifySignatures(opts.IO.Out, env, check.Recomputed, opts.PubKeys, opts.KeyFile)
	}

	raw, _ := env.Raw() // Verify decoded it already
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		return fmt.Errorf("%s: preparedTransaction: %w", opts.File, err)
	}
	now := opts.Now()
	if mrt := pt.GetMetadata().MaxRecordTime; mrt != nil {
		deadline := time.UnixMicro(int64(*mrt)).UTC()
		if !now.Before(deadline) {
			return fmt.Errorf("max_record_time %s has passed: the node would reject this transaction; prepare it again with a later --max-record-time", deadline.Format(time.RFC3339))
		}
	}
	if opts.PolicyFile != "" {
		p, err := policy.Load(opts.PolicyFile)
		if err != nil {
			return err
		}
		if v := p.Check(&pt); len(v) > 0 {
			return fmt.Errorf("refusing to sign: outside the policy in %s:\n  %s", opts.PolicyFile, strings.Join(v, "\n  "))
		}
	}
	party, err := signingParty(&pt, opts.Party)
	if err != nil {
		return err
	}

	review, err := display.Summarize(&pt, check.Result, now)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.File, err)
	}
	review.CompareNodeHash(check.NodeHash)

	key, err := signer.LoadKeyFile(opts.KeyFile, keyPassphrase(opts.IO, opts.PassphraseFile, opts.KeyFile, false))
	if err != nil {
		return err
	}
	if err := confirmSigning(opts, review, party, key.Fingerprint()); err != nil {
		return err
	}

	env.AddSignature(party, key.SignHash(check.Recomputed))
	env.HashingSchemeVersion = check.Scheme.String()
	if env.Info == nil {
		env.Info = &envelope.Info{Format: envelope.FormatName, Version: envelope.Version}
	}
	if opts.OutPath != "" {
		if err := env.WriteFile(opts.OutPath); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.ErrOut, "signed as %s with key %s; wrote %s\n", party, key.Fingerprint(), opts.OutPath)
		return nil
	}
	data, err := env.Marshal()
	if err != nil {
		return err
	}
	_, err = opts.IO.Out.Write(data)
	return err
}

// signingParty picks the party to sign for: the one named with --party,
// which must be an act_as party, or the single act_as party.
func signingParty(pt *damlpb.PreparedTransaction, party string) (string, error) {
	actAs := pt.GetMetadata().GetSubmitterInfo().GetActAs()
	if party == "" {
		if len(actAs) == 1 {
			return actAs[0], nil
		}
		return "", cmdutil.UsageError("the transaction acts as %d parties (%s): choose one with --party", len(actAs), strings.Join(actAs, ", "))
	}
	for _, p := range actAs {
		if p == party {
			return party, nil
		}
	}
	return "", cmdutil.UsageError("--party %s is not among the act_as parties (%s): the node ignores signatures of other parties", party, strings.Join(actAs, ", "))
}

// confirmSigning shows the review and asks, unless --yes. Without a terminal
// there is nobody to ask, so it refuses.
func confirmSigning(opts *SignOptions, review *display.Review, party, fingerprint string) error {
	w := opts.IO.ErrOut
	if opts.Yes {
		fmt.Fprintf(w, "%s\n", review.Summary)
		return nil
	}
	if !opts.IO.IsStdinTTY() {
		return errors.New("refusing to sign without confirmation: standard input is not a terminal; review with \"ledger show\" and pass --yes")
	}
	if err := display.RenderText(w, review, display.TextOptions{Color: opts.IO.ColorEnabled()}); err != nil {
		return err
	}
	_, ns, _ := strings.Cut(party, "::")
	if ns != "" && ns != fingerprint {
		fmt.Fprintf(w, "\nnote: key %s is not the namespace key of %s; the node accepts it only if it is registered for the party\n", fingerprint, party)
	}
	fmt.Fprintf(w, "\nSign as %s with key %s? [y/N] ", party, fingerprint)
	line, err := bufio.NewReader(opts.IO.In).ReadString('\n')
	if err != nil && line == "" {
		return errRefused
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return errRefused
}

// verifySignatures checks every signature of env over hash against the keys
// named by pubKeys (text or files) and keyFile, printing one line each.
func verifySignatures(w io.Writer, env *envelope.Envelope, hash [32]byte, pubKeys []string, keyFile string) error {
	var keys []signer.PublicKey
	for _, text := range pubKeys {
		k, err := parsePubKeyArg(text)
		if err != nil {
			return cmdutil.UsageError("--pubkey %s: %s", text, err)
		}
		keys = append(keys, k)
	}
	if keyFile != "" {
		kf, err := signer.ReadKeyFile(keyFile)
		if err != nil {
			return err
		}
		keys = append(keys, kf.Public)
	}
	checks := env.CheckSignatures(hash, keys)
	if len(checks) == 0 {
		return errors.New("the envelope has no signatures to check")
	}
	failed := 0
	for _, c := range checks {
		if c.Err != nil {
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
