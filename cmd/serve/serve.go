// Package serve holds `ledger serve`: a local participant node (node/local)
// behind the JSON API server (server), configured from flags. Its Start is
// also how quickstart and tests run a node in-process.
package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// Options are the inputs of `ledger serve`.
type Options struct {
	IO *cmdutil.IOStreams
	// Context ends the node (nil: SIGINT/SIGTERM do).
	Context context.Context

	Addr     string
	DB       string
	PortFile string
	// Dars are uploaded (and vetted) once the node is open.
	Dars            []string
	ParticipantID   string // "" unless --participant-id was given
	SynchronizerID  string
	LogFormat       string
	LogLevel        string
	MaxRequestBytes int64

	AuthMode       string
	AuthSecretFile string
	AuthPublicKey  string
	AuthJWKS       string
	AuthAudience   string
	AuthScope      string

	// TLSCert and TLSKey are PEM files: the node serves HTTPS with them.
	TLSCert       string
	TLSKey        string
	TLSMinVersion string // "1.2" (default) or "1.3"

	NonconsumingChoices []string
	CompletionsMax      int
	MaxDeduplication    time.Duration // 0 unless --max-deduplication was given
	TapsMaxPassesLimit  int32
	MaxStreams          int
	MaxStreamsPerUser   int
	StreamIdleMax       time.Duration
	MaxValueNodes       int
	MaxCommandSteps     int64
	MaxCommandMemory    cmdutil.ByteSize
	TopologyEvents      bool
	StrictPackages      bool
	StaticTime          bool
	AllowLFDev          bool

	ReadHeaderTimeout time.Duration
	BodyReadTimeout   time.Duration
	IdleTimeout       time.Duration

	CORSOrigins    []string
	AllowedHosts   []string
	InsecureNoAuth bool
}

