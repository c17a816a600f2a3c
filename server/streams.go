package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/server/auth"
)

// A stream is what the list and websocket forms of the read endpoints
// serve (active contracts, updates and their deprecated forms): elements
// in order, each one JSON value, from a finite snapshot or a range that may
// follow the ledger.
type stream interface {
	// next appends at most max elements to out, each through add, and
	// reports how many. With none and not done, wait on changed.
	next(ctx context.Context, max int, add func(elem []byte) error) (n int, changed <-chan struct{}, done bool, err error)
	// close waits for reading the stream may still do in the background.
	close()
}

// readAhead reads a stream's next batch in another goroutine while the
// current one is encoded and sent: reading (SQLite, decoding) and encoding
// take similar time, and on two cores they overlap. A stream starts the
// read ahead with the room the current batch leaves (max less what it
// read), which is the max of its next call, so it never returns more than
// it was asked for.
type readAhead[T any] struct {
	ch chan aheadResult[T]
}

type aheadResult[T any] struct {
	v   T
	err error
}

// take returns the batch read ahead, or reads one now.
func (a *readAhead[T]) take(read func() (T, error)) (T, error) {
	if a.ch != nil {
		r := <-a.ch
		a.ch = nil
		return r.v, r.err
	}
	return read()
}

// start reads the next batch in the background.
func (a *readAhead[T]) start(read func() (T, error)) {
	ch := make(chan aheadResult[T], 1)
	a.ch = ch
	go func() {
		v, err := read()
		ch <- aheadResult[T]{v, err}
	}()
}

// wait lets a read in the background finish.
func (a *readAhead[T]) wait() {
	if a.ch != nil {
		<-a.ch
		a.ch = nil
	}
}

// streamOpener validates a request, decoded by decode, for caller and opens
// the stream it asks for.
type streamOpener func(c *Caller, decode func(v any) error) (stream, error)

// listLimits reads the limit and stream_idle_timeout_ms query parameters as
// listCompletions does: at most take elements, idle wait (at most
// Server.CompletionsMaxWait).
func (s *Server) listLimits(r *http.Request) (take int, idle time.Duration, err error) {
	take = s.CompletionsMax + 1
	if limit, ok, err := queryInt64(r, "limit"); err != nil {
		return 0, 0, err
	} else if ok && limit < int64(take) {
		take = int(max(limit, 0))
	}
	idle = s.CompletionsWait
	if ms, ok, err := queryInt64(r, "stream_idle_timeout_ms"); err != nil {
		return 0, 0, err
	} else if ok {
		if ms < 0 {
			return 0, 0, &DecodeError{What: "query parameter stream_idle_timeout_ms", Detail: "must not be negative"}
		}
		idle = time.Duration(min(ms, int64(time.Duration(1<<62)/time.Millisecond))) * time.Millisecond
	}
	return take, min(idle, s.CompletionsMaxWait), nil
}

