package server

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Offset checkpoints. Canton's completion streams, and its update streams
// that follow the ledger (no endInclusive), interleave OffsetCheckpoint
// elements: "everything up to this offset has been delivered, and this
// synchronizer's record time has reached this" — so that a client whose
// parties see nothing for a while still learns how far it may resume from,
// and that a command whose max record time lies below the checkpoint's
// record time is lost (IndexServiceImpl.checkpointFlow / injectCheckpoints,
// Canton 3.5). Canton takes its checkpoint from a cache refreshed every
// 15 s and sends it when a stream has caught up and been idle (the first
// time 500 ms after the start, then after each minute without elements),
// and advertises a maximum emission delay of 75 s in the version service.
//
// The node has no cache to wait for: a stream that has read up to the
// ledger end and sent nothing for CheckpointDelay sends the ledger end as a
// checkpoint, with the record time of its entry, once per offset. As in
// Canton, a stream started at the ledger end gets a checkpoint at its begin
// offset, and never one below it.

// DefaultCheckpointDelay is how long a caught-up stream is idle before it
// sends a checkpoint: longer than Canton's list wait (500 ms), so that a
// list read with the default idle timeout holds only updates, as a Canton
// list usually does; far below the advertised 75 s.
const DefaultCheckpointDelay = time.Second

// checkpointStream adds offset checkpoints to a stream that follows the
// ledger.
type checkpointStream struct {
	stream
	cursor func() int64 // the offset the stream has read up to
	head   func() ledger.Committed
	sync   string
	begin  int64
	delay  time.Duration
	encode func(*ledgerapi.OffsetCheckpoint) ([]byte, error)
	now    func() time.Time

	sent      int64 // offset of the last checkpoint sent (-1: none)
	idleSince time.Time
}

func (s *Server) withCheckpoints(st stream, begin int64, cursor func() int64, encode func(*ledgerapi.OffsetCheckpoint) ([]byte, error)) stream {
	return &checkpointStream{stream: st, cursor: cursor, head: s.Node.Head, sync: s.Node.Identity().SynchronizerID,
		begin: begin, delay: s.CheckpointDelay, encode: encode, now: time.Now, sent: -1, idleSince: time.Now()}
}

func (c *checkpointStream) next(ctx context.Context, max int, add func([]byte) error) (int, <-chan struct{}, bool, error) {
	n, changed, done, err := c.stream.next(ctx, max, add)
	if err != nil || done || n > 0 || max <= 0 {
		if n > 0 {
			c.idleSince = c.now()
		}
		return n, changed, done, err
	}
	h := c.head()
	if h.Offset <= 0 || h.Offset < c.begin || h.Offset <= c.sent || c.cursor() < h.Offset {
		return 0, changed, false, nil
	}
	if wait := c.delay - c.now().Sub(c.idleSince); wait > 0 {
		return 0, wakeAfter(ctx, changed, wait), false, nil
	}
	elem, err := c.encode(&ledgerapi.OffsetCheckpoint{Offset: ledgerapi.Int64(h.Offset),
		SynchronizerTimes: ledgerapi.List[ledgerapi.SynchronizerTime]{{SynchronizerID: c.sync, RecordTime: ledgerapi.NewTimestamp(h.RecordTime)}}})
	if err != nil {
		return 0, nil, false, err
	}
	if err := add(elem); err != nil {
		return 0, nil, false, err
	}
	c.sent, c.idleSince = h.Offset, c.now()
	return 1, changed, false, nil
}

// wakeAfter is a channel closed when changed is, or after d.
func wakeAfter(ctx context.Context, changed <-chan struct{}, d time.Duration) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
		}
		close(ch)
	}()
	return ch
}

func updateCheckpoint(cp *ledgerapi.OffsetCheckpoint) ([]byte, error) {
	return json.Marshal(ledgerapi.JsGetUpdatesResponse{Update: ledgerapi.JsUpdate{OffsetCheckpoint: cp}})
}

func completionCheckpoint(cp *ledgerapi.OffsetCheckpoint) ([]byte, error) {
	return json.Marshal(ledgerapi.CompletionStreamResponse{OffsetCheckpoint: cp})
}
