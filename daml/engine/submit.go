package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// ContractSource is the ledger commands read: contracts by id and by key,
// authenticated, typed by their packages, visible to the submitters (which
// contracts a submitter may see is the source's to decide). A node answers
// from its store; an offline signer from a prepared transaction's input
// contracts (InputContracts).
type ContractSource = interp.KeyLedger

// NoContracts is a contract source that holds no contract: commands read
// only the disclosed contracts.
var NoContracts ContractSource = noContracts{}

type noContracts struct{}

func (noContracts) LookupContract(context.Context, value.ContractID) (*tx.Contract, error) {
	return nil, nil
}

func (noContracts) LookupKey(context.Context, *tx.GlobalKey, int) ([]*tx.Contract, error) {
	return nil, nil
}

// Submission is what interpreting a list of commands needs besides them.
type Submission struct {
	Packages *PackageSet
	// Preference is the package each package name resolves to
	// (PackageSet.Preference); other names use the highest version.
	Preference []lf.PackageID
	// ActAs are the submitting parties, the authorizers of the root nodes.
	ActAs []string
	// Commands name templates and interfaces of Packages, their values
	// typed by them (typed.Plan reads JSON into such values).
	Commands []interp.Command
	// Contracts is the ledger; nil is NoContracts.
	Contracts ContractSource
	// Disclosed are contracts given with the commands, authenticated and
	// typed: they are used before the ledger is asked. A key lookup sees
	// them in this order.
	Disclosed []*tx.Contract
	// PreparationTime is the time the Daml code sees as the preparation
	// time; it derives the transaction seed with SubmissionSeed and
	// ParticipantID, unless RootSeeds gives the seeds of the root nodes
	// (re-interpretation).
	PreparationTime time.Time
	SubmissionSeed  tx.Hash
	ParticipantID   string
	RootSeeds       []tx.Hash
	// LedgerTime is what getTime returns.
	LedgerTime time.Time
	// Limits bound the interpretation (steps, depth, memory, lane).
	Limits interp.Limits
	// StateMode is what catching an exception does to the contract state
	// of its try block (Canton's ContractStateMachine.Mode, chosen by the
	// synchronizer's protocol version, EngineMode.forProtocolVersion). The
	// zero value, interp.StateNUCK, is Canton 3.5's (protocol version 35):
	// a try block that created or consumed a contract cannot be rolled
	// back (DAML_EFFECTFUL_ROLLBACK_ERROR). interp.StateNoKey is 3.4's: the
	// rollback undoes it. A node submits with the zero value; Daml's IDE
	// ledger, for scripts written against daml-script before 3.5, with
	// StateNoKey.
	StateMode interp.StateMode
}

// Result is an interpreted submission.
type Result struct {
	// Transaction is the transaction; its Seeds are the node seeds.
	Transaction *tx.Transaction
	// Inputs are the contracts it read, from the source or disclosed, in
	// the order first read.
	Inputs []*tx.Contract
	// TimeBounds are the ledger times for which the transaction holds, each
	// nil when unconstrained (both nil when the code never read the time):
	// a prepared transaction's min and max ledger effective times.
	TimeBounds tx.TimeBounds
	// Steps and Memory are what the interpretation spent.
	Steps, Memory int64
}

// Submit interprets commands as Canton's engine does (Engine.submit) with
// the contract state rules of s.StateMode (Canton 3.5's unless set) and
// returns the transaction they make.
// Interpretation failures are *interp.Error; a failure of the contract
// source is returned as the source gave it.
func Submit(ctx context.Context, s *Submission) (*Result, error) {
	if s.Packages == nil {
		return nil, fmt.Errorf("submit: no packages")
	}
	source := s.Contracts
	if source == nil {
		source = NoContracts
	}
	res, err := s.Packages.Interpreter().Submit(ctx, &interp.Submission{
		Commands:          s.Commands,
		ActAs:             s.ActAs,
		SubmissionSeed:    s.SubmissionSeed,
		ParticipantID:     s.ParticipantID,
		PreparationTime:   Timestamp(s.PreparationTime),
		RootSeeds:         s.RootSeeds,
		LedgerTime:        Timestamp(s.LedgerTime),
		Disclosed:         s.Disclosed,
		Limits:            s.Limits,
		StateMode:         s.StateMode,
		PackagePreference: s.Preference,
	}, source)
	if err != nil {
		return nil, err
	}
	return ResultOf(res), nil
}

// ResultOf is the interpreter's result as Submit returns it: the time
// bounds only when the code read the time, an end of the time range no
// bound.
func ResultOf(res *interp.Result) *Result {
	out := &Result{Transaction: res.Transaction, Inputs: res.Inputs, Steps: res.Steps, Memory: res.Memory}
	if res.DependsOnTime {
		if lo := res.TimeBounds.Min; lo != nil && *lo != value.MinTimestamp {
			out.TimeBounds.Min = lo
		}
		if hi := res.TimeBounds.Max; hi != nil && *hi != value.MaxTimestamp {
			out.TimeBounds.Max = hi
		}
	}
	return out
}

// Timestamp is t in the ledger's microseconds.
func Timestamp(t time.Time) value.Timestamp { return value.Timestamp(t.UnixMicro()) }
