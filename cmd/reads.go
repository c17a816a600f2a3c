package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/completions"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// The read commands: contracts (the active contract set), updates (the
// update stream, resumable), update get (one update as a tree), events (of
// one contract) and prune.

// eventFormat is ledgerapi.EventFormatOf, as requests take it.
func eventFormat(parties, templates, interfaces []string, blob bool) *ledgerapi.EventFormat {
	ef := ledgerapi.EventFormatOf(parties, templates, interfaces, blob)
	return &ef
}

// checkIDs checks the template or interface ids of flag.
func checkIDs(flag string, ids []string) error {
	for _, t := range ids {
		if _, err := ledgerapi.ParseTemplateID(t); err != nil {
			return cmdutil.UsageError("%s %q: %s", flag, t, err)
		}
	}
	return nil
}

// signalContext is ctx, or one cancelled by SIGINT and SIGTERM.
func signalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx != nil {
		return ctx, func() {}
	}
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// ---- contracts ----

// ContractsOptions are the inputs of `ledger contracts`.
type ContractsOptions struct {
	IO         *cmdutil.IOStreams
	Connect    func() (*cmdutil.Connection, error)
	Format     string
	Parties    []string
	Templates  []string
	Interfaces []string
	At         int64
	AtSet      bool
	Blob       bool
	JSONLines  bool // --jsonl, the old name of -o json
	IDs        bool // only the contract ids, one per line
	PageSize   int
	FullIDs    bool
}

// NewCmdContracts builds `ledger contracts`.
func NewCmdContracts(f *cmdutil.Factory, runF func(*ContractsOptions) error) *cobra.Command {
	opts := &ContractsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "contracts [--party P]... [--template T]... [--interface I]... [--at OFFSET]",
		Short: "List the active contracts: template, contract id, signatories, argument",
		Long: `List the contracts active at an offset (the ledger end unless --at) that the
given parties see, as a table (template, contract id, signatories, the argument
shortened, each column as wide as its content) or with -o json as one JSON
object per line (NDJSON, as updates and completions print), the created event
as the JSON API writes it; -o yaml prints one YAML document per contract. The
set is read page by page (--page-size), never held whole. --ids prints only
the contract ids, one per line, for a shell variable.

Without --party the contracts of every party are listed (the token's user
needs CanReadAsAnyParty). --template keeps contracts of these templates
(package id form pkg:Module:Entity or package name form #name:Module:Entity).
--interface keeps contracts of every template implementing the interface (same
forms) and shows each one's interface view: in the table instead of the
argument, with -o json in the created event's interfaceViews (a view that
fails has the error in its viewStatus). --blob adds each contract's
createdEventBlob, which disclosedContracts of a later command takes.`,
		Example: `  # what does Alice have?
  ledger contracts --party "$ALICE"

  # Alice's token-standard holdings of any registry, as their Holding views
  ledger contracts --party "$ALICE" --interface '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding' -o json

  # the id of one of Alice's Ious, for the next command
  CID=$(ledger contracts --party "$ALICE" --template '#iou:Iou:Iou' --ids | tail -n 1)

  # the Ious as of offset 42, one JSON object per line, with their blobs
  ledger contracts --party "$ALICE" --template '#iou:Iou:Iou' --at 42 --blob -o json`,
		Args: cmdutil.ExactArgs(0),
	}
	conn := cmdutil.AddConnFlags(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Parties, "party", nil, "party whose contracts to list, by id or hint (repeatable; none: every party)")
	fl.StringArrayVar(&opts.Templates, "template", nil, "keep contracts of this template (repeatable)")
	fl.StringArrayVar(&opts.Interfaces, "interface", nil, "keep contracts implementing this interface, with their views (repeatable)")
	fl.Int64Var(&opts.At, "at", 0, "offset of the snapshot (default: the ledger end)")
	fl.BoolVar(&opts.Blob, "blob", false, "include each contract's createdEventBlob")
	fl.BoolVar(&opts.JSONLines, "jsonl", false, "the same as -o json: one JSON object per line")
	_ = fl.MarkHidden("jsonl") // the old name of -o json
	fl.IntVar(&opts.PageSize, "page-size", 1000, "contracts per request")
	fl.BoolVar(&opts.FullIDs, "full-ids", false, "print ids in full")
	fl.BoolVar(&opts.IDs, "ids", false, "print only the contract ids, one per line (for $(…) in a shell)")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		if opts.IDs && (opts.JSONLines || c.Flags().Changed("output")) {
			return cmdutil.UsageError("--ids prints ids only; leave out -o and --jsonl")
		}
		if opts.JSONLines {
			if c.Flags().Changed("output") && opts.Format != cmdutil.FormatJSON {
				return cmdutil.UsageError("--jsonl is -o json; it cannot go with -o %s", opts.Format)
			}
			opts.Format = cmdutil.FormatJSON
		}
		opts.AtSet = c.Flags().Changed("at")
		if opts.At < 0 || opts.PageSize <= 0 {
			return cmdutil.UsageError("--at must not be negative and --page-size must be positive")
		}
		if err := cmdutil.ValidateParties("--party", opts.Parties); err != nil {
			return err
		}
		if err := checkIDs("--template", opts.Templates); err != nil {
			return err
		}
		if err := checkIDs("--interface", opts.Interfaces); err != nil {
			return err
		}
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return contractsRun(opts)
	}
	return cmd
}

