// Package keys holds `ledger keys`: generate, import, show and export the
// ed25519 key files an external party signs with (format: package signer).
package keys

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/signer"
)

// NewCmdKeys builds `ledger keys` and its subcommands.
func NewCmdKeys(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, import and inspect ed25519 signing keys",
		Long: `Manage the ed25519 keys an external party signs prepared transactions with.

A key lives in a key file: JSON, mode 0600, the private key encrypted with a
passphrase (scrypt, then XChaCha20-Poly1305). The public key and its Canton
fingerprint are stored beside it in the clear, so "keys show" and
"keys export" need no passphrase.

The passphrase is read from --passphrase-file, else from the environment
variable LEDGER_KEY_PASSPHRASE, else asked for on the terminal.`,
		Example: `  ledger keys generate --out alice.key
  ledger keys show alice.key
  ledger keys export --public alice.key --format pem > alice.pub.pem
  openssl genpkey -algorithm ed25519 | ledger keys import --out bob.key --passphrase-file pass.txt`,
	}
	cmdutil.Group(cmd)
	cmd.AddCommand(
		NewCmdKeysGenerate(f, nil),
		NewCmdKeysShow(f, nil),
		NewCmdKeysImport(f, nil),
		NewCmdKeysExport(f, nil),
	)
	return cmd
}

// keyInfo is the -o json form of a public key; it never holds the private
// key.
type keyInfo struct {
	PublicKey    string `json:"publicKey"`
	PublicKeyHex string `json:"publicKeyHex"`
	Fingerprint  string `json:"fingerprint"`
	KeySpec      string `json:"keySpec"`
}

func newKeyInfo(p signer.PublicKey) keyInfo {
	return keyInfo{PublicKey: p.Base64(), PublicKeyHex: p.Hex(), Fingerprint: p.Fingerprint(), KeySpec: signer.KeySpec}
}

// writeKeyInfo prints a public key as -o asks, with extra leading lines
// (label, value) in table form.
func writeKeyInfo(w io.Writer, format string, p signer.PublicKey, extra ...[2]string) error {
	info := newKeyInfo(p)
	if format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(w, format, info)
	}
	rows := append(extra,
		[2]string{"Fingerprint", info.Fingerprint},
		[2]string{"Public key", info.PublicKey},
		[2]string{"Public key hex", info.PublicKeyHex},
		[2]string{"Key spec", info.KeySpec},
	)
	return display.Fields(w, rows)
}

func encryptionLabel(encrypted bool) string {
	if encrypted {
		return "yes (passphrase; scrypt, XChaCha20-Poly1305)"
	}
	return "NO: the private key is stored in the clear (test key)"
}

// saveKey encrypts k (unless plaintext) and writes it to path. It is shared
// by generate and import.
func saveKey(ios *cmdutil.IOStreams, k *signer.Key, path, passphraseFile string, plaintext, weak, force bool) error {
	var data []byte
	if plaintext {
		data = signer.MarshalPlaintextKeyFile(k)
	} else {
		pass, err := cmdutil.KeyPassphrase(ios, passphraseFile, "new key "+path, true)()
		if err != nil {
			return err
		}
		if err := checkPassphraseStrength(ios, pass, weak); err != nil {
			return err
		}
		if data, err = signer.MarshalKeyFile(k, pass); err != nil {
			return err
		}
	}
	if err := signer.WriteKeyFile(path, data, force); err != nil {
		return keysExistError(err, path)
	}
	if plaintext {
		fmt.Fprintf(ios.ErrOut, "warning: %s holds the private key unencrypted; use it for tests only\n", path)
	}
	return nil
}

// Passphrase lengths, in characters: below MinPassphrase a new key file is
// refused (unless --weak-passphrase), below GoodPassphrase it gets a warning.
// scrypt slows guessing down; it cannot make three letters safe.
const (
	MinPassphrase  = 8
	GoodPassphrase = 12
)

func checkPassphraseStrength(ios *cmdutil.IOStreams, pass []byte, weak bool) error {
	n := utf8.RuneCount(pass)
	switch {
	case n < MinPassphrase && !weak:
		return cmdutil.UsageError("the passphrase has %d characters: use at least %d (%d or more is better), or pass --weak-passphrase for a throwaway key", n, MinPassphrase, GoodPassphrase)
	case n < GoodPassphrase:
		fmt.Fprintf(ios.ErrOut, "warning: a passphrase of %d characters is weak; %d or more is recommended\n", n, GoodPassphrase)
	}
	return nil
}

// checkNewKeyPath fails early, before any prompt, when path exists and
// force is not set.
func checkNewKeyPath(path string, force bool) error {
	if force {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("--out %s already exists; choose another file or add --force to replace it", path)
	}
	return nil
}

func keysExistError(err error, path string) error {
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("--out %s already exists; choose another file or add --force to replace it", path)
	}
	return err
}

// checkOutFlags validates what generate and import share.
func checkOutFlags(out, passphraseFile string, plaintext bool) error {
	if out == "" {
		return cmdutil.UsageError("--out FILE is required: the key file to write")
	}
	if plaintext && passphraseFile != "" {
		return cmdutil.UsageError("--insecure-plaintext and --passphrase-file cannot be used together")
	}
	return nil
}
