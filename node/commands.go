package node

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/internal/pbwire"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/engine"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Prepare prepares a transaction for external signing. userID is the
// effective user; the caller has checked read rights for actAs and readAs.
//
// generic lists the templates the generic contract model served (package-id
// form), none when the commands ran as Daml code.
func (n *Node) Prepare(ctx context.Context, req ledgerapi.PrepareSubmissionRequest, userID string) (resp ledgerapi.PrepareSubmissionResponse, generic []string, err error) {
	prep, err := n.engine.Prepare(ctx, req, userID)
	if err != nil {
		return ledgerapi.PrepareSubmissionResponse{}, nil, err
	}
	return prep.Response(), prep.Generic, nil
}

// Submit interprets a command submission and commits its outcome. userID
// is the effective user, the caller having checked act rights for actAs
// and read rights for readAs; traceParent is the W3C traceparent the
// submission runs under, recorded with its completion.
func (n *Node) Submit(ctx context.Context, cmds ledgerapi.Commands, userID, traceParent string) (*Receipt, error) {
	out, err := n.engine.Submit(ctx, cmds, userID)
	if err != nil {
		return nil, err
	}
	return n.commit(ctx, out, trafficBasis{}, traceParent)
}

// Execute checks and interprets a prepared transaction signed by its
// external parties and commits the outcome. A transaction that was executed
// before, within the deduplication period, is committed as a
// DUPLICATE_COMMAND rejection, as Canton answers it. userID is the
// effective user; traceParent is as for Submit.
//
// authorize is called first, with the act_as parties of the prepared
// transaction as the engine reads them (a metadata field given twice acts
// as the parties of both), and its error ends the execution: the caller
// checks its execute rights there. Bytes that do not decode give it no
// parties; the engine then says what is wrong with them.
func (n *Node) Execute(ctx context.Context, req ledgerapi.ExecuteSubmissionRequest, userID, traceParent string, authorize func(actAs []string) error) (*Receipt, error) {
	if err := authorize(preparedActAs(req.PreparedTransaction)); err != nil {
		return nil, err
	}
	out, err := n.engine.Execute(ctx, req, userID, n.signingKeys)
	if err != nil {
		out = n.executedBefore(ctx, err, req, userID)
		if out == nil {
			return nil, err
		}
	}
	sigs := 0
	for _, ps := range req.PartySignatures.Signatures {
		sigs += len(ps.Signatures)
	}
	return n.commit(ctx, out, trafficBasis{size: len(req.PreparedTransaction), signatures: sigs}, traceParent)
}

// metadataField is the number of PreparedTransaction.metadata.
var metadataField = (&damlpb.PreparedTransaction{}).ProtoReflect().Descriptor().Fields().ByName("metadata").Number()

// preparedActAs is metadata.submitter_info.act_as of a prepared
// transaction as the engine's decoding reads it: every metadata field of
// the message merged into one, as protobuf merges a message field given
// more than once. The transaction's nodes are not decoded. Nil when the
// bytes are no message or the metadata does not decode.
func preparedActAs(b []byte) []string {
	md := &damlpb.Metadata{}
	merge := proto.UnmarshalOptions{Merge: true}
	for len(b) > 0 {
		f, rest, err := pbwire.Next(b)
		if err != nil {
			return nil
		}
		b = rest
		if f.Num == metadataField && f.Type == protowire.BytesType {
			if merge.Unmarshal(f.Bytes, md) != nil {
				return nil
			}
		}
	}
	return md.GetSubmitterInfo().GetActAs()
}

// Receipt is a submission's outcome once committed: where it landed and,
// for an accepted transaction, what the answers show of it.
type Receipt struct {
	// Rejection is set when a rejected completion was committed instead of
	// a transaction; the ...AndWait endpoints answer it as their error.
	Rejection *ledgerapi.JsCantonError
	// At is where the entry landed.
	At ledger.Committed

	out         *engine.Outcome
	cost        int64
	traceParent string
}

// Generic lists the templates of the submission the generic contract model
// served, none when its commands ran as Daml code.
func (r *Receipt) Generic() []string {
	if r.out == nil {
		return nil
	}
	return r.out.Generic
}