// NewCmdServe builds `ledger serve`.
func NewCmdServe(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	var participantID string
	var maxDedup time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run a local participant node speaking the JSON Ledger API v2",
		Long: `Run a participant node on this machine that answers Canton's JSON Ledger
API v2 (/v2/...), backed by one SQLite file. It is meant for development, CI
and demos: clients written for Canton work against it unchanged.

On first start the node creates its identity (participant id
<participant-id>::<namespace fingerprint>), its synchronizer and the bootstrap
user participant_admin with the ParticipantAdmin right. Every acknowledged
write is on disk before the answer goes out.

Without --db the database lives in the user's data directory
($XDG_DATA_HOME/ledger/ledger.db or ~/.local/share/ledger/ledger.db);
--db :memory: keeps everything in memory. The database and its -wal and
-shm files are readable by their owner only (they hold the node's key), and
one ledger serve at a time uses a database: a second one on the same file
refuses to start and names the process that has it (the lock is the file
beside it with ".lock" appended; the system releases it when that process
ends, however it ends).

Authentication (--auth):
  none    no token needed (Canton's wildcard mode); requests that act for a
          user must name it (userId)
  hs256   HMAC tokens, secret read from --auth-secret-file; mint tokens with
          "ledger token --secret-file FILE --user USER"
  rs256, es256, es512
          tokens signed with the key in --auth-public-key (PEM public key or
          certificate file)
  jwks    tokens checked against the JWK set at --auth-jwks (URL or file)
Tokens must be user tokens (sub = user id) whose audience is
https://daml.com/jwt/aud/participant/<participant-id>, or carry the scope
daml_ledger_api; --auth-audience / --auth-scope replace those rules. The
participant id is the one GET /v2/parties/participant-id answers
(name::fingerprint, as Canton requires) or its name alone.

Identity providers (POST /v2/idps: id, issuer, jwksUrl, audience): as in
Canton, a token the node's own mode does not verify is verified by the
active provider whose issuer is the token's iss, with the key its kid names
in the JWK set at the provider's jwksUrl (RS256, ES256 or ES512 by the key;
the set is cached 5 minutes) and, when set, the provider's audience. Its
user must belong to that provider, and an IdentityProviderAdmin signed in
this way administers that provider's users and parties only. Deactivated
providers verify nothing; changes to /v2/idps apply to the next request.
With --auth none every request is allowed and no token is verified.

Packages: DARs uploaded with "ledger dars upload" (POST /v2/dars) persist
in the database; commands on their templates are typed by their Daml-LF types,
as Canton reads them, and run by the node's Daml interpreter (ensure,
signatories, observers, controllers, authorization, choice bodies); execute
re-interprets what was signed and refuses any difference. A template whose
package was never uploaded is served by one generic contract model (see the
README), unless --strict-packages refuses it as Canton does; there choices
archive the contract they are exercised on unless --nonconsuming-choices
names them. The log names the model of each template once. Commands with the same
change ID (user, actAs parties, command id) within --max-deduplication are
refused as DUPLICATE_COMMAND; the value is stored in the database and kept
across restarts unless given again.

Completions: POST /v2/commands/completions returns at most --completions-max
elements (more collected is 413, as Canton answers); the websocket
GET /v2/commands/completions has no limit. At most --max-streams completion
streams run at once, at most --max-streams-per-user of them for one user, and
a list waits at most --max-stream-idle-timeout for its next element.

Web pages: the node refuses requests that carry an Origin other than its
own unless --cors-origin allows it, refuses JSON requests whose Content-Type
is present and not JSON (what a page may send anywhere without asking), and,
while it listens on loopback, refuses a Host that is not a loopback name or
address unless --allowed-host names it (DNS rebinding). Without
authentication it listens only on loopback unless --insecure-no-auth is
given.

The node stops cleanly on SIGINT or SIGTERM.`,
		Example: `  # a node on the default port, no authentication
  ledger serve

  # a throw-away node on a free port, for a test script
  ledger serve --db :memory: --addr 127.0.0.1:0 --port-file port.txt &
  curl http://127.0.0.1:$(cat port.txt)/v2/version

  # only templates of uploaded packages, as on Canton
  ledger serve --strict-packages &
  ledger dars upload my-app-1.0.0.dar

  # a sandbox with its DARs: uploaded at start, kept across restarts
  ledger serve --dar my-app-1.0.0.dar --dar my-lib-1.0.0.dar

  # choices named Observe and Report keep their contract active
  ledger serve --nonconsuming-choices Observe,Report

  # a web app on localhost:5173 may call the node
  ledger serve --cors-origin http://localhost:5173

  # with HS256 tokens
  (umask 077; head -c 32 /dev/urandom | base64 > secret.txt)   # readable by you only
  ledger serve --auth hs256 --auth-secret-file secret.txt &
  TOKEN=$(ledger token --secret-file secret.txt --user participant_admin)
  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:7575/v2/users`,
		Args: cmdutil.ExactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("participant-id") {
				opts.ParticipantID = participantID
			}
			if cmd.Flags().Changed("max-deduplication") {
				opts.MaxDeduplication = maxDedup
				if maxDedup <= 0 {
					return cmdutil.UsageError("--max-deduplication must be positive, e.g. 168h")
				}
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return serveRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", server.DefaultAddr, "address to listen on (port 0 picks a free port)")
	fl.StringVar(&opts.DB, "db", "", `SQLite database file, or ":memory:" (default: the user's data directory)`)
	fl.StringVar(&opts.PortFile, "port-file", "", "write the bound port to this file once listening")
	fl.StringArrayVar(&opts.Dars, "dar", nil, "upload and vet this DAR at start, before serving (repeat for several; one the node has is kept as it is)")
	fl.StringVar(&participantID, "participant-id", auth.DefaultParticipantID, "participant name of a new node (the id is NAME::fingerprint)")
	fl.StringVar(&opts.SynchronizerID, "synchronizer-id", "", `synchronizer id of a new node (default "local::<fingerprint>")`)
	fl.StringVar(&opts.LogFormat, "log-format", "text", "log format: text or json")
	fl.StringVar(&opts.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	fl.Int64Var(&opts.MaxRequestBytes, "max-request-bytes", server.DefaultMaxRequestBytes, "largest request body accepted (larger ones get 413)")
	fl.StringVar(&opts.AuthMode, "auth", auth.ModeNone, "token check: "+strings.Join(auth.Modes, ", "))
	fl.StringVar(&opts.AuthSecretFile, "auth-secret-file", "", "file holding the HMAC secret (--auth hs256)")
	fl.StringVar(&opts.AuthPublicKey, "auth-public-key", "", "PEM file with the public key or certificate (--auth rs256, es256, es512)")
	fl.StringVar(&opts.AuthJWKS, "auth-jwks", "", "JWK set URL or file (--auth jwks)")
	fl.StringVar(&opts.AuthAudience, "auth-audience", "", "accept tokens whose aud contains this (Canton's target-audience)")
	fl.StringVar(&opts.AuthScope, "auth-scope", "", "accept tokens whose scopes contain this (Canton's target-scope)")
	fl.StringVar(&opts.TLSCert, "tls-cert", "", "PEM certificate chain: serve HTTPS (with --tls-key)")
	fl.StringVar(&opts.TLSKey, "tls-key", "", "PEM private key of --tls-cert")
	fl.StringVar(&opts.TLSMinVersion, "tls-min-version", "1.2", "oldest TLS version accepted: 1.2 or 1.3 (Canton's minimum-server-protocol-version)")
	fl.StringSliceVar(&opts.NonconsumingChoices, "nonconsuming-choices", nil, "comma-separated choice names that do not archive their contract")
	fl.IntVar(&opts.CompletionsMax, "completions-max", server.DefaultCompletionsMax, "most elements a completions list returns (more is 413)")
	fl.DurationVar(&maxDedup, "max-deduplication", ledger.DefaultMaxDeduplication, "maximum (and default) deduplication period; stored in the database")
	fl.Int32Var(&opts.TapsMaxPassesLimit, "taps-max-passes-limit", node.DefaultTapsMaxPassesLimit, "largest tapsMaxPasses a command may ask for")
	fl.IntVar(&opts.MaxStreams, "max-streams", node.DefaultMaxStreams, "most completion streams (lists and websockets) open at once")
	fl.IntVar(&opts.MaxStreamsPerUser, "max-streams-per-user", node.DefaultMaxStreamsPerUser, "most streams one user may have open at once")
	fl.DurationVar(&opts.StreamIdleMax, "max-stream-idle-timeout", server.DefaultCompletionsMaxWait, "largest stream_idle_timeout_ms a completions list gets (larger values are capped)")
	fl.BoolVar(&opts.StaticTime, "static-time", false, "run on static time, starting at 1970-01-01T00:00:00Z and moved only by POST /v2/testing/time (ledger time set, Daml Script's setTime)")
	fl.BoolVar(&opts.StrictPackages, "strict-packages", false, "refuse templates of packages never uploaded (TEMPLATES_OR_INTERFACES_NOT_FOUND), as Canton does, instead of serving them by the generic contract model")
	fl.BoolVar(&opts.AllowLFDev, "allow-lf-dev", false, "accept DARs of Daml-LF 2.dev, as Canton does in dev mode only")
	fl.Int64Var(&opts.MaxCommandSteps, "max-command-steps", interp.DefaultSteps, "step budget of the Daml code of one command (INTERPRETATION_TIME_EXCEEDED past it)")
	opts.MaxCommandMemory = interp.DefaultMemory
	fl.Var(&opts.MaxCommandMemory, "max-command-memory", "memory budget of the Daml code of one command: bytes of values it may build (INTERPRETATION_TIME_EXCEEDED past it)")
	fl.IntVar(&opts.MaxValueNodes, "max-value-nodes", node.DefaultMaxValueNodes, "most Daml values (list elements, fields, scalars) the arguments of one request may hold")
	fl.BoolVar(&opts.TopologyEvents, "topology-events", true, "record party allocations as topology updates at offsets of their own, as Canton does (false: allocations take no offset)")
	fl.DurationVar(&opts.ReadHeaderTimeout, "read-header-timeout", server.DefaultReadHeaderTimeout, "longest a client may take to send a request's headers")
	fl.DurationVar(&opts.BodyReadTimeout, "body-read-timeout", server.DefaultBodyReadTimeout, "longest a client may take to send a request body (400 after it)")
	fl.DurationVar(&opts.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "close keep-alive connections idle this long")
	fl.StringSliceVar(&opts.CORSOrigins, "cors-origin", nil, `web origins whose pages may call the node, e.g. http://localhost:5173 ("*" for any)`)
	fl.StringSliceVar(&opts.AllowedHosts, "allowed-host", nil, "Host names accepted besides loopback ones while listening on loopback")
	fl.BoolVar(&opts.InsecureNoAuth, "insecure-no-auth", false, "allow --auth none on an address other than loopback")
	return cmd
}

// validate checks flag combinations before anything starts.
func (o *Options) validate() error {
	o.AuthMode = strings.ToLower(o.AuthMode)
	known := false
	for _, m := range auth.Modes {
		known = known || m == o.AuthMode
	}
	switch {
	case !known:
		return cmdutil.UsageError("--auth %q is not a mode; use one of %s", o.AuthMode, strings.Join(auth.Modes, ", "))
	case o.LogFormat != "text" && o.LogFormat != "json":
		return cmdutil.UsageError("--log-format %q: use text or json", o.LogFormat)
	case o.MaxRequestBytes <= 0:
		return cmdutil.UsageError("--max-request-bytes must be positive")
	case o.AuthMode == auth.ModeHS256 && o.AuthSecretFile == "":
		return cmdutil.UsageError("--auth hs256 needs --auth-secret-file: the file holding the HMAC secret")
	case (o.AuthMode == auth.ModeRS256 || o.AuthMode == auth.ModeES256 || o.AuthMode == auth.ModeES512) && o.AuthPublicKey == "":
		return cmdutil.UsageError("--auth %s needs --auth-public-key: a PEM file with the public key or certificate", o.AuthMode)
	case o.AuthMode == auth.ModeJWKS && o.AuthJWKS == "":
		return cmdutil.UsageError("--auth jwks needs --auth-jwks: the URL or file of the JWK set")
	case (o.TLSCert == "") != (o.TLSKey == ""):
		return cmdutil.UsageError("--tls-cert and --tls-key go together: give both PEM files to serve HTTPS, or neither")
	case o.TLSMinVersion != "" && o.TLSMinVersion != "1.2" && o.TLSMinVersion != "1.3":
		return cmdutil.UsageError("--tls-min-version %q: use 1.2 or 1.3", o.TLSMinVersion)
	case slices.ContainsFunc(o.NonconsumingChoices, func(c string) bool { return strings.TrimSpace(c) == "" }):
		return cmdutil.UsageError("--nonconsuming-choices has an empty name; give choice names separated by commas")
	case o.CompletionsMax <= 0:
		return cmdutil.UsageError("--completions-max must be positive")
	case o.TapsMaxPassesLimit <= 0:
		return cmdutil.UsageError("--taps-max-passes-limit must be positive")
	case o.MaxStreams <= 0:
		return cmdutil.UsageError("--max-streams must be positive")
	case o.MaxStreamsPerUser <= 0 || o.MaxStreamsPerUser > o.MaxStreams:
		return cmdutil.UsageError("--max-streams-per-user must be positive and at most --max-streams (%d)", o.MaxStreams)
	case o.StreamIdleMax <= 0:
		return cmdutil.UsageError("--max-stream-idle-timeout must be a positive duration, e.g. 1m")
	case o.MaxValueNodes <= 0:
		return cmdutil.UsageError("--max-value-nodes must be positive")
	case o.MaxCommandSteps <= 0 || o.MaxCommandMemory <= 0:
		return cmdutil.UsageError("--max-command-steps and --max-command-memory must be positive")
	case o.ReadHeaderTimeout <= 0 || o.BodyReadTimeout <= 0 || o.IdleTimeout <= 0:
		return cmdutil.UsageError("--read-header-timeout, --body-read-timeout and --idle-timeout must be positive durations, e.g. 30s")
	case o.AuthAudience != "" && o.AuthScope != "":
		return cmdutil.UsageError("give --auth-audience or --auth-scope, not both")
	}
	for _, origin := range o.CORSOrigins {
		if err := checkOrigin(origin); err != nil {
			return cmdutil.UsageError("--cors-origin %q: %v", origin, err)
		}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.LogLevel)); err != nil {
		return cmdutil.UsageError("--log-level %q: use debug, info, warn or error", o.LogLevel)
	}
	return nil
}

// checkOrigin: a web origin is scheme://host[:port] (http or https, no
// path), "null", or "*".
func checkOrigin(origin string) error {
	if origin == "*" || origin == "null" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" || u.User != nil {
		return errors.New("give an origin as a browser sends it, scheme://host[:port], e.g. http://localhost:5173")
	}
	return nil
}

