package cmd

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/wallet"
)

// HashOptions are the inputs of `ledger hash`.
type HashOptions struct {
	IO     *cmdutil.IOStreams
	Format string

	File   string
	Scheme string
	Hex    bool
	Lines  bool
}

// NewCmdHash builds `ledger hash`.
func NewCmdHash(f *cmdutil.Factory, runF func(*HashOptions) error) *cobra.Command {
	opts := &HashOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "hash [FILE|-]",
		Short: "Compute the hash an external party signs for a prepared transaction",
		Long: `Compute preparedTransactionHash locally, under hashing scheme V2 or V3,
without trusting the node that prepared the transaction.

The input (a file, or standard input for "-" or no argument) is detected:
  - a bare base64 preparedTransaction (hashed with V2 unless --scheme says otherwise),
  - a prepare response as a Canton node returns it, or
  - an envelope written by "ledger prepare" or "ledger sign";
JSON inputs are hashed under the scheme they name in hashingSchemeVersion.

The hash is printed as standard padded base64, the form preparedTransactionHash
uses, or as hex with --hex.`,
		Example: `  # hash a prepare response under the scheme it names
  ledger hash prepared.json

  # a bare base64 transaction under V3
  ledger hash --scheme v3 tx.b64

  # many transactions, one base64 per line; a bad line prints "error: …" and the exit status is 1
  ledger hash --lines --hex < batch.txt`,
		Args: cmdutil.MaxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = "-"
			if len(args) == 1 {
				opts.File = args[0]
			}
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return hashRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Scheme, "scheme", "", "hashing scheme: v2 or v3 (default: the one the input names, V2 for bare base64)")
	cmd.Flags().BoolVar(&opts.Hex, "hex", false, "print the hash as hex instead of base64")
	cmd.Flags().BoolVar(&opts.Lines, "lines", false, "read one base64 prepared transaction per line and print one hash per line")
	return cmd
}

// hashOutput is the -o json form of one hash.
type hashOutput struct {
	Hash                 string `json:"hash"`
	HashHex              string `json:"hashHex"`
	HashingSchemeVersion string `json:"hashingSchemeVersion"`
}

func hashRun(opts *HashOptions) error {
	var scheme hashing.Scheme
	if opts.Scheme != "" {
		s, err := hashing.ParseScheme(opts.Scheme)
		if err != nil {
			return cmdutil.UsageError("--scheme: %s", err)
		}
		scheme = s
	}
	if opts.Lines {
		return hashLines(opts, scheme)
	}
	env, err := wallet.ReadEnvelope(opts.File, opts.IO.In)
	if err != nil {
		return err
	}
	if scheme == 0 {
		if scheme, err = env.Scheme(); err != nil {
			return err
		}
	}
	raw, err := env.Raw()
	if err != nil {
		return err
	}
	sum, err := hashing.Sum(raw, scheme)
	if err != nil {
		return err
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, hashOutput{
			Hash:                 base64.StdEncoding.EncodeToString(sum[:]),
			HashHex:              hex.EncodeToString(sum[:]),
			HashingSchemeVersion: scheme.String(),
		})
	}
	fmt.Fprintln(opts.IO.Out, formatHash(sum, opts.Hex))
	return nil
}

func formatHash(sum [32]byte, asHex bool) string {
	if asHex {
		return hex.EncodeToString(sum[:])
	}
	return base64.StdEncoding.EncodeToString(sum[:])
}

// hashLines hashes one base64 transaction per input line. Every line gets an
// output line, so outputs stay aligned with inputs.
func hashLines(opts *HashOptions, scheme hashing.Scheme) error {
	if scheme == 0 {
		scheme = hashing.V2
	}
	in := opts.IO.In
	if opts.File != "-" {
		f, err := os.Open(opts.File)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	r := bufio.NewReaderSize(in, 1<<20)
	w := bufio.NewWriter(opts.IO.Out)
	defer w.Flush()
	failed := 0
	for n := 1; ; n++ {
		line, err := r.ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading line %d: %w", n, err)
		}
		if line == "" && err == io.EOF {
			break
		}
		sum, herr := hashLine(strings.TrimSpace(line), scheme)
		switch {
		case herr != nil:
			failed++
			if opts.Format == cmdutil.FormatJSON {
				fmt.Fprintf(w, "{\"line\":%d,\"error\":%q}\n", n, herr.Error())
			} else {
				fmt.Fprintf(w, "error: %s\n", oneLine(herr.Error()))
			}
		case opts.Format == cmdutil.FormatJSON:
			fmt.Fprintf(w, "{\"line\":%d,\"hash\":%q,\"hashHex\":%q}\n", n,
				base64.StdEncoding.EncodeToString(sum[:]), hex.EncodeToString(sum[:]))
		default:
			fmt.Fprintln(w, formatHash(sum, opts.Hex))
		}
		if err == io.EOF {
			break
		}
	}
	if failed > 0 {
		w.Flush()
		return cmdutil.WithExit(cmdutil.ExitFailure, fmt.Errorf("%d line(s) could not be hashed", failed))
	}
	return nil
}

func hashLine(line string, scheme hashing.Scheme) ([32]byte, error) {
	if line == "" {
		return [32]byte{}, fmt.Errorf("empty line")
	}
	raw, err := ledgerapi.DecodeBase64(line)
	if err != nil {
		return [32]byte{}, err
	}
	return hashing.Sum(raw, scheme)
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
