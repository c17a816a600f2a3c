package node

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// CompletionsPerRead is the most completions one CompletionFollower.Next
// returns.
const CompletionsPerRead = 1000

// AcquireStream counts a stream of user (the authenticated user who opens
// it; "" when there is none) against Config.MaxStreams and, for a user,
// against Config.MaxStreamsPerUser, so that one user cannot take every
// slot. Call the returned function when the stream ends. Beyond either
// maximum it is MAXIMUM_NUMBER_OF_STREAMS, after StopStreams
// SERVICE_NOT_RUNNING.
func (n *Node) AcquireStream(user string) (release func(), err error) {
	n.streamMu.Lock()
	defer n.streamMu.Unlock()
	select {
	case <-n.stop:
		return nil, ledgerapi.Errorf(ledgerapi.CodeServiceNotRunning, "The node is shutting down.")
	default:
	}
	if n.streams >= n.cfg.MaxStreams {
		return nil, ledgerapi.Errorf(ledgerapi.CodeMaximumNumberOfStreams,
			"The number of streams has reached the maximum of %d; retry later", n.cfg.MaxStreams)
	}
	if user != "" && n.userStreams[user] >= n.cfg.MaxStreamsPerUser {
		return nil, ledgerapi.Errorf(ledgerapi.CodeMaximumNumberOfStreams,
			"User %s has %d streams open, the most one user may have; close one or retry later", user, n.cfg.MaxStreamsPerUser)
	}
	n.streams++
	if user != "" {
		n.userStreams[user]++
	}
	n.wg.Add(1)
	return func() {
		n.streamMu.Lock()
		n.streams--
		if user != "" {
			if n.userStreams[user]--; n.userStreams[user] == 0 {
				delete(n.userStreams, user)
			}
		}
		n.streamMu.Unlock()
		n.wg.Done()
	}, nil
}

// Stopping is closed when StopStreams is called: open streams end.
func (n *Node) Stopping() <-chan struct{} { return n.stop }

// StopStreams tells the open completion streams to end and waits until they
// have released themselves; later streams are refused. Close calls it;
// an HTTP server calls it earlier, as its shutdown does not wait for
// websockets.
func (n *Node) StopStreams() {
	n.stopOnce.Do(func() { close(n.stop) })
	n.wg.Wait()
}

// FollowCompletions starts reading the completions of userID whose
// submissions acted as one of parties, after offset begin. The caller has
// checked the form of userID and parties and its read rights on them; a
// negative begin is NEGATIVE_OFFSET, one after the ledger end
// OFFSET_AFTER_LEDGER_END.
func (n *Node) FollowCompletions(userID string, parties []string, begin int64) (*CompletionFollower, error) {
	if begin < 0 {
		return nil, ledgerapi.NewError(ledgerapi.CodeNegativeOffset,
			fmt.Sprintf("Offset %d in begin_exclusive is a negative integer: the offset has to be either a positive integer or zero and not %d", begin, begin),
			map[string]string{"field_name": "begin_exclusive", "offset_value": strconv.FormatInt(begin, 10)})
	}
	if end := n.store.LedgerEnd(); begin > end {
		return nil, ledgerapi.NewError(ledgerapi.CodeOffsetAfterLedgerEnd,
			fmt.Sprintf("Begin offset (%d) is after ledger end (%d)", begin, end),
			map[string]string{"offset_value": strconv.FormatInt(begin, 10), "ledger_end": strconv.FormatInt(end, 10)})
	}
	if p := n.store.PrunedUpTo(); begin < p {
		return nil, prunedError(fmt.Sprintf("Command completions request from %d to %d overlaps with pruned offset %d",
			begin+1, n.store.LedgerEnd(), p), p)
	}
	f := &CompletionFollower{n: n, cursor: begin, parties: map[string]bool{},
		query: ledger.CompletionQuery{UserID: userID, Parties: parties}}
	for _, p := range parties {
		f.parties[p] = true
	}
	return f, nil
}

