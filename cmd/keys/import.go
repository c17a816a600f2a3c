package keys

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/internal/secretfile"
	"github.com/ledger-cli/ledger/signer"
)

// KeysImportOptions are the inputs of `ledger keys import`.
type KeysImportOptions struct {
	IO     *cmdutil.IOStreams
	Format string

	Out               string
	From              string
	PassphraseFile    string
	InsecurePlaintext bool
	// WeakPassphrase accepts a passphrase shorter than MinPassphrase.
	WeakPassphrase bool
	Force          bool
}

// NewCmdKeysImport builds `ledger keys import`.
func NewCmdKeysImport(f *cmdutil.Factory, runF func(*KeysImportOptions) error) *cobra.Command {
	opts := &KeysImportOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "import --out FILE [--in FILE|-]",
		Short: "Put an existing ed25519 private key into a key file",
		Long: `Read an ed25519 private key and write it to an encrypted key file, as
"keys generate" does. The key is read from --in, or standard input
("-", the default), in any of these forms:

  - a 32-byte seed, in hex or base64;
  - a 64-byte NaCl secret key (seed followed by public key), in hex or
    base64, the form the TypeScript wallet SDK and tweetnacl use; its
    public half must belong to its seed;
  - a PKCS#8 PEM block ("BEGIN PRIVATE KEY"), what
    "openssl genpkey -algorithm ed25519" writes.

Hex is any text of hex digits only (optionally after 0x); anything else is
read as base64 (standard or URL alphabet, with or without padding).

The passphrase comes from --passphrase-file, LEDGER_KEY_PASSPHRASE or a
terminal prompt, as for generate. The private key is never printed, and
error messages never quote the input.`,
		Example: `  openssl genpkey -algorithm ed25519 -out k.pem
  ledger keys import --out alice.key --in k.pem

  # a NaCl secret key in base64 from a wallet SDK export
  ledger keys import --out alice.key --passphrase-file pass.txt < secret.b64`,
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
			return keysImportRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "key file to write (required)")
	cmd.Flags().StringVar(&opts.From, "in", "-", `file holding the private key, or "-" for standard input`)
	cmdutil.OldFlagName(cmd.Flags(), "from", "in") // --from is an offset elsewhere
	cmd.Flags().StringVar(&opts.PassphraseFile, "passphrase-file", "", "read the passphrase from the first line of this file")
	cmd.Flags().BoolVar(&opts.InsecurePlaintext, "insecure-plaintext", false, "write the private key unencrypted (tests only)")
	cmd.Flags().BoolVar(&opts.WeakPassphrase, "weak-passphrase", false, fmt.Sprintf("accept a passphrase shorter than %d characters (throwaway keys)", MinPassphrase))
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace an existing key file")
	return cmd
}

// maxPrivateKeyInput bounds what import reads; real inputs are < 1 KiB.
const maxPrivateKeyInput = 64 << 10

func keysImportRun(opts *KeysImportOptions) error {
	if err := checkNewKeyPath(opts.Out, opts.Force); err != nil {
		return err
	}
	text, err := readPrivateKeyInput(opts)
	if err != nil {
		return err
	}
	k, err := signer.ParsePrivate(text)
	if err != nil {
		if strings.HasPrefix(strings.TrimSpace(text), "{") {
			return fmt.Errorf("--in %s looks like JSON (a ledger key file?); import takes a seed, a NaCl secret key or a PKCS#8 PEM", opts.From)
		}
		return fmt.Errorf("--in %s: %w", opts.From, err)
	}
	if err := saveKey(opts.IO, k, opts.Out, opts.PassphraseFile, opts.InsecurePlaintext, opts.WeakPassphrase, opts.Force); err != nil {
		return err
	}
	return writeKeyInfo(opts.IO.Out, opts.Format, k.Public(),
		[2]string{"Key file", opts.Out}, [2]string{"Encrypted", encryptionLabel(!opts.InsecurePlaintext)})
}

func readPrivateKeyInput(opts *KeysImportOptions) (string, error) {
	in := opts.IO.In
	if opts.From != "-" {
		f, err := os.Open(opts.From)
		if err != nil {
			return "", fmt.Errorf("--in: %w", err)
		}
		defer f.Close()
		// A seed is as secret as a passphrase, whose file is refused when
		// others may read it; the same rule holds here (pipes and devices
		// have no readers to worry about).
		st, err := f.Stat()
		if err != nil {
			return "", fmt.Errorf("--in %s: %w", opts.From, err)
		}
		if st.Mode().IsRegular() {
			if err := secretfile.CheckMode("--from: private key file", opts.From, st.Mode()); err != nil {
				return "", err
			}
		}
		in = f
	} else if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return readPrivateKeyFromTerminal(opts.IO)
	}
	b, err := io.ReadAll(io.LimitReader(in, maxPrivateKeyInput+1))
	if err != nil {
		return "", fmt.Errorf("--in %s: %w", opts.From, err)
	}
	if len(b) > maxPrivateKeyInput {
		return "", fmt.Errorf("--from %s is larger than %d bytes; not a private key", opts.From, maxPrivateKeyInput)
	}
	return string(b), nil
}

// readPrivateKeyFromTerminal reads a pasted key without echoing it: one line
// of hex or base64, or the lines of a PEM block up to its END line.
func readPrivateKeyFromTerminal(ios *cmdutil.IOStreams) (string, error) {
	fmt.Fprintln(ios.ErrOut, "Paste the private key (it is not shown), then press Enter:")
	var lines []string
	for {
		b, err := cmdutil.ReadSecretLine(ios)
		if err != nil {
			return "", fmt.Errorf("reading the private key: %w", err)
		}
		line := strings.TrimSpace(string(b))
		lines = append(lines, line)
		if !strings.HasPrefix(lines[0], "-----BEGIN") || strings.HasPrefix(line, "-----END") ||
			line == "" || len(lines) > 100 {
			break
		}
	}
	return strings.Join(lines, "\n"), nil
}
