// Package node is the participant without HTTP: the ledger service that
// `ledger serve` puts behind its JSON API. A *Node joins the command engine
// (node/engine) to a Store of ledger records (package ledger; node/sqlite
// keeps them in SQLite) and owns the rules between them: submit, execute
// and prepare, the commit of an outcome as one ledger entry, command
// deduplication, in-flight tracking, the recognition of a transaction
// executed before, completion streams, users, parties and their
// annotations, external party onboarding, the node's identity and what
// /v2/version reports.
//
// Every method takes a context.Context and plain values; none knows HTTP.
// Callers check the caller's rights and the form of a request before they
// call (package server does both), and the node raises the Canton errors of
// the rules it checks itself as *ledgerapi.JsCantonError: USER_NOT_FOUND,
// DUPLICATE_COMMAND, SUBMISSION_ALREADY_IN_FLIGHT, OFFSET_AFTER_LEDGER_END,
// MAXIMUM_NUMBER_OF_STREAMS and the like. Other errors are internal (the
// store failed) or ledger.ErrClosed once the store is closed.
//
// The node does not import its store: it defines the Store interface it
// needs, and node/local opens a node on a SQLite file.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/node/engine"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Store keeps the node's records: the composition of the stores of each
// role below, which node/sqlite implements in one database. Its methods are
// safe for concurrent use and report the sentinel errors of package ledger.
type Store interface {
	IdentityStore
	UserStore
	PartyStore
	CommitLog
	ContractStore
	ReadStore
	// PackageStore keeps uploaded packages (packages.go).
	PackageStore

	// String names the store for logs (for a file, its path).
	String() string
	Close() error
}

// IdentityStore keeps the node's identity and settings.
type IdentityStore interface {
	// Init records want as the node's identity, with the bootstrap user
	// ledger.AdminUserID, unless the node has one; it returns the identity
	// in force and whether it was created now.
	Init(ctx context.Context, want ledger.Identity) (got ledger.Identity, created bool, err error)
	// Identity returns the node's identity (ledger.ErrNotFound before Init).
	Identity(ctx context.Context) (ledger.Identity, error)
	// SetMaxDeduplication changes the recorded maximum deduplication
	// duration, which commits apply to ledger.DedupDefault.
	SetMaxDeduplication(ctx context.Context, d time.Duration) error
}

// UserStore keeps users, their rights and the identity providers they
// belong to (idps.go).
type UserStore interface {
	CreateUser(ctx context.Context, u ledger.User, rights []ledger.Right) (ledger.User, error)
	User(ctx context.Context, id string) (ledger.User, error)
	// UserAndRights is User and UserRights together, cheap enough to call
	// for every authenticated request.
	UserAndRights(ctx context.Context, id string) (ledger.User, []ledger.Right, error)
	ListUsers(ctx context.Context, q ledger.UserQuery) (users []ledger.User, next string, err error)
	UpdateUser(ctx context.Context, id string, upd ledger.UserUpdate) (ledger.User, error)
	DeleteUser(ctx context.Context, id string) error
	UserRights(ctx context.Context, id string) ([]ledger.Right, error)
	GrantRights(ctx context.Context, id string, rights []ledger.Right) (granted []ledger.Right, err error)
	RevokeRights(ctx context.Context, id string, rights []ledger.Right) (revoked []ledger.Right, err error)

	CreateIdentityProvider(ctx context.Context, p ledger.IdentityProvider) error
	IdentityProvider(ctx context.Context, id string) (ledger.IdentityProvider, error)
	ListIdentityProviders(ctx context.Context) ([]ledger.IdentityProvider, error)
	UpdateIdentityProvider(ctx context.Context, id string, upd ledger.IdentityProviderUpdate) (ledger.IdentityProvider, error)
	DeleteIdentityProvider(ctx context.Context, id string) error
}

// PartyStore keeps the parties the node hosts, their signing keys and
// annotations.
type PartyStore interface {
	AllocateParty(ctx context.Context, a ledger.PartyAllocation) (ledger.Party, error)
	Party(ctx context.Context, id string) (ledger.Party, error)
	// Parties returns the records of those ids that exist, in id order.
	Parties(ctx context.Context, ids []string) ([]ledger.Party, error)
	ListParties(ctx context.Context, q ledger.PartyQuery) (parties []ledger.Party, next string, err error)
	SigningKeys(ctx context.Context, party string) ([]ledger.SigningKey, error)
	UpdatePartyAnnotations(ctx context.Context, party string, expectedVersion *int64, change map[string]string) (ledger.Party, error)
}