func contractsRun(opts *ContractsOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	if opts.Parties, err = conn.ResolvePartyHints("--party", opts.Parties, opts.IO.ErrOut); err != nil {
		return err
	}
	ctx := context.Background()
	req := ledgerapi.GetActiveContractsPageRequest{EventFormat: eventFormat(opts.Parties, opts.Templates, opts.Interfaces, opts.Blob)}
	size := ledgerapi.Int32(opts.PageSize)
	req.MaxPageSize = &size
	if opts.AtSet {
		at := ledgerapi.Int64(opts.At)
		req.ActiveAtOffset = &at
	}
	w := opts.IO.Out
	text := display.TextOptions{Color: opts.IO.ColorEnabled(), FullIDs: opts.FullIDs}
	table := &display.Columns{W: w, Header: display.ContractHeader(len(opts.Interfaces) > 0)}
	rows := 0
	err = conn.Client.ActiveContractsPages(ctx, req, func(page *ledgerapi.JsGetActiveContractsPageResponse) error {
		var cells [][]string // a page is sized as one batch: its rows line up
		for _, el := range page.ActiveContracts {
			ac := el.ContractEntry.ActiveContract
			if ac == nil {
				continue
			}
			rows++
			if opts.IDs {
				if _, err := fmt.Fprintln(w, ac.CreatedEvent.ContractID); err != nil {
					return err
				}
				continue
			}
			if opts.Format != cmdutil.FormatTable {
				if err := writeRecord(w, opts.Format, ac.CreatedEvent); err != nil {
					return err
				}
				continue
			}
			cells = append(cells, display.ContractCells(&ac.CreatedEvent, text))
		}
		return table.Write(cells...)
	})
	if err != nil {
		return cmdutil.WithHint(err)
	}
	if rows == 0 && opts.Format == cmdutil.FormatTable && !opts.IDs {
		fmt.Fprintln(opts.IO.ErrOut, "no active contracts")
	}
	return nil
}

// ---- updates ----

// UpdatesOptions are the inputs of `ledger updates`.
type UpdatesOptions struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string
	// Context is cancelled to stop a follower (nil: SIGINT/SIGTERM).
	Context context.Context

	Parties     []string
	Templates   []string
	Interfaces  []string
	Blob        bool
	From, To    int64
	FromSet     bool // --from given; else a pruned node is read from its pruned offset
	Follow      bool
	Checkpoint  string
	OutPath     string
	Shape       string
	Transport   string
	Limit       int
	IdleTimeout time.Duration
	FullIDs     bool
	IDs         bool // only the update ids, one per line
}

