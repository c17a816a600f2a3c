package completions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// The update stream is tailed like completions: from an offset or a
// checkpoint file, up to an end or following the ledger, the checkpoint
// written (with the output's length) after the updates up to it were
// handed to the output function. See the package comment for what survives
// a kill.

// UpdateOptions say which updates to tail and how.
type UpdateOptions struct {
	// Parties read the updates (their events); Templates and Interfaces,
	// when given, keep only events of these templates and of the templates
	// implementing these interfaces, whose views created events then carry.
	Parties    []string
	Templates  []string
	Interfaces []string
	// Blob asks for each created event's createdEventBlob.
	Blob bool
	// Shape is ledgerapi.TransactionShapeACSDelta (default) or
	// TransactionShapeLedgerEffects.
	Shape ledgerapi.TransactionShape
	// Begin is the offset to start after when there is no checkpoint.
	Begin int64
	// End stops after this offset (0: the ledger end when not following).
	End int64
	// Checkpoint is the file holding the last offset handled ("" = none).
	Checkpoint string
	// Follow keeps tailing past the ledger end (End must be 0).
	Follow bool
	// Transport, Limit, IdleTimeout, MinBackoff, MaxBackoff, Log and Sync
	// mean what they mean in Options.
	Transport              string
	Limit                  int
	IdleTimeout            time.Duration
	MinBackoff, MaxBackoff time.Duration
	Log                    io.Writer
	Sync                   func() (int64, error)
}

// stream names the updates these options read, for the checkpoint: the
// parties, the template and interface filters, the shape and the blobs.
func (o UpdateOptions) stream() string {
	shape := o.Shape
	if shape == "" {
		shape = ledgerapi.TransactionShapeACSDelta
	}
	return fmt.Sprintf("updates parties=%s templates=%s interfaces=%s shape=%s blob=%t",
		sortedList(o.Parties), sortedList(o.Templates), sortedList(o.Interfaces), shape, o.Blob)
}

// CheckCheckpoint is Options.CheckCheckpoint for updates.
func (o UpdateOptions) CheckCheckpoint() error {
	if o.Checkpoint == "" {
		return nil
	}
	return checkStream(o.Checkpoint, o.stream())
}

// UpdateOutput receives each update, in offset order.
type UpdateOutput func(*ledgerapi.JsUpdate) error

// TailUpdates reads updates and hands them to out until it has read up to
// the end (not following), ctx ends, or a failure a retry cannot cure.
func TailUpdates(ctx context.Context, c *client.Client, o UpdateOptions, out UpdateOutput) (*Result, error) {
	if len(o.Parties) == 0 {
		return nil, ErrNoParty
	}
	if o.Follow && o.End != 0 {
		return nil, errors.New("an end offset and following exclude each other")
	}
	base := Options{Transport: o.Transport, Limit: o.Limit, MinBackoff: o.MinBackoff, MaxBackoff: o.MaxBackoff}
	if err := base.defaults(); err != nil {
		return nil, err
	}
	o.Transport, o.Limit, o.MinBackoff, o.MaxBackoff = base.Transport, base.Limit, base.MinBackoff, base.MaxBackoff
	if o.Shape == "" {
		o.Shape = ledgerapi.TransactionShapeACSDelta
	}
	t := &updateTail{c: c, o: o, out: out, res: &Result{}}
	begin := o.Begin
	if o.Checkpoint != "" {
		if err := checkStream(o.Checkpoint, o.stream()); err != nil {
			return nil, err
		}
		off, ok, err := ReadCheckpoint(o.Checkpoint)
		if err != nil {
			return nil, err
		}
		if ok {
			begin = off
		} else if o.Sync != nil {
			size, err := o.Sync()
			if err != nil {
				return nil, fmt.Errorf("output: %w", err)
			}
			if err := writeCheckpoint(o.Checkpoint, begin, size, o.stream()); err != nil {
				return nil, err
			}
		}
	}
	t.res.Last = begin
	if !o.Follow {
		end := o.End
		if end == 0 {
			var err error
			if end, err = c.LedgerEnd(ctx); err != nil {
				return nil, err
			}
		}
		t.res.Transport = TransportList
		return t.res, t.listUntil(ctx, end)
	}
	return t.res, t.follow(ctx)
}

