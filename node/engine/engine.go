package engine

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Defaults of Config fields left at zero.
const (
	DefaultTapsMaxPassesLimit    = 4  // Canton's max-passes-limit
	DefaultMaxSignaturesPerParty = 50 // Canton's maximum-number-of-signatures-per-party
	DefaultParticipantID         = "participant::local"
	// DefaultLongCommandSteps is where a command stops counting as short:
	// about 0.1 s of interpretation. Past it, the command waits for a slot
	// of the node's lane of long commands (interp.Lane).
	DefaultLongCommandSteps = 1_000_000
	// DefaultLargeCommandBytes is where a command stops counting as small:
	// it has built this many bytes of values (a Canton Coin transfer builds
	// about 160 kB). Past it, the command waits for a slot of the lane too,
	// so that only as many commands as the lane has slots can hold more.
	DefaultLargeCommandBytes = 64 << 20
)

// DefaultLongCommandSlots is how many long commands run at once: one core
// fewer than the process may use, at least one, so that a core stays free
// for the short commands nearly all traffic is while loops run.
func DefaultLongCommandSlots() int { return max(runtime.GOMAXPROCS(0)-1, 1) }

// Config is what the engine needs to know about the node.
type Config struct {
	// SynchronizerID is the node's synchronizer, written into every prepared
	// transaction. Required.
	SynchronizerID string
	// ParticipantID is the node's participant id, from which the
	// interpreter derives transaction seeds (DefaultParticipantID when
	// empty).
	ParticipantID string
	// NonconsumingChoices names the choices that do not archive the contract
	// they are exercised on (plain choice names, e.g. "Observe"). "Archive"
	// is always consuming.
	NonconsumingChoices []string
	// PackageNames maps package ids to package names, for templates named
	// as "pkg:Module:Entity". An unmapped package id is its own name.
	PackageNames map[string]string
	// TapsMaxPassesLimit is the largest tapsMaxPasses a request may ask for
	// (DefaultTapsMaxPassesLimit when 0).
	TapsMaxPassesLimit int32
	// MaxDeduplication is the longest deduplication duration accepted, and
	// the one applied when a request gives none (ledger.DefaultMaxDeduplication).
	MaxDeduplication time.Duration
	// MaxSignaturesPerParty caps the signatures one party may send with an
	// execute request (DefaultMaxSignaturesPerParty).
	MaxSignaturesPerParty int
	// MaxValueNodes bounds the number of values the JSON arguments of one
	// request may hold in total (DefaultMaxValueNodes when 0).
	MaxValueNodes int
	// AllowMultipleRoots lets execute handle transactions with several root
	// nodes (CreateAndExerciseCommand makes two). Canton refuses them at
	// execute by default (enforceSingleRootNode); so does the engine unless
	// set. Prepare makes them either way, as Canton does.
	AllowMultipleRoots bool
	// DisableVerboseHashing answers verboseHashing requests with a note
	// instead of the trace, as Canton does when enable-verbose-hashing is off.
	DisableVerboseHashing bool
	// Packages returns the uploaded packages in force (nil: none). Commands
	// on their templates are typed by their Daml-LF types.
	Packages func() *PackageSet
	// StrictPackages refuses templates of packages never uploaded
	// (TEMPLATES_OR_INTERFACES_NOT_FOUND, as Canton) instead of serving
	// them by the generic contract model.
	StrictPackages bool
	// Interpretation bounds what the Daml code of one command may spend:
	// steps, continuation depth, bytes of values built, and the lane that
	// long commands share. Zero fields take interp's defaults; a nil Lane
	// becomes one of DefaultLongCommandSlots slots, entered after
	// DefaultLongCommandSteps steps or DefaultLargeCommandBytes bytes.
	Interpretation interp.Limits
	// Logger receives one line per template the first time a command uses
	// it, saying which model serves it (nil: discarded).
	Logger *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Rand supplies node seeds, transaction UUIDs, update and submission ids
	// (crypto/rand when nil).
	Rand io.Reader
}