// NewCmdUpdates builds `ledger updates`.
func NewCmdUpdates(f *cmdutil.Factory, runF func(*UpdatesOptions) error) *cobra.Command {
	opts := &UpdatesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "updates --party P [--template T]... [--interface I]... [--from OFFSET] [--to OFFSET] [--follow] [--checkpoint FILE] [--out FILE]",
		Short: "Show the update stream: the transactions the parties see, one per line",
		Long: `Read the node's update stream for the given parties: one line per transaction
with its offset, record time, update id, command id and its events (created,
archived, exercised). -o json prints one JSON object per line (NDJSON), the
update as the JSON API writes it ({"Transaction":{"value":…}}).

--template keeps the events of these templates; --interface those of every
template implementing the interface, whose created events then carry its view
(interfaceViews) and whose archived and consuming exercised events list it
(implementedInterfaces), with -o json. --blob adds each created event's
createdEventBlob (with -o json), which disclosedContracts of a later command
takes: a registry can publish its contracts as they are created.

--shape acs-delta (the default) shows what changes the active contract set:
created and archived events of the parties' contracts. --shape ledger-effects
shows every create and exercise the parties witness, with exercised events'
lastDescendantNodeId.

Without --follow the updates after --from up to --to (default: the current
ledger end) are printed, and the command exits. With --follow it keeps
tailing, over the node's websocket when it offers one, else by polling the
list endpoint (--page-size elements per request, --stream-idle-timeout of
waiting per request).

--checkpoint FILE makes it resumable as ledger completions is: the offset of
the last update handled is written to FILE (atomically) after it was printed,
and a new run starts after the offset in FILE instead of --from. With --out
OUT the updates go to OUT, synced before each checkpoint, whose
length the checkpoint records; a restart cuts OUT back to it, so a run killed
at any moment (kill -9 included) and restarted writes every update to OUT
exactly once.`,
		Example: `  # what happened to Alice's contracts so far
  ledger updates --party "$ALICE"

  # a resumable, exactly-once export of everything, following new updates
  ledger updates --party "$ALICE" --follow --checkpoint alice-updates.offset -o json --out alice-updates.ndjson

  # the id of the last update, for ledger update get
  UPDATE_ID=$(ledger updates --party "$ALICE" --ids | tail -n 1)

  # the exercises too, between two offsets
  ledger updates --party "$ALICE" --shape ledger-effects --from 10 --to 20

  # Alice's token-standard holdings coming and going, with their Holding views
  ledger updates --party "$ALICE" --interface '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding' -o json`,
		Args: cmdutil.ExactArgs(0),
	}
	conn := cmdutil.AddConnFlags(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Parties, "party", nil, "party whose updates to read, by id or hint (repeatable; required)")
	fl.StringArrayVar(&opts.Templates, "template", nil, "keep events of this template (repeatable)")
	fl.StringArrayVar(&opts.Interfaces, "interface", nil, "keep events of templates implementing this interface, with their views (repeatable)")
	fl.BoolVar(&opts.Blob, "blob", false, "include each created event's createdEventBlob (with -o json)")
	fl.Int64Var(&opts.From, "from", 0, "offset to start after (0: the beginning)")
	fl.Int64Var(&opts.To, "to", 0, "last offset to read (default: the ledger end)")
	fl.BoolVar(&opts.Follow, "follow", false, "keep tailing new updates")
	fl.StringVar(&opts.Checkpoint, "checkpoint", "", "file holding the last offset handled: resume after it")
	fl.StringVar(&opts.OutPath, "out", "", "append the updates to this file, kept in step with --checkpoint")
	fl.StringVar(&opts.Shape, "shape", "acs-delta", "acs-delta or ledger-effects")
	fl.StringVar(&opts.Transport, "transport", completions.TransportAuto, "auto, websocket or list")
	fl.IntVar(&opts.Limit, "page-size", completions.DefaultLimit, "elements per list request (the node's maximum is usually 200)")
	fl.DurationVar(&opts.IdleTimeout, "stream-idle-timeout", 500*time.Millisecond, "how long one list request waits for more updates")
	cmdutil.OldFlagName(fl, "limit", "page-size")
	cmdutil.OldFlagName(fl, "idle-timeout", "stream-idle-timeout")
	fl.BoolVar(&opts.FullIDs, "full-ids", false, "print ids in full")
	fl.BoolVar(&opts.IDs, "ids", false, "print only the update ids, one per line (for $(…) in a shell)")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		if len(opts.Parties) == 0 {
			return cmdutil.UsageError("--party is required: updates are read per party")
		}
		if opts.IDs && c.Flags().Changed("output") {
			return cmdutil.UsageError("--ids prints ids only; leave out -o")
		}
		if err := cmdutil.ValidateParties("--party", opts.Parties); err != nil {
			return err
		}
		if err := checkIDs("--template", opts.Templates); err != nil {
			return err
		}
		if err := checkIDs("--interface", opts.Interfaces); err != nil {
			return err
		}
		if opts.From < 0 || opts.To < 0 || opts.To != 0 && opts.To < opts.From {
			return cmdutil.UsageError("--from and --to must not be negative, --to not before --from")
		}
		if opts.Follow && opts.To != 0 {
			return cmdutil.UsageError("--follow and --to exclude each other")
		}
		opts.FromSet = c.Flags().Changed("from")
		if _, err := shapeOf(opts.Shape); err != nil {
			return err
		}
		if opts.Limit <= 0 || opts.IdleTimeout < 0 {
			return cmdutil.UsageError("--page-size must be positive, --stream-idle-timeout not negative")
		}
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return updatesRun(opts)
	}
	return cmd
}