// Setup is what `ledger serve` starts: the node on its database and
// the HTTP server in front of it.
type Setup struct {
	local.Config
	Server server.Config
	// Dars are uploaded before the node serves, by file name.
	Dars []namedDar
}

// namedDar is a DAR's bytes and the file they came from.
type namedDar struct {
	Path  string
	Bytes []byte
}

// serveConfig turns the options into a Setup, reading key files.
func serveConfig(o *Options) (Setup, error) {
	cfg := Setup{
		Config: local.Config{
			DBPath: o.DB,
			Node: node.Config{
				ParticipantID:       o.ParticipantID,
				SynchronizerID:      o.SynchronizerID,
				NonconsumingChoices: o.NonconsumingChoices,
				MaxDeduplication:    o.MaxDeduplication,
				TapsMaxPassesLimit:  o.TapsMaxPassesLimit,
				MaxStreams:          o.MaxStreams,
				MaxStreamsPerUser:   o.MaxStreamsPerUser,
				MaxValueNodes:       o.MaxValueNodes,
				Interpretation:      interp.Limits{Steps: o.MaxCommandSteps, Memory: int64(o.MaxCommandMemory)},
				TopologyEvents:      o.TopologyEvents,
				StrictPackages:      o.StrictPackages,
				AllowDevPackages:    o.AllowLFDev,
			},
		},
		Server: server.Config{
			Addr:               o.Addr,
			PortFile:           o.PortFile,
			MaxRequestBytes:    o.MaxRequestBytes,
			CompletionsMax:     o.CompletionsMax,
			CompletionsMaxWait: o.StreamIdleMax,
			ReadHeaderTimeout:  o.ReadHeaderTimeout,
			BodyReadTimeout:    o.BodyReadTimeout,
			IdleTimeout:        o.IdleTimeout,
			CORSOrigins:        o.CORSOrigins,
			AllowedHosts:       o.AllowedHosts,
			InsecureNoAuth:     o.InsecureNoAuth,
			Auth: auth.Config{
				Mode:     o.AuthMode,
				JWKS:     o.AuthJWKS,
				Audience: o.AuthAudience,
				Scope:    o.AuthScope,
			},
		},
	}

	if o.StaticTime {
		clock := node.NewStaticClock(time.Unix(0, 0))
		cfg.Node.Now, cfg.Server.Clock = clock.Now, clock
	}
	if cfg.DBPath == "" {
		p, err := local.DefaultDBPath()
		if err != nil {
			return cfg, err
		}
		cfg.DBPath = p
	}
	if o.AuthSecretFile != "" {
		secret, err := auth.ReadSecretFile(o.AuthSecretFile)
		if err != nil {
			return cfg, fmt.Errorf("--auth-secret-file: %w", err)
		}
		cfg.Server.Auth.Secret = secret
	}
	for _, path := range o.Dars {
		b, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("--dar: %w", err)
		}
		cfg.Dars = append(cfg.Dars, namedDar{Path: path, Bytes: b})
	}
	if o.AuthPublicKey != "" {
		pem, err := os.ReadFile(o.AuthPublicKey)
		if err != nil {
			return cfg, fmt.Errorf("--auth-public-key: %w", err)
		}
		cfg.Server.Auth.PublicKeyPEM = pem
	}
	if o.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return cfg, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		cfg.Server.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		if o.TLSMinVersion == "1.3" {
			cfg.Server.TLS.MinVersion = tls.VersionTLS13
		}
	}
	return cfg, nil
}