// ContractReader finds contracts, active or archived. A contract's
// Argument is the store's encoding of its value (stored.go: MarshalValue,
// UnmarshalValue), as the engine writes it into the contracts a
// transaction creates.
type ContractReader interface {
	// LookupContract returns the contract with this id, or nil (and no
	// error) when the node has never seen it.
	LookupContract(ctx context.Context, contractID string) (*ledger.Contract, error)
	// LookupDiscriminator returns a contract whose id has this
	// discriminator (64 lower-case hex characters), suffixed or not, or nil
	// (and no error) when there is none.
	LookupDiscriminator(ctx context.Context, discriminator string) (*ledger.Contract, error)
	// ActiveContractsByKey returns up to limit active contracts whose key
	// has the hash keyHash (ledger.Contract.KeyHash), most recently created
	// first, among those created before position before (ledger.Contract.Seq;
	// 0 for no bound).
	ActiveContractsByKey(ctx context.Context, keyHash []byte, before int64, limit int) ([]ledger.Contract, error)
}

// PartyDirectory tells which party ids the node knows.
type PartyDirectory interface {
	IsKnownParty(ctx context.Context, party string) (bool, error)
}

// KeyLookup returns the ed25519 keys an external party signs with and how
// many distinct keys must sign (0 counts as 1). A party without keys (a
// local party, or an unknown one) returns none.
type KeyLookup func(ctx context.Context, party string) (keys []ed25519.PublicKey, threshold int, err error)

// Engine turns commands into prepared transactions and committed outcomes.
// It keeps no state of its own and is safe for concurrent use.
type Engine struct {
	cfg          Config
	contracts    ContractReader
	parties      PartyDirectory
	nonconsuming map[string]bool
	logged       sync.Map // template id → true once its model was logged
}

// New returns an engine for the node described by cfg.
func New(cfg Config, contracts ContractReader, parties PartyDirectory) (*Engine, error) {
	if cfg.SynchronizerID == "" {
		return nil, errors.New("engine: Config.SynchronizerID is required")
	}
	if err := ledgerapi.ValidateLedgerString("synchronizerId", cfg.SynchronizerID); err != nil {
		return nil, err
	}
	if contracts == nil || parties == nil {
		return nil, errors.New("engine: a ContractReader and a PartyDirectory are required")
	}
	if cfg.TapsMaxPassesLimit <= 0 {
		cfg.TapsMaxPassesLimit = DefaultTapsMaxPassesLimit
	}
	if cfg.MaxDeduplication <= 0 {
		cfg.MaxDeduplication = ledger.DefaultMaxDeduplication
	}
	if cfg.MaxValueNodes <= 0 {
		cfg.MaxValueNodes = DefaultMaxValueNodes
	}
	if cfg.MaxSignaturesPerParty <= 0 {
		cfg.MaxSignaturesPerParty = DefaultMaxSignaturesPerParty
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ParticipantID == "" {
		cfg.ParticipantID = DefaultParticipantID
	}
	if cfg.Interpretation.Lane == nil {
		cfg.Interpretation.Lane = interp.NewLane(DefaultLongCommandSlots(), DefaultLongCommandSteps, DefaultLargeCommandBytes)
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Packages == nil {
		cfg.Packages = func() *PackageSet { return nil }
	}
	nc := map[string]bool{}
	for _, c := range cfg.NonconsumingChoices {
		if c != "Archive" {
			nc[c] = true
		}
	}
	return &Engine{cfg: cfg, contracts: contracts, parties: parties, nonconsuming: nc}, nil
}

// now is the engine clock in UTC, truncated to the ledger's microseconds.
func (e *Engine) now() time.Time {
	return e.cfg.Now().UTC().Truncate(time.Microsecond)
}

func (e *Engine) random(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(e.cfg.Rand, b); err != nil {
		return nil, err
	}
	return b, nil
}

func (e *Engine) partyCheck(ctx context.Context) generic.PartyCheck {
	return func(p string) (bool, error) { return e.parties.IsKnownParty(ctx, p) }
}