func shapeOf(s string) (ledgerapi.TransactionShape, error) {
	switch s {
	case "acs-delta", "":
		return ledgerapi.TransactionShapeACSDelta, nil
	case "ledger-effects":
		return ledgerapi.TransactionShapeLedgerEffects, nil
	}
	return "", cmdutil.UsageError("--shape %q: use acs-delta or ledger-effects", s)
}

func updatesRun(opts *UpdatesOptions) error {
	shape, _ := shapeOf(opts.Shape)
	o := completions.UpdateOptions{Parties: opts.Parties, Templates: opts.Templates, Interfaces: opts.Interfaces, Blob: opts.Blob, Shape: shape,
		Begin: opts.From, End: opts.To, Follow: opts.Follow, Checkpoint: opts.Checkpoint,
		Transport: opts.Transport, Limit: opts.Limit, IdleTimeout: opts.IdleTimeout, Log: opts.IO.ErrOut}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	if o.Parties, err = conn.ResolvePartyHints("--party", opts.Parties, opts.IO.ErrOut); err != nil {
		return err
	}
	if !opts.FromSet {
		o.Begin = beginAfterPruned(conn, opts.IO, opts.Checkpoint, "updates", "--from")
	}
	ctx, stop := signalContext(opts.Context)
	defer stop()
	text := display.TextOptions{Color: opts.IO.ColorEnabled(), FullIDs: opts.FullIDs}
	var w io.Writer = opts.IO.Out
	if err := o.CheckCheckpoint(); err != nil {
		return cmdutil.UsageError("--checkpoint: %s", err)
	}
	if opts.OutPath != "" {
		file, err := completions.OpenOutputFile(opts.OutPath, opts.Checkpoint)
		if err != nil {
			return err
		}
		defer file.Close()
		w, o.Sync = file, file.Sync
		text.Color = false
	}
	// The header goes to a terminal or pipe once; a file appended to across
	// restarts gets none.
	table := &display.Columns{W: w, Header: display.UpdateHeader(), NoHeader: opts.OutPath != "", Batch: tableBatch(opts.Follow, opts.Checkpoint)}
	out := func(u *ledgerapi.JsUpdate) error {
		if opts.IDs {
			return writeUpdateID(w, u)
		}
		if opts.Format == cmdutil.FormatTable {
			return table.Add(display.UpdateCells(u, text))
		}
		return writeRecord(w, opts.Format, u)
	}
	_, err = completions.TailUpdates(ctx, conn.Client, o, out)
	if ferr := table.Flush(); err == nil {
		err = ferr // the rows held to size the columns
	}
	if errors.Is(err, context.Canceled) {
		return nil // stopped by a signal: the checkpoint is up to date
	}
	if err != nil {
		return cmdutil.WithHint(err)
	}
	return nil
}