// CompletionFollower reads the completions of one stream in offset order,
// waiting for new ones when it has read everything committed. Next may run
// in another goroutine than Completion, but each of them in one goroutine
// at a time.
type CompletionFollower struct {
	n       *Node
	query   ledger.CompletionQuery
	parties map[string]bool
	cursor  int64
	scratch completionScratch
}

// Next returns the next completions (at most max, at most
// CompletionsPerRead), or none when there are none yet; changed is closed
// when there may be more.
func (f *CompletionFollower) Next(ctx context.Context, max int) (cs []ledger.Completion, changed <-chan struct{}, err error) {
	st := f.n.store
	changed = st.Changed()
	end := st.LedgerEnd()
	if end <= f.cursor {
		return nil, changed, nil
	}
	q := f.query
	q.After, q.Limit = f.cursor, min(max, CompletionsPerRead)
	cs, err = st.Completions(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	last := f.cursor
	if len(cs) > 0 {
		last = cs[len(cs)-1].Offset
	}
	if len(cs) < q.Limit {
		// everything up to at least end has been scanned
		last = max64(last, end)
	}
	f.cursor = last
	return cs, changed, nil
}

// Cursor is the offset up to which the follower has read.
func (f *CompletionFollower) Cursor() int64 { return f.cursor }

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// completionScratch holds one converted completion and what its pointers
// point at, so that a stream converts completion after completion without
// allocating.
type completionScratch struct {
	c        ledgerapi.Completion
	status   ledgerapi.JsStatus
	duration ledgerapi.Duration
	offset   int64
	trace    ledgerapi.TraceContext
	parent   string
}

// Completion is c as the stream shows it: act-as parties only those of the
// stream, the node's synchronizer. The result is valid until the next call.
func (f *CompletionFollower) Completion(c *ledger.Completion) *ledgerapi.Completion {
	sc := &f.scratch
	actAs := sc.c.ActAs[:0]
	if actAs == nil {
		actAs = make(ledgerapi.List[string], 0, len(c.ActAs))
	}
	for _, p := range c.ActAs {
		if f.parties[p] || len(f.parties) == 0 { // no parties: every party (command-completions)
			actAs = append(actAs, p)
		}
	}
	sc.status = ledgerapi.JsStatus{Details: ledgerapi.List[ledgerapi.ProtoAny]{}}
	if c.Status.Code != 0 {
		sc.status = ledgerapi.JsStatus{Code: ledgerapi.Int32(c.Status.Code), Message: c.Status.Message, Details: ledgerapi.List[ledgerapi.ProtoAny]{}}
		if len(c.Status.Details) > 0 {
			_ = json.Unmarshal(c.Status.Details, &sc.status.Details) // written by commitRejection
		}
	}
	var dedup ledgerapi.DeduplicationPeriod
	switch c.Dedup.Kind {
	case ledger.DedupOffset:
		sc.offset = c.Dedup.Offset
		dedup.Offset = &sc.offset
	default:
		sc.duration = ledgerapi.DurationOf(c.Dedup.Duration)
		dedup.Duration = &sc.duration
	}
	var trace *ledgerapi.TraceContext
	if c.TraceParent != "" {
		sc.parent = c.TraceParent
		sc.trace = ledgerapi.TraceContext{Traceparent: &sc.parent}
		trace = &sc.trace
	}
	sc.c = ledgerapi.Completion{
		CommandID:           c.CommandID,
		Status:              &sc.status,
		UpdateID:            c.UpdateID,
		UserID:              c.UserID,
		ActAs:               actAs,
		SubmissionID:        c.SubmissionID,
		DeduplicationPeriod: dedup,
		TraceContext:        trace,
		Offset:              ledgerapi.Int64(c.Offset),
		SynchronizerTime: ledgerapi.SynchronizerTime{
			SynchronizerID: f.n.identity.SynchronizerID,
			RecordTime:     ledgerapi.NewTimestamp(c.RecordTime),
		},
		PaidTrafficCost: ledgerapi.Int64(c.PaidTrafficCost),
	}
	return &sc.c
}
