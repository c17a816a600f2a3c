package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/internal/atomicfile"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// DefaultAddr is where the node listens by default (Canton's JSON API port, loopback).
const DefaultAddr = "127.0.0.1:7575"

// Config is what Start needs besides the node. The zero value serves
// without authentication on DefaultAddr.
type Config struct {
	// Addr is the listen address; port 0 picks a free port.
	Addr string
	// PortFile, when set, receives the bound port (written atomically).
	PortFile string
	// Auth configures token checks; its ParticipantID is set by Start.
	Auth auth.Config
	// MaxRequestBytes bounds request bodies (DefaultMaxRequestBytes when 0).
	MaxRequestBytes int64
	// Logger receives the server's logs (nil: discarded).
	Logger *slog.Logger
	// CompletionsMax is the most elements a completions list returns; a list
	// that collects more is answered with 413 (DefaultCompletionsMax).
	CompletionsMax int
	// CompletionsWait is the default idle timeout of a completions list
	// (DefaultCompletionsWait).
	CompletionsWait time.Duration
	// CompletionsMaxWait caps the idle timeout a completions list may ask
	// for in stream_idle_timeout_ms (DefaultCompletionsMaxWait); larger
	// values are taken as this.
	CompletionsMaxWait time.Duration
	// CheckpointDelay is how long a stream that follows the ledger waits,
	// caught up and idle, before it sends an offset checkpoint
	// (DefaultCheckpointDelay).
	CheckpointDelay time.Duration
	// UserRightsCheckInterval is how often a websocket stream opened with
	// a user's token checks that the user, its rights and its identity
	// provider are as they were, ending with STALE_STREAM_AUTHORIZATION
	// otherwise (DefaultUserRightsCheckInterval, Canton's).
	UserRightsCheckInterval time.Duration
	// ShutdownTimeout bounds how long Close waits for requests in progress
	// (default 10 s).
	ShutdownTimeout time.Duration
	// ReadHeaderTimeout bounds how long a client may take to send a
	// request's headers (DefaultReadHeaderTimeout): a client trickling
	// header bytes is cut off.
	ReadHeaderTimeout time.Duration
	// BodyReadTimeout bounds how long a client may take to send a request
	// body (DefaultBodyReadTimeout); it is answered 400 and cut off.
	BodyReadTimeout time.Duration
	// IdleTimeout closes keep-alive connections left idle this long
	// (DefaultIdleTimeout).
	IdleTimeout time.Duration
	// CORSOrigins are the web origins ("https://app.example:8080", or "*"
	// for any) whose pages may use the node; requests from other origins
	// are refused (guard.go).
	CORSOrigins []string
	// AllowedHosts are Host names accepted besides loopback names and
	// addresses while the node listens on loopback ("*" for any).
	AllowedHosts []string
	// InsecureNoAuth lets a node without authentication listen on an
	// address other than loopback; without it Start refuses with
	// ErrNoAuthOnNetwork.
	InsecureNoAuth bool
	// Clock, when set, is the node's static clock (give its Now to the
	// node's Config.Now too): /v2/testing/time reads and sets it.
	Clock *node.StaticClock
	// TLS, when set, makes the node serve HTTPS with its certificates. A
	// MinVersion below TLS 1.2 (or none) is taken as TLS 1.2, Canton's
	// minimum server protocol version; set TLS 1.3 to refuse 1.2 too.
	TLS *tls.Config

	loopbackOnly bool // set by Start: the listener is on loopback
}

// ErrNoAuthOnNetwork: Start was asked to serve without authentication on an
// address other networks can reach, which would let anyone who reaches it
// administer the node.
var ErrNoAuthOnNetwork = errors.New("refusing to serve without authentication on a non-loopback address: anyone who can reach it could administer the node")

// Defaults of the Config timeouts left at zero.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyReadTimeout   = 60 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	// DefaultCompletionsMax is Canton's http-list-max-elements-limit.
	DefaultCompletionsMax = 200
	// DefaultCompletionsWait is Canton's http-list-wait-time: the idle
	// timeout of a completions list when the request gives none.
	DefaultCompletionsWait = 500 * time.Millisecond
	// DefaultCompletionsMaxWait is the longest idle timeout a completions
	// list gets, whatever it asks for (Canton has no such cap).
	DefaultCompletionsMaxWait = time.Minute
)

// Running is a started node.
type Running struct {
	Server *Server

	srv      *http.Server
	ln       net.Listener
	tls      bool // ln serves TLS
	v        *auth.Verifier
	timeout  time.Duration
	done     chan struct{}
	serveErr error

	closeOnce sync.Once
	closeErr  error

	// fresh holds connections that have not sent a request yet: Shutdown
	// would wait 5 s for them (clients and browsers open spare ones).
	mu    sync.Mutex
	fresh map[net.Conn]bool
}

func (r *Running) trackConn(c net.Conn, state http.ConnState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if state == http.StateNew {
		r.fresh[c] = true
	} else {
		delete(r.fresh, c)
	}
}

