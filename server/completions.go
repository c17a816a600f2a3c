package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/server/auth"
)

// Websocket subprotocols of the JSON API: the token travels as
// "jwt.token.<JWT>" beside "daml.ws.auth", which the node answers with.
const subprotocolAuth = "daml.ws.auth"

// completionsBatch is how many completions one store read fetches.
const completionsBatch = 1000

// completionFilter is a validated completion stream request.
type completionFilter struct {
	query   ledger.CompletionQuery
	parties map[string]bool
}

// completionFilter validates a CompletionStreamRequest for caller: the user
// (the token's when empty), at least one party, read rights on each, and
// a begin offset within [0, ledger end].
func (s *Server) completionFilter(c *Caller, body ledgerapi.CompletionStreamRequest) (completionFilter, error) {
	userID, err := c.UserIDFor(body.UserID)
	if err != nil {
		return completionFilter{}, err
	}
	if err := ledgerapi.ValidateUserID("user_id", userID); err != nil {
		return completionFilter{}, ledgerapi.InvalidField("user_id", fieldReason(err))
	}
	if len(body.Parties) == 0 {
		return completionFilter{}, ledgerapi.MissingField("parties")
	}
	if err := checkPartyCount("parties", len(body.Parties)); err != nil {
		return completionFilter{}, err
	}
	f := completionFilter{parties: map[string]bool{}}
	for _, p := range body.Parties {
		if err := ledgerapi.ValidatePartyID("parties", p); err != nil {
			return completionFilter{}, ledgerapi.InvalidArgument("%s", fieldReason(err))
		}
		if !c.CanReadAs(p) {
			return completionFilter{}, permissionDenied("user %q may not read as party %q", c.UserID, p)
		}
		if !f.parties[p] {
			f.parties[p] = true
			f.query.Parties = append(f.query.Parties, p)
		}
	}
	begin := int64(body.BeginExclusive)
	if begin < 0 {
		return completionFilter{}, ledgerapi.NewError(ledgerapi.CodeNegativeOffset,
			fmt.Sprintf("Offset %d in begin_exclusive is a negative integer: the offset has to be either a positive integer or zero and not %d", begin, begin),
			map[string]string{"field_name": "begin_exclusive", "offset_value": strconv.FormatInt(begin, 10)})
	}
	if end := s.Store.LedgerEnd(); begin > end {
		return completionFilter{}, ledgerapi.NewError(ledgerapi.CodeOffsetAfterLedgerEnd,
			fmt.Sprintf("Begin offset (%d) is after ledger end (%d)", begin, end),
			map[string]string{"offset_value": strconv.FormatInt(begin, 10), "ledger_end": strconv.FormatInt(end, 10)})
	}
	f.query.After, f.query.UserID = begin, userID
	return f, nil
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

// fillCompletion converts c into sc and returns it; the result is valid
// until the next call with sc.
func (s *Server) fillCompletion(sc *completionScratch, c *ledger.Completion, parties map[string]bool) *ledgerapi.Completion {
	actAs := sc.c.ActAs[:0]
	if actAs == nil {
		actAs = make(ledgerapi.List[string], 0, len(c.ActAs))
	}
	for _, p := range c.ActAs {
		if parties[p] {
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
			SynchronizerID: s.Identity.SynchronizerID,
			RecordTime:     ledgerapi.NewTimestamp(c.RecordTime),
		},
		PaidTrafficCost: ledgerapi.Int64(c.PaidTrafficCost),
	}
	return &sc.c
}

// acquireStream counts a completion stream against Commands.MaxStreams;
// call the returned function when the stream ends.
func (s *Server) acquireStream() (func(), error) {
	s.cmds.streamMu.Lock()
	defer s.cmds.streamMu.Unlock()
	select {
	case <-s.cmds.stop:
		return nil, ledgerapi.Errorf(ledgerapi.CodeServiceNotRunning, "The node is shutting down.")
	default:
	}
	if s.cmds.streams >= s.Commands.MaxStreams {
		return nil, ledgerapi.Errorf(ledgerapi.CodeMaximumNumberOfStreams,
			"The number of streams has reached the maximum of %d; retry later", s.Commands.MaxStreams)
	}
	s.cmds.streams++
	s.cmds.wg.Add(1)
	return func() {
		s.cmds.streamMu.Lock()
		s.cmds.streams--
		s.cmds.streamMu.Unlock()
		s.cmds.wg.Done()
	}, nil
}

// follower reads the completions a filter selects in offset order, waiting
// for new ones when it has read everything durable.
type follower struct {
	s      *Server
	f      completionFilter
	cursor int64
}

// next returns the next completions (at most max), or none when there are
// none yet; changed is closed when there may be more.
func (fw *follower) next(ctx context.Context, max int) (cs []ledger.Completion, changed <-chan struct{}, err error) {
	changed = fw.s.Store.Changed()
	end := fw.s.Store.LedgerEnd()
	if end <= fw.cursor {
		return nil, changed, nil
	}
	q := fw.f.query
	q.After, q.Limit = fw.cursor, min(max, completionsBatch)
	cs, err = fw.s.Store.Completions(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	last := fw.cursor
	if len(cs) > 0 {
		last = cs[len(cs)-1].Offset
	}
	if len(cs) < q.Limit {
		// everything up to at least end has been scanned
		last = max64(last, end)
	}
	fw.cursor = last
	return cs, changed, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// listCompletions answers POST /v2/commands/completions as Canton's JSON
// layer does: it collects the stream into a list of at most limit elements
// (Commands.CompletionsMax + 1 when absent or larger), stopping when no
// element arrives within stream_idle_timeout_ms (Commands.CompletionsWait
// when absent), also before the first; more than CompletionsMax elements is
// 413.
func (s *Server) listCompletions(req *Request) (any, error) {
	if _, err := s.engine(); err != nil {
		return nil, err
	}
	maxElems := s.Commands.CompletionsMax
	take := maxElems + 1
	if limit, ok, err := queryInt64(req.Request, "limit"); err != nil {
		return nil, err
	} else if ok && limit < int64(take) {
		take = int(max64(limit, 0))
	}
	idle := s.Commands.CompletionsWait
	if ms, ok, err := queryInt64(req.Request, "stream_idle_timeout_ms"); err != nil {
		return nil, err
	} else if ok {
		if ms < 0 {
			return nil, &DecodeError{What: "query parameter stream_idle_timeout_ms", Detail: "must not be negative"}
		}
		idle = time.Duration(min(ms, int64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond
	}
	var body ledgerapi.CompletionStreamRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	f, err := s.completionFilter(req.Caller, body)
	if err != nil {
		return nil, err
	}
	release, err := s.acquireStream()
	if err != nil {
		return nil, err
	}
	defer release()

	// The elements are encoded as they arrive; the body is written at the end
	// (an error may still replace it).
	buf := pageBuffers.Get().(*[]byte)
	defer pageBuffers.Put(buf)
	out := append((*buf)[:0], '[')
	count := 0
	var scratch completionScratch
	fw := &follower{s: s, f: f, cursor: f.query.After}
	timer := time.NewTimer(idle)
	defer timer.Stop()
	ctx := req.Context()
	// A full batch means more are likely: the next one is read while this
	// one is encoded (reading and encoding take about 4 and 1 µs a
	// completion, on different cores when the machine has them).
	var ahead chan batchRead
	defer func() {
		if ahead != nil {
			<-ahead // the reader goroutine ends before fw does
		}
	}()
collect:
	for count < take {
		var cs []ledger.Completion
		var changed <-chan struct{}
		var err error
		if ahead != nil {
			r := <-ahead
			ahead, cs, changed, err = nil, r.cs, r.changed, r.err
		} else {
			cs, changed, err = fw.next(ctx, take-count)
		}
		if err != nil {
			return nil, err
		}
		if len(cs) > 0 {
			if rest := take - count - len(cs); rest > 0 && len(cs) == completionsBatch {
				ch := make(chan batchRead, 1)
				ahead = ch
				go func() {
					cs, changed, err := fw.next(ctx, rest)
					ch <- batchRead{cs, changed, err}
				}()
			}
			for i := range cs {
				if count > 0 {
					out = append(out, ',')
				}
				if out, err = ledgerapi.AppendCompletionResponse(out, s.fillCompletion(&scratch, &cs[i], f.parties)); err != nil {
					return nil, err
				}
				count++
			}
			timer.Reset(idle)
			continue
		}
		select {
		case <-changed:
		case <-timer.C:
			break collect
		case <-s.cmds.stop:
			break collect
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if count > maxElems {
		return nil, ledgerapi.Errorf(ledgerapi.CodeJSONAPIMaximumListElementsReached,
			"Exceeded maximum number of elements in the list (%d); pass a limit of at most %d or use the websocket stream", maxElems, maxElems)
	}
	out = append(out, ']')
	req.W.Header().Set("Content-Type", "application/json")
	req.W.Header().Set("Content-Length", strconv.Itoa(len(out))) // lets a reader size its buffer
	req.W.WriteHeader(http.StatusOK)
	_, _ = req.W.Write(out)
	if cap(out) <= maxPooledPage {
		*buf = out
	}
	return nil, nil
}

// pageBuffers keeps the buffers completion lists are built in: a page of
// 10,000 is 6 MB, and fresh memory costs a page fault every 4 KiB.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledPage is the largest buffer pageBuffers keeps.
const maxPooledPage = 16 << 20

// batchRead is what follower.next returned.
type batchRead struct {
	cs      []ledger.Completion
	changed <-chan struct{}
	err     error
}

// queryInt64 reads an optional integer query parameter; a non-integer is
// Canton's 400 text/plain decoding failure.
func queryInt64(r *http.Request, name string) (int64, bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false, &DecodeError{What: "query parameter " + name}
	}
	return n, true, nil
}

// streamCompletions answers the websocket GET /v2/commands/completions.
// The token comes in the subprotocol jwt.token.<JWT> (or the Authorization
// header); the first text frame is the CompletionStreamRequest; the node
// then pushes every matching completion, existing and new, as a
// CompletionStreamResponse frame, with no idle cutoff. An error is one
// JsCantonError frame, after which the stream closes; so is the expiry of
// the token (ACCESS_TOKEN_EXPIRED).
func (s *Server) streamCompletions(req *Request) (any, error) {
	r := req.Request
	if r.Header.Get("Authorization") == "" {
		if tok := auth.SubprotocolToken(subprotocols(r)); tok != "" {
			r.Header.Set("Authorization", "Bearer "+tok)
		}
	}
	caller, err := s.authenticate(r)
	if err != nil {
		return nil, err
	}
	req.Caller = caller
	if _, err := s.engine(); err != nil {
		return nil, err
	}
	release, err := s.acquireStream()
	if err != nil {
		return nil, err
	}
	defer release()
	conn, err := websocket.Accept(req.W, r, &websocket.AcceptOptions{Subprotocols: []string{subprotocolAuth}})
	if err != nil {
		s.Log.Info("websocket upgrade failed", "path", r.URL.Path, "correlationId", req.CorrelationID, "error", err)
		return nil, nil // Accept has answered
	}
	defer conn.CloseNow()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()

	_, frame, err := conn.Read(ctx)
	if err != nil {
		return nil, nil // the client went away
	}
	// Only the first frame counts; later ones are read and dropped so that
	// a closing client is noticed.
	go func() {
		defer cancel()
		for {
			if _, _, err := conn.Read(ctx); err != nil {
				return
			}
		}
	}()
	var body ledgerapi.CompletionStreamRequest
	if err := ledgerapi.DecodeBody(bytes.TrimSpace(frame), &body); err != nil {
		s.closeWithError(conn, req, ledgerapi.InvalidArgument("the first frame is not a CompletionStreamRequest: %s", err.Error()))
		return nil, nil
	}
	f, err := s.completionFilter(caller, body)
	if err != nil {
		s.closeWithError(conn, req, err)
		return nil, nil
	}
	var expired <-chan time.Time
	if exp := caller.Claims.ExpiresAt; exp != nil {
		t := time.NewTimer(time.Until(*exp))
		defer t.Stop()
		expired = t.C
	}
	fw := &follower{s: s, f: f, cursor: f.query.After}
	var scratch completionScratch
	for {
		cs, changed, err := fw.next(ctx, completionsBatch)
		if err != nil {
			if ctx.Err() == nil {
				s.closeWithError(conn, req, err)
			}
			return nil, nil
		}
		for i := range cs {
			if frame, err = ledgerapi.AppendCompletionResponse(frame[:0], s.fillCompletion(&scratch, &cs[i], f.parties)); err != nil {
				s.closeWithError(conn, req, err)
				return nil, nil
			}
			if err := conn.Write(ctx, websocket.MessageText, frame); err != nil {
				return nil, nil
			}
		}
		if len(cs) > 0 {
			continue
		}
		select {
		case <-changed:
		case <-expired:
			s.closeWithError(conn, req, ledgerapi.Errorf(ledgerapi.CodeAccessTokenExpired,
				"The stream's access token has expired; reconnect with a fresh token"))
			return nil, nil
		case <-s.cmds.stop:
			_ = conn.Close(websocket.StatusGoingAway, "the node is shutting down")
			return nil, nil
		case <-ctx.Done():
			return nil, nil
		}
	}
}

// subprotocols lists the Sec-WebSocket-Protocol values of a request.
func subprotocols(r *http.Request) []string {
	var out []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// closeWithError sends err as one JsCantonError frame, built by writeError
// like any HTTP error body, and closes the stream.
func (s *Server) closeWithError(conn *websocket.Conn, req *Request, err error) {
	var buf frameWriter
	s.writeError(&buf, req.Request, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if buf.body.Len() > 0 {
		_ = conn.Write(ctx, websocket.MessageText, buf.body.Bytes())
	}
	_ = conn.Close(websocket.StatusNormalClosure, "")
}

// frameWriter captures what writeError writes.
type frameWriter struct {
	header http.Header
	body   bytes.Buffer
}

func (w *frameWriter) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header
}
func (w *frameWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *frameWriter) WriteHeader(int)             {}
