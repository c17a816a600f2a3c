package server

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Websocket subprotocols of the JSON API: the token travels as
// "jwt.token.<JWT>" beside "daml.ws.auth", which the node answers with.
const subprotocolAuth = "daml.ws.auth"

// completionFilter checks a CompletionStreamRequest for caller and starts
// following the completions it selects from its begin offset. As in Canton,
// authorization comes before validation (CommandCompletionServiceAuthorization
// wraps the service, whose CompletionServiceRequestValidator runs after):
// first the user (MatchUserId: "" takes the token's user; another user than
// the token's is 403, except for a caller who may read as any party), then
// read rights on every listed party, malformed or not (ReadAs); only then the
// form of the user id, the parties and the begin offset.
func (s *Server) completionFilter(c *Caller, body ledgerapi.CompletionStreamRequest) (*node.CompletionFollower, error) {
	userID := body.UserID
	if userID == "" || !c.CanReadAsAnyParty() || c.Wildcard() {
		id, err := c.UserIDFor(body.UserID)
		if err != nil {
			return nil, err
		}
		userID = id
	}
	for _, p := range body.Parties {
		if !c.CanReadAs(p) {
			return nil, permissionDenied("user %q may not read as party %q", c.UserID, p)
		}
	}
	if err := ledgerapi.ValidateUserID("user_id", userID); err != nil {
		return nil, ledgerapi.InvalidField("user_id", fieldReason(err))
	}
	if len(body.Parties) == 0 {
		return nil, ledgerapi.MissingField("parties")
	}
	if err := checkPartyCount("parties", len(body.Parties)); err != nil {
		return nil, err
	}
	var parties []string
	seen := map[string]bool{}
	for _, p := range body.Parties {
		if err := ledgerapi.ValidatePartyID("parties", p); err != nil {
			return nil, ledgerapi.InvalidArgument("%s", fieldReason(err))
		}
		if !seen[p] {
			seen[p] = true
			parties = append(parties, p)
		}
	}
	return s.Node.FollowCompletions(userID, parties, int64(body.BeginExclusive))
}

// listCompletions answers POST /v2/commands/completions as Canton's JSON
// layer does: it collects the stream into a list of at most limit elements
// (Server.CompletionsMax + 1 when absent or larger), stopping when no
// element arrives within stream_idle_timeout_ms (Server.CompletionsWait
// when absent), also before the first; more than CompletionsMax elements is
// 413. Canton takes any idle timeout; this node caps it at
// Server.CompletionsMaxWait, as Canton caps limit, so that a list cannot
// hold a stream slot for hours.
func (s *Server) listCompletions(req *Request) (any, error) {
	return s.listCompletionsWith(req, s.openCompletionStream)
}

// completionOpener validates a completions request, decoded by decode, for
// caller and starts following what it selects: the request of
// /v2/commands/completions or of /v2/commands/command-completions.
type completionOpener func(c *Caller, decode func(v any) error) (*node.CompletionFollower, error)

func (s *Server) openCompletionStream(c *Caller, decode func(v any) error) (*node.CompletionFollower, error) {
	var body ledgerapi.CompletionStreamRequest
	if err := decode(&body); err != nil {
		return nil, err
	}
	return s.completionFilter(c, body)
}

func (s *Server) listCompletionsWith(req *Request, open completionOpener) (any, error) {
	return s.serveList(req, s.completionStreamOpener(open))
}

// pageBuffers keeps the buffers completion lists are built in: a page of
// 10,000 is 6 MB, and fresh memory costs a page fault every 4 KiB.
var pageBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledPage is the largest buffer pageBuffers keeps.
const maxPooledPage = 16 << 20

// batchRead is what CompletionFollower.Next returned.
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
	return s.streamCompletionsWith(req, s.openCompletionStream)
}

func (s *Server) streamCompletionsWith(req *Request, open completionOpener) (any, error) {
	return s.serveWebsocket(req, s.completionStreamOpener(open))
}

// completionStreamOpener serves the completions open selects as a stream.
func (s *Server) completionStreamOpener(open completionOpener) streamOpener {
	return func(c *Caller, decode func(v any) error) (stream, error) {
		fw, err := open(c, decode)
		if err != nil {
			return nil, err
		}
		return s.withCheckpoints(&completionStream{fw: fw}, fw.Cursor(), fw.Cursor, completionCheckpoint), nil
	}
}

// completionStream serves a completion follower as a stream (list or
// websocket). A full batch means more are likely: the next one is read
// while this one is encoded (reading and encoding take about 4 and 1 µs a
// completion, on different cores when the machine has them).
type completionStream struct {
	fw    *node.CompletionFollower
	buf   []byte
	ahead readAhead[batchRead]
}

func (c *completionStream) close() { c.ahead.wait() }

func (c *completionStream) next(ctx context.Context, max int, add func([]byte) error) (int, <-chan struct{}, bool, error) {
	read := func(max int) func() (batchRead, error) {
		return func() (batchRead, error) {
			cs, changed, err := c.fw.Next(ctx, max)
			return batchRead{cs, changed, err}, err
		}
	}
	b, err := c.ahead.take(read(max))
	cs, changed := b.cs, b.changed
	if err != nil {
		return 0, nil, false, err
	}
	if rest := max - len(cs); rest > 0 && len(cs) == node.CompletionsPerRead {
		c.ahead.start(read(rest))
	}
	for i := range cs {
		if c.buf, err = ledgerapi.AppendCompletionResponse(c.buf[:0], c.fw.Completion(&cs[i])); err != nil {
			return 0, nil, false, err
		}
		if err := add(c.buf); err != nil {
			return 0, nil, false, err
		}
	}
	return len(cs), changed, false, nil
}

// websocketOptions are the upgrade options of every websocket: the auth
// subprotocol, and the allowed CORS origins (the guard has refused the
// others before).
func (s *Server) websocketOptions() *websocket.AcceptOptions {
	return &websocket.AcceptOptions{Subprotocols: []string{subprotocolAuth}, OriginPatterns: s.wsOrigins}
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
