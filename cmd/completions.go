package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/completions"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// writeRecord writes one element of a stream as -o json (a JSON line) or
// -o yaml (a YAML document) asks; the table form goes through
// display.Columns.
func writeRecord(w io.Writer, format string, v any) error {
	if format == cmdutil.FormatJSON {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	if _, err := fmt.Fprintln(w, "---"); err != nil {
		return err
	}
	return cmdutil.WriteStructured(w, cmdutil.FormatYAML, v)
}

// tableBatch is how many rows of a stream's table are held to size its
// columns together: none when following (each row shows as it comes) or
// with a checkpoint (a row is written before the offset after it is
// saved), else up to a thousand, which bounds the memory a long history
// takes.
func tableBatch(follow bool, checkpoint string) int {
	if follow || checkpoint != "" {
		return 1
	}
	return 1000
}

// CompletionsOptions are the inputs of `ledger completions`.
type CompletionsOptions struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string
	// Context is cancelled to stop a follower (nil: stopped by SIGINT/SIGTERM).
	Context context.Context
	// BeginSet: --from was given; without it a pruned node is read from
	// its pruned offset.
	BeginSet bool

	Parties        []string
	UserID         string
	Begin          string
	Limit          int
	IdleTimeout    time.Duration
	Follow         bool
	Checkpoint     string
	CommandID      string
	SubmissionID   string
	UntilCommandID string
	MaxWait        time.Duration
	Transport      string
	FullIDs        bool
	// OutPath is a file the completions are appended to, kept in step with
	// the checkpoint ("" = standard output).
	OutPath string
}

// NewCmdCompletions builds `ledger completions`.
func NewCmdCompletions(f *cmdutil.Factory, runF func(*CompletionsOptions) error) *cobra.Command {
	opts := &CompletionsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "completions --party PARTY [--follow] [--checkpoint FILE] [--until-command-id ID]",
		Short: "Show command completions: outcomes of submissions, one per line",
		Long: `Read the node's command completions for the given act-as parties (and the
user, --user or the token's): one line per completion with its offset, record
time, status, command id, and the update id and traffic cost or the error.
-o json prints one JSON object per line (NDJSON), the completion as the JSON
API writes it; offset checkpoints are not printed.

Without --follow the completions after --from up to the current ledger end
are printed, and the command exits. With --follow it keeps tailing, over the
node's websocket when it offers one, else by polling the list endpoint
(--page-size elements per request, --stream-idle-timeout of waiting per
request);
connections that fail are reopened with backoff after the last offset seen.

--checkpoint FILE makes a tail resumable: the offset of the last completion
handled is written to FILE (atomically) after it was printed, and a new run
starts after the offset in FILE instead of --from. With --out OUT the
completions go to OUT, which is synced before each checkpoint and whose
length the checkpoint records; a restart cuts OUT back to that length, so a run
killed at any moment and restarted writes every completion to OUT exactly once.
On standard output that cannot be undone: a run killed between printing and
checkpointing prints the last batch again after a restart (it never misses one).

--until-command-id ID waits for the completion of command ID, prints it and
exits: 0 when it succeeded, 4 when it was rejected (with the error id and a
hint). Only that command's completion is printed, unless --command-id or
--submission-id are given too. --max-wait bounds the wait.

--from takes an offset (exclusive; 0 = the beginning) or "end" (only
completions after the current ledger end).

Exit status: 0 done, 1 error (or --max-wait passed), 2 usage error,
4 the command of --until-command-id was rejected.`,
		Example: `  # what happened to my submissions so far
  ledger completions --party "$ALICE"

  # tail forever, resumable after a crash or restart
  ledger completions --party "$ALICE" --follow --checkpoint alice-completions.offset -o json --out completions.ndjson

  # wait for the outcome of one command (exit 4 if rejected)
  ledger completions --party "$ALICE" --until-command-id "$CMD" --max-wait 2m

  # only new completions, of one submission
  ledger completions --party "$ALICE" --from end --follow --submission-id "$SUB"`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 && shellNames[args[0]] {
				return cmdutil.UsageError("ledger completions reads command completions, the outcomes of submissions; for shell completion run: ledger completion %s", args[0])
			}
			return cmdutil.ExactArgs(0)(c, args)
		},
	}
	conn := cmdutil.AddConnFlags(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Parties, "party", nil, "act-as party whose completions to read, by id or hint (repeatable; required)")
	fl.StringVar(&opts.Begin, "from", "0", `offset to start after (0: the beginning), or "end"`)
	fl.IntVar(&opts.Limit, "page-size", completions.DefaultLimit, "elements per list request (the node's maximum is usually 200)")
	fl.DurationVar(&opts.IdleTimeout, "stream-idle-timeout", 500*time.Millisecond, "how long one list request waits for more completions")
	cmdutil.OldFlagName(fl, "begin", "from")
	cmdutil.OldFlagName(fl, "limit", "page-size")
	cmdutil.OldFlagName(fl, "idle-timeout", "stream-idle-timeout")
	fl.BoolVar(&opts.Follow, "follow", false, "keep tailing new completions")
	fl.StringVar(&opts.Checkpoint, "checkpoint", "", "file holding the last offset handled: resume after it, update it as completions are printed")
	fl.StringVar(&opts.CommandID, "command-id", "", "print only completions of this command id")
	fl.StringVar(&opts.SubmissionID, "submission-id", "", "print only completions of this submission id")
	fl.StringVar(&opts.UntilCommandID, "until-command-id", "", "wait for this command's completion, print it and exit (0 success, 4 rejected)")
	fl.DurationVar(&opts.MaxWait, "max-wait", 0, "give up after this long (0: no limit)")
	fl.StringVar(&opts.Transport, "transport", completions.TransportAuto, "auto, websocket or list")
	fl.BoolVar(&opts.FullIDs, "full-ids", false, "print update ids in full")
	fl.StringVar(&opts.OutPath, "out", "", "append the completions to this file, kept in step with --checkpoint")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		if len(opts.Parties) == 0 {
			return cmdutil.UsageError("--party is required: completions are read per act-as party")
		}
		if opts.Limit <= 0 || opts.IdleTimeout < 0 || opts.MaxWait < 0 {
			return cmdutil.UsageError("--page-size must be positive, --stream-idle-timeout and --max-wait not negative")
		}
		opts.BeginSet = c.Flags().Changed("from")
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return completionsRun(opts)
	}
	return cmd
}

