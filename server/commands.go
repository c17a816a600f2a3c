package server

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/engine"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/sqlite"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Defaults of CommandOptions fields left at zero.
const (
	// DefaultCompletionsMax is Canton's http-list-max-elements-limit.
	DefaultCompletionsMax = 200
	// DefaultCompletionsWait is Canton's http-list-wait-time: the idle
	// timeout of a completions list when the request gives none.
	DefaultCompletionsWait = 500 * time.Millisecond
	// DefaultMaxStreams caps concurrent completion streams (lists and
	// websockets).
	DefaultMaxStreams = 256
	// MaxPartiesPerRequest bounds the parties one request may list in
	// actAs, readAs, a completions request, a transaction filter or a party
	// lookup (the parties page size). Canton has no such count; the bound
	// keeps one request from costing thousands of lookups.
	MaxPartiesPerRequest = MaxPartiesPageSize
)

// checkPartyCount is INVALID_ARGUMENT when field lists more than
// MaxPartiesPerRequest parties.
func checkPartyCount(field string, n int) error {
	if n > MaxPartiesPerRequest {
		return ledgerapi.InvalidArgument("%s lists %d parties; this node accepts at most %d in one request", field, n, MaxPartiesPerRequest)
	}
	return nil
}

// CommandOptions configure the command and completion endpoints.
type CommandOptions struct {
	// NonconsumingChoices are choice names that do not archive their contract.
	NonconsumingChoices []string
	// PackageNames maps package ids to package names (see engine.Config).
	PackageNames map[string]string
	// CompletionsMax is the most elements a completions list returns; a list
	// that collects more is answered with 413 (DefaultCompletionsMax).
	CompletionsMax int
	// CompletionsWait is the default idle timeout of a completions list
	// (DefaultCompletionsWait).
	CompletionsWait time.Duration
	// MaxDeduplication is the longest deduplication period accepted and the
	// one applied when a request gives none. Zero keeps the value the
	// database holds (7 days on a new node); otherwise Start persists it.
	MaxDeduplication time.Duration
	// TapsMaxPassesLimit is the largest tapsMaxPasses accepted
	// (engine.DefaultTapsMaxPassesLimit).
	TapsMaxPassesLimit int32
	// MaxValueNodes bounds the values the JSON arguments of one request may
	// hold in total (engine.DefaultMaxValueNodes).
	MaxValueNodes int
	// MaxStreams caps concurrent completion streams (DefaultMaxStreams);
	// more get MAXIMUM_NUMBER_OF_STREAMS.
	MaxStreams int
	// Now is the engine's clock (time.Now when nil); for tests.
	Now func() time.Time
}