// writeUpdateID writes the update id of a transaction or a topology
// transaction on a line; an offset checkpoint has none.
func writeUpdateID(w io.Writer, u *ledgerapi.JsUpdate) error {
	var id string
	switch {
	case u.Transaction != nil:
		id = u.Transaction.UpdateID
	case u.TransactionTree != nil:
		id = u.TransactionTree.UpdateID
	case u.TopologyTransaction != nil:
		id = u.TopologyTransaction.UpdateID
	default:
		return nil
	}
	_, err := fmt.Fprintln(w, id)
	return err
}

// ---- update get ----

// UpdateGetOptions are the inputs of `ledger update get`.
type UpdateGetOptions struct {
	IO       *cmdutil.IOStreams
	Connect  func() (*cmdutil.Connection, error)
	Format   string
	UpdateID string
	Offset   int64
	Parties  []string
	FullIDs  bool
}

// NewCmdUpdate builds `ledger update` and its verb get.
func NewCmdUpdate(f *cmdutil.Factory, runF func(*UpdateGetOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "update",
		Short: "Look up one update",
		Long: `Look up one update of the ledger by its update id or its offset (ledger
updates reads the stream of them).`,
		Example: `  ledger update get 1220f0c1… --party "$ALICE"`,
	}
	opts := &UpdateGetOptions{IO: f.IO}
	get := &cobra.Command{
		Use:   "get (UPDATE_ID | --offset N) [--party P]...",
		Short: "Show one update as a transaction tree",
		Long: `Look up one update by its id or its offset and render it as a tree: each
exercise with the events it caused below it (ledger effects, as the parties
witness it), the way ledger submit shows the transaction it made. -o json
prints the update as the JSON API writes it.

Without --party the update is read as every party (the token's user needs
CanReadAsAnyParty).`,
		Example: `  ledger update get 1220f0c1… --party "$ALICE"
  ledger update get --offset 42 -o json`,
		Args: cmdutil.MaxArgs(1),
	}
	conn := cmdutil.AddConnFlags(get)
	fl := get.Flags()
	fl.Int64Var(&opts.Offset, "offset", 0, "look the update up by offset")
	fl.StringArrayVar(&opts.Parties, "party", nil, "read as this party, by id or hint (repeatable; none: every party)")
	fl.BoolVar(&opts.FullIDs, "full-ids", false, "print ids in full")
	get.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		switch {
		case len(args) == 1 && c.Flags().Changed("offset"):
			return cmdutil.UsageError("give an update id or --offset, not both")
		case len(args) == 1:
			opts.UpdateID = args[0]
		case opts.Offset <= 0:
			return cmdutil.UsageError("give an update id or a positive --offset")
		}
		if err := cmdutil.ValidateParties("--party", opts.Parties); err != nil {
			return err
		}
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return updateGetRun(opts)
	}
	cmd.AddCommand(get)
	return cmd
}

