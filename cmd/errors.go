package cmd

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
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

// errorExplanation is one explained error: the -o json|yaml form, and what
// the text form prints.
type errorExplanation struct {
	ID       string          `json:"id"`
	Known    bool            `json:"known"`
	Category *errorCategory  `json:"category"`
	Meaning  string          `json:"meaning,omitempty"`
	Fix      string          `json:"fix,omitempty"`
	Received *receivedDetail `json:"received,omitempty"`
}

type errorCategory struct {
	ID         int    `json:"id"`
	Name       string `json:"name"`
	HTTPStatus int    `json:"httpStatus"`
	GRPCCode   string `json:"grpcCode,omitempty"`
	Retryable  bool   `json:"retryable"`
	Redacted   bool   `json:"redacted"`
	Advice     string `json:"advice"`
}

// receivedDetail is what an error read from standard input said beyond its id.
type receivedDetail struct {
	Cause         string            `json:"cause,omitempty"`
	CorrelationID string            `json:"correlationId,omitempty"`
	RetryInfo     string            `json:"retryInfo,omitempty"`
	Context       map[string]string `json:"context,omitempty"`
	Hint          string            `json:"hint,omitempty"`
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
		x, err := explainReceived(in)
		if err != nil {
			return err
		}
		return writeExplanation(opts, x)
	}
	if e, ok := cmdutil.LookupError(q); ok {
		return writeExplanation(opts, explainEntry(e, e.Category))
	}
	if found := cmdutil.SearchErrors(q); len(found) > 0 {
		return writeErrorList(opts, found)
	}
	return cmdutil.UsageError("%q is not an error id the catalogue knows%s\nRun 'ledger errors' for the list, or pipe the whole error body to 'ledger errors -' to explain it by its category.",
		q, nearErrorIDs(q))
}

// explainEntry explains a catalogue entry; category is the one to show
// (the entry's, or for DAML_FAILURE the one the received body carries).
func explainEntry(e cmdutil.CatalogEntry, category int) errorExplanation {
	return errorExplanation{ID: e.ID, Known: true, Category: categoryOf(category), Meaning: e.Meaning, Fix: e.Fix}
}

func categoryOf(id int) *errorCategory {
	c, ok := ledgerapi.LookupCategory(id)
	if !ok {
		return nil
	}
	return &errorCategory{ID: c.ID, Name: c.Name, HTTPStatus: c.HTTPStatus, GRPCCode: cmdutil.GRPCCodeName(c.GRPCCode),
		Retryable: c.Retryable, Redacted: c.Redacted, Advice: cmdutil.CategoryAdvice[c.ID]}
}

// explainReceived explains an error as a client received it: a JSON error
// body, or text that starts with an error id.
func explainReceived(in []byte) (errorExplanation, error) {
	in = bytes.TrimSpace(in)
	if len(in) == 0 {
		return errorExplanation{}, cmdutil.UsageError("standard input is empty: pipe an error body or a line starting with an error id into 'ledger errors -'")
	}
	if in[0] != '{' {
		id := cmdutil.ErrorIDOf(string(in))
		e, ok := cmdutil.LookupError(id)
		if !ok {
			return errorExplanation{}, cmdutil.UsageError("%q is not an error id the catalogue knows%s", id, nearErrorIDs(id))
		}
		return explainEntry(e, e.Category), nil
	}
	ce, err := ledgerapi.DecodeError(in)
	if err != nil {
		return errorExplanation{}, fmt.Errorf("standard input is not a JSON API error body: %w", err)
	}
	x := errorExplanation{ID: ce.Code, Category: categoryOf(ce.ErrorCategory)}
	if e, ok := cmdutil.LookupError(ce.Code); ok {
		category := e.Category
		if category == 0 || ce.ErrorCategory != 0 && ce.ErrorCategory != category {
			category = ce.ErrorCategory // DAML_FAILURE's, chosen by the Daml code; or the body's own
		}
		x = explainEntry(e, category)
	}
	if ce.IsRedacted() {
		// A redacted body carries no category (-1); its gRPC code says
		// which of the two redacted refusals of a request it is.
		switch {
		case ce.GRPCCodeValue != nil && *ce.GRPCCodeValue == ledgerapi.GRPCUnauthenticated:
			x.Category = categoryOf(ledgerapi.CodeUnauthenticated.Category)
		case ce.GRPCCodeValue != nil && *ce.GRPCCodeValue == ledgerapi.GRPCPermissionDenied:
			x.Category = categoryOf(ledgerapi.CodePermissionDenied.Category)
		}
		x.Meaning = "the node withheld the error's details (a security-sensitive refusal: a bad token, a missing right, an unknown user)"
		x.Fix = "check the token and the user's rights; the node's operator finds the reason in its log under the correlation id"
	}
	r := &receivedDetail{Cause: ce.Cause, Hint: cmdutil.HintFor(ce)}
	if ce.CorrelationID != nil {
		r.CorrelationID = *ce.CorrelationID
	}
	if ce.RetryInfo != nil {
		r.RetryInfo = *ce.RetryInfo
	}
	if len(ce.Context) > 0 {
		r.Context = map[string]string{}
		for k, v := range ce.Context {
			if k != "category" && k != "tid" { // the category is shown, the trace id is the correlation's
				r.Context[k] = v
			}
		}
	}
	if r.Hint == x.Fix {
		r.Hint = ""
	}
	x.Received = r
	return x, nil
}

// nearErrorIDs suggests catalogue ids sharing the query's first word.
func nearErrorIDs(q string) string {
	head, _, _ := strings.Cut(cmdutil.ErrorIDOf(q), "_")
	if len(head) < 3 {
		return ""
	}
	var near []string
	for _, e := range cmdutil.SearchErrors(head) {
		near = append(near, e.ID)
		if len(near) == 5 {
			break
		}
	}
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(near, ", ") + "?"
}

func writeErrorList(opts *ErrorsOptions, es []cmdutil.CatalogEntry) error {
	if opts.Format != cmdutil.FormatTable {
		out := make([]errorExplanation, len(es))
		for i, e := range es {
			out[i] = explainEntry(e, e.Category)
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

func writeExplanation(opts *ErrorsOptions, x errorExplanation) error {
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