// Start opens the node and serves it until the returned server is
// closed or ctx ends.
func Start(ctx context.Context, cfg Setup) (*server.Running, error) {
	n, err := local.Open(ctx, cfg.Config)
	if err != nil {
		return nil, err
	}
	for _, d := range cfg.Dars {
		// Uploading a DAR the node has changes nothing, so a restart
		// with the same --dar flags is harmless.
		main, err := n.UploadDar(ctx, d.Bytes, true)
		if err != nil {
			n.Close()
			return nil, fmt.Errorf("--dar %s: %w", d.Path, err)
		}
		if cfg.Node.Logger != nil {
			cfg.Node.Logger.Info("DAR uploaded at start", "file", d.Path, "mainPackage", main)
		}
	}
	return server.Start(ctx, n, cfg.Server)
}

// ThroughputGC makes the collector run at a quarter of the default rate
// unless GOGC says otherwise, for the commands that move many elements
// (serve, bench): their live heap is small (a few MB) and streams allocate
// a little per element, so at the default they collect every few thousand
// contracts; at 400 the node reads the active contract set with a quarter
// less CPU (docs/bench-read.md) for a peak RSS of 50 MB instead of 38.
//
// A heap allowed five times its live size would let the garbage of DAR
// uploads pile up (twelve uploads of 127 MiB dalfs peaked at 1.9 GB), so
// unless GOMEMLIMIT says otherwise the collector also works harder past
// server.DefaultMemoryLimit: the same uploads then peak at 0.7 GB.
func ThroughputGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(server.DefaultMemoryLimit)
	}
}

func serveRun(o *Options) error {
	cfg, err := serveConfig(o)
	if err != nil {
		return err
	}
	ThroughputGC()
	var level slog.Level
	_ = level.UnmarshalText([]byte(o.LogLevel))
	hopts := &slog.HandlerOptions{Level: level}
	log := slog.New(slog.NewTextHandler(o.IO.ErrOut, hopts))
	if o.LogFormat == "json" {
		log = slog.New(slog.NewJSONHandler(o.IO.ErrOut, hopts))
	}
	cfg.Node.Logger, cfg.Server.Logger = log, log
	ctx := o.Context
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	running, err := Start(ctx, cfg)
	var locked *local.LockedError
	if errors.As(err, &locked) {
		return fmt.Errorf("%w: stop that ledger serve, or give another --db", err)
	}
	if errors.Is(err, server.ErrNoAuthOnNetwork) {
		return cmdutil.UsageError("--addr %s with --auth none: %v; give --auth (see ledger serve --help), listen on 127.0.0.1, or add --insecure-no-auth", o.Addr, err)
	}
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case <-running.Done():
	}
	if err := running.Close(); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	log.Info("stopped")
	return nil
}