// CommitLog is the ledger's append-only log: entries committed durably,
// its end, and the completions it records.
type CommitLog interface {
	// Commit appends an entry durably. For an accepted transaction it checks,
	// atomically with the append, deduplication (ledger.Dedup.Covers;
	// *ledger.DuplicateCommandError), that the contracts it uses are active
	// (*ledger.ContractNotActiveError) and its max record time
	// (ledger.ErrMaxRecordTimeExceeded).
	Commit(ctx context.Context, e ledger.Entry) (ledger.Committed, error)
	// LedgerEnd is the offset of the last durable entry.
	LedgerEnd() int64
	// Head is the ledger end with the record time of its entry.
	Head() ledger.Committed
	// Changed returns a channel closed when the ledger end next moves; take
	// it before reading LedgerEnd.
	Changed() <-chan struct{}
	Completions(ctx context.Context, q ledger.CompletionQuery) ([]ledger.Completion, error)
	CompletionAt(ctx context.Context, offset int64) (ledger.Completion, error)
	// Stats counts the commits since the store was opened.
	Stats() ledger.CommitStats
}

// ContractStore finds the contracts the engine interprets commands
// against.
type ContractStore interface {
	Contract(ctx context.Context, id string) (ledger.Contract, error)
	ContractWithDiscriminator(ctx context.Context, discriminator string) (ledger.Contract, error)
	// ActiveContractsByKey returns up to limit active contracts whose key
	// has the hash keyHash, most recently created first, among those
	// created before position before (ledger.Contract.Seq; 0 for no bound).
	ActiveContractsByKey(ctx context.Context, keyHash []byte, before int64, limit int) ([]ledger.Contract, error)
}

// ReadStore is the read side (reads.go): the active contracts, updates and
// topology events as the API's reads page them, and pruning.
type ReadStore interface {
	ActiveContracts(ctx context.Context, q ledger.ACSQuery, withArgument bool) ([]ledger.Contract, error)
	ContractByID(ctx context.Context, id string) (ledger.Contract, error)
	UpdateRange(ctx context.Context, q ledger.UpdateQuery) ([]ledger.Update, error)
	UpdateAt(ctx context.Context, offset int64) (ledger.Update, error)
	UpdateWithID(ctx context.Context, updateID string) (ledger.Update, error)
	TopologyRange(ctx context.Context, q ledger.UpdateQuery) ([]ledger.TopologyEvent, error)
	TopologyEventAt(ctx context.Context, offset int64) (ledger.TopologyEvent, error)
	TopologyEventWithID(ctx context.Context, updateID string) (ledger.TopologyEvent, error)
	// PrunedUpTo is the offset the ledger is pruned up to (0: never).
	PrunedUpTo() int64
	// Prune removes what lies at or below upTo except active contracts, in
	// batches of batch offsets (0: the store's default).
	Prune(ctx context.Context, upTo int64, batch int, progress func(ledger.PruneProgress)) error
	// OffsetBefore is the last offset recorded before t (0: none).
	OffsetBefore(ctx context.Context, t time.Time) (int64, error)
}

// Defaults of Config fields left at zero.
const (
	DefaultTapsMaxPassesLimit = engine.DefaultTapsMaxPassesLimit
	DefaultMaxValueNodes      = engine.DefaultMaxValueNodes
	// DefaultMaxStreams caps concurrent completion streams.
	DefaultMaxStreams = 256
	// DefaultMaxStreamsPerUser caps the concurrent streams of one user.
	DefaultMaxStreamsPerUser = 32
)

