package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/internal/atomicfile"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/sqlite"
	"github.com/ledger-cli/ledger/server/auth"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/topology"
)

// DefaultAddr is where the node listens by default (Canton's JSON API port, loopback).
const DefaultAddr = "127.0.0.1:7575"

// Config is what Start needs. The zero value plus DBPath runs a node without
// authentication on DefaultAddr.
type Config struct {
	// Addr is the listen address; port 0 picks a free port.
	Addr string
	// DBPath is the SQLite file, or ":memory:".
	DBPath string
	// PortFile, when set, receives the bound port (written atomically).
	PortFile string
	// ParticipantID is the participant name of a new node ("" =
	// auth.DefaultParticipantID); the node's id is name::fingerprint. For an
	// existing database a non-empty value must equal the stored name.
	ParticipantID string
	// SynchronizerID is the synchronizer of a new node ("" = "local::"
	// fingerprint); for an existing database a non-empty value must equal it.
	SynchronizerID string
	// Auth configures token checks; its ParticipantID is set by Start.
	Auth auth.Config
	// MaxRequestBytes bounds request bodies (DefaultMaxRequestBytes when 0).
	MaxRequestBytes int64
	// Logger receives the node's logs (nil: discarded).
	Logger *slog.Logger
	// Store tunes the database.
	Store sqlite.Options
	// Commands configure the command engine and the completion endpoints.
	Commands CommandOptions
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
}

// Defaults of the Config timeouts left at zero.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyReadTimeout   = 60 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
)

