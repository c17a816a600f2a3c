package engine

import (
	"context"
	"encoding/hex"
	"time"

	"github.com/google/uuid"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Outcome is the result of a submission for the node to commit: either a
// transaction with its successful completion, or (Rejection set) a rejected
// completion alone. The node service turns it into one ledger.Entry; the
// change ID for deduplication is (UserID, ActAs as a set, CommandID):
// ledger.ChangeIDOf(o.UserID, o.ActAs, o.CommandID).
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
	// Transaction is the accepted transaction as the ledger records it, its
	// Events being Events.Marshal(); nil when rejected.
	Transaction *ledger.Transaction
	// Events are the accepted transaction's events, from which the answers
	// are made once it is committed; nil when rejected.
	Events *events.Events
	// Generic are the templates of a submission the generic contract model
	// served (no Daml code ran for them).
	Generic []string
}

// Tree is the transaction tree once committed, as the submitting parties
// (ActAs) see it.
func (o *Outcome) Tree(at ledger.Committed) ledgerapi.TransactionTree {
	return o.Events.Tree(at, o.ActAs)
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
	minLET, err := minLedgerTime(now, cmds.MinLedgerTimeAbs, cmds.MinLedgerTimeRel)
	if err != nil {
		return nil, err
	}
	effectiveAt := ledgerTimeOf(now, minLET)
	var dedup ledgerapi.DeduplicationPeriod
	if cmds.DeduplicationPeriod != nil {
		dedup = *cmds.DeduplicationPeriod
	}
	dedupRejection, err := e.checkDedup(dedup)
	if err != nil {
		return nil, err
	}
	disclosed, err := e.checkDisclosed(ctx, cmds.DisclosedContracts, actAs, readAs)
	if err != nil {
		return nil, err
	}
	if err := validatePackagePreference(cmds.PackageIDSelectionPreference); err != nil {
		return nil, err
	}
	if err := e.validatePrefetch(cmds.PrefetchContractKeys, cmds.PackageIDSelectionPreference); err != nil {
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
	out := &Outcome{UserID: userID, CommandID: cmds.CommandID, SubmissionID: submissionID, ActAs: actAs, Dedup: dedup, Generic: parsed.genericTemplates()}
	if dedupRejection != nil {
		out.Rejection = dedupRejection.WithCorrelationID(submissionID)
		return out, nil
	}
	b, err := e.run(ctx, parsed, runRequest{actAs: actAs, readAs: readAs, disclosed: disclosed,
		preference: cmds.PackageIDSelectionPreference, now: now, ledgerTime: effectiveAt, noInputContracts: true})
	if err != nil {
		return nil, err
	}
	if err := e.checkKnownInformees(ctx, actAs, b, disclosed.Foreign()...); err != nil {
		return nil, err
	}
	if err := e.accept(out, b, workflowID, effectiveAt, time.Time{}, nil, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// accept makes out the acceptance of the built transaction b, under a
// fresh update id: its creates get their suffixed ids (suffixCreated, txUUID
// being the prepared transaction's UUID or "").
func (e *Engine) accept(out *Outcome, b *built, workflowID string, effectiveAt, maxRecordTime time.Time, externalHash *[32]byte, txUUID string) error {
	if err := e.suffixCreated(b, effectiveAt, txUUID); err != nil {
		return err
	}
	raw, err := e.random(32)
	if err != nil {
		return err
	}
	updateID := "1220" + hex.EncodeToString(raw)
	created := make([]ledger.Contract, len(b.created))
	for i, c := range b.created {
		c.CreatedAt = effectiveAt
		created[i] = c
	}
	out.Events = events.New(b.nodes, updateID, out.CommandID, workflowID, e.cfg.SynchronizerID, effectiveAt, externalHash)
	out.Transaction = &ledger.Transaction{
		UpdateID:      updateID,
		WorkflowID:    workflowID,
		EffectiveAt:   effectiveAt,
		MaxRecordTime: maxRecordTime,
		Created:       created,
		Archived:      b.archived,
		Inputs:        b.used,
		Events:        out.Events.Marshal(),
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