// UpdateID is the update id of the accepted transaction.
func (r *Receipt) UpdateID() string { return r.out.Transaction.UpdateID }

// ActAs are the submitting parties.
func (r *Receipt) ActAs() []string { return r.out.ActAs }

// Tree is the accepted transaction's tree as the submitting parties see it.
func (r *Receipt) Tree() ledgerapi.TransactionTree {
	tree := r.out.Tree(r.At)
	tree.TraceContext = traceContext(r.traceParent)
	return tree
}

// Transaction is the accepted transaction in shape, as parties see it
// (every party when parties is empty), with its paid traffic cost.
func (r *Receipt) Transaction(shape ledgerapi.TransactionShape, parties []string) ledgerapi.Transaction {
	t := r.out.Events.Transaction(r.At, shape, parties)
	t.TraceContext = traceContext(r.traceParent)
	t.PaidTrafficCost = ledgerapi.Int64(r.cost)
	return t
}

// TransactionFor is the accepted transaction as an update lookup with the
// transaction format (f, shape) shows it, which is how Canton's command
// service answers the ...ForTransaction endpoints: the events the filter
// keeps, with the views and blobs it asks for, the command id only for a
// reader among the submitters. When the filter keeps no event, it is the
// transaction without events, command id and traffic cost shown (Canton's
// fallback lookup for any party). Resolving f is a no-op when ResolveFilter
// did it against the same packages, and picks up packages uploaded since.
func (n *Node) TransactionFor(ctx context.Context, r *Receipt, f *EventFilter, shape ledgerapi.TransactionShape) (ledgerapi.Transaction, error) {
	if err := f.resolve(n.Packages(), n.cfg.StrictPackages); err != nil {
		return ledgerapi.Transaction{}, err
	}
	t := r.out.Events.TransactionMatching(r.At, shape, f.Match())
	t.TraceContext = traceContext(r.traceParent)
	if len(t.Events) == 0 || f.sees(r.out.ActAs) {
		t.PaidTrafficCost = ledgerapi.Int64(r.cost)
	} else {
		t.CommandID = ""
	}
	if err := n.projectEvents(ctx, f, t.Events); err != nil {
		return ledgerapi.Transaction{}, err
	}
	return t, nil
}

func traceContext(traceparent string) *ledgerapi.TraceContext {
	if traceparent == "" {
		return nil
	}
	return &ledgerapi.TraceContext{Traceparent: &traceparent}
}

// signingKeys is the engine's KeyLookup over the store.
func (n *Node) signingKeys(ctx context.Context, party string) ([]ed25519.PublicKey, int, error) {
	keys, err := n.store.SigningKeys(ctx, party)
	if errors.Is(err, ledger.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if len(keys) == 0 {
		return nil, 0, nil
	}
	p, err := n.store.Party(ctx, party)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ed25519.PublicKey, 0, len(keys))
	for _, k := range keys {
		if len(k.PublicKey) == ed25519.PublicKeySize {
			out = append(out, ed25519.PublicKey(k.PublicKey))
		}
	}
	return out, p.SigningThreshold, nil
}

