package server

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// checkPartyCount is INVALID_ARGUMENT when field lists more than
// node.MaxPartiesPerRequest parties.
func checkPartyCount(field string, n int) error {
	if n > node.MaxPartiesPerRequest {
		return ledgerapi.InvalidArgument("%s lists %d parties; this node accepts at most %d in one request", field, n, node.MaxPartiesPerRequest)
	}
	return nil
}

// ---- interactive submission ----

func (s *Server) prepareSubmission(req *Request) (any, error) {
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
	resp, generic, err := s.Node.Prepare(req.Context(), body, userID)
	if err != nil {
		return nil, err
	}
	noteGeneric(req, generic)
	return resp, nil
}

// GenericModelHeader is the response header by which the node says that
// its generic contract model served templates of a command
// (ledgerapi.GenericModelHeader).
const GenericModelHeader = ledgerapi.GenericModelHeader

// noteGeneric sets GenericModelHeader to the templates the generic model
// served, if any.
func noteGeneric(req *Request, templates []string) {
	if len(templates) > 0 && req.W != nil {
		req.W.Header().Set(GenericModelHeader, strings.Join(templates, ", "))
	}
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
	userID, err := req.Caller.UserIDFor(body.UserID)
	if err != nil {
		return nil, err
	}
	// Execute rights for every act_as party the prepared transaction
	// names, as the node reads them, then the view of the answer: both
	// before the node does any work.
	var view transactionView
	authorize := func(actAs []string) (err error) {
		for _, p := range actAs {
			if !req.Caller.CanExecuteAs(p) {
				return permissionDenied("user %q may not execute as party %q", userID, p)
			}
		}
		view, err = s.transactionView(req, format, nil)
		return err
	}
	r, err := s.Node.Execute(req.Context(), body, userID, req.traceParent(), authorize)
	if err != nil {
		return nil, err
	}
	return s.answer(req, r, view, mode)
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
	r, err := s.Node.Submit(req.Context(), cmds, userID, req.traceParent())
	if err != nil {
		return nil, err
	}
	noteGeneric(req, r.Generic())
	return s.answer(req, r, view, mode)
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
	shape ledgerapi.TransactionShape
	// filter is the transaction format's event filter; nil without a
	// format, when the view is the ACS delta of parties.
	filter  *node.EventFilter
	parties []string
}

// transactionView reads a transaction format, checking it as the update
// service checks one (read rights for filtersByParty's parties,
// CanReadAsAnyParty for filtersForAnyParty, interface filters against the
// uploaded packages) before anything is submitted. Without a format the
// view is the ACS delta of defaults (nil: the submitting parties), Canton's
// default of wildcard filters for act_as and read_as.
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
	filter, err := eventFilter(req.Caller, &f.EventFormat, nil, false)
	if err != nil {
		return v, err
	}
	if err := s.Node.ResolveFilter(filter); err != nil {
		return v, err
	}
	v.filter = filter
	return v, nil
}

// ---- answers ----

// answer is what an endpoint answers once its entry is committed. A
// rejection is a failed completion; the ...AndWait endpoints answer it as
// their error, the others with {}.
func (s *Server) answer(req *Request, r *node.Receipt, view transactionView, mode waitMode) (any, error) {
	if mode == answerEmpty {
		return struct{}{}, nil
	}
	if r.Rejection != nil {
		return nil, r.Rejection
	}
	switch mode {
	case answerOffset:
		return ledgerapi.SubmitAndWaitResponse{UpdateID: r.UpdateID(), CompletionOffset: ledgerapi.Int64(r.At.Offset)}, nil
	case answerTree:
		return ledgerapi.SubmitAndWaitForTransactionTreeResponse{TransactionTree: r.Tree()}, nil
	}
	if view.filter != nil {
		t, err := s.Node.TransactionFor(req.Context(), r, view.filter, view.shape)
		if err != nil {
			return nil, err
		}
		return ledgerapi.SubmitAndWaitForTransactionResponse{Transaction: t}, nil
	}
	parties := view.parties
	if len(parties) == 0 {
		parties = r.ActAs()
	}
	return ledgerapi.SubmitAndWaitForTransactionResponse{Transaction: r.Transaction(view.shape, parties)}, nil
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
