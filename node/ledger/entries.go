package ledger

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"time"
)

// Contract is a contract as the ledger records it: the engine makes it when
// a transaction creates it, the store keeps it from the commit on, and the
// engine reads it back when a later command uses it.
type Contract struct {
	ContractID  string // hex
	TemplateID  string // "pkg:Module:Entity", package id form
	PackageName string
	// Argument is the create argument, opaque to the store: the engine's
	// encoding (a damlpb.Value in binary protobuf).
	Argument     []byte
	Signatories  []string // sorted
	Stakeholders []string // sorted, includes the signatories
	CreatedAt    time.Time
	// CreatedOffset and ArchivedOffset are set by the commits that create
	// and archive the contract; ArchivedOffset is 0 while it is active.
	CreatedOffset  int64
	ArchivedOffset int64
	// NodeID is the create node's id in the creating transaction, and
	// ArgumentJSON the create argument as events show it (Daml-LF JSON), so
	// that the active contract set is served without reading transactions.
	// Contracts stored before schema version 2 have neither.
	NodeID       int32
	ArgumentJSON []byte
	// WorkflowID is the creating transaction's workflow id.
	WorkflowID string
	// KeyHash is the hash of the contract's key (32 bytes, Canton's key
	// hash), by which the store finds active contracts by key; Key is the
	// key with its maintainers, opaque to the store (the engine's
	// encoding). Both are nil when the template has no key.
	KeyHash []byte
	Key     []byte
	// KeyJSON is the key as events show it (Daml-LF JSON, by the key
	// type), so that the active contract set shows contractKey; nil without
	// a key and for keyed contracts stored before schema version 7.
	KeyJSON []byte
	// CreatedJSON is the contract's created event encoded ahead by the
	// node that commits it, so that the active contract set is served by
	// splicing rather than encoding (opaque to the store; nil for contracts
	// stored before schema version 6).
	CreatedJSON []byte
	// ArgumentInCreated says that CreatedJSON holds ArgumentJSON byte for
	// byte, so the store need not keep it twice (set by the node when it
	// commits the contract, from schema version 10 on). A contract stored
	// so reads back with ArgumentJSON nil and ArgumentInCreated false: its
	// reader takes the argument from CreatedJSON.
	ArgumentInCreated bool
	// Salt is the contract salt (32 bytes) from which the unicum of the
	// contract's suffixed id was made (daml/contract); nil for contracts
	// stored before schema version 8, whose ids have no suffix.
	Salt []byte
	// Seq orders contracts by creation: the store's position of the contract,
	// set when it is read back.
	Seq int64
}

// Active reports whether the contract has not been archived.
func (c *Contract) Active() bool { return c.ArchivedOffset == 0 }

// Transaction is the accepted part of an Entry.
type Transaction struct {
	UpdateID    string
	WorkflowID  string
	EffectiveAt time.Time
	// Events are the transaction's events, opaque to the store: the
	// engine's encoding (events.Events.Marshal).
	Events []byte
	// Created are the contracts the transaction creates (CreatedAt =
	// EffectiveAt), including any it also archives.
	Created []Contract
	// Archived are the contract ids it archives (may include ones it creates).
	Archived []string
	// Inputs are the other contract ids it uses without archiving them;
	// they must still be active at commit.
	Inputs []string
	// MaxRecordTime, when set, is the latest record time the transaction may
	// get: a later commit fails with ErrMaxRecordTimeExceeded.
	MaxRecordTime time.Time
}

// Entry is one command outcome to append to the ledger: an accepted
// transaction with its completion, or (Transaction nil) a rejected
// completion. The commit assigns its offset and record time.
type Entry struct {
	UserID          string
	CommandID       string
	SubmissionID    string
	ActAs           []string
	Dedup           Dedup  // the period to check (accepted) or to report (rejected)
	Status          Status // must be non-zero for a rejection and zero for a transaction
	TraceParent     string // W3C traceparent of the submission, if any
	PaidTrafficCost int64
	Transaction     *Transaction
	// Topology, when set, makes the entry a topology change instead of a
	// command outcome: it has no completion, and the other fields are unused.
	Topology *TopologyEvent
}