// Config is what Open needs besides the store. The zero value is usable.
type Config struct {
	// ParticipantID is the participant name of a new node ("" =
	// ledger.DefaultParticipantName); the node's id is name::fingerprint.
	// For an existing node a non-empty value must equal the stored name.
	ParticipantID string
	// SynchronizerID is the synchronizer of a new node ("" = "local::"
	// fingerprint); for an existing node a non-empty value must equal it.
	SynchronizerID string
	// NonconsumingChoices are choice names that do not archive their contract.
	NonconsumingChoices []string
	// PackageNames maps package ids to package names (see engine.Config).
	PackageNames map[string]string
	// MaxDeduplication is the longest deduplication period accepted and the
	// one applied when a request gives none. Zero keeps the value the store
	// holds (ledger.DefaultMaxDeduplication on a new node); otherwise Open
	// records it.
	MaxDeduplication time.Duration
	// TapsMaxPassesLimit is the largest tapsMaxPasses accepted
	// (DefaultTapsMaxPassesLimit).
	TapsMaxPassesLimit int32
	// MaxValueNodes bounds the values the JSON arguments of one request may
	// hold in total (DefaultMaxValueNodes).
	MaxValueNodes int
	// Interpretation bounds the Daml code of one command (steps, memory,
	// the lane of long commands); zero fields take the engine's defaults.
	Interpretation interp.Limits
	// MaxStreams caps concurrent completion streams (DefaultMaxStreams);
	// more get MAXIMUM_NUMBER_OF_STREAMS.
	MaxStreams int
	// MaxStreamsPerUser caps the concurrent streams of one authenticated
	// user (DefaultMaxStreamsPerUser; at most MaxStreams).
	MaxStreamsPerUser int
	// TopologyEvents makes a party allocation a topology update at an
	// offset of its own, as Canton's update stream shows it (a
	// ParticipantAuthorizationAdded event, no completion); `ledger serve`
	// turns it on. Off (the zero Config, for tests that count completions
	// from 1), allocations take no offset.
	TopologyEvents bool
	// StrictPackages refuses commands on templates of packages never
	// uploaded, as Canton does, instead of serving them by the generic
	// contract model.
	StrictPackages bool
	// AllowDevPackages accepts DARs of Daml-LF 2.dev, as Canton does in dev
	// mode only.
	AllowDevPackages bool
	// Now is the clock of the engine and of the re-execution check
	// (time.Now when nil); for tests.
	Now func() time.Time
	// Logger receives the node's logs (nil: discarded).
	Logger *slog.Logger
}

// Node is the ledger service. Build it with Open; its methods are safe for
// concurrent use.
type Node struct {
	store    Store
	engine   *engine.Engine
	identity ledger.Identity
	created  bool
	cfg      Config
	log      *slog.Logger
	parties  partyDirectory
	packages packageState
	issuers  issuerCache

	flightMu sync.Mutex
	inFlight map[ledger.ChangeID]bool

	streamMu    sync.Mutex
	streams     int
	userStreams map[string]int
	stop        chan struct{}
	stopOnce    sync.Once
	wg          sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// Open starts the ledger service on st: it creates the node's identity on
// a new store (or checks the names cfg gives against the stored ones),
// records cfg.MaxDeduplication when given, and builds the command engine.
// The node uses st from now on; Close closes it. When Open fails, st is
// left open for the caller to close.
func Open(ctx context.Context, st Store, cfg Config) (*Node, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	if cfg.MaxStreamsPerUser <= 0 {
		cfg.MaxStreamsPerUser = DefaultMaxStreamsPerUser
	}
	cfg.MaxStreamsPerUser = min(cfg.MaxStreamsPerUser, cfg.MaxStreams)
	id, created, err := initIdentity(ctx, st, cfg.ParticipantID, cfg.SynchronizerID)
	if err != nil {
		return nil, err
	}
	if d := cfg.MaxDeduplication; d > 0 && d != id.MaxDeduplication {
		if err := st.SetMaxDeduplication(ctx, d); err != nil {
			return nil, fmt.Errorf("set the maximum deduplication duration: %w", err)
		}
		id.MaxDeduplication = d
	}
	if cfg.MaxDeduplication <= 0 {
		cfg.MaxDeduplication = id.MaxDeduplication
	}
	if cfg.MaxDeduplication <= 0 {
		cfg.MaxDeduplication = ledger.DefaultMaxDeduplication
	}
	n := &Node{
		store:    st,
		identity: id,
		created:  created,
		cfg:      cfg,
		log:      cfg.Logger,
		parties:  partyDirectory{st: st},
		inFlight: map[ledger.ChangeID]bool{},
		stop:     make(chan struct{}),

		userStreams: map[string]int{},
	}
	if err := n.loadPackages(ctx); err != nil {
		return nil, fmt.Errorf("load packages: %w", err)
	}
	n.engine, err = engine.New(engine.Config{
		SynchronizerID:      id.SynchronizerID,
		ParticipantID:       id.ParticipantID,
		NonconsumingChoices: cfg.NonconsumingChoices,
		PackageNames:        cfg.PackageNames,
		TapsMaxPassesLimit:  cfg.TapsMaxPassesLimit,
		MaxValueNodes:       cfg.MaxValueNodes,
		Interpretation:      cfg.Interpretation,
		MaxDeduplication:    cfg.MaxDeduplication,
		Now:                 cfg.Now,
		Packages:            n.Packages,
		StrictPackages:      cfg.StrictPackages,
		Logger:              cfg.Logger,
	}, storeContracts{st}, &n.parties)
	if err != nil {
		return nil, fmt.Errorf("command engine: %w", err)
	}
	return n, nil
}

// Close ends the completion streams, logs how many commits shared each
// durable write, and closes the store. It is safe to call more than once.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		n.StopStreams()
		if st := n.store.Stats(); st.Batches > 0 {
			// Group commit at work: how many acknowledged writes shared each fsync.
			n.log.Info("commits", "commits", st.Commits, "fsyncs", st.Batches,
				"commitsPerFsync", fmt.Sprintf("%.1f", float64(st.Commits)/float64(st.Batches)))
		}
		n.closeErr = n.store.Close()
	})
	return n.closeErr
}