// defaults fills in Limit, backoffs and Transport and checks the transport.
func (o *Options) defaults() error {
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	switch o.Transport {
	case "":
		o.Transport = TransportAuto
	case TransportAuto, TransportWebsocket, TransportList:
	default:
		return fmt.Errorf("transport %q: use auto, websocket or list", o.Transport)
	}
	return nil
}

type updateTail struct {
	c   *client.Client
	o   UpdateOptions
	out UpdateOutput
	res *Result
}

// request asks for the updates after the last one handled, up to end (0:
// without end).
func (t *updateTail) request(end int64) ledgerapi.GetUpdatesRequest {
	req := ledgerapi.GetUpdatesRequest{BeginExclusive: ledgerapi.Int64(t.res.Last), UpdateFormat: &ledgerapi.UpdateFormat{
		IncludeTransactions: &ledgerapi.TransactionFormat{TransactionShape: t.o.Shape,
			EventFormat: ledgerapi.EventFormatOf(t.o.Parties, t.o.Templates, t.o.Interfaces, t.o.Blob)}}}
	if end > 0 {
		e := ledgerapi.Int64(end)
		req.EndInclusive = &e
	}
	return req
}

// handle outputs the updates after the last one handled and moves the
// checkpoint to through (at least the last offset output).
func (t *updateTail) handle(us []ledgerapi.JsUpdate, through int64) error {
	last := t.res.Last
	for i := range us {
		off := us[i].Offset()
		if us[i].OffsetCheckpoint != nil {
			last = max(last, off)
			continue
		}
		if off <= last {
			continue // handled already (a reconnect repeats nothing, but be safe)
		}
		if err := t.out(&us[i]); err != nil {
			return err
		}
		t.res.Output++
		last = off
	}
	last = max(last, through)
	if last == t.res.Last {
		return nil
	}
	t.res.Last = last
	if t.o.Checkpoint == "" {
		return nil
	}
	size := int64(-1)
	if t.o.Sync != nil {
		var err error
		if size, err = t.o.Sync(); err != nil {
			return fmt.Errorf("output: %w", err)
		}
	}
	return writeCheckpoint(t.o.Checkpoint, last, size, t.o.stream())
}

// page reads one list page up to end, halving the limit on 413.
func (t *updateTail) page(ctx context.Context, end int64) ([]ledgerapi.JsUpdate, error) {
	for {
		els, err := t.c.Updates(ctx, t.request(end), client.ListOptions{Limit: t.o.Limit, IdleTimeout: t.o.IdleTimeout})
		if client.ErrorID(err) == ledgerapi.CodeJSONAPIMaximumListElementsReached.ID && t.o.Limit > 1 {
			t.o.Limit /= 2
			continue
		}
		us := make([]ledgerapi.JsUpdate, len(els))
		for i := range els {
			us[i] = els[i].Update
		}
		return us, err
	}
}

// listUntil pages through (last, end]: a page shorter than the limit means
// the node has shown everything of the range.
func (t *updateTail) listUntil(ctx context.Context, end int64) error {
	for t.res.Last < end {
		us, err := t.page(ctx, end)
		if err != nil {
			return err
		}
		through := int64(0)
		if len(us) < t.o.Limit {
			through = end
		}
		if err := t.handle(us, through); err != nil {
			return err
		}
	}
	return nil
}

func (t *updateTail) follow(ctx context.Context) error {
	o := Options{Transport: t.o.Transport, MinBackoff: t.o.MinBackoff, MaxBackoff: t.o.MaxBackoff}
	return followLoop(ctx, o, &t.res.Transport, client.ErrNoStream, "updates",
		t.followWebsocket, t.followList, func() int64 { return t.res.Last }, t.logf)
}

func (t *updateTail) followList(ctx context.Context) error {
	for {
		end, err := t.c.LedgerEnd(ctx)
		if err != nil {
			return err
		}
		if end > t.res.Last {
			if err := t.listUntil(ctx, end); err != nil {
				return err
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (t *updateTail) followWebsocket(ctx context.Context) error {
	s, err := t.c.OpenStream(ctx, "/v2/updates", t.request(0))
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		var el ledgerapi.JsGetUpdatesResponse
		if err := s.Next(ctx, &el); err != nil {
			return err
		}
		if err := t.handle([]ledgerapi.JsUpdate{el.Update}, 0); err != nil {
			return err
		}
	}
}

func (t *updateTail) logf(format string, args ...any) {
	if t.o.Log != nil {
		fmt.Fprintf(t.o.Log, format+"\n", args...)
	}
}