// commandState is the mutable part of the command endpoints.
type commandState struct {
	mu       sync.Mutex
	inFlight map[ledger.ChangeID]bool

	streamMu sync.Mutex
	streams  int
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

// ConfigureCommands builds the command engine and applies opts. Start calls
// it once before serving; until then the command endpoints answer
// SERVICE_NOT_RUNNING.
func (s *Server) ConfigureCommands(opts CommandOptions) error {
	if opts.CompletionsMax <= 0 {
		opts.CompletionsMax = DefaultCompletionsMax
	}
	if opts.CompletionsWait <= 0 {
		opts.CompletionsWait = DefaultCompletionsWait
	}
	if opts.MaxStreams <= 0 {
		opts.MaxStreams = DefaultMaxStreams
	}
	if opts.MaxDeduplication <= 0 {
		opts.MaxDeduplication = s.Identity.MaxDeduplication
	}
	if opts.MaxDeduplication <= 0 {
		opts.MaxDeduplication = ledger.DefaultMaxDeduplication
	}
	eng, err := engine.New(engine.Config{
		SynchronizerID:      s.Identity.SynchronizerID,
		NonconsumingChoices: opts.NonconsumingChoices,
		PackageNames:        opts.PackageNames,
		TapsMaxPassesLimit:  opts.TapsMaxPassesLimit,
		MaxValueNodes:       opts.MaxValueNodes,
		MaxDeduplication:    opts.MaxDeduplication,
		Now:                 opts.Now,
	}, storeContracts{s.Store}, &partyDirectory{st: s.Store})
	if err != nil {
		return err
	}
	s.Engine, s.Commands = eng, opts
	s.cmds.inFlight = map[ledger.ChangeID]bool{}
	s.cmds.stop = make(chan struct{})
	return nil
}

// StopStreams ends the open completion streams and waits for them; Close
// calls it before the store closes (a websocket is not a request
// http.Server.Shutdown waits for).
func (s *Server) StopStreams() {
	if s.cmds.stop == nil {
		return
	}
	s.cmds.stopOnce.Do(func() { close(s.cmds.stop) })
	s.cmds.wg.Wait()
}

// engine returns the configured engine, or SERVICE_NOT_RUNNING.
func (s *Server) engine() (*engine.Engine, error) {
	if s.Engine == nil {
		return nil, ledgerapi.Errorf(ledgerapi.CodeServiceNotRunning, "The command service is not configured on this node.")
	}
	return s.Engine, nil
}

// storeContracts reads contracts for the engine.
type storeContracts struct{ st *sqlite.Store }

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

// partyDirectory answers the engine's "is this a party" questions. Parties
// are never removed, so a known party is remembered; unknown strings are
// asked again (the party may be allocated later).
type partyDirectory struct {
	st    *sqlite.Store
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

// signingKeys is the engine's KeyLookup over the store.
func (s *Server) signingKeys(ctx context.Context, party string) ([]ed25519.PublicKey, int, error) {
	keys, err := s.Store.SigningKeys(ctx, party)
	if errors.Is(err, ledger.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if len(keys) == 0 {
		return nil, 0, nil
	}
	p, err := s.Store.Party(ctx, party)
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

// ---- interactive submission ----

func (s *Server) prepareSubmission(req *Request) (any, error) {
	eng, err := s.engine()
	if err != nil {
		return nil, err
	}
	var body ledgerapi.PrepareSubmissionRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	userID, err := req.Caller.UserIDFor(body.UserID)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(checkPartyCount("act_as", len(body.ActAs)), checkPartyCount("read_as", len(body.ReadAs))); err != nil {
		return nil, err
	}
	// Preparing needs only read rights: nothing is submitted yet.
	for _, p := range append(append([]string{}, body.ActAs...), body.ReadAs...) {
		if !req.Caller.CanReadAs(p) {
			return nil, permissionDenied("user %q may not read as party %q", userID, p)
		}
	}
	prep, err := eng.Prepare(req.Context(), body, userID)
	if err != nil {
		return nil, err
	}
	return prep.Response(), nil
}

// waitMode says what an endpoint answers once its entry is committed.
type waitMode int

const (
	answerEmpty       waitMode = iota // execute, async/submit: {}
	answerOffset                      // ...AndWait: updateId and completionOffset
	answerTransaction                 // ...AndWaitForTransaction
	answerTree                        // submit-and-wait-for-transaction-tree
)

func (s *Server) executeSubmission(req *Request) (any, error) {
	var body ledgerapi.ExecuteSubmissionRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.execute(req, body, nil, answerEmpty)
}

func (s *Server) executeSubmissionAndWait(req *Request) (any, error) {
	var body ledgerapi.ExecuteSubmissionRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.execute(req, body, nil, answerOffset)
}

func (s *Server) executeSubmissionAndWaitForTransaction(req *Request) (any, error) {
	var body ledgerapi.ExecuteSubmissionAndWaitForTransactionRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.execute(req, body.ExecuteSubmissionRequest, body.TransactionFormat, answerTransaction)
}

func (s *Server) execute(req *Request, body ledgerapi.ExecuteSubmissionRequest, format *ledgerapi.TransactionFormat, mode waitMode) (any, error) {
	eng, err := s.engine()
	if err != nil {
		return nil, err
	}
	userID, err := req.Caller.UserIDFor(body.UserID)
	if err != nil {
		return nil, err
	}
	// Execute rights for every act_as party the prepared transaction names.
	// Bytes that do not decode are left to the engine's error.
	if actAs, ok := preparedActAs(body.PreparedTransaction); ok {
		for _, p := range actAs {
			if !req.Caller.CanExecuteAs(p) {
				return nil, permissionDenied("user %q may not execute as party %q", userID, p)
			}
		}
	}
	view, err := s.transactionView(req, format, nil)
	if err != nil {
		return nil, err
	}
	out, err := eng.Execute(req.Context(), body, userID, s.signingKeys)
	if err != nil {
		out = s.executedBefore(req.Context(), err, body, userID)
		if out == nil {
			return nil, err
		}
	}
	sigs := 0
	for _, ps := range body.PartySignatures.Signatures {
		sigs += len(ps.Signatures)
	}
	return s.commitAndAnswer(req, out, trafficBasis{size: len(body.PreparedTransaction), signatures: sigs}, view, mode)
}

// executedBefore turns the engine's refusal of a prepared transaction that
// was already executed into Canton's answer. The engine finds the earlier
// execution as a conflict: a contract the transaction creates exists, or one
// it uses is archived. Canton checks deduplication before anything else, so
// when the transaction that created or archived that contract is this same
// change (user, act_as, command id) inside the deduplication period, the
// answer is a DUPLICATE_COMMAND rejection. It returns nil when err is
// anything else.
func (s *Server) executedBefore(ctx context.Context, err error, body ledgerapi.ExecuteSubmissionRequest, userID string) *engine.Outcome {
	var e *ledgerapi.JsCantonError
	if !errors.As(err, &e) {
		return nil
	}
	cid, ok := e.Resource("CONTRACT_ID")
	if !ok {
		return nil
	}
	c, err := s.Store.Contract(ctx, cid)
	if err != nil {
		return nil
	}
	pt := &damlpb.PreparedTransaction{}
	if proto.Unmarshal(body.PreparedTransaction, pt) != nil {
		return nil
	}
	si := pt.GetMetadata().GetSubmitterInfo()
	change := ledger.ChangeIDOf(userID, si.GetActAs(), si.GetCommandId())
	window := storeDedup(body.DeduplicationPeriod).Resolve(s.Commands.MaxDeduplication)
	now := time.Now()
	if s.Commands.Now != nil {
		now = s.Commands.Now()
	}
	for _, off := range []int64{c.CreatedOffset, c.ArchivedOffset} {
		if off == 0 {
			continue
		}
		done, err := s.Store.CompletionAt(ctx, off)
		if err != nil || done.UpdateID == "" || ledger.ChangeIDOf(done.UserID, done.ActAs, done.CommandID) != change ||
			!window.Covers(done.Offset, done.RecordTime, now) {
			continue
		}
		subID := body.SubmissionID
		if subID == "" {
			subID = uuid.NewString()
		}
		return &engine.Outcome{
			UserID: userID, CommandID: si.GetCommandId(), SubmissionID: subID,
			ActAs: si.GetActAs(), Dedup: body.DeduplicationPeriod,
			Rejection: duplicateCommand(done.Offset, done.SubmissionID, subID),
		}
	}
	return nil
}

// duplicateCommand is the rejection of a change accepted before at offset.
func duplicateCommand(offset int64, existingSubmissionID, submissionID string) *ledgerapi.JsCantonError {
	return ledgerapi.NewError(ledgerapi.CodeDuplicateCommand,
		"A command with the given command id has already been successfully processed",
		map[string]string{"completion_offset": strconv.FormatInt(offset, 10),
			"existing_submission_id": existingSubmissionID, "definite_answer": "false"}).
		WithCorrelationID(submissionID)
}

// preparedActAs reads metadata.submitter_info.act_as out of a prepared
// transaction's bytes without decoding the rest.
func preparedActAs(b []byte) ([]string, bool) {
	md, ok := protoField(b, 2) // PreparedTransaction.metadata
	if !ok {
		return nil, false
	}
	si, ok := protoField(md, 2) // Metadata.submitter_info
	if !ok {
		return nil, false
	}
	var out []string
	for len(si) > 0 {
		num, typ, n := protowire.ConsumeTag(si)
		if n < 0 {
			return nil, false
		}
		si = si[n:]
		if num == 1 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(si)
			if m < 0 {
				return nil, false
			}
			out = append(out, string(v))
			si = si[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, si)
		if m < 0 {
			return nil, false
		}
		si = si[m:]
	}
	return out, true
}

// protoField returns the last length-delimited field num of a message.
func protoField(b []byte, num protowire.Number) ([]byte, bool) {
	var out []byte
	found := false
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil, false
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil, false
			}
			out, found = v, true
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(n, typ, b)
		if m < 0 {
			return nil, false
		}
		b = b[m:]
	}
	return out, found
}

// ---- command submission ----

func (s *Server) submitAndWait(req *Request) (any, error) {
	var body ledgerapi.Commands
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.submit(req, body, nil, answerOffset)
}

func (s *Server) submitAsync(req *Request) (any, error) {
	var body ledgerapi.Commands
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.submit(req, body, nil, answerEmpty)
}

func (s *Server) submitAndWaitForTransactionTree(req *Request) (any, error) {
	var body ledgerapi.Commands
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.submit(req, body, nil, answerTree)
}

func (s *Server) submitAndWaitForTransaction(req *Request) (any, error) {
	var body ledgerapi.SubmitAndWaitForTransactionRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.submit(req, body.Commands, body.TransactionFormat, answerTransaction)
}

func (s *Server) submit(req *Request, cmds ledgerapi.Commands, format *ledgerapi.TransactionFormat, mode waitMode) (any, error) {
	eng, err := s.engine()
	if err != nil {
		return nil, err
	}
	requested := ""
	if cmds.UserID != nil {
		requested = *cmds.UserID
	}
	userID, err := req.Caller.UserIDFor(requested)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(checkPartyCount("act_as", len(cmds.ActAs)), checkPartyCount("read_as", len(cmds.ReadAs))); err != nil {
		return nil, err
	}
	for _, p := range cmds.ActAs {
		if !req.Caller.CanActAs(p) {
			return nil, permissionDenied("user %q may not act as party %q", userID, p)
		}
	}
	for _, p := range cmds.ReadAs {
		if !req.Caller.CanReadAs(p) {
			return nil, permissionDenied("user %q may not read as party %q", userID, p)
		}
	}
	view, err := s.transactionView(req, format, union(cmds.ActAs, cmds.ReadAs))
	if err != nil {
		return nil, err
	}
	out, err := eng.Submit(req.Context(), cmds, userID)
	if err != nil {
		return nil, err
	}
	return s.commitAndAnswer(req, out, trafficBasis{}, view, mode)
}

func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	seen := map[string]bool{}
	for _, l := range [][]string{a, b} {
		for _, p := range l {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// transactionView is how a ...ForTransaction answer shows the transaction.
type transactionView struct {
	shape    ledgerapi.TransactionShape
	parties  []string // the parties whose view it is
	anyParty bool     // every party's view
}

// transactionView reads a transaction format: filtersByParty names the
// parties (read rights needed), filtersForAnyParty asks for all (needs
// CanReadAsAnyParty). Without a format the view is the ACS delta of
// defaults (nil: the submitting parties).
func (s *Server) transactionView(req *Request, f *ledgerapi.TransactionFormat, defaults []string) (transactionView, error) {
	if f == nil {
		return transactionView{shape: ledgerapi.TransactionShapeACSDelta, parties: defaults}, nil
	}
	v := transactionView{shape: f.TransactionShape}
	switch v.shape {
	case "", ledgerapi.TransactionShapeUnspecified:
		return v, ledgerapi.MissingField("transaction_shape")
	case ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects:
	default:
		return v, ledgerapi.InvalidField("transaction_shape", fmt.Sprintf("%q is not a transaction shape", v.shape))
	}
	ef := f.EventFormat
	if len(ef.FiltersByParty) == 0 && ef.FiltersForAnyParty == nil {
		return v, ledgerapi.InvalidArgument("filtersByParty and filtersForAnyParty cannot be empty simultaneously")
	}
	if ef.FiltersForAnyParty != nil {
		if !req.Caller.CanReadAsAnyParty() {
			return v, permissionDenied("user %q may not read as any party", req.Caller.UserID)
		}
		v.anyParty = true
		return v, nil
	}
	if err := checkPartyCount("filters_by_party", len(ef.FiltersByParty)); err != nil {
		return v, err
	}
	v.parties = []string{}
	for p := range ef.FiltersByParty {
		if err := ledgerapi.ValidatePartyID("filters_by_party", p); err != nil {
			return v, ledgerapi.InvalidArgument("%s", fieldReason(err))
		}
		if !req.Caller.CanReadAs(p) {
			return v, permissionDenied("user %q may not read as party %q", req.Caller.UserID, p)
		}
		v.parties = append(v.parties, p)
	}
	return v, nil
}

// ---- commit ----

// commitAndAnswer commits an outcome and builds the endpoint's answer. A
// rejection (in the outcome or found at commit) is a failed completion; the
// ...AndWait endpoints answer it as their error, the others with {}.
func (s *Server) commitAndAnswer(req *Request, out *engine.Outcome, traffic trafficBasis, view transactionView, mode waitMode) (any, error) {
	tp := req.traceParent()
	at, cost, rejection, err := s.commit(req, out, traffic, tp)
	if err != nil {
		return nil, err
	}
	if mode == answerEmpty {
		return struct{}{}, nil
	}
	if rejection != nil {
		return nil, rejection
	}
	tx := out.Transaction
	trace := traceContext(tp)
	switch mode {
	case answerOffset:
		return ledgerapi.SubmitAndWaitResponse{UpdateID: tx.UpdateID, CompletionOffset: ledgerapi.Int64(at.Offset)}, nil
	case answerTree:
		tree := out.Tree(at)
		tree.TraceContext = trace
		return ledgerapi.SubmitAndWaitForTransactionTreeResponse{TransactionTree: tree}, nil
	}
	var parties []string
	if !view.anyParty {
		parties = view.parties
		if len(parties) == 0 {
			parties = out.ActAs
		}
	}
	t := out.Events.Transaction(at, view.shape, parties)
	t.TraceContext = trace
	t.PaidTrafficCost = ledgerapi.Int64(cost)
	return ledgerapi.SubmitAndWaitForTransactionResponse{Transaction: t}, nil
}

// trafficBasis is what the paid traffic cost of an accepted transaction is
// estimated from (engine.EstimateCost): the prepared transaction's size and
// signatures of an execute; zero size means the size of the stored events
// (ordinary submissions).
type trafficBasis struct {
	size, signatures int
}

// commit writes the outcome as one ledger entry and returns where it
// landed and the traffic cost it recorded. It returns the rejection that
// was committed instead of a transaction, if any, or a synchronous error
// (in flight, contract not active, storage failure), for which nothing was
// committed.
func (s *Server) commit(req *Request, out *engine.Outcome, traffic trafficBasis, traceParent string) (ledger.Committed, int64, *ledgerapi.JsCantonError, error) {
	change := ledger.ChangeIDOf(out.UserID, out.ActAs, out.CommandID)
	if !s.enterFlight(change) {
		return ledger.Committed{}, 0, nil, ledgerapi.NewError(ledgerapi.CodeSubmissionAlreadyInFlight,
			"The submission with the same change ID is already being processed",
			map[string]string{"commandId": out.CommandID, "submissionId": out.SubmissionID,
				"actAs": strings.Join(out.ActAs, ","), "userId": out.UserID, "definite_answer": "false"}).
			WithCorrelationID(out.SubmissionID)
	}
	defer s.leaveFlight(change)
	// The outcome must not depend on whether the client waits for it.
	ctx := context.WithoutCancel(req.Context())
	entry := ledger.Entry{
		UserID:       out.UserID,
		CommandID:    out.CommandID,
		SubmissionID: out.SubmissionID,
		ActAs:        out.ActAs,
		Dedup:        storeDedup(out.Dedup),
		TraceParent:  traceParent,
	}
	if out.Rejection != nil {
		return s.commitRejection(ctx, entry, out.Rejection)
	}
	tx := out.Transaction
	if traffic.size == 0 {
		traffic.size = len(tx.Events)
	}
	entry.PaidTrafficCost = int64(engine.EstimateCost(traffic.size, traffic.signatures, time.Now()).TotalTrafficCostEstimation)
	entry.Transaction = tx
	at, err := s.Store.Commit(ctx, entry)
	var dup *ledger.DuplicateCommandError
	var inactive *ledger.ContractNotActiveError
	switch {
	case err == nil:
		return at, entry.PaidTrafficCost, nil, nil
	case errors.As(err, &dup):
		rej := duplicateCommand(dup.CompletionOffset, dup.SubmissionID, out.SubmissionID)
		entry.Transaction, entry.PaidTrafficCost = nil, 0
		return s.commitRejection(ctx, entry, rej)
	case errors.As(err, &inactive):
		return ledger.Committed{}, 0, nil, engine.ContractNotActive(inactive.ContractID).WithCorrelationID(out.SubmissionID)
	case errors.Is(err, ledger.ErrMaxRecordTimeExceeded):
		rej := engine.MaxRecordTimeExceeded(ledgerapi.NewTimestamp(tx.MaxRecordTime).String()).WithCorrelationID(out.SubmissionID)
		entry.Transaction, entry.PaidTrafficCost = nil, 0
		return s.commitRejection(ctx, entry, rej)
	}
	return ledger.Committed{}, 0, nil, err
}

// commitRejection writes a failed completion carrying rej's status.
func (s *Server) commitRejection(ctx context.Context, entry ledger.Entry, rej *ledgerapi.JsCantonError) (ledger.Committed, int64, *ledgerapi.JsCantonError, error) {
	st := rej.Status()
	details, err := json.Marshal(st.Details)
	if err != nil {
		return ledger.Committed{}, 0, nil, err
	}
	entry.Status = ledger.Status{Code: int32(st.Code), Message: st.Message, Details: details}
	at, err := s.Store.Commit(ctx, entry)
	if err != nil {
		return ledger.Committed{}, 0, nil, err
	}
	return at, 0, rej, nil
}

func (s *Server) enterFlight(c ledger.ChangeID) bool {
	s.cmds.mu.Lock()
	defer s.cmds.mu.Unlock()
	if s.cmds.inFlight[c] {
		return false
	}
	s.cmds.inFlight[c] = true
	return true
}

func (s *Server) leaveFlight(c ledger.ChangeID) {
	s.cmds.mu.Lock()
	delete(s.cmds.inFlight, c)
	s.cmds.mu.Unlock()
}

// storeDedup converts the requested deduplication period.
func storeDedup(p ledgerapi.DeduplicationPeriod) ledger.Dedup {
	switch {
	case p.Duration != nil:
		return ledger.Dedup{Kind: ledger.DedupDuration, Duration: p.Duration.Std()}
	case p.Offset != nil:
		return ledger.Dedup{Kind: ledger.DedupOffset, Offset: *p.Offset}
	}
	return ledger.Dedup{Kind: ledger.DedupDefault}
}

// traceParent is the W3C traceparent the request's work runs under: the
// client's when it sent a valid one, else one made from the request's
// trace id.
func (r *Request) traceParent() string {
	h := strings.TrimSpace(r.Header.Get("traceparent"))
	if parts := strings.Split(h, "-"); len(parts) == 4 && parts[1] == r.TraceID {
		return h
	}
	return "00-" + r.TraceID + "-" + newID() + "-01"
}

func traceContext(traceparent string) *ledgerapi.TraceContext {
	if traceparent == "" {
		return nil
	}
	return &ledgerapi.TraceContext{Traceparent: &traceparent}
}