// checkPartiesKnown refuses parties the node does not know: their
// completions would be an empty list, indistinguishable from "nothing
// happened". Reading parties needs rights a reader may lack; then there is
// no telling, and the tail goes ahead.
func checkPartiesKnown(conn *cmdutil.Connection, parties []string) error {
	ctx, cancel := conn.Context()
	defer cancel()
	ps, err := conn.Client.GetParties(ctx, parties[0], parties[1:]...)
	if err != nil {
		return nil
	}
	if missing := cmdutil.MissingParties(parties, ps); len(missing) > 0 {
		return fmt.Errorf("--party %s: the node knows no such party, so it has no completions for it; check the id (ledger parties list)", strings.Join(missing, ", "))
	}
	return nil
}

// shellNames are what someone after shell completion types after
// "ledger completions".
var shellNames = map[string]bool{"bash": true, "zsh": true, "fish": true, "powershell": true}

func completionsRun(opts *CompletionsOptions) error {
	o := completions.Options{
		Parties: opts.Parties, Limit: opts.Limit, IdleTimeout: opts.IdleTimeout, Follow: opts.Follow,
		Checkpoint: opts.Checkpoint, CommandID: opts.CommandID, SubmissionID: opts.SubmissionID,
		UntilCommandID: opts.UntilCommandID, Transport: opts.Transport, Log: opts.IO.ErrOut,
	}
	switch opts.Begin {
	case "end":
		o.BeginAtEnd = true
	default:
		b, err := strconv.ParseInt(opts.Begin, 10, 64)
		if err != nil || b < 0 {
			return cmdutil.UsageError(`--from %q: give an offset (a non-negative integer) or "end"`, opts.Begin)
		}
		o.Begin = b
	}
	if err := cmdutil.ValidateParties("--party", opts.Parties); err != nil {
		return err
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	o.UserID = conn.UserID
	if o.Parties, err = conn.ResolvePartyHints("--party", opts.Parties, opts.IO.ErrOut); err != nil {
		return err
	}
	if err := checkPartiesKnown(conn, o.Parties); err != nil {
		return err
	}
	if !opts.BeginSet {
		o.Begin = beginAfterPruned(conn, opts.IO, opts.Checkpoint, "completions", "--from")
	}
	ctx := opts.Context
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if opts.MaxWait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.MaxWait)
		defer cancel()
	}
	text := display.TextOptions{Color: opts.IO.ColorEnabled(), FullIDs: opts.FullIDs}
	w := opts.IO.Out
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
	table := &display.Columns{W: w, Header: display.CompletionHeader(), NoHeader: opts.OutPath != "", Batch: tableBatch(opts.Follow, opts.Checkpoint)}
	out := func(c *ledgerapi.Completion) error {
		if opts.Format == cmdutil.FormatTable {
			return table.Add(display.CompletionCells(c, text))
		}
		return writeRecord(w, opts.Format, c)
	}
	res, err := completions.Tail(ctx, conn.Client, o, out)
	if ferr := table.Flush(); err == nil {
		err = ferr // the rows held to size the columns
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) && opts.MaxWait > 0:
		if opts.UntilCommandID != "" {
			last := int64(0)
			if res != nil {
				last = res.Last
			}
			return fmt.Errorf("no completion of command %s within --max-wait %s (last offset read: %d)", opts.UntilCommandID, opts.MaxWait, last)
		}
		return nil
	case errors.Is(err, context.Canceled):
		return nil // stopped by a signal: the checkpoint is up to date
	case err != nil:
		return conn.WithHint(err)
	}
	if res.Until != nil && !res.Until.Succeeded() {
		return cmdutil.CompletionRejection(res.Until)
	}
	return nil
}
