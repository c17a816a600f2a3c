package ledger

import (
	"errors"
	"fmt"
	"time"
)

// ACSQuery selects active contracts in creation order (Contract.Seq).
type ACSQuery struct {
	// At is the offset of the snapshot: contracts created at or before it
	// and not archived at or before it.
	At int64
	// AfterSeq resumes after the contract with this Seq (0 = from the start).
	AfterSeq int64
	// TemplateIDs keeps contracts of these templates (package id form) only;
	// empty keeps all.
	TemplateIDs []string
	// Limit caps the contracts returned (default 1000).
	Limit int
	// Encoded reads only Seq, Stakeholders, CreatedOffset and CreatedJSON
	// (and TemplateID and PackageName with ByTemplate): what serving a
	// contract encoded ahead needs. A contract without CreatedJSON then
	// needs a full read.
	Encoded, ByTemplate bool
}

// UpdateQuery selects accepted transactions in offset order.
type UpdateQuery struct {
	After   int64 // exclusive lower bound
	Through int64 // inclusive upper bound; 0 = no bound
	// Descending reads from Through down to After.
	Descending bool
	Limit      int // at most this many (default 1000)
	// ForView reads only what a reader's view of a transaction needs:
	// Offset, RecordTime, ActAs, Events, TraceParent and PaidTrafficCost
	// (the events repeat the ids and the effective time). Every column
	// read costs, and the update stream reads a million rows. Updates in
	// a row with the same act-as parties share the slice: callers must
	// not modify it.
	ForView bool
}

// PrunedError: a read asked for offsets at or below the pruning offset.
type PrunedError struct {
	PrunedUpTo int64
}

func (e *PrunedError) Error() string {
	return fmt.Sprintf("the ledger is pruned up to offset %d", e.PrunedUpTo)
}

// PruneProgress reports one batch of a prune.
type PruneProgress struct {
	UpTo      int64 // the offset the batch pruned through
	Entries   int64 // completions removed so far (transactions included)
	Contracts int64 // archived contracts removed so far
}

// ErrPruneInProgress: another prune is running.
var ErrPruneInProgress = errors.New("a prune is already running")

// TopologyEvent is a topology change the ledger records at an offset of
// its own, as Canton's update stream shows it: a party's authorization on
// this participant was added (the party was allocated).
type TopologyEvent struct {
	UpdateID      string
	Party         string
	ParticipantID string
	Permission    string // PARTICIPANT_PERMISSION_…
	// Offset and RecordTime are set when read back.
	Offset     int64
	RecordTime time.Time
}
