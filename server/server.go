// Package server is the HTTP layer of `ledger serve`: it answers Canton's
// JSON Ledger API v2 on /v2/... for a participant node (package node).
//
// The package owns HTTP and nothing else: routes, authentication, the
// caller's rights, request decoding and the validation of request fields
// in the order Canton checks them, websockets, and one error writer. The
// ledger itself (commands, deduplication, commits, completion streams,
// users, parties, identity) is the node's; wire types and error ids come
// from ledgerapi, token checks from server/auth. Handlers live in a route
// table (routes.go); each gets a *Request and returns the response value or
// an error. Errors are turned into Canton's error body and status in
// exactly one place, (*Server).writeError:
//
//   - a *ledgerapi.JsCantonError raised where a rule is checked (here or in
//     the node) is answered with its own status, redacted for the
//     security-sensitive categories;
//   - authentication failures become Canton's redacted 401 / 403 bodies;
//   - body and query decoding failures are 400 text/plain, as Canton's tapir
//     layer answers them; bodies over Config.MaxRequestBytes are 413;
//   - anything else is LEDGER_API_INTERNAL_ERROR (500); the detail goes to
//     the log under the request's correlation id, never to the client.
//
// Every request is authenticated before its handler runs (except routes
// marked Public): the caller's token is verified, its user must exist and be
// active, and the user's rights are loaded into a *Caller, whose methods
// implement the rights gating of the JSON API. Rights are checked here,
// before the node is called, because they are about who sent the request;
// the node trusts its callers.
package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// DefaultMaxRequestBytes is the default limit on a request body (4 MiB).
const DefaultMaxRequestBytes = 4 << 20

// MaxConcurrentUploads bounds the DAR uploads and validations served at
// once. Each holds its body (up to MaxDarBytes) and its decoded packages
// (archive.DefaultMaxDarSize uncompressed at most); more wait, in arrival
// order, until one finishes or their client leaves, as a script uploading
// several DARs at once expects: queued, not refused.
const MaxConcurrentUploads = 2

// DefaultMemoryLimit is the soft memory limit ledger serve gives the Go
// runtime (debug.SetMemoryLimit) unless GOMEMLIMIT is set: the most two
// uploads at their limits hold at once (two bodies of MaxDarBytes, two
// DARs of archive.DefaultMaxDarSize inflated) with room for the node,
// under the 1 GiB a node must stay within whatever is uploaded. Past it the
// collector runs more often; it is not a cap on live memory.
const DefaultMemoryLimit = 640 << 20

// Server answers the JSON Ledger API for a node. Build it with New; serve
// Handler(). Its fields are fixed after New and safe for concurrent use.
type Server struct {
	Node     *node.Node
	Verifier *auth.Verifier
	// Providers verifies tokens of the node's identity providers (/v2/idps).
	Providers *auth.Providers
	Log       *slog.Logger
	// MaxRequestBytes bounds request bodies (413 above it).
	MaxRequestBytes int64
	// BodyReadTimeout bounds how long reading a request body may take
	// (0 = no bound).
	BodyReadTimeout time.Duration
	// CompletionsMax, CompletionsWait and CompletionsMaxWait configure the
	// completions list (see Config).
	CompletionsMax     int
	CompletionsWait    time.Duration
	CompletionsMaxWait time.Duration
	// CheckpointDelay is how long a stream that follows the ledger is idle
	// before it sends an offset checkpoint (checkpoints.go).
	CheckpointDelay time.Duration
	// UserRightsCheckInterval is how often a websocket stream opened with
	// a user's token checks that user again (stale.go).
	UserRightsCheckInterval time.Duration

	// Clock is the static clock of a node with static time, nil for a node
	// on wall-clock time; it enables /v2/testing/time (time.go).
	Clock *node.StaticClock

	mux     *http.ServeMux
	handler http.Handler // mux behind the guard
	// uploads holds a token per upload route request being served
	// (MaxConcurrentUploads); the others wait for one before their body
	// is read.
	uploads chan struct{}

	// The guard's settings (guard.go): Config.CORSOrigins and AllowedHosts;
	// checkHost is set when the node listens on loopback only.
	corsOrigins, allowedHosts, wsOrigins []string
	checkHost                            bool
}

// New builds a server for node n with the HTTP settings of cfg (its
// listener settings are Start's). Zero settings take their defaults.
func New(n *node.Node, v *auth.Verifier, cfg Config) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{Node: n, Verifier: v, Providers: auth.NewProviders(cfg.Auth), Log: log,
		MaxRequestBytes:         cfg.MaxRequestBytes,
		BodyReadTimeout:         orDefault(cfg.BodyReadTimeout, DefaultBodyReadTimeout),
		CompletionsMax:          cfg.CompletionsMax,
		CompletionsWait:         orDefault(cfg.CompletionsWait, DefaultCompletionsWait),
		CompletionsMaxWait:      orDefault(cfg.CompletionsMaxWait, DefaultCompletionsMaxWait),
		CheckpointDelay:         orDefault(cfg.CheckpointDelay, DefaultCheckpointDelay),
		UserRightsCheckInterval: orDefault(cfg.UserRightsCheckInterval, DefaultUserRightsCheckInterval),
		mux:                     http.NewServeMux(),
		uploads:                 make(chan struct{}, MaxConcurrentUploads),
		corsOrigins:             cfg.CORSOrigins,
		allowedHosts:            cfg.AllowedHosts,
		wsOrigins:               websocketOrigins(cfg.CORSOrigins),
		checkHost:               cfg.loopbackOnly,
		Clock:                   cfg.Clock}
	s.handler = s.guard(s.mux)
	if s.MaxRequestBytes <= 0 {
		s.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if s.CompletionsMax <= 0 {
		s.CompletionsMax = DefaultCompletionsMax
	}
	for _, rt := range s.routes() {
		s.Handle(rt)
	}
	return s
}