func updateGetRun(opts *UpdateGetOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	if opts.Parties, err = conn.ResolvePartyHints("--party", opts.Parties, opts.IO.ErrOut); err != nil {
		return err
	}
	format := &ledgerapi.UpdateFormat{IncludeTransactions: &ledgerapi.TransactionFormat{
		TransactionShape: ledgerapi.TransactionShapeLedgerEffects, EventFormat: *eventFormat(opts.Parties, nil, nil, false)}}
	ctx := context.Background()
	var u *ledgerapi.JsUpdate
	if opts.UpdateID != "" {
		u, err = conn.Client.UpdateByID(ctx, ledgerapi.GetUpdateByIDRequest{UpdateID: opts.UpdateID, UpdateFormat: format})
	} else {
		u, err = conn.Client.UpdateByOffset(ctx, ledgerapi.GetUpdateByOffsetRequest{Offset: ledgerapi.Int64(opts.Offset), UpdateFormat: format})
	}
	if err != nil {
		return cmdutil.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, ledgerapi.JsGetUpdateResponse{Update: *u})
	}
	if u.Transaction == nil {
		return cmdutil.WriteStructured(opts.IO.Out, cmdutil.FormatJSON, u)
	}
	tree := display.TreeOf(u.Transaction)
	return display.RenderTransactionTree(opts.IO.Out, &tree, display.TextOptions{Color: opts.IO.ColorEnabled(), FullIDs: opts.FullIDs})
}

// ---- events ----

// EventsOptions are the inputs of `ledger events`.
type EventsOptions struct {
	IO         *cmdutil.IOStreams
	Connect    func() (*cmdutil.Connection, error)
	Format     string
	ContractID string
	Parties    []string
	FullIDs    bool
}

// NewCmdEvents builds `ledger events`.
func NewCmdEvents(f *cmdutil.Factory, runF func(*EventsOptions) error) *cobra.Command {
	opts := &EventsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "events CONTRACT_ID [--party P]...",
		Short: "Show a contract's created and archived events",
		Long: `Show the events of one contract as the parties see them: where it was created
(offset, node, template, signatories, argument) and, once archived, where.
-o json (or yaml) prints the JSON API's answer. Without --party the contract is
read as every party (the token's user needs CanReadAsAnyParty).`,
		Example: `  ledger events 00a1b2… --party "$ALICE"`,
		Args:    cmdutil.ExactArgs(1),
	}
	conn := cmdutil.AddConnFlags(cmd)
	cmd.Flags().StringArrayVar(&opts.Parties, "party", nil, "read as this party, by id or hint (repeatable; none: every party)")
	cmd.Flags().BoolVar(&opts.FullIDs, "full-ids", false, "print ids in full")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		opts.ContractID = args[0]
		if err := cmdutil.ValidateParties("--party", opts.Parties); err != nil {
			return err
		}
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return eventsRun(opts)
	}
	return cmd
}

func eventsRun(opts *EventsOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	if opts.Parties, err = conn.ResolvePartyHints("--party", opts.Parties, opts.IO.ErrOut); err != nil {
		return err
	}
	ev, err := conn.Client.EventsByContractID(context.Background(), ledgerapi.GetEventsByContractIDRequest{
		ContractID: opts.ContractID, EventFormat: eventFormat(opts.Parties, nil, nil, false)})
	if err != nil {
		return cmdutil.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, ev)
	}
	text := display.TextOptions{Color: opts.IO.ColorEnabled(), FullIDs: opts.FullIDs}
	w := opts.IO.Out
	if c := ev.Created; c != nil {
		e := &c.CreatedEvent
		fmt.Fprintf(w, "created   offset %d node %d at %s\n", e.Offset, e.NodeID, e.CreatedAt)
		fmt.Fprintln(w, "  "+display.ContractLine(e, text))
	}
	if a := ev.Archived; a != nil {
		fmt.Fprintf(w, "archived  offset %d node %d, witnesses %s\n", a.ArchivedEvent.Offset, a.ArchivedEvent.NodeID,
			display.PartyList(a.ArchivedEvent.WitnessParties, text))
	} else {
		fmt.Fprintln(w, "active")
	}
	return nil
}

