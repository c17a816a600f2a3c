package script

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// Ledger is what a script's commands act on: a participant, in process or
// over the JSON Ledger API. Values are typed (package value), as the
// interpreter builds them.
type Ledger interface {
	// Submit interprets and commits the commands and returns the
	// transaction (nodes with their results, as interp builds them). A
	// Daml failure is an *interp.Error (or an error wrapping one); the
	// runner turns it into the SubmitError the script sees.
	Submit(ctx context.Context, s *Submission) (*tx.Transaction, error)
	// ActiveContracts returns the active contracts visible to parties (as
	// stakeholders), of the given templates or, when templates is nil, of
	// every template, in the order they were created.
	ActiveContracts(ctx context.Context, parties []string, templates []*value.Identifier) ([]*tx.Contract, error)
	// AllocateParty allocates a party; hint may be empty.
	AllocateParty(ctx context.Context, hint string) (string, error)
	// ListKnownParties lists the parties the participant knows.
	ListKnownParties(ctx context.Context) ([]PartyDetails, error)
	// Time returns the ledger's time; SetTime sets it (a ledger with
	// static time) or fails saying why it cannot.
	Time(ctx context.Context) (value.Timestamp, error)
	SetTime(ctx context.Context, t value.Timestamp) error
}

// BlobLedger is a Ledger that knows the created-event blobs of the
// contracts it returned (queryDisclosure answers them, hex-encoded).
type BlobLedger interface {
	ContractBlob(id value.ContractID) string
}

// PackageLedger is a Ledger whose package vetting scripts may read and
// change (listAllPackages, listVettedPackages, vetPackages, unvetPackages,
// vetDar, unvetDar).
type PackageLedger interface {
	// ListPackages lists the ledger's packages, only the vetted ones when
	// vetted is set, sorted by name and version.
	ListPackages(ctx context.Context, vetted bool) ([]PackageRef, error)
	// SetVetting vets (vet) or unvets the packages.
	SetVetting(ctx context.Context, pkgs []PackageRef, vet bool) error
}

// PackageRef names a package by name and version.
type PackageRef struct{ Name, Version string }

// Sleeper is a Ledger on which sleep waits (a node); on others sleep
// returns at once.
type Sleeper interface {
	Sleep(ctx context.Context, d time.Duration) error
}

// UserLedger is a Ledger that manages users. Its methods return
// ErrUserNotFound and ErrUserExists as the Ledger API reports them.
type UserLedger interface {
	CreateUser(ctx context.Context, u User, rights []UserRight) error
	GetUser(ctx context.Context, id string) (User, error)
	DeleteUser(ctx context.Context, id string) error
	ListUsers(ctx context.Context) ([]User, error)
	GrantUserRights(ctx context.Context, id string, rights []UserRight) ([]UserRight, error)
	RevokeUserRights(ctx context.Context, id string, rights []UserRight) ([]UserRight, error)
	ListUserRights(ctx context.Context, id string) ([]UserRight, error)
}

// The errors of UserLedger.
var (
	ErrUserNotFound = errors.New("user not found")
	ErrUserExists   = errors.New("user already exists")
)

// User is a participant user.
type User struct {
	ID           string
	PrimaryParty string // "" for none
}

// UserRight is a right of a user: "ParticipantAdmin", "CanActAs",
// "CanReadAs" (with Party) or "CanReadAsAnyParty".
type UserRight struct {
	Kind  string
	Party string
}

// Submission is one submission of a script.
type Submission struct {
	ActAs, ReadAs []string
	Commands      []interp.Command
	// Disclosed are the contracts given with the commands (submit with
	// disclosures): their ids and templates; a ledger completes them from
	// its store (Blob holds what queryDisclosure returned).
	Disclosed []Disclosure
	// PackagePreference is the submission's package preference.
	PackagePreference []lf.PackageID
	// ByName, when set for a command (same index), says its template or
	// interface is named by package name (daml-script's createCmd,
	// exerciseCmd, … : explicitPackageId = False): the ledger runs it with
	// its preferred vetted package of that name (the highest version, or
	// the one PackagePreference names), converting the command's arguments
	// by upgrade. Otherwise it is named by the exact package id
	// (createExactCmd, …).
	ByName []bool
}

// Disclosure is a disclosed contract as daml-script carries it.
type Disclosure struct {
	TemplateID *value.Identifier
	ContractID value.ContractID
	Blob       string
}

// PartyDetails is what listKnownParties returns of a party.
type PartyDetails struct {
	Party   string
	IsLocal bool
}

// Failure is a script that failed: a Daml error (an unhandled exception, a
// failed assertion, a submission that failed), a command the runner could
// not perform, or a limit reached.
type Failure struct {
	// Kind is "exception" (an unhandled Daml exception), "submit" (a
	// submission that had to succeed failed, or had to fail succeeded),
	// "error" (a Daml error: abort, error), "command" (the ledger could
	// not perform a command), "limit" or "internal".
	Kind string
	// Command is the daml-script command that failed ("Submit", …), if
	// any.
	Command string
	// Message is what Daml's runner prints for it.
	Message string
	// Location is the script's source location of the failing command,
	// or where evaluation failed.
	Location *lf.Location
	// Err is the underlying error, if any.
	Err error
}

func (f *Failure) Error() string {
	var b strings.Builder
	b.WriteString(f.Message)
	if f.Command != "" {
		fmt.Fprintf(&b, "\n  in command %s", f.Command)
	}
	if f.Location != nil {
		fmt.Fprintf(&b, "\n  at %s", f.Location)
	}
	return b.String()
}

func (f *Failure) Unwrap() error { return f.Err }

// failure turns an error of a run into a *Failure.
func (st *run) failure(err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	var thrown *thrownError
	if errors.As(err, &thrown) {
		return &Failure{Kind: "exception", Message: st.exceptionText(thrown.exc), Location: st.location, Command: "Throw"}
	}
	var ie *interp.Error
	if errors.As(err, &ie) {
		f := &Failure{Kind: "error", Message: ie.Cause, Location: ie.Location, Err: ie}
		if ie.Exception != nil {
			f.Kind = "exception"
			f.Message = st.exceptionText(ie.Exception)
		}
		if ie.ID == "INTERPRETATION_TIME_EXCEEDED" || ie.ID == "INTERPRETATION_VALUE_NESTING" {
			f.Kind = "limit"
		}
		return f
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Failure{Kind: "limit", Message: "the script was cancelled: " + err.Error(), Err: err, Location: st.location}
	}
	return &Failure{Kind: "internal", Message: err.Error(), Err: err, Location: st.location}
}

// exceptionText renders an unhandled exception as Daml's runner does:
// "Unhandled Daml exception: Module:Type@pkg{ field = value }"; an
// exception whose payload is not a record shows its message.
func (st *run) exceptionText(exc *value.Any) string {
	if r, ok := exc.Value.(*value.Record); ok && r.TypeCon != nil {
		return "Unhandled Daml exception: " + r.String()
	}
	msg, err := st.r.engine.ExceptionMessage(st.ctx, exc, st.limits)
	if err != nil {
		msg = "(its message failed: " + err.Error() + ")"
	}
	return fmt.Sprintf("Unhandled Daml exception: %s: %s", exc.Type, msg)
}

// thrownError is a Daml exception a script threw (throw in Script, the
// Throw command): try/catch in the script (Catch) handles it.
type thrownError struct{ exc *value.Any }

func (e *thrownError) Error() string { return "unhandled exception " + e.exc.String() }
