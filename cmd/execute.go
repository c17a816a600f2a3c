package cmd

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet"
)

// ExecuteOptions are the inputs of `ledger execute`.
type ExecuteOptions struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string

	File string
	Wait bool
}

// NewCmdExecute builds `ledger execute`.
func NewCmdExecute(f *cmdutil.Factory, runF func(*ExecuteOptions) error) *cobra.Command {
	opts := &ExecuteOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "execute ENVELOPE|- [--wait]",
		Short: "Submit a signed envelope to the node",
		Long: `Submit a signed envelope (written by "ledger prepare", signed by "ledger sign")
to the node: POST /v2/interactive-submission/execute, or with --wait
executeAndWaitForTransaction, which returns once the transaction is committed.

Before sending, the hash is recomputed once more and compared with the one
in the envelope; an envelope without signatures is refused. Every run sends a
fresh submission id, so running execute again after a failure is a new attempt
of the same command (the node's deduplication still refuses a second success).

With --wait the update id, completion offset, record time and paid traffic
cost are printed. Without it the node only acknowledges the submission; follow
its outcome with "ledger completions --until-command-id ID".

Exit status: 0 accepted, 1 error (network, authentication, bad envelope),
2 usage error, 3 hash mismatch, 4 the node rejected the command: the error
id and a hint of what to do are printed.`,
		Example: `  ledger execute tx.signed.json --wait

  # submit, then wait for the outcome on the completion stream
  ledger execute tx.signed.json
  ledger completions --party "$ALICE" --until-command-id "$(jq -r .envelope.prepareRequest.commandId tx.signed.json)"

  # for scripts
  ledger execute tx.signed.json --wait -o json | jq -r .updateId`,
		Args: cmdutil.ExactArgs(1),
	}
	conn := cmdutil.AddConnFlags(cmd)
	cmd.Flags().BoolVar(&opts.Wait, "wait", false, "wait for the transaction and print its update id, offset, record time and cost")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		opts.File = args[0]
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return executeRun(opts)
	}
	return cmd
}

// ExecuteResult is what execute prints with -o json|yaml.
type ExecuteResult struct {
	Status           string   `json:"status"` // "submitted" or "committed"
	CommandID        string   `json:"commandId"`
	ActAs            []string `json:"actAs"`
	SubmissionID     string   `json:"submissionId"`
	UpdateID         string   `json:"updateId,omitempty"`
	CompletionOffset int64    `json:"completionOffset,omitempty"`
	RecordTime       string   `json:"recordTime,omitempty"`
	PaidTrafficCost  *int64   `json:"paidTrafficCost,omitempty"`
}

func executeRun(opts *ExecuteOptions) error {
	env, err := wallet.ReadEnvelope(opts.File, opts.IO.In)
	if err != nil {
		return err
	}
	if len(env.PartySignatures.Signatures) == 0 {
		return fmt.Errorf("%s has no signatures: sign it first (ledger sign %s --key KEYFILE --out signed.json)", opts.File, opts.File)
	}
	for _, ps := range env.PartySignatures.Signatures {
		if len(ps.Signatures) == 0 {
			return fmt.Errorf("%s: party %s has an empty list of signatures: sign it again", opts.File, ps.Party)
		}
	}
	check, err := env.Verify(0, false)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.File, err)
	}
	if !check.Match {
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, fmt.Errorf(
			"%s: the preparedTransactionHash differs from the hash recomputed under %s (%s): not sent", opts.File, check.Scheme, check.Diagnosis))
	}
	raw, err := env.Raw()
	if err != nil {
		return err
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		return fmt.Errorf("%s: the prepared transaction does not decode: %w", opts.File, err)
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	userID := env.UserID
	if userID == "" {
		userID = conn.UserID
	}
	req := ledgerapi.ExecuteSubmissionRequest{
		PreparedTransaction:  raw,
		PartySignatures:      env.PartySignatures,
		DeduplicationPeriod:  env.DeduplicationPeriod,
		SubmissionID:         uuid.NewString(),
		UserID:               userID,
		HashingSchemeVersion: ledgerapi.HashingSchemeVersion(check.Scheme.String()),
		MinLedgerTime:        env.MinLedgerTime,
	}
	submitter := pt.GetMetadata().GetSubmitterInfo()
	res := ExecuteResult{Status: "submitted", CommandID: submitter.GetCommandId(), ActAs: submitter.GetActAs(), SubmissionID: req.SubmissionID}
	if !opts.Wait {
		if err := conn.Client.Execute(ctx, req); err != nil {
			return conn.Rejection(err)
		}
		return writeExecuteResult(opts, res)
	}
	tx, err := conn.Client.ExecuteAndWaitForTransaction(ctx, ledgerapi.ExecuteSubmissionAndWaitForTransactionRequest{ExecuteSubmissionRequest: req})
	var ae *client.APIError
	if errors.As(err, &ae) && ae.Canton == nil && (ae.StatusCode == http.StatusNotFound || ae.StatusCode == http.StatusMethodNotAllowed) {
		// A node without executeAndWaitForTransaction: the request did not
		// reach the ledger, so a second attempt is safe.
		req.SubmissionID = uuid.NewString()
		res.SubmissionID = req.SubmissionID
		r, err := conn.Client.ExecuteAndWait(ctx, req)
		if err != nil {
			return conn.Rejection(err)
		}
		res.Status, res.UpdateID, res.CompletionOffset = "committed", r.UpdateID, int64(r.CompletionOffset)
		return writeExecuteResult(opts, res)
	}
	if err != nil {
		return conn.Rejection(err)
	}
	cost := int64(tx.PaidTrafficCost)
	res.Status, res.UpdateID, res.CompletionOffset, res.PaidTrafficCost = "committed", tx.UpdateID, int64(tx.Offset), &cost
	if !tx.RecordTime.IsZero() {
		res.RecordTime = tx.RecordTime.String()
	}
	return writeExecuteResult(opts, res)
}

func writeExecuteResult(opts *ExecuteOptions, r ExecuteResult) error {
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, r)
	}
	w := opts.IO.Out
	if r.Status == "submitted" {
		var follow strings.Builder
		for _, p := range r.ActAs {
			follow.WriteString(" --party " + cmdutil.ShellQuote(p))
		}
		fmt.Fprintf(w, "Submitted command %s (submission %s).\nThe outcome arrives as a completion: ledger completions%s --until-command-id %s\n",
			r.CommandID, r.SubmissionID, follow.String(), cmdutil.ShellQuote(r.CommandID))
		return nil
	}
	fmt.Fprintf(w, "Committed command %s\n", r.CommandID)
	fields := [][2]string{{"Update id", r.UpdateID}, {"Completion offset", strconv.FormatInt(r.CompletionOffset, 10)}}
	if r.RecordTime != "" {
		fields = append(fields, [2]string{"Record time", r.RecordTime})
	}
	if r.PaidTrafficCost != nil {
		fields = append(fields, [2]string{"Paid traffic cost", strconv.FormatInt(*r.PaidTrafficCost, 10)})
	}
	fields = append(fields, [2]string{"Submission id", r.SubmissionID})
	return display.Fields(w, fields)
}
