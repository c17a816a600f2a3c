package keys

import (
	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/signer"
)

// KeysShowOptions are the inputs of `ledger keys show`.
type KeysShowOptions struct {
	IO     *cmdutil.IOStreams
	Format string

	File string
}

// NewCmdKeysShow builds `ledger keys show`.
func NewCmdKeysShow(f *cmdutil.Factory, runF func(*KeysShowOptions) error) *cobra.Command {
	opts := &KeysShowOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "show FILE",
		Short: "Print a key file's public key, Canton fingerprint and key spec",
		Long: `Print the public key of a key file in base64 and hex, its Canton
fingerprint (the signedBy of its signatures, "1220…") and its key spec.

Needs no passphrase: these are stored in the clear. The private key is never
printed. For an encrypted file the public key is checked against the private
key only when the key is used (sign), not here.

-o json prints exactly the fields publicKey (base64), publicKeyHex,
fingerprint and keySpec.`,
		Example: `  ledger keys show alice.key
  ledger keys show alice.key -o json | jq -r .fingerprint`,
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
			return keysShowRun(opts)
		},
	}
	return cmd
}

func keysShowRun(opts *KeysShowOptions) error {
	kf, err := signer.ReadKeyFile(opts.File)
	if err != nil {
		return err
	}
	return writeKeyInfo(opts.IO.Out, opts.Format, kf.Public,
		[2]string{"Key file", opts.File}, [2]string{"Encrypted", encryptionLabel(kf.Encrypted)})
}