// executedBefore turns the engine's refusal of a prepared transaction that
// was already executed into Canton's answer. The engine finds the earlier
// execution as a conflict: a contract the transaction creates exists, or one
// it uses is archived. Canton checks deduplication before anything else, so
// when the transaction that created or archived that contract is this same
// change (user, act_as, command id) inside the deduplication period, the
// answer is a DUPLICATE_COMMAND rejection. It returns nil when err is
// anything else.
func (n *Node) executedBefore(ctx context.Context, err error, req ledgerapi.ExecuteSubmissionRequest, userID string) *engine.Outcome {
	var e *ledgerapi.JsCantonError
	if !errors.As(err, &e) {
		return nil
	}
	cid, ok := e.Resource("CONTRACT_ID")
	if !ok {
		return nil
	}
	c, err := n.store.Contract(ctx, cid)
	if err != nil {
		return nil
	}
	pt := &damlpb.PreparedTransaction{}
	if proto.Unmarshal(req.PreparedTransaction, pt) != nil {
		return nil
	}
	si := pt.GetMetadata().GetSubmitterInfo()
	change := ledger.ChangeIDOf(userID, si.GetActAs(), si.GetCommandId())
	window := dedupOf(req.DeduplicationPeriod).Resolve(n.cfg.MaxDeduplication)
	now := n.now()
	for _, off := range []int64{c.CreatedOffset, c.ArchivedOffset} {
		if off == 0 {
			continue
		}
		done, err := n.store.CompletionAt(ctx, off)
		if err != nil || done.UpdateID == "" || ledger.ChangeIDOf(done.UserID, done.ActAs, done.CommandID) != change ||
			!window.Covers(done.Offset, done.RecordTime, now) {
			continue
		}
		subID := req.SubmissionID
		if subID == "" {
			subID = uuid.NewString()
		}
		reported := max(done.Offset-1, 0) // as duplicateDedup
		return &engine.Outcome{
			UserID: userID, CommandID: si.GetCommandId(), SubmissionID: subID,
			ActAs: si.GetActAs(), Dedup: ledgerapi.DeduplicationPeriod{Offset: &reported},
			Rejection: duplicateCommand(done.Offset, done.SubmissionID, subID),
		}
	}
	return nil
}

// duplicateDedup is the period the completion of a duplicate reports, as
// Canton's TransactionProcessingSteps does: up to just before the earlier
// acceptance at offset, so that the period includes it (offsets are
// exclusive).
func duplicateDedup(offset int64) ledger.Dedup {
	return ledger.Dedup{Kind: ledger.DedupOffset, Offset: max(offset-1, 0)}
}

// dedupPeriodTooEarly is Canton's rejection of a deduplication offset
// below the pruning offset (CommandDeduplicationError
// .DeduplicationPeriodStartsTooEarlyErrorWithOffset): a definite answer,
// with the earliest offset allowed.
func dedupPeriodTooEarly(earliest int64, submissionID string) *ledgerapi.JsCantonError {
	return ledgerapi.NewError(ledgerapi.CodeInvalidDeduplicationPeriod,
		"Deduplication period starts too early. The error metadata field earliest_offset contains the earliest deduplication offset currently allowed.",
		map[string]string{"earliest_offset": strconv.FormatInt(earliest, 10), "definite_answer": "true"}).
		WithCorrelationID(submissionID)
}

// duplicateCommand is the rejection of a change accepted before at offset.
func duplicateCommand(offset int64, existingSubmissionID, submissionID string) *ledgerapi.JsCantonError {
	return ledgerapi.NewError(ledgerapi.CodeDuplicateCommand,
		"A command with the given command id has already been successfully processed",
		map[string]string{"completion_offset": strconv.FormatInt(offset, 10),
			"existing_submission_id": existingSubmissionID, "definite_answer": "false"}).
		WithCorrelationID(submissionID)
}

// trafficBasis is what the paid traffic cost of an accepted transaction is
// estimated from (engine.EstimateCost): the prepared transaction's size and
// signatures of an execute; zero size means the size of the recorded events
// (ordinary submissions).
type trafficBasis struct {
	size, signatures int
}