// Identity is who the node is.
func (n *Node) Identity() ledger.Identity { return n.identity }

// Created reports whether Open created the node's identity: the store was
// new.
func (n *Node) Created() bool { return n.created }

// Database names where the node's records are kept, for logs.
func (n *Node) Database() string { return n.store.String() }

// CommitStats counts the store's commits since it was opened.
func (n *Node) CommitStats() ledger.CommitStats { return n.store.Stats() }

// LedgerEnd is the offset of the last committed entry (0 on an empty ledger).
func (n *Node) LedgerEnd() int64 { return n.store.LedgerEnd() }

// Head is the ledger end with the record time of its entry: what an offset
// checkpoint reports.
func (n *Node) Head() ledger.Committed { return n.store.Head() }

// IsParticipant reports whether id names this participant, with or without
// the "PAR::" prefix of a participant's unique identifier.
func (n *Node) IsParticipant(id string) bool {
	own := n.identity.ParticipantID
	return id == own || "PAR::"+id == own || id == "PAR::"+own
}

// now is the clock of the rules the node checks itself.
func (n *Node) now() time.Time {
	if n.cfg.Now != nil {
		return n.cfg.Now()
	}
	return time.Now()
}

// storeContracts reads contracts for the engine.
type storeContracts struct{ st ContractStore }

func (c storeContracts) LookupContract(ctx context.Context, id string) (*ledger.Contract, error) {
	sc, err := c.st.Contract(ctx, id)
	if errors.Is(err, ledger.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &sc, nil
}

func (c storeContracts) LookupDiscriminator(ctx context.Context, discriminator string) (*ledger.Contract, error) {
	sc, err := c.st.ContractWithDiscriminator(ctx, discriminator)
	if errors.Is(err, ledger.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &sc, nil
}

func (c storeContracts) ActiveContractsByKey(ctx context.Context, keyHash []byte, before int64, limit int) ([]ledger.Contract, error) {
	return c.st.ActiveContractsByKey(ctx, keyHash, before, limit)
}

// partyDirectory answers the engine's "is this a party" questions. Parties
// are never removed, so a known party is remembered; unknown strings are
// asked again (the party may be allocated later).
type partyDirectory struct {
	st    PartyStore
	known sync.Map
}

func (d *partyDirectory) IsKnownParty(ctx context.Context, party string) (bool, error) {
	if _, ok := d.known.Load(party); ok {
		return true, nil
	}
	_, err := d.st.Party(ctx, party)
	if errors.Is(err, ledger.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	d.known.Store(party, true)
	return true, nil
}