// serveList answers the list form (POST) of a stream as Canton's JSON layer
// does: a JSON array of at most limit elements (http-list-max-elements-limit
// + 1 when absent), ended early when the stream is done or no element
// arrives within stream_idle_timeout_ms; more than the maximum is 413.
func (s *Server) serveList(req *Request, open streamOpener) (any, error) {
	take, idle, err := s.listLimits(req.Request)
	if err != nil {
		return nil, err
	}
	st, err := open(req.Caller, func(v any) error { return decodeBody(req.Request, v) })
	if err != nil {
		return nil, err
	}
	defer st.close()
	release, err := s.Node.AcquireStream(req.Caller.UserID)
	if err != nil {
		return nil, err
	}
	defer release()
	buf := pageBuffers.Get().(*[]byte)
	defer pageBuffers.Put(buf)
	out := append((*buf)[:0], '[')
	count := 0
	add := func(elem []byte) error {
		if count > 0 {
			out = append(out, ',')
		}
		out = append(out, elem...)
		count++
		return nil
	}
	timer := time.NewTimer(idle)
	defer timer.Stop()
	ctx := req.Context()
collect:
	for count < take {
		n, changed, done, err := st.next(ctx, take-count, add)
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		if n > 0 {
			timer.Reset(idle)
			continue
		}
		select {
		case <-changed:
		case <-timer.C:
			break collect
		case <-s.Node.Stopping():
			break collect
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if max := s.CompletionsMax; count > max {
		return nil, ledgerapi.Errorf(ledgerapi.CodeJSONAPIMaximumListElementsReached,
			"Exceeded maximum number of elements in the list (%d); pass a limit of at most %d or use the websocket stream", max, max)
	}
	out = append(out, ']')
	req.W.Header().Set("Content-Type", "application/json")
	req.W.Header().Set("Content-Length", strconv.Itoa(len(out)))
	req.W.WriteHeader(http.StatusOK)
	_, _ = req.W.Write(out)
	if cap(out) <= maxPooledPage {
		*buf = out
	}
	return nil, nil
}

// serveWebsocket answers the websocket form (GET) of a stream: the token in
// the subprotocol jwt.token.<JWT> (or the Authorization header), the
// request in the first text frame, then one text frame per element with no
// idle cutoff. A finite stream closes normally after its last element; an
// error is one JsCantonError frame, after which the stream closes.
func (s *Server) serveWebsocket(req *Request, open streamOpener) (any, error) {
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
	release, err := s.Node.AcquireStream(caller.UserID)
	if err != nil {
		return nil, err
	}
	defer release()
	bw := &batchingResponse{ResponseWriter: req.W}
	conn, err := websocket.Accept(bw, r, s.websocketOptions())
	if err != nil {
		s.Log.Info("websocket upgrade failed", "path", r.URL.Path, "correlationId", req.CorrelationID, "error", err)
		return nil, nil
	}
	defer conn.CloseNow()
	batch := bw.conn
	defer batch.release()
	conn.SetReadLimit(s.MaxRequestBytes)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	_, frame, err := conn.Read(ctx)
	if err != nil {
		return nil, nil
	}
	go func() { // later frames are dropped; reading notices a closing client
		defer cancel()
		for {
			if _, _, err := conn.Read(ctx); err != nil {
				return
			}
		}
	}()
	st, err := open(caller, func(v any) error {
		if err := ledgerapi.DecodeBody(loneSurrogates(bytes.TrimSpace(frame)), v); err != nil {
			return ledgerapi.InvalidArgument("the first frame is not a %s: %s",
				strings.TrimPrefix(fmt.Sprintf("%T", v), "*ledgerapi."), err.Error())
		}
		return nil
	})
	if err != nil {
		s.closeWithError(conn, req, err)
		return nil, nil
	}
	defer st.close()
	watch := s.watchRights(caller)
	defer watch.stop()
	var expired <-chan time.Time
	if exp := caller.Claims.ExpiresAt; exp != nil {
		t := time.NewTimer(time.Until(*exp))
		defer t.Stop()
		expired = t.C
	}
	// The elements are written without a deadline, so that the library
	// does not arm and disarm one per element (a context.AfterFunc, a
	// third of its cost); the stream's end closes the connection once
	// instead, which stops a write blocked on a client gone quiet.
	stop := context.AfterFunc(ctx, func() { _ = conn.CloseNow() })
	defer stop()
	writeCtx := context.WithoutCancel(ctx)
	add := func(elem []byte) error { return conn.Write(writeCtx, websocket.MessageText, elem) }
	// end closes the stream with err's frame, unless the request is over.
	end := func(err error) (any, error) {
		if ctx.Err() == nil {
			s.closeWithError(conn, req, err)
		}
		return nil, nil
	}
	for {
		batch.gather(true)
		n, changed, done, err := st.next(ctx, 1000, add)
		if ferr := batch.gather(false); err == nil && ferr != nil {
			return nil, nil // the client went away
		}
		if err != nil {
			return end(err)
		}
		if done {
			_ = conn.Close(websocket.StatusNormalClosure, "")
			return nil, nil
		}
		if n > 0 {
			if err := watch.due(ctx); err != nil {
				return end(err)
			}
			continue
		}
		select {
		case <-changed:
		case <-watch.C():
			if err := watch.check(ctx); err != nil {
				return end(err)
			}
		case <-expired:
			s.closeWithError(conn, req, ledgerapi.Errorf(ledgerapi.CodeAccessTokenExpired,
				"The stream's access token has expired; reconnect with a fresh token"))
			return nil, nil
		case <-s.Node.Stopping():
			_ = conn.Close(websocket.StatusGoingAway, "the node is shutting down")
			return nil, nil
		case <-ctx.Done():
			return nil, nil
		}
	}
}

// batchingResponse hands the websocket library a connection whose writes
// can be gathered: one element is one websocket message, and the library
// writes (and flushes) each message on its own, which is one system call
// per element. While a stream emits a batch of elements, batchConn
// collects them and sends them in writes of up to 64 KiB.
type batchingResponse struct {
	http.ResponseWriter
	conn *batchConn
}

func (b *batchingResponse) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := b.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("the response writer cannot hand over its connection")
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	b.conn = &batchConn{Conn: c}
	return b.conn, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(b.conn, 4096)), nil
}

// batchConn is a connection whose writes are held while gathering is on.
type batchConn struct {
	net.Conn
	mu      sync.Mutex
	buf     []byte
	holding bool
}

// batchLimit is the most a batchConn holds before it writes.
const batchLimit = 64 << 10

func (c *batchConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.holding {
		if err := c.flushLocked(); err != nil {
			return 0, err
		}
		return c.Conn.Write(p)
	}
	c.buf = append(c.buf, p...)
	if len(c.buf) >= batchLimit {
		if err := c.flushLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (c *batchConn) flushLocked() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.buf)
	c.buf = c.buf[:0]
	return err
}

// gather turns holding on or off; turning it off writes what was held.
func (c *batchConn) gather(on bool) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holding = on
	if !on {
		return c.flushLocked()
	}
	return nil
}

// release stops holding (close frames go out at once from now on).
func (c *batchConn) release() { _ = c.gather(false) }
