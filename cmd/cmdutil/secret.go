package cmdutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/ledger-cli/ledger/internal/secretfile"
)

// KeyPassphraseEnv names the environment variable a key passphrase may come
// from.
const KeyPassphraseEnv = "LEDGER_KEY_PASSPHRASE"

// KeyPassphrase returns the function that yields a key-file passphrase, for
// signer.LoadKeyFile or for writing a key. Sources, first found wins: the
// first line of passphraseFile, $LEDGER_KEY_PASSPHRASE, a terminal prompt
// (asked twice when confirm is set). what names the key in the prompt.
func KeyPassphrase(ios *IOStreams, passphraseFile, what string, confirm bool) func() ([]byte, error) {
	return func() ([]byte, error) {
		if passphraseFile != "" {
			return ReadPassphraseFile(passphraseFile)
		}
		if v := os.Getenv(KeyPassphraseEnv); v != "" {
			return []byte(v), nil
		}
		if !ios.IsStdinTTY() {
			return nil, errors.New("a passphrase is needed and standard input is not a terminal: give --passphrase-file FILE or set " + KeyPassphraseEnv)
		}
		pass, err := PromptSecret(ios, "Passphrase for "+what+": ")
		if err != nil {
			return nil, err
		}
		if len(pass) == 0 {
			return nil, errors.New("empty passphrase")
		}
		if confirm {
			again, err := PromptSecret(ios, "Repeat the passphrase: ")
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(pass, again) {
				return nil, errors.New("the two passphrases differ; nothing was written")
			}
		}
		return pass, nil
	}
}

// ReadPassphraseFile returns the first line of path, without its line end.
func ReadPassphraseFile(path string) ([]byte, error) {
	b, err := secretfile.ReadFile("passphrase file", path, 64<<10)
	if err != nil {
		return nil, fmt.Errorf("--passphrase-file: %w", err)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return nil, fmt.Errorf("--passphrase-file %s: the first line is empty", path)
	}
	return b, nil
}

// PromptSecret asks on standard error and reads the answer with
// ReadSecretLine.
func PromptSecret(ios *IOStreams, prompt string) ([]byte, error) {
	fmt.Fprint(ios.ErrOut, prompt)
	b, err := ReadSecretLine(ios)
	if err != nil {
		return nil, fmt.Errorf("reading the passphrase: %w", err)
	}
	return b, nil
}

// ReadSecretLine reads one line without echo from a real terminal, the one
// place ledger reads a secret from a terminal. Streams that only claim to be
// a terminal (tests) are read a byte at a time, so nothing after the line
// is consumed.
func ReadSecretLine(ios *IOStreams) ([]byte, error) {
	if f, ok := ios.In.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(ios.ErrOut)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return readLine(ios.In)
}

// readLine reads one line a byte at a time, so that nothing after it is
// consumed: a confirmation and the passphrase that follows it may come from
// the same stream.
func readLine(r io.Reader) ([]byte, error) {
	var line []byte
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				break
			}
			line = append(line, c[0])
		}
		if err == io.EOF {
			if len(line) == 0 {
				return nil, errors.New("end of input")
			}
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// Confirm asks a yes/no question on standard error and reads the answer
// from standard input: only "y" or "yes" is a yes.
func Confirm(ios *IOStreams, question string) (bool, error) {
	fmt.Fprint(ios.ErrOut, question)
	line, err := readLine(ios.In)
	if err != nil {
		return false, nil // no answer is no
	}
	a := strings.ToLower(strings.TrimSpace(string(line)))
	return a == "y" || a == "yes", nil
}