// ---- prune ----

// PruneOptions are the inputs of `ledger prune`.
type PruneOptions struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string
	Offset  int64
	Keep    time.Duration
	Wait    time.Duration
	Now     func() time.Time
}

// NewCmdPrune builds `ledger prune`.
func NewCmdPrune(f *cmdutil.Factory, runF func(*PruneOptions) error) *cobra.Command {
	opts := &PruneOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "prune (--offset N | --keep DURATION)",
		Short: "Prune a ledger serve node's history up to an offset",
		Long: `Remove a ledger serve node's history at and below an offset: completions,
transactions and their events, and the contracts archived there. Active
contracts stay, whenever they were created. Afterwards every read that starts
below the offset (completions, updates, the active contract set at an earlier
offset, lookups by offset) is refused with PARTICIPANT_PRUNED_DATA_ACCESSED, as
Canton refuses it; GET /v2/state/latest-pruned-offsets tells the offset.

--keep 24h prunes everything recorded more than 24 hours ago (the node finds
the offset from the record times). The node prunes in short batches,
so submissions go on meanwhile; the command waits until it is done (--wait).

This talks to ledger serve's own endpoint (POST /admin/prune, participant
admin right): Canton participants prune through their admin API instead.`,
		Example: `  ledger prune --offset 1000
  ledger prune --keep 168h`,
		Args: cmdutil.ExactArgs(0),
	}
	conn := cmdutil.AddConnFlags(cmd)
	cmd.Flags().Int64Var(&opts.Offset, "offset", 0, "prune up to and including this offset")
	cmd.Flags().DurationVar(&opts.Keep, "keep", 0, "prune what was recorded longer ago than this")
	cmd.Flags().DurationVar(&opts.Wait, "wait", 30*time.Minute, "how long the prune may take")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		if (opts.Offset > 0) == (opts.Keep > 0) {
			return cmdutil.UsageError("give a positive --offset or a positive --keep, one of them")
		}
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return pruneRun(opts)
	}
	return cmd
}

func pruneRun(opts *PruneOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx := context.Background()
	req := ledgerapi.PruneRequest{PruneUpTo: ledgerapi.Int64(opts.Offset)}
	if opts.Keep > 0 {
		before := ledgerapi.NewTimestamp(opts.Now().Add(-opts.Keep))
		req.PruneBefore = &before
	}
	res, err := conn.Client.Prune(ctx, req, opts.Wait)
	if err != nil {
		return cmdutil.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, res)
	}
	fmt.Fprintf(opts.IO.Out, "pruned up to offset %d: %d completions, %d archived contracts removed\n",
		res.PrunedUpTo, res.CompletionsRemoved, res.ContractsRemoved)
	return nil
}

// beginAfterPruned is where a read without an explicit start begins: after
// the node's pruned offset, said on stderr, where reading from the
// beginning would only meet PARTICIPANT_PRUNED_DATA_ACCESSED; 0 on a node
// that has pruned nothing, or when an existing checkpoint decides. A failed
// look-up leaves the start at 0, and the read itself reports the failure.
func beginAfterPruned(conn *cmdutil.Connection, ios *cmdutil.IOStreams, checkpoint, what, flag string) int64 {
	if checkpoint != "" {
		if _, ok, err := completions.ReadCheckpoint(checkpoint); ok || err != nil {
			return 0
		}
	}
	ctx, cancel := conn.Context()
	defer cancel()
	res, err := conn.Client.LatestPrunedOffsets(ctx)
	if err != nil || res.ParticipantPrunedUpToInclusive <= 0 {
		return 0
	}
	pruned := int64(res.ParticipantPrunedUpToInclusive)
	fmt.Fprintf(ios.ErrOut, "note: the node has pruned its history up to offset %d; reading %s after it (%s chooses the start)\n", pruned, what, flag)
	return pruned
}