// Running is a started node.
type Running struct {
	Server *Server

	srv      *http.Server
	ln       net.Listener
	st       *sqlite.Store
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

// Start opens the database (creating the node's identity and bootstrap admin
// on first use), binds, and serves in the background until Close or until
// ctx ends.
func Start(ctx context.Context, cfg Config) (*Running, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.DBPath == "" {
		return nil, errors.New(`no database given: set Config.DBPath to a file path or ":memory:"`)
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	st, err := sqlite.Open(cfg.DBPath, cfg.Store)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", cfg.DBPath, err)
	}
	fail := func(err error) (*Running, error) {
		_ = st.Close()
		return nil, err
	}
	id, created, err := initIdentity(ctx, st, cfg.ParticipantID, cfg.SynchronizerID)
	if err != nil {
		return fail(fmt.Errorf("database %s: %w", cfg.DBPath, err))
	}
	name, _, _ := topology.SplitUID(id.ParticipantID)
	authCfg := cfg.Auth
	if authCfg.Mode == "" {
		authCfg.Mode = auth.ModeNone
	}
	authCfg.ParticipantID = name
	v, err := auth.New(authCfg)
	if err != nil {
		return fail(fmt.Errorf("auth: %w", err))
	}
	if d := cfg.Commands.MaxDeduplication; d > 0 && d != id.MaxDeduplication {
		if err := st.SetMaxDeduplication(ctx, d); err != nil {
			v.Close()
			return fail(fmt.Errorf("set the maximum deduplication duration: %w", err))
		}
		id.MaxDeduplication = d
	}
	srv := New(st, v, id, cfg.MaxRequestBytes, log)
	if cfg.BodyReadTimeout > 0 {
		srv.BodyReadTimeout = cfg.BodyReadTimeout
	}
	if err := srv.ConfigureCommands(cfg.Commands); err != nil {
		v.Close()
		return fail(fmt.Errorf("command engine: %w", err))
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		v.Close()
		return fail(fmt.Errorf("listen on %s: %w", cfg.Addr, err))
	}
	r := &Running{
		Server:  srv,
		ln:      ln,
		st:      st,
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
	log.Info("ledger serve listening", "url", r.URL(), "participant", id.ParticipantID,
		"synchronizer", id.SynchronizerID, "db", cfg.DBPath, "auth", authCfg.Mode, "newNode", created)
	return r, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// URL is the node's base URL, e.g. http://127.0.0.1:7575.
func (r *Running) URL() string { return "http://" + r.ln.Addr().String() }

// Addr is the bound address.
func (r *Running) Addr() net.Addr { return r.ln.Addr() }

// Done is closed when the server has stopped serving.
func (r *Running) Done() <-chan struct{} { return r.done }

// Close stops accepting requests, waits for those in progress (up to the
// shutdown timeout), then closes the verifier and the database. It is safe to
// call more than once.
func (r *Running) Close() error {
	r.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
		defer cancel()
		shut := make(chan error, 1)
		go func() { shut <- r.srv.Shutdown(ctx) }()
		r.Server.StopStreams() // websockets are hijacked: Shutdown does not wait for them
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
		if st := r.st.Stats(); st.Batches > 0 {
			// Group commit at work: how many acknowledged writes shared each fsync.
			r.Server.Log.Info("commits", "commits", st.Commits, "fsyncs", st.Batches,
				"commitsPerFsync", fmt.Sprintf("%.1f", float64(st.Commits)/float64(st.Batches)))
		}
		r.closeErr = errors.Join(err, r.serveErr, r.st.Close())
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

// initIdentity returns the node's identity, creating it (with a fresh
// namespace key) on a new database. Names given for an existing node must
// match what it was created with.
func initIdentity(ctx context.Context, st *sqlite.Store, participant, synchronizer string) (ledger.Identity, bool, error) {
	existing, err := st.Identity(ctx)
	if err == nil {
		name, _, _ := topology.SplitUID(existing.ParticipantID)
		if participant != "" && participant != name && participant != existing.ParticipantID {
			return ledger.Identity{}, false, fmt.Errorf("the node was created as participant %q; restart with --participant-id %s or use another database", name, name)
		}
		if synchronizer != "" && synchronizer != existing.SynchronizerID {
			return ledger.Identity{}, false, fmt.Errorf("the node was created on synchronizer %q; restart with that --synchronizer-id or use another database", existing.SynchronizerID)
		}
		return existing, false, nil
	}
	if !errors.Is(err, ledger.ErrNotFound) {
		return ledger.Identity{}, false, err
	}
	if participant == "" {
		participant = auth.DefaultParticipantID
	}
	if err := topology.ValidatePartyHint(participant); err != nil {
		return ledger.Identity{}, false, fmt.Errorf("participant id %q: %w", participant, err)
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return ledger.Identity{}, false, fmt.Errorf("generate namespace key: %w", err)
	}
	fp := signer.Fingerprint(pub)
	if synchronizer == "" {
		synchronizer = "local::" + fp
	}
	if err := ledgerapi.ValidateLedgerString("synchronizer id", synchronizer); err != nil {
		return ledger.Identity{}, false, fmt.Errorf("synchronizer id: %w", err)
	}
	want := ledger.Identity{
		ParticipantID:        participant + "::" + fp,
		NamespaceFingerprint: fp,
		NamespaceKey:         priv.Seed(),
		SynchronizerID:       synchronizer,
	}
	return st.Init(ctx, want)
}

// WritePortFile writes port to path atomically (temporary file and rename),
// so a script polling for the file never reads half a number.
func WritePortFile(path string, port int) error {
	if err := atomicfile.WriteFile(path, []byte(strconv.Itoa(port)+"\n"), 0o644); err != nil {
		return fmt.Errorf("port file %s: %w", path, err)
	}
	return nil
}

// DefaultDBPath is the database of a node started without --db:
// $XDG_DATA_HOME/ledger/ledger.db, else ~/.local/share/ledger/ledger.db on
// Linux and the BSDs, else <user config dir>/ledger/ledger.db. The directory
// is created with mode 0700.
func DefaultDBPath() (string, error) {
	var dir string
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		dir = filepath.Join(x, "ledger")
	} else if runtime.GOOS != "windows" && runtime.GOOS != "darwin" && runtime.GOOS != "ios" && runtime.GOOS != "plan9" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home directory for the default database (give --db): %w", err)
		}
		dir = filepath.Join(home, ".local", "share", "ledger")
	} else {
		cfg, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("no user directory for the default database (give --db): %w", err)
		}
		dir = filepath.Join(cfg, "ledger")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s for the database: %w", dir, err)
	}
	return filepath.Join(dir, "ledger.db"), nil
}
