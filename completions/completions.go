// Package completions tails a node's command completions: from an offset or
// a checkpoint file, once up to the ledger end or following new ones, over
// the websocket when the node offers it and the list endpoint otherwise.
//
// # Resuming
//
// Every element of the completion stream has an offset, and a request for
// the elements after offset n (beginExclusive) gives exactly those: so the
// offset of the last element handled is all a restart needs. With a
// checkpoint file, Tail writes that offset to the file after the elements up
// to it were handed to the output function, and reads it back on start. The
// write is atomic (a temporary file, fsync, rename), so the file always holds
// one offset that was fully output. A process killed between handing an
// element to the output and renaming the checkpoint outputs that element
// again after a restart; killed anywhere else it outputs nothing twice and
// misses nothing.
//
// Offset checkpoints of the stream (elements that only say "seen everything
// up to n") advance the offset too, as do completions the filters drop.
package completions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/internal/atomicfile"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Transports.
const (
	TransportAuto      = "auto"
	TransportWebsocket = "websocket"
	TransportList      = "list"
)

// Defaults of Options fields left at zero.
const (
	DefaultLimit      = 200 // Canton's default maximum of the list endpoint
	DefaultMinBackoff = 250 * time.Millisecond
	DefaultMaxBackoff = 10 * time.Second
)

// Options say what to tail and how.
type Options struct {
	// UserID selects completions of commands this user submitted ("" = the
	// token's user).
	UserID string
	// Parties selects completions with one of these act-as parties.
	Parties []string
	// Begin is the offset to start after when there is no checkpoint
	// (0 = the ledger's beginning).
	Begin int64
	// BeginAtEnd starts after the ledger end (only new completions);
	// a checkpoint still wins.
	BeginAtEnd bool
	// Checkpoint is the file holding the last offset handled ("" = none).
	Checkpoint string
	// Follow keeps tailing after the ledger end; without it Tail returns
	// once it has read up to the ledger end it saw when it started.
	Follow bool
	// CommandID and SubmissionID keep only matching completions.
	CommandID, SubmissionID string
	// UntilCommandID makes Tail return after the completion of this command
	// (implies following).
	UntilCommandID string
	// Transport is auto (websocket when following and offered, else the
	// list), websocket or list.
	Transport string
	// Limit caps the elements of one list request (DefaultLimit); a node
	// answering 413 makes Tail halve it.
	Limit int
	// IdleTimeout is the list endpoint's stream_idle_timeout_ms
	// (0: the node's default).
	IdleTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait before reconnecting after
	// a retryable failure while following.
	MinBackoff, MaxBackoff time.Duration
	// Log receives one line per reconnect (nil: discarded).
	Log io.Writer
	// Sync, when set, is called before each checkpoint is written: it makes
	// what the output function wrote durable and returns the output's length,
	// which the checkpoint records (see OutputFile).
	Sync func() (int64, error)
}

// Result says how tailing ended.
type Result struct {
	// Last is the offset of the last element handled (where a restart
	// resumes).
	Last int64
	// Until is the completion of UntilCommandID, when it arrived.
	Until *ledgerapi.Completion
	// Transport is the transport last used.
	Transport string
	// Output counts the completions handed to the output function.
	Output int
}

// ErrNoParty is Tail's error for Options without a party.
var ErrNoParty = errors.New("no party: completions are read per act-as party")

// Output receives each completion that passes the filters, in offset order.
type Output func(*ledgerapi.Completion) error

