package keys

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/signer"
)

// KeysExportOptions are the inputs of `ledger keys export`.
type KeysExportOptions struct {
	IO     *cmdutil.IOStreams
	Format string

	File      string
	Public    bool
	KeyFormat string
}

// NewCmdKeysExport builds `ledger keys export`.
func NewCmdKeysExport(f *cmdutil.Factory, runF func(*KeysExportOptions) error) *cobra.Command {
	opts := &KeysExportOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "export --public FILE [--format base64|pem|hex]",
		Short: "Print a key file's public key as raw base64 or SPKI PEM",
		Long: `Print the public key of a key file, for registering an external party or
for "ledger verify --pubkey". Needs no passphrase.

--format base64 (the default) prints the 32 raw key bytes in base64, the
CRYPTO_KEY_FORMAT_RAW form; pem prints a "PUBLIC KEY" PEM block holding the
DER SubjectPublicKeyInfo (CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO
once un-PEMed); hex prints the raw bytes in hex.

Only public keys are exported: --public is required, and there is no way to
print the private key.`,
		Example: `  ledger keys export --public alice.key
  ledger keys export --public alice.key --format pem > alice.pub.pem`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if !opts.Public {
				return cmdutil.UsageError("--public is required: only the public key can be exported")
			}
			switch opts.KeyFormat {
			case "base64", "pem", "hex":
			default:
				return cmdutil.UsageError("invalid value %q for --format: use base64, pem or hex", opts.KeyFormat)
			}
			if runF != nil {
				return runF(opts)
			}
			return keysExportRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Public, "public", false, "export the public key (required)")
	cmd.Flags().StringVar(&opts.KeyFormat, "format", "base64", "base64 (raw key), pem (SubjectPublicKeyInfo) or hex (raw key)")
	return cmd
}

func keysExportRun(opts *KeysExportOptions) error {
	kf, err := signer.ReadKeyFile(opts.File)
	if err != nil {
		return err
	}
	if opts.Format != cmdutil.FormatTable {
		return writeKeyInfo(opts.IO.Out, opts.Format, kf.Public)
	}
	switch opts.KeyFormat {
	case "pem":
		fmt.Fprint(opts.IO.Out, kf.Public.SPKIPEM())
	case "hex":
		fmt.Fprintln(opts.IO.Out, kf.Public.Hex())
	default:
		fmt.Fprintln(opts.IO.Out, kf.Public.Base64())
	}
	return nil
}
