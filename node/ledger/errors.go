package ledger

import (
	"errors"
	"fmt"
)

// Errors of the node's records. Test for them with errors.Is.
var (
	// ErrNotFound: the user, party, contract, update or identity does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists: a user or party with this id already exists.
	ErrAlreadyExists = errors.New("already exists")
	// ErrConcurrentUpdate: the expected resource version differs from the stored one.
	ErrConcurrentUpdate = errors.New("resource version mismatch: concurrent update")
	// ErrAnnotationsTooLarge: annotations exceed the size limit after the change.
	ErrAnnotationsTooLarge = errors.New("annotations exceed the size limit")
	// ErrTooManyRights: granting would give the user more rights than allowed.
	ErrTooManyRights = errors.New("too many user rights")
	// ErrDuplicateCommand: an accepted command with the same change ID lies
	// within the deduplication window. The error is a *DuplicateCommandError.
	ErrDuplicateCommand = errors.New("duplicate command")
	// ErrContractNotActive: an input or archived contract is unknown or already
	// archived. The error is a *ContractNotActiveError.
	ErrContractNotActive = errors.New("contract not active")
	// ErrMaxRecordTimeExceeded: the record time the entry would get is after
	// its transaction's MaxRecordTime; nothing was written.
	ErrMaxRecordTimeExceeded = errors.New("record time after max record time")
	// ErrInvalidArgument: the caller passed a malformed value (a bug in the caller).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store is closed")
)

// DuplicateCommandError reports the earlier accepted command of the same change.
type DuplicateCommandError struct {
	CompletionOffset int64  // offset of the earlier accepted command
	SubmissionID     string // its submission id
}

func (e *DuplicateCommandError) Error() string {
	return fmt.Sprintf("duplicate command: the change was accepted at offset %d (submission %q)",
		e.CompletionOffset, e.SubmissionID)
}

// Is makes errors.Is(err, ErrDuplicateCommand) true.
func (e *DuplicateCommandError) Is(target error) bool { return target == ErrDuplicateCommand }

// DedupPeriodTooEarlyError is a deduplication offset below the pruning
// offset for a change with no acceptance since: the node no longer knows
// whether the change was accepted in between (Canton's
// DeduplicationPeriodTooEarly).
type DedupPeriodTooEarlyError struct {
	EarliestOffset int64 // the earliest deduplication offset allowed: the pruning offset
}

func (e *DedupPeriodTooEarlyError) Error() string {
	return fmt.Sprintf("deduplication period starts too early: the earliest deduplication offset is %d", e.EarliestOffset)
}

// ContractNotActiveError names the contract that is unknown or archived.
type ContractNotActiveError struct {
	ContractID     string
	ArchivedOffset int64 // 0 when the contract is unknown
}

func (e *ContractNotActiveError) Error() string {
	if e.ArchivedOffset == 0 {
		return fmt.Sprintf("contract %s not found", e.ContractID)
	}
	return fmt.Sprintf("contract %s was archived at offset %d", e.ContractID, e.ArchivedOffset)
}

// Is makes errors.Is(err, ErrContractNotActive) true.
func (e *ContractNotActiveError) Is(target error) bool { return target == ErrContractNotActive }
