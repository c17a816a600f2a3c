package cmd

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
)

// ErrorsOptions are the inputs of `ledger errors`.
type ErrorsOptions struct {
	IO     *cmdutil.IOStreams
	Format string
	// Query is an error id, an id prefix, "-" (an error on standard input)
	// or "" (the whole catalogue).
	Query string
}

// NewCmdErrors builds `ledger errors`.
func NewCmdErrors(f *cmdutil.Factory, runF func(*ErrorsOptions) error) *cobra.Command {
	opts := &ErrorsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "errors [ID | PREFIX | -]",
		Short: "Explain Canton error ids: what they mean and what to do",
		Long: `Explain the error ids a Canton participant (or ledger serve) answers with:
the error's category as Canton declares it (HTTP status, gRPC code, whether a
retry can help), what it means, and what to do about it.

With no argument, every id the catalogue knows, one per line. With an id, that
one in full; the id may be given in any case, and as Canton writes it at the
head of a message ("LOCAL_VERDICT_TIMEOUT(2,1a2b3c4d): ..."). With a prefix,
the ids that start with it. With "-", an error read from standard input: a
JSON error body as the JSON API answers it, or a line of a log or message that
starts with an error id; the body's cause, correlation id and context are
shown with the explanation. An id the catalogue does not know is still
explained by the category its body carries.`,
		Example: `  # what does this rejection mean, and can I retry it?
  ledger errors LOCAL_VERDICT_LOCKED_CONTRACTS

  # every local verdict, every sequencer error
  ledger errors LOCAL_VERDICT
  ledger errors SEQUENCER

  # explain an error body a script received
  curl -s -H 'Content-Type: application/json' -d @cmd.json \
    http://127.0.0.1:7575/v2/commands/submit-and-wait | ledger errors -

  # the catalogue for a script
  ledger errors -o json`,
		Args: cmdutil.MaxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Query = args[0]
			}
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return errorsRun(opts)
		},
	}
	return cmd
}

func errorsRun(opts *ErrorsOptions) error {
	q := strings.TrimSpace(opts.Query)
	switch {
	case q == "":
		return writeErrorList(opts, cmdutil.Catalog)
	case q == "-":
		in, err := io.ReadAll(io.LimitReader(opts.IO.In, 1<<20))
		if err != nil {
			return fmt.Errorf("read the error from standard input: %w", err)
		}
		x, err := cmdutil.ExplainReceived(in)
		if err != nil {
			return err
		}
		return writeExplanation(opts, x)
	}
	if e, ok := cmdutil.LookupError(q); ok {
		return writeExplanation(opts, cmdutil.ExplainEntry(e, e.Category))
	}
	if found := cmdutil.SearchErrors(q); len(found) > 0 {
		return writeErrorList(opts, found)
	}
	return cmdutil.UsageError("%q is not an error id the catalogue knows%s\nRun 'ledger errors' for the list, or pipe the whole error body to 'ledger errors -' to explain it by its category.",
		q, cmdutil.NearErrorIDs(q))
}

func writeErrorList(opts *ErrorsOptions, es []cmdutil.CatalogEntry) error {
	if opts.Format != cmdutil.FormatTable {
		out := make([]cmdutil.ErrorExplanation, len(es))
		for i, e := range es {
			out[i] = cmdutil.ExplainEntry(e, e.Category)
		}
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, out)
	}
	rows := make([][]string, len(es))
	for i, e := range es {
		cat, retry := "set by the Daml code", "-"
		if c, ok := e.ErrorCategory(); ok {
			cat = strconv.Itoa(c.ID) + " " + c.Name
			retry = "no"
			if c.Retryable {
				retry = "yes"
			}
		}
		rows[i] = []string{e.ID, cat, retry, e.Meaning}
	}
	return display.Table(opts.IO.Out, []string{"ID", "CATEGORY", "RETRY", "MEANING"}, rows)
}

func writeExplanation(opts *ErrorsOptions, x cmdutil.ErrorExplanation) error {
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, x)
	}
	fields := [][2]string{{"Error", x.ID}}
	if c := x.Category; c != nil {
		status := fmt.Sprintf("%d %s (HTTP %d", c.ID, c.Name, c.HTTPStatus)
		if c.GRPCCode != "" {
			status += ", gRPC " + c.GRPCCode
		}
		fields = append(fields, [2]string{"Category", status + ")"})
		retry := "no"
		if c.Retryable {
			retry = "yes"
		}
		fields = append(fields, [2]string{"Retry", retry}, [2]string{"Category means", c.Advice})
	} else if x.Known {
		fields = append(fields, [2]string{"Category", "set by the Daml code that failed"})
	}
	if !x.Known && x.Meaning == "" {
		fields = append(fields, [2]string{"Meaning", "not in the catalogue: the category above says what kind of refusal it is"})
	}
	if x.Meaning != "" {
		fields = append(fields, [2]string{"Meaning", x.Meaning})
	}
	if x.Fix != "" {
		fields = append(fields, [2]string{"What to do", x.Fix})
	}
	if r := x.Received; r != nil {
		if r.Cause != "" {
			fields = append(fields, [2]string{"Cause", r.Cause})
		}
		if r.Hint != "" {
			fields = append(fields, [2]string{"Hint", r.Hint})
		}
		if r.RetryInfo != "" {
			fields = append(fields, [2]string{"Retry after", r.RetryInfo})
		}
		if r.CorrelationID != "" {
			fields = append(fields, [2]string{"Correlation id", r.CorrelationID})
		}
		keys := make([]string, 0, len(r.Context))
		for k := range r.Context {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fields = append(fields, [2]string{"Context " + k, r.Context[k]})
		}
	}
	return display.Fields(opts.IO.Out, fields)
}