// Committed is where an entry landed.
type Committed struct {
	Offset     int64
	RecordTime time.Time
}

// Status is a completion's outcome: Code 0 for success, else a gRPC code.
type Status struct {
	Code    int32
	Message string
	Details []byte // opaque to the store (the service's encoding of the error details)
}

// Completion is a completion as read back.
type Completion struct {
	Offset          int64
	RecordTime      time.Time
	UserID          string
	CommandID       string
	SubmissionID    string
	ActAs           []string // every act-as party of the submission
	UpdateID        string   // "" for a rejection
	Status          Status
	Dedup           Dedup // the period applied (never DedupDefault)
	TraceParent     string
	PaidTrafficCost int64
}

// Update is an accepted transaction as read back.
type Update struct {
	Offset       int64
	RecordTime   time.Time
	UpdateID     string
	CommandID    string
	WorkflowID   string
	UserID       string
	SubmissionID string
	ActAs        []string
	EffectiveAt  time.Time
	Events       []byte
	// TraceParent and PaidTrafficCost are those of the transaction's
	// completion (read by the range and offset reads; empty elsewhere).
	TraceParent     string
	PaidTrafficCost int64
}

// CompletionQuery selects completions in offset order.
type CompletionQuery struct {
	After   int64    // exclusive
	UserID  string   // "" = every user
	Parties []string // keep completions with an act-as party in Parties; empty = all
	Limit   int      // at most this many (default 1000)
}

// CommitStats count a store's commits since it was opened.
type CommitStats struct {
	Commits int64 // entries appended
	Failed  int64 // commits answered with an error
	Batches int64 // durable writes (group commits), i.e. fsyncs
}

// ChangeID identifies a command for deduplication: the user, the set of
// act-as parties and the command id.
type ChangeID [32]byte

// ChangeIDOf computes the change ID; actAs order and repeats do not matter.
func ChangeIDOf(userID string, actAs []string, commandID string) ChangeID {
	parties := slices.Clone(actAs)
	slices.Sort(parties)
	parties = slices.Compact(parties)
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(userID)
	field(commandID)
	for _, p := range parties {
		field(p)
	}
	var id ChangeID
	h.Sum(id[:0])
	return id
}

// DedupKind says how a Dedup window is given.
type DedupKind int

// The deduplication window forms.
const (
	// DedupDefault: the node's maximum deduplication duration. A commit
	// records it in the completion as a DedupDuration.
	DedupDefault DedupKind = iota
	// DedupDuration: accepted commands whose record time is less than
	// Duration before this entry's are duplicates.
	DedupDuration
	// DedupOffset: accepted commands at offsets after Offset are duplicates.
	DedupOffset
)

// Dedup is a command's deduplication period.
type Dedup struct {
	Kind     DedupKind
	Duration time.Duration // DedupDuration
	Offset   int64         // DedupOffset (exclusive)
}

// Resolve returns the period d stands for on a node whose maximum
// deduplication duration is max: DedupDefault becomes a DedupDuration of
// max, the other forms stay as they are.
func (d Dedup) Resolve(max time.Duration) Dedup {
	if d.Kind == DedupDefault {
		return Dedup{Kind: DedupDuration, Duration: max}
	}
	return d
}

// Covers is the deduplication rule: it reports whether an earlier accepted
// command of the same change, at offset and recorded at recordTime, lies in
// the window d of a command recorded at now. A DedupOffset window covers
// offsets after its own; a DedupDuration window covers record times less
// than Duration before now, and a zero duration covers nothing. d must be
// resolved (DedupDefault covers nothing).
func (d Dedup) Covers(offset int64, recordTime, now time.Time) bool {
	switch d.Kind {
	case DedupOffset:
		return offset > d.Offset
	case DedupDuration:
		return d.Duration > 0 && recordTime.After(now.Add(-d.Duration))
	}
	return false
}
