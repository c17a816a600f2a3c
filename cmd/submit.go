package cmd

import (
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// SubmitOptions are the inputs of `ledger submit`.
type SubmitOptions struct {
	IO      *cmdutil.IOStreams
	Now     func() time.Time
	Connect func() (*cmdutil.Connection, error)
	Format  string

	Commands          commandFlags
	ActAs             []string
	ReadAs            []string
	CommandID         string
	WorkflowID        string
	DedupDuration     time.Duration
	DedupDurationSet  bool
	DedupOffset       int64
	DedupOffsetSet    bool
	MinLedgerTime     string
	SubmissionID      string
	Disclosed         string
	Synchronizer      string
	PackagePreference []string
	PrefetchKeys      []string
	TapsMaxPasses     int
	TapsSet           bool
	FullIDs           bool
}

// NewCmdSubmit builds `ledger submit`.
func NewCmdSubmit(f *cmdutil.Factory, runF func(*SubmitOptions) error) *cobra.Command {
	opts := &SubmitOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "submit (--create T --args JSON | --exercise T --contract-id C --choice N | … | --commands @FILE) --act-as PARTY",
		Short: "Submit a command as a local party and show the resulting transaction tree",
		Long: `Submit a command for parties hosted on the node (the node signs; no external
signature) and wait for the transaction: POST
/v2/commands/submit-and-wait-for-transaction-tree. The tree of events it
caused is rendered, nested by the exercises that caused them.

The command flags are those of "ledger prepare". Every field of the request
has a flag: --command-id (default a fresh UUID), --workflow-id, --read-as,
--dedup-duration or --dedup-offset (default: the node's maximum),
--min-ledger-time (RFC 3339 time, or a duration for a relative time),
--submission-id, --disclosed, --synchronizer, --package-preference,
--prefetch-key, --taps-max-passes. The user id is --user (else the token's).

A party flag (--act-as, --read-as) takes a party id, or the hint of one
the node knows: --act-as alice is the one party alice::…, said on standard
error; a hint that no party or several parties have is refused with the
candidates.

-o json prints the node's answer ({"transactionTree": …}) for scripts.

Exit status: 0 committed, 1 error, 2 usage error, 4 the node rejected the
command (error id and a hint are printed).`,
		Example: `  ledger submit --create '#iou:Iou:Iou' --args @iou.json --act-as "$BANK"

  ledger submit --exercise '#iou:Iou:Iou' --contract-id "$CID" --choice Transfer \
      --arg '{"newOwner":"'"$BOB"'"}' --act-as "$BANK" --workflow-id payments

  # the created contract id, for a script
  ledger submit --create '#iou:Iou:Iou' --args @iou.json --act-as "$BANK" -o json |
      jq -r '.transactionTree.eventsById[] | .CreatedTreeEvent.value.contractId // empty'`,
		Args: cmdutil.ExactArgs(0),
	}
	conn := cmdutil.AddConnFlags(cmd)
	fl := cmd.Flags()
	addCommandFlags(fl, &opts.Commands)
	fl.StringArrayVar(&opts.ActAs, "act-as", nil, "party the command acts as: a party id, or the hint of one the node knows (repeatable; required)")
	fl.StringArrayVar(&opts.ReadAs, "read-as", nil, "extra party whose contracts the command may read, by id or hint (repeatable)")
	fl.StringVar(&opts.CommandID, "command-id", "", "command id (default: a fresh UUID)")
	fl.StringVar(&opts.WorkflowID, "workflow-id", "", "workflow id recorded with the transaction")
	fl.DurationVar(&opts.DedupDuration, "dedup-duration", 0, "deduplication period as a duration (default: the node's maximum)")
	fl.Int64Var(&opts.DedupOffset, "dedup-offset", 0, "deduplicate against completions after this offset")
	fl.StringVar(&opts.MinLedgerTime, "min-ledger-time", "", "minimum ledger time: RFC 3339 time, or a duration relative to submission")
	fl.StringVar(&opts.SubmissionID, "submission-id", "", "submission id (default: a fresh UUID)")
	fl.StringVar(&opts.Disclosed, "disclosed", "", "disclosed contracts: JSON array or @FILE")
	fl.StringVar(&opts.Synchronizer, "synchronizer", "", "synchronizer id (default: the node picks)")
	fl.StringArrayVar(&opts.PackagePreference, "package-preference", nil, "package id to prefer (repeatable)")
	fl.StringArrayVar(&opts.PrefetchKeys, "prefetch-key", nil, `contract key to load up front: JSON or @FILE {"templateId":…,"contractKey":…} (repeatable)`)
	fl.IntVar(&opts.TapsMaxPasses, "taps-max-passes", 0, "maximum passes of the topology-aware package selection")
	fl.BoolVar(&opts.FullIDs, "full-ids", false, "print party, contract and package ids in full")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		opts.DedupDurationSet = c.Flags().Changed("dedup-duration")
		opts.DedupOffsetSet = c.Flags().Changed("dedup-offset")
		opts.TapsSet = c.Flags().Changed("taps-max-passes")
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return submitRun(opts)
	}
	return cmd
}