// Start serves node n in the background until Close or until ctx ends.
// Start owns n from the call on: Close closes it, and so does Start when
// it fails.
func Start(ctx context.Context, n *node.Node, cfg Config) (*Running, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	fail := func(err error) (*Running, error) {
		_ = n.Close()
		return nil, err
	}
	id := n.Identity()
	authCfg := cfg.Auth
	if authCfg.Mode == "" {
		authCfg.Mode = auth.ModeNone
	}
	authCfg.ParticipantID = id.ParticipantID
	cfg.Auth = authCfg
	v, err := auth.New(authCfg)
	if err != nil {
		return fail(fmt.Errorf("auth: %w", err))
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		v.Close()
		return fail(fmt.Errorf("listen on %s: %w", cfg.Addr, err))
	}
	cfg.loopbackOnly = ln.Addr().(*net.TCPAddr).IP.IsLoopback()
	if cfg.TLS != nil {
		tc := cfg.TLS.Clone()
		tc.MinVersion = max(tc.MinVersion, tls.VersionTLS12)
		ln = tls.NewListener(ln, tc)
	}
	if !cfg.loopbackOnly && authCfg.Mode == auth.ModeNone && !cfg.InsecureNoAuth {
		_ = ln.Close()
		v.Close()
		return fail(fmt.Errorf("listen on %s: %w", ln.Addr(), ErrNoAuthOnNetwork))
	}
	srv := New(n, v, cfg)
	r := &Running{
		Server:  srv,
		ln:      ln,
		tls:     cfg.TLS != nil,
		v:       v,
		timeout: cfg.ShutdownTimeout,
		done:    make(chan struct{}),
		fresh:   map[net.Conn]bool{},
	}
	if r.timeout <= 0 {
		r.timeout = 10 * time.Second
	}
	r.srv = &http.Server{
		Handler:           r.Server.Handler(),
		ReadHeaderTimeout: orDefault(cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		IdleTimeout:       orDefault(cfg.IdleTimeout, DefaultIdleTimeout),
		// No ReadTimeout or WriteTimeout: completion lists and websockets
		// run long. The handler bounds body reads (Server.BodyReadTimeout).
		ErrorLog:  slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState: r.trackConn,
	}
	if cfg.PortFile != "" {
		port := ln.Addr().(*net.TCPAddr).Port
		if err := WritePortFile(cfg.PortFile, port); err != nil {
			_ = ln.Close()
			v.Close()
			return fail(err)
		}
	}
	go func() {
		defer close(r.done)
		if err := r.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.serveErr = err
			log.Error("server stopped", "error", err)
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = r.Close()
		case <-r.done:
		}
	}()
	log.Info("ledger serve listening", "url", r.URL(), "addr", ln.Addr().String(), "participant", id.ParticipantID,
		"synchronizer", id.SynchronizerID, "db", n.Database(), "auth", authCfg.Mode, "newNode", n.Created())
	return r, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// URL is the node's base URL, e.g. http://127.0.0.1:7575. A node listening
// on every interface (0.0.0.0 or ::, which Go reports for both) is named by
// 127.0.0.1, a URL that works on this machine, rather than by the wildcard.
func (r *Running) URL() string {
	a := r.ln.Addr().(*net.TCPAddr)
	ip := a.IP
	if ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	scheme := "http://"
	if r.tls {
		scheme = "https://"
	}
	return scheme + net.JoinHostPort(ip.String(), strconv.Itoa(a.Port))
}

// Addr is the bound address.
func (r *Running) Addr() net.Addr { return r.ln.Addr() }

// Done is closed when the server has stopped serving.
func (r *Running) Done() <-chan struct{} { return r.done }

// Close stops accepting requests, waits for those in progress (up to the
// shutdown timeout), then closes the verifier and the node. It is safe to
// call more than once.
func (r *Running) Close() error {
	r.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
		defer cancel()
		shut := make(chan error, 1)
		go func() { shut <- r.srv.Shutdown(ctx) }()
		r.Server.Node.StopStreams() // websockets are hijacked: Shutdown does not wait for them
		var err error
		for waiting := true; waiting; {
			r.closeFresh()
			select {
			case err = <-shut:
				waiting = false
			case <-time.After(20 * time.Millisecond):
			}
		}
		if err != nil {
			_ = r.srv.Close()
		}
		<-r.done
		r.v.Close()
		r.closeErr = errors.Join(err, r.serveErr, r.Server.Node.Close())
	})
	return r.closeErr
}

// closeFresh closes the connections that never sent a request; Close calls
// it until Shutdown returns.
func (r *Running) closeFresh() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.fresh {
		_ = c.Close()
	}
}

// WritePortFile writes port to path atomically (temporary file and rename),
// so a script polling for the file never reads half a number.
func WritePortFile(path string, port int) error {
	if err := atomicfile.WriteFile(path, []byte(strconv.Itoa(port)+"\n"), 0o644); err != nil {
		return fmt.Errorf("port file %s: %w", path, err)
	}
	return nil
}