// commit writes the outcome as one ledger entry. A rejection, in the
// outcome or found at commit (a duplicate, a passed max record time), is
// committed as a failed completion and returned in the receipt. The error
// is a synchronous failure (in flight, contract not active, storage), for
// which nothing was committed.
func (n *Node) commit(ctx context.Context, out *engine.Outcome, traffic trafficBasis, traceParent string) (*Receipt, error) {
	change := ledger.ChangeIDOf(out.UserID, out.ActAs, out.CommandID)
	if !n.enterFlight(change) {
		return nil, ledgerapi.NewError(ledgerapi.CodeSubmissionAlreadyInFlight,
			"The submission with the same change ID is already being processed",
			map[string]string{"commandId": out.CommandID, "submissionId": out.SubmissionID,
				"actAs": strings.Join(out.ActAs, ","), "userId": out.UserID, "definite_answer": "false"}).
			WithCorrelationID(out.SubmissionID)
	}
	defer n.leaveFlight(change)
	// The outcome must not depend on whether the client waits for it.
	ctx = context.WithoutCancel(ctx)
	entry := ledger.Entry{
		UserID:       out.UserID,
		CommandID:    out.CommandID,
		SubmissionID: out.SubmissionID,
		ActAs:        out.ActAs,
		Dedup:        dedupOf(out.Dedup),
		TraceParent:  traceParent,
	}
	r := &Receipt{out: out, traceParent: traceParent}
	if out.Rejection != nil {
		return n.commitRejection(ctx, r, entry, out.Rejection)
	}
	tx := out.Transaction
	if traffic.size == 0 {
		traffic.size = len(tx.Events)
	}
	entry.PaidTrafficCost = int64(engine.EstimateCost(traffic.size, traffic.signatures, time.Now()).TotalTrafficCostEstimation)
	for i := range tx.Created {
		c := &tx.Created[i]
		c.CreatedJSON = encodeCreated(c, tx.WorkflowID)
		arg, ok := argumentOfCreated(c)
		c.ArgumentInCreated = ok && bytes.Equal(arg, c.ArgumentJSON)
	}
	entry.Transaction = tx
	at, err := n.store.Commit(ctx, entry)
	var dup *ledger.DuplicateCommandError
	var inactive *ledger.ContractNotActiveError
	var tooEarly *ledger.DedupPeriodTooEarlyError
	switch {
	case err == nil:
		r.At, r.cost = at, entry.PaidTrafficCost
		return r, nil
	case errors.As(err, &dup):
		rej := duplicateCommand(dup.CompletionOffset, dup.SubmissionID, out.SubmissionID)
		entry.Transaction, entry.PaidTrafficCost = nil, 0
		entry.Dedup = duplicateDedup(dup.CompletionOffset)
		return n.commitRejection(ctx, r, entry, rej)
	case errors.As(err, &tooEarly):
		rej := dedupPeriodTooEarly(tooEarly.EarliestOffset, out.SubmissionID)
		entry.Transaction, entry.PaidTrafficCost = nil, 0
		return n.commitRejection(ctx, r, entry, rej)
	case errors.As(err, &inactive):
		return nil, engine.ContractNotActive(inactive.ContractID).WithCorrelationID(out.SubmissionID)
	case errors.Is(err, ledger.ErrMaxRecordTimeExceeded):
		rej := engine.MaxRecordTimeExceeded(ledgerapi.NewTimestamp(tx.MaxRecordTime).String()).WithCorrelationID(out.SubmissionID)
		entry.Transaction, entry.PaidTrafficCost = nil, 0
		return n.commitRejection(ctx, r, entry, rej)
	}
	return nil, err
}

// commitRejection writes a failed completion carrying rej's status.
func (n *Node) commitRejection(ctx context.Context, r *Receipt, entry ledger.Entry, rej *ledgerapi.JsCantonError) (*Receipt, error) {
	st := rej.Status()
	details, err := json.Marshal(st.Details)
	if err != nil {
		return nil, err
	}
	entry.Status = ledger.Status{Code: int32(st.Code), Message: st.Message, Details: details}
	at, err := n.store.Commit(ctx, entry)
	if err != nil {
		return nil, err
	}
	r.At, r.Rejection = at, rej
	return r, nil
}

func (n *Node) enterFlight(c ledger.ChangeID) bool {
	n.flightMu.Lock()
	defer n.flightMu.Unlock()
	if n.inFlight[c] {
		return false
	}
	n.inFlight[c] = true
	return true
}

func (n *Node) leaveFlight(c ledger.ChangeID) {
	n.flightMu.Lock()
	delete(n.inFlight, c)
	n.flightMu.Unlock()
}

// dedupOf is the ledger's form of a requested deduplication period.
func dedupOf(p ledgerapi.DeduplicationPeriod) ledger.Dedup {
	switch {
	case p.Duration != nil:
		return ledger.Dedup{Kind: ledger.DedupDuration, Duration: p.Duration.Std()}
	case p.Offset != nil:
		return ledger.Dedup{Kind: ledger.DedupOffset, Offset: *p.Offset}
	}
	return ledger.Dedup{Kind: ledger.DedupDefault}
}
