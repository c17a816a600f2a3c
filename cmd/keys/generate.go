package keys

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/signer"
)

// KeysGenerateOptions are the inputs of `ledger keys generate`.
type KeysGenerateOptions struct {
	IO     *cmdutil.IOStreams
	Format string
	// Rand is the source of the new seed; nil means crypto/rand.
	Rand io.Reader

	Out               string
	PassphraseFile    string
	InsecurePlaintext bool
	// WeakPassphrase accepts a passphrase shorter than MinPassphrase.
	WeakPassphrase bool
	Force          bool
}

// NewCmdKeysGenerate builds `ledger keys generate`.
func NewCmdKeysGenerate(f *cmdutil.Factory, runF func(*KeysGenerateOptions) error) *cobra.Command {
	opts := &KeysGenerateOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "generate --out FILE",
		Short: "Make a new ed25519 key in an encrypted key file",
		Long: `Make a new ed25519 signing key and write it to a key file, mode 0600,
encrypted with a passphrase. An existing file is never replaced unless
--force is given.

The passphrase comes from --passphrase-file (its first line), else from
LEDGER_KEY_PASSPHRASE, else from a terminal prompt asked twice. With no
terminal and neither of the others, the command fails.

--insecure-plaintext writes the private key unencrypted, for tests and
throwaway keys only.

Prints the public key and its Canton fingerprint, never the private key.`,
		Example: `  ledger keys generate --out alice.key
  ledger keys generate --out alice.key --passphrase-file ~/.secrets/alice-pass
  LEDGER_KEY_PASSPHRASE=… ledger keys generate --out alice.key -o json
  ledger keys generate --out test.key --insecure-plaintext`,
		Args: cmdutil.ExactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if err := checkOutFlags(opts.Out, opts.PassphraseFile, opts.InsecurePlaintext); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return keysGenerateRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "key file to write (required)")
	cmd.Flags().StringVar(&opts.PassphraseFile, "passphrase-file", "", "read the passphrase from the first line of this file")
	cmd.Flags().BoolVar(&opts.InsecurePlaintext, "insecure-plaintext", false, "write the private key unencrypted (tests only)")
	cmd.Flags().BoolVar(&opts.WeakPassphrase, "weak-passphrase", false, fmt.Sprintf("accept a passphrase shorter than %d characters (throwaway keys)", MinPassphrase))
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace an existing key file")
	return cmd
}

func keysGenerateRun(opts *KeysGenerateOptions) error {
	if err := checkNewKeyPath(opts.Out, opts.Force); err != nil {
		return err
	}
	k, err := signer.Generate(opts.Rand)
	if err != nil {
		return err
	}
	if err := saveKey(opts.IO, k, opts.Out, opts.PassphraseFile, opts.InsecurePlaintext, opts.WeakPassphrase, opts.Force); err != nil {
		return err
	}
	return writeKeyInfo(opts.IO.Out, opts.Format, k.Public(),
		[2]string{"Key file", opts.Out}, [2]string{"Encrypted", encryptionLabel(!opts.InsecurePlaintext)})
}