// Route is one endpoint: Method and Pattern as net/http's ServeMux reads
// them ("/v2/users/{userID}"), and the handler. Routes are authenticated
// unless Public. Request bodies are JSON unless Upload: an upload route (a
// DAR) takes application/octet-stream; either refuses other Content-Types
// (guard.go).
type Route struct {
	Method  string
	Pattern string
	Public  bool
	Upload  bool
	Handler HandlerFunc
	// MaxBodyBytes bounds this route's request body instead of
	// Server.MaxRequestBytes (DAR uploads).
	MaxBodyBytes int64
}

// HandlerFunc answers one request. It returns the value to send as the JSON
// body of a 200, or an error for writeError. A handler that writes the
// response itself (a websocket) returns (nil, nil).
type HandlerFunc func(req *Request) (any, error)

// Request is what a handler gets.
type Request struct {
	*http.Request
	// W is the response writer, for handlers that stream; others return a value.
	W http.ResponseWriter
	// Caller is the authenticated caller; nil on Public routes.
	Caller *Caller
	// TraceID is the W3C trace id of the request (from traceparent, or new).
	TraceID string
	// CorrelationID names the request in logs and error bodies.
	CorrelationID string
}

// Handle adds a route. Call it before serving (part 2 adds its command
// endpoints this way, or in routes()).
func (s *Server) Handle(rt Route) {
	s.mux.Handle(rt.Method+" "+rt.Pattern, s.wrap(rt))
}

// Handler returns the HTTP handler of the node.
func (s *Server) Handler() http.Handler { return s.handler }

// wrap turns a route into an http.Handler: ids, panic recovery, body limit,
// authentication, then the handler and the response.
func (s *Server) wrap(rt Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req := &Request{Request: r, W: w, TraceID: traceID(r), CorrelationID: newID()}
		r = r.WithContext(context.WithValue(r.Context(), requestKey{}, req))
		req.Request = r
		rec := &statusRecorder{ResponseWriter: w}
		req.W = rec
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.Log.Error("handler panicked", "method", r.Method, "path", r.URL.Path,
					"correlationId", req.CorrelationID, "panic", p, "stack", string(debug.Stack()))
				if !rec.wrote {
					s.writeError(rec, r, errPanic)
				}
			}
			s.Log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rec.status,
				"duration", time.Since(start), "correlationId", req.CorrelationID)
		}()
		if r.Body != nil {
			limit := s.MaxRequestBytes
			if rt.MaxBodyBytes > 0 {
				limit = rt.MaxBodyBytes
			}
			r.Body = http.MaxBytesReader(rec, r.Body, limit)
		}
		if err := checkContentType(rt, r); err != nil {
			s.writeError(rec, r, err)
			return
		}
		if !rt.Public {
			c, err := s.authenticate(r)
			if err != nil {
				s.writeError(rec, r, err)
				return
			}
			req.Caller = c
		}
		if rt.Upload {
			if err := s.waitUpload(r.Context()); err != nil {
				s.writeError(rec, r, err)
				return
			}
			defer func() { <-s.uploads }()
		}
		// The body's time starts now: an upload that waited for its turn
		// has not been sending it.
		if r.Body != nil && r.Body != http.NoBody && s.BodyReadTimeout > 0 {
			r.Body = withReadDeadline(rec, r.Body, s.BodyReadTimeout)
		}
		v, err := rt.Handler(req)
		if err != nil {
			s.writeError(rec, r, err)
			return
		}
		if v != nil {
			writeJSON(rec, http.StatusOK, v)
		}
	})
}

// UploadsRunning is how many uploads hold one of the MaxConcurrentUploads
// slots now.
func (s *Server) UploadsRunning() int { return len(s.uploads) }

// waitUpload takes one of the MaxConcurrentUploads tokens, waiting for it
// until ctx ends.
func (s *Server) waitUpload(ctx context.Context) error {
	select {
	case s.uploads <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// withReadDeadline bounds the reading of body: the connection's read
// deadline is set now and cleared once the whole body has arrived, so that a
// slow client cannot hold a handler, while a long-running handler (a
// completions list) is not cut off after the body arrived. After a timeout
// the deadline stays, so net/http does not wait for the rest of the body
// either and closes the connection after the answer. Where the writer cannot
// set deadlines (a test recorder) body is returned as is.
func withReadDeadline(w http.ResponseWriter, body io.ReadCloser, d time.Duration) io.ReadCloser {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return body
	}
	return &deadlineBody{ReadCloser: body, clear: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

type deadlineBody struct {
	io.ReadCloser
	clear func()
	done  bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.clear()
	}
	return n, err
}

type requestKey struct{}

// requestOf returns the *Request a wrapped handler runs under (nil outside).
func requestOf(r *http.Request) *Request {
	req, _ := r.Context().Value(requestKey{}).(*Request)
	return req
}

// statusRecorder remembers whether and what was written, so a panic after
// the header went out does not write a second one.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if !s.wrote {
		s.status, s.wrote = http.StatusOK, true
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Hijack hands the connection to a websocket library that asserts
// http.Hijacker directly.
func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	s.wrote = true
	return http.NewResponseController(s.ResponseWriter).Hijack()
}

// Flush sends buffered data (streaming handlers).
func (s *statusRecorder) Flush() { _ = http.NewResponseController(s.ResponseWriter).Flush() }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Only our own response types get here; a marshal failure is a bug.
		status = http.StatusInternalServerError
		b, _ = json.Marshal(ledgerapi.NewError(ledgerapi.CodeLedgerAPIInternalError, internalCause, nil))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