// commands builds the request body (JsCommands).
func (opts *SubmitOptions) commands(userID string) (ledgerapi.Commands, error) {
	var req ledgerapi.Commands
	cmds, err := opts.Commands.build(opts.IO.In)
	if err != nil {
		return req, err
	}
	if len(opts.ActAs) == 0 {
		return req, cmdutil.UsageError("--act-as is required")
	}
	if err := cmdutil.ValidateParties("--act-as", opts.ActAs); err != nil {
		return req, err
	}
	if err := cmdutil.ValidateParties("--read-as", opts.ReadAs); err != nil {
		return req, err
	}
	if opts.DedupDurationSet && opts.DedupOffsetSet {
		return req, cmdutil.UsageError("give --dedup-duration or --dedup-offset, not both")
	}
	commandID := opts.CommandID
	if commandID == "" {
		commandID = uuid.NewString()
	} else if err := ledgerapi.ValidateLedgerString("--command-id", commandID); err != nil {
		return req, cmdutil.UsageError("%s", err)
	}
	submissionID := opts.SubmissionID
	if submissionID == "" {
		submissionID = uuid.NewString()
	}
	req = ledgerapi.Commands{
		Commands:                     cmds,
		CommandID:                    commandID,
		ActAs:                        opts.ActAs,
		UserID:                       ptrIf(userID),
		ReadAs:                       opts.ReadAs,
		WorkflowID:                   ptrIf(opts.WorkflowID),
		SubmissionID:                 &submissionID,
		SynchronizerID:               ptrIf(opts.Synchronizer),
		PackageIDSelectionPreference: opts.PackagePreference,
	}
	switch {
	case opts.DedupDurationSet:
		if opts.DedupDuration < 0 {
			return req, cmdutil.UsageError("--dedup-duration must not be negative")
		}
		d := ledgerapi.DurationOf(opts.DedupDuration)
		req.DeduplicationPeriod = &ledgerapi.DeduplicationPeriod{Duration: &d}
	case opts.DedupOffsetSet:
		if opts.DedupOffset < 0 {
			return req, cmdutil.UsageError("--dedup-offset must not be negative")
		}
		o := opts.DedupOffset
		req.DeduplicationPeriod = &ledgerapi.DeduplicationPeriod{Offset: &o}
	default:
		req.DeduplicationPeriod = &ledgerapi.DeduplicationPeriod{}
	}
	mlt, err := parseMinLedgerTime(opts.MinLedgerTime, opts.Now())
	if err != nil {
		return req, err
	}
	if mlt != nil {
		req.MinLedgerTimeAbs, req.MinLedgerTimeRel = mlt.Abs, mlt.Rel
	}
	if req.DisclosedContracts, err = parseDisclosed(opts.Disclosed, opts.IO.In); err != nil {
		return req, err
	}
	if req.PrefetchContractKeys, err = parsePrefetchKeys(opts.PrefetchKeys, opts.IO.In); err != nil {
		return req, err
	}
	if opts.TapsSet {
		if opts.TapsMaxPasses < 0 {
			return req, cmdutil.UsageError("--taps-max-passes must not be negative")
		}
		v := ledgerapi.Int32(opts.TapsMaxPasses)
		req.TapsMaxPasses = &v
	}
	return req, nil
}

func submitRun(opts *SubmitOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	req, err := opts.commands(conn.UserID)
	if err != nil {
		return err
	}
	if req.ActAs, err = conn.ResolvePartyHints("--act-as", req.ActAs, opts.IO.ErrOut); err != nil {
		return err
	}
	if req.ReadAs, err = conn.ResolvePartyHints("--read-as", req.ReadAs, opts.IO.ErrOut); err != nil {
		return err
	}
	if err := opts.Commands.checkTypes(conn.Client, req.Commands, req.ActAs, req.PackageIDSelectionPreference); err != nil {
		return err
	}
	var header http.Header // the node names what its generic model served
	tree, err := conn.Client.SubmitAndWaitForTransactionTree(client.WithResponseHeader(ctx, &header), req)
	if err != nil {
		return conn.Rejection(err)
	}
	noteGeneric(header, req.Commands, opts.IO.ErrOut)
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, ledgerapi.SubmitAndWaitForTransactionTreeResponse{TransactionTree: *tree})
	}
	return display.RenderTransactionTree(opts.IO.Out, tree, display.TextOptions{Color: opts.IO.ColorEnabled(), FullIDs: opts.FullIDs})
}
