package engine

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/google/uuid"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Outcome is the result of a submission for the server to commit: either a
// transaction with its successful completion, or (Rejection set) a rejected
// completion alone. The server turns it into one store.Entry:
//
//	UserID, CommandID, SubmissionID, ActAs  → the entry's fields
//	Dedup                                   → store.Dedup (IsEmpty: DedupDefault)
//	Rejection                               → store.Status from Rejection.Status()
//	Transaction                             → store.Transaction (Events.Marshal() as Events)
//
// The change ID for deduplication is (UserID, ActAs as a set, CommandID):
// store.ChangeIDOf(o.UserID, o.ActAs, o.CommandID).
type Outcome struct {
	UserID       string
	CommandID    string
	SubmissionID string
	ActAs        []string // sorted, without repeats
	// Dedup is the deduplication period asked for; IsEmpty means the node's
	// maximum.
	Dedup ledgerapi.DeduplicationPeriod
	// Rejection is a rejection Canton reports asynchronously (as a failed
	// completion, and as the error of the ...AndWait endpoints), such as
	// LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED or INVALID_DEDUPLICATION_PERIOD.
	Rejection *ledgerapi.JsCantonError
	// Transaction is the accepted transaction; nil when rejected.
	Transaction *Transaction
}

// Transaction is what an accepted submission writes.
type Transaction struct {
	UpdateID    string
	WorkflowID  string
	EffectiveAt time.Time
	// MaxRecordTime is the latest record time the transaction may get
	// (zero: no limit). The store re-checks it at commit.
	MaxRecordTime time.Time
	// Created are the contracts the transaction creates (CreatedAt =
	// EffectiveAt), including any it also archives.
	Created []Contract
	// Archived are the contracts consuming exercises archive.
	Archived []string
	// Inputs are the existing contracts the transaction uses without
	// archiving them; they must still be active at commit.
	Inputs []string
	Events *Events
}

// Tree is the transaction tree once committed, as the submitting parties
// (ActAs) see it.
func (o *Outcome) Tree(at Committed) ledgerapi.TransactionTree {
	return o.Transaction.Events.Tree(at, o.ActAs)
}

// Submit validates a command submission (submit-and-wait and its
// ...ForTransaction and ...ForTransactionTree variants, async submit) and
// interprets it. userID is the effective user; the server has checked act
// rights for actAs and read rights for readAs.
func (e *Engine) Submit(ctx context.Context, cmds ledgerapi.Commands, userID string) (*Outcome, error) {
	workflowID := deref(cmds.WorkflowID)
	if workflowID != "" {
		if err := ledgerapi.ValidateLedgerString("workflow_id", workflowID); err != nil {
			return nil, invalidArgument("%s", reason(err))
		}
	}
	if err := validateUserID(userID); err != nil {
		return nil, err
	}
	if err := validateRequiredLedgerString("command_id", cmds.CommandID); err != nil {
		return nil, err
	}
	submissionID := deref(cmds.SubmissionID)
	if submissionID != "" {
		if err := ledgerapi.ValidateLedgerString("submission_id", submissionID); err != nil {
			return nil, invalidField("submission_id", "%s", reason(err))
		}
	}
	actAs, readAs, err := validateSubmitters(cmds.ActAs, cmds.ReadAs)
	if err != nil {
		return nil, err
	}
	if err := e.checkSynchronizer("synchronizer_id", deref(cmds.SynchronizerID)); err != nil {
		return nil, err
	}
	if len(cmds.Commands) == 0 {
		return nil, missingField("commands")
	}
	now := e.now()
	effectiveAt := now
	switch {
	case cmds.MinLedgerTimeAbs != nil && cmds.MinLedgerTimeRel != nil:
		return nil, invalidArgument("min_ledger_time_abs cannot be specified at the same time as min_ledger_time_rel")
	case cmds.MinLedgerTimeAbs != nil:
		if t := cmds.MinLedgerTimeAbs.Time.UTC().Truncate(time.Microsecond); t.After(effectiveAt) {
			effectiveAt = t
		}
	case cmds.MinLedgerTimeRel != nil:
		if cmds.MinLedgerTimeRel.Seconds < 0 || cmds.MinLedgerTimeRel.Nanos < 0 {
			return nil, invalidField("min_ledger_time_rel", "Duration must be positive")
		}
		effectiveAt = now.Add(cmds.MinLedgerTimeRel.Std()).Truncate(time.Microsecond)
	}
	var dedup ledgerapi.DeduplicationPeriod
	if cmds.DeduplicationPeriod != nil {
		dedup = *cmds.DeduplicationPeriod
	}
	dedupRejection, err := e.checkDedup(dedup)
	if err != nil {
		return nil, err
	}
	disclosed, err := e.checkDisclosed(ctx, cmds.DisclosedContracts)
	if err != nil {
		return nil, err
	}
	if err := validatePackagePreference(cmds.PackageIDSelectionPreference); err != nil {
		return nil, err
	}
	if err := validatePrefetch(cmds.PrefetchContractKeys); err != nil {
		return nil, err
	}
	if err := e.validateTaps(cmds.TapsMaxPasses); err != nil {
		return nil, err
	}
	parsed, err := e.parseCommands(ctx, cmds.Commands, cmds.PackageIDSelectionPreference)
	if err != nil {
		return nil, err
	}
	if err := e.checkKnownSubmitters(ctx, actAs); err != nil {
		return nil, err
	}
	if submissionID == "" {
		id, err := uuid.NewRandomFromReader(e.cfg.Rand)
		if err != nil {
			return nil, err
		}
		submissionID = id.String()
	}
	out := &Outcome{UserID: userID, CommandID: cmds.CommandID, SubmissionID: submissionID, ActAs: actAs, Dedup: dedup}
	if dedupRejection != nil {
		out.Rejection = dedupRejection.WithCorrelationID(submissionID)
		return out, nil
	}
	b, err := e.build(ctx, parsed, actAs, e.randomSeed, buildOptions{
		visible:  visibleTo(actAs, readAs, disclosed),
		inactive: func(cid string) error { return ContractNotFound(cid) },
	})
	if err != nil {
		return nil, commandError(err)
	}
	tx, err := e.transaction(b, cmds.CommandID, workflowID, effectiveAt, time.Time{}, nil)
	if err != nil {
		return nil, err
	}
	out.Transaction = tx
	return out, nil
}

// transaction wraps a built transaction with a fresh update id.
func (e *Engine) transaction(b *built, commandID, workflowID string, effectiveAt, maxRecordTime time.Time, externalHash *[32]byte) (*Transaction, error) {
	raw, err := e.random(32)
	if err != nil {
		return nil, err
	}
	updateID := "1220" + hex.EncodeToString(raw)
	created := make([]Contract, len(b.created))
	for i, c := range b.created {
		c.CreatedAt = effectiveAt
		created[i] = c
	}
	return &Transaction{
		UpdateID:      updateID,
		WorkflowID:    workflowID,
		EffectiveAt:   effectiveAt,
		MaxRecordTime: maxRecordTime,
		Created:       created,
		Archived:      b.archived,
		Inputs:        b.used,
		Events:        newEvents(b, updateID, commandID, workflowID, e.cfg.SynchronizerID, effectiveAt, externalHash),
	}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