// Tail reads completions and hands them to out until it is caught up (not
// following), the until-command arrives, ctx ends, or a failure that a
// retry cannot cure. The error of a cancelled ctx is ctx.Err().
func Tail(ctx context.Context, c *client.Client, o Options, out Output) (*Result, error) {
	if len(o.Parties) == 0 {
		return nil, ErrNoParty
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	t := &tail{c: c, o: o, out: out, res: &Result{}}
	follow := o.Follow || o.UntilCommandID != ""

	begin := o.Begin
	haveCheckpoint := false
	if o.Checkpoint != "" {
		if err := checkStream(o.Checkpoint, o.stream()); err != nil {
			return nil, err
		}
		off, ok, err := ReadCheckpoint(o.Checkpoint)
		if err != nil {
			return nil, err
		}
		if ok {
			begin, haveCheckpoint = off, true
		}
	}
	var end int64
	if !follow || (o.BeginAtEnd && !haveCheckpoint) {
		var err error
		if end, err = c.LedgerEnd(ctx); err != nil {
			return nil, err
		}
		if o.BeginAtEnd && !haveCheckpoint {
			begin = end
		}
	}
	t.res.Last = begin
	if o.Checkpoint != "" && !haveCheckpoint && o.Sync != nil {
		// Anchor the output's length before anything is written, so that a
		// run killed after its first batch reached the output but before its
		// first checkpoint can be cut back too.
		size, err := o.Sync()
		if err != nil {
			return nil, fmt.Errorf("output: %w", err)
		}
		if err := writeCheckpoint(o.Checkpoint, begin, size, o.stream()); err != nil {
			return nil, err
		}
	}
	if !follow {
		t.res.Transport = TransportList
		return t.res, t.listUntil(ctx, end)
	}
	return t.res, t.follow(ctx)
}

// stream names the completions these options read, for the checkpoint:
// the user, the parties and the filters.
func (o Options) stream() string {
	return fmt.Sprintf("completions user=%s parties=%s command-id=%s submission-id=%s",
		o.UserID, sortedList(o.Parties), o.CommandID, o.SubmissionID)
}

// CheckCheckpoint refuses a checkpoint file of another stream; Tail checks
// it too, but a caller that opens an output file by the checkpoint
// (OpenOutputFile) checks first, before the file is cut back.
func (o Options) CheckCheckpoint() error {
	if o.Checkpoint == "" {
		return nil
	}
	return checkStream(o.Checkpoint, o.stream())
}

// sortedList writes a set of names in one order, comma-separated.
func sortedList(names []string) string {
	s := append([]string(nil), names...)
	sort.Strings(s)
	return strings.Join(s, ",")
}

type tail struct {
	c   *client.Client
	o   Options
	out Output
	res *Result
}

var errDone = errors.New("done")

func (t *tail) request() ledgerapi.CompletionStreamRequest {
	return ledgerapi.CompletionStreamRequest{UserID: t.o.UserID, Parties: t.o.Parties, BeginExclusive: ledgerapi.Int64(t.res.Last)}
}

// handle outputs the elements that pass the filters and advances the offset
// past all of them, then writes the checkpoint. It returns errDone when the
// until-command's completion was among them (elements after it are left
// for the next run).
func (t *tail) handle(els []ledgerapi.CompletionStreamResponse) error {
	last := t.res.Last
	var done bool
	for _, el := range els {
		off := el.Offset()
		c := el.Completion
		if c == nil { // an offset checkpoint (or the Empty arm)
			if el.OffsetCheckpoint != nil && off > last {
				last = off
			}
			continue
		}
		if off < last {
			return fmt.Errorf("the node sent a completion at offset %d after offset %d: completions must arrive in offset order", off, last)
		}
		if off == last && last > 0 {
			continue // handled already
		}
		if t.keep(c) {
			if err := t.out(c); err != nil {
				return err
			}
			t.res.Output++
			if t.o.UntilCommandID != "" && c.CommandID == t.o.UntilCommandID {
				t.res.Until = c
				done = true
			}
		}
		last = off
		if done {
			break
		}
	}
	if last != t.res.Last {
		t.res.Last = last
		if t.o.Checkpoint != "" {
			size := int64(-1)
			if t.o.Sync != nil {
				var err error
				if size, err = t.o.Sync(); err != nil {
					return fmt.Errorf("output: %w", err)
				}
			}
			if err := writeCheckpoint(t.o.Checkpoint, last, size, t.o.stream()); err != nil {
				return err
			}
		}
	}
	if done {
		return errDone
	}
	return nil
}

func (t *tail) keep(c *ledgerapi.Completion) bool {
	if t.o.CommandID != "" && c.CommandID != t.o.CommandID {
		return false
	}
	if t.o.SubmissionID != "" && c.SubmissionID != t.o.SubmissionID {
		return false
	}
	if t.o.UntilCommandID != "" && t.o.SubmissionID == "" && t.o.CommandID == "" && c.CommandID != t.o.UntilCommandID {
		return false
	}
	return true
}

// listPage reads one page, halving the limit on 413.
func (t *tail) listPage(ctx context.Context) ([]ledgerapi.CompletionStreamResponse, error) {
	for {
		els, err := t.c.Completions(ctx, t.request(), client.CompletionsOptions{Limit: t.o.Limit, IdleTimeout: t.o.IdleTimeout})
		if client.ErrorID(err) == ledgerapi.CodeJSONAPIMaximumListElementsReached.ID && t.o.Limit > 1 {
			t.o.Limit /= 2
			continue
		}
		return els, err
	}
}

// listUntil pages through the list endpoint up to end.
func (t *tail) listUntil(ctx context.Context, end int64) error {
	for t.res.Last < end {
		els, err := t.listPage(ctx)
		if err != nil {
			return err
		}
		if err := t.handle(els); err != nil {
			if errors.Is(err, errDone) {
				return nil
			}
			return err
		}
		if len(els) == 0 {
			return nil // nothing more for these parties, although the ledger end is further
		}
	}
	return nil
}

// follow tails forever (until ctx ends or the until-command arrives),
// reconnecting with backoff after retryable failures.
func (t *tail) follow(ctx context.Context) error {
	return followLoop(ctx, t.o, &t.res.Transport, client.ErrNoWebsocket, "completions",
		t.followWebsocket, t.followList, func() int64 { return t.res.Last }, t.logf)
}

// followLoop runs ws (or list, when the transport says so or the node
// offers no websocket: noWS) until ctx ends, done arrives or a failure a
// retry cannot cure, reconnecting with backoff after retryable ones; used
// records the transport in use, last the offset a reconnect resumes after.
func followLoop(ctx context.Context, o Options, used *string, noWS error, what string,
	ws, list func(context.Context) error, last func() int64, logf func(string, ...any)) error {
	useWS := o.Transport != TransportList
	failures := 0
	for {
		var err error
		if useWS {
			*used = TransportWebsocket
			err = ws(ctx)
			if errors.Is(err, noWS) && o.Transport == TransportAuto {
				logf("the node offers no %s websocket; polling the list endpoint", what)
				useWS = false
				continue
			}
		} else {
			*used = TransportList
			err = list(ctx)
		}
		if errors.Is(err, errDone) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !retryable(err) {
			return err
		}
		failures++
		d := client.Backoff{Base: o.MinBackoff, Max: o.MaxBackoff}.Delay(failures, err)
		logf("reconnecting after offset %d in %s: %v", last(), d.Round(time.Millisecond), err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
		}
	}
}

// retryable errors end one connection but not the tail.
func retryable(err error) bool {
	var te *client.TransportError
	return errors.As(err, &te) || client.IsRetryable(err) || errors.Is(err, io.EOF)
}

func (t *tail) followList(ctx context.Context) error {
	for {
		start := time.Now()
		els, err := t.listPage(ctx)
		if err != nil {
			return err
		}
		if err := t.handle(els); err != nil {
			return err
		}
		// A node that answers an empty page at once (no idle wait) is not
		// asked again at once.
		if len(els) == 0 && time.Since(start) < 100*time.Millisecond {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
}

func (t *tail) followWebsocket(ctx context.Context) error {
	s, err := t.c.StreamCompletions(ctx, t.request())
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		el, err := s.Next(ctx)
		if err != nil {
			return err
		}
		if err := t.handle([]ledgerapi.CompletionStreamResponse{el}); err != nil {
			return err
		}
	}
}

func (t *tail) logf(format string, args ...any) {
	if t.o.Log != nil {
		fmt.Fprintf(t.o.Log, format+"\n", args...)
	}
}

// ReadCheckpoint reads the offset in a checkpoint file; ok is false when the
// file does not exist yet.
func ReadCheckpoint(path string) (offset int64, ok bool, err error) {
	offset, _, ok, err = readCheckpoint(path)
	return offset, ok, err
}

// readCheckpoint reads "offset" or "offset output-length"; the length is -1
// when the file has none.
func readCheckpoint(path string) (offset, size int64, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, -1, false, nil
	}
	if err != nil {
		return 0, -1, false, fmt.Errorf("checkpoint: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(first)
	bad := func() (int64, int64, bool, error) {
		return 0, -1, false, fmt.Errorf("checkpoint %s: %q is not an offset (a non-negative integer, optionally followed by the output length); fix or remove the file", path, strings.TrimSpace(string(b)))
	}
	if len(fields) == 0 || len(fields) > 2 {
		return bad()
	}
	if offset, err = strconv.ParseInt(fields[0], 10, 64); err != nil || offset < 0 {
		return bad()
	}
	size = -1
	if len(fields) == 2 {
		if size, err = strconv.ParseInt(fields[1], 10, 64); err != nil || size < 0 {
			return bad()
		}
	}
	return offset, size, true, nil
}

// streamPrefix starts the checkpoint line that names the stream whose
// offset the file holds.
const streamPrefix = "stream "

// checkStream refuses a checkpoint written by another stream: its offset
// would make this one skip what it never read, and the output file behind
// it holds another stream's elements. A checkpoint without a stream line
// (written before they had one) is taken as this stream's.
func checkStream(path, want string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if got, ok := strings.CutPrefix(line, streamPrefix); ok && got != want {
			return fmt.Errorf("checkpoint %s belongs to another stream (%s), not to this one (%s): give each stream its own --checkpoint file", path, got, want)
		}
	}
	return nil
}

// WriteCheckpoint replaces the checkpoint file atomically: the new offset is
// written to a temporary file beside it, synced, and renamed over it.
func WriteCheckpoint(path string, offset int64) error {
	return writeCheckpoint(path, offset, -1, "")
}

// writeCheckpoint writes the offset and, when size is not negative, the
// length of the output file, and on a second line the stream ("" = none).
func writeCheckpoint(path string, offset, size int64, stream string) error {
	line := strconv.FormatInt(offset, 10)
	if size >= 0 {
		line += " " + strconv.FormatInt(size, 10)
	}
	if stream != "" {
		line += "\n" + streamPrefix + stream
	}
	if err := atomicfile.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
