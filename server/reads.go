package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The read endpoints: the active contract set, the update stream and its
// lookups, the events of a contract, pruning offsets. Rights are checked as
// Canton checks them: read-as for every party of a filter, CanReadAsAnyParty
// for filtersForAnyParty (and for requests naming no party).

// Page sizes of the paged reads: Canton's StateServiceConfig and
// UpdateServiceConfig defaults.
const (
	DefaultACSPageSize     = 2000
	MaxACSPageSize         = 10000
	DefaultUpdatesPageSize = 100
	MaxUpdatesPageSize     = 2000
)

// ---- filters ----

// eventFilter turns an eventFormat (or the deprecated filter and verbose
// pair, which must not come with it) into the node's filter, checking the
// caller's read rights.
func eventFilter(c *Caller, ef *ledgerapi.EventFormat, legacy *ledgerapi.TransactionFilter, verbose bool) (*node.EventFilter, error) {
	if ef != nil && legacy != nil {
		return nil, ledgerapi.InvalidArgument("Both event_format and filter are set. Please use either backwards compatible arguments (filter and verbose) or event_format, but not both.")
	}
	if ef == nil {
		if legacy == nil {
			return nil, ledgerapi.MissingField("event_format")
		}
		ef = &ledgerapi.EventFormat{FiltersByParty: legacy.FiltersByParty, FiltersForAnyParty: legacy.FiltersForAnyParty, Verbose: verbose}
	}
	if len(ef.FiltersByParty) == 0 && ef.FiltersForAnyParty == nil {
		return nil, ledgerapi.InvalidArgument("filtersByParty and filtersForAnyParty cannot be empty simultaneously")
	}
	if err := checkPartyCount("filters_by_party", len(ef.FiltersByParty)); err != nil {
		return nil, err
	}
	f := &node.EventFilter{ByParty: map[string]*node.TemplateSet{}, Verbose: ef.Verbose}
	if ef.FiltersForAnyParty != nil {
		if !c.CanReadAsAnyParty() {
			return nil, permissionDenied("user %q may not read as any party", c.UserID)
		}
		t, err := templateSet(ef.FiltersForAnyParty)
		if err != nil {
			return nil, err
		}
		f.AnyParty = t
	}
	for p, filters := range ef.FiltersByParty {
		if err := ledgerapi.ValidatePartyID("filters_by_party", p); err != nil {
			return nil, ledgerapi.InvalidArgument("%s", fieldReason(err))
		}
		if !c.CanReadAs(p) {
			return nil, permissionDenied("user %q may not read as party %q", c.UserID, p)
		}
		t, err := templateSet(&filters)
		if err != nil {
			return nil, err
		}
		f.ByParty[p] = t
	}
	return f, nil
}

// templateSet reads one Filters: no cumulative filter (or an empty one) is
// the wildcard; an interface filter selects the templates implementing the
// interface, which the node resolves against its packages.
func templateSet(fs *ledgerapi.Filters) (*node.TemplateSet, error) {
	t := &node.TemplateSet{Templates: map[string]bool{}}
	if len(fs.Cumulative) == 0 {
		t.Wildcard = true
	}
	for _, cf := range fs.Cumulative {
		idf := cf.IdentifierFilter
		switch {
		case idf.Wildcard != nil:
			t.Wildcard = true
			t.WildcardBlob = t.WildcardBlob || idf.Wildcard.IncludeCreatedEventBlob
		case idf.Template != nil:
			if _, err := ledgerapi.ParseTemplateID(idf.Template.TemplateID); err != nil {
				return nil, ledgerapi.InvalidField("template_id", fieldReason(err))
			}
			t.Templates[idf.Template.TemplateID] = t.Templates[idf.Template.TemplateID] || idf.Template.IncludeCreatedEventBlob
		case idf.Interface != nil:
			if _, err := ledgerapi.ParseTemplateID(idf.Interface.InterfaceID); err != nil {
				return nil, ledgerapi.InvalidField("interface_id", fieldReason(err))
			}
			t.Interfaces = append(t.Interfaces, node.InterfaceFilter{InterfaceID: idf.Interface.InterfaceID,
				View: idf.Interface.IncludeInterfaceView, Blob: idf.Interface.IncludeCreatedEventBlob})
		default:
			t.Wildcard = true
		}
	}
	return t, nil
}

// updateFormat turns a request's updateFormat (or the deprecated filter
// and verbose pair) into the node's; trees asks for transaction trees.
func updateFormat(c *Caller, uf *ledgerapi.UpdateFormat, legacy *ledgerapi.TransactionFilter, verbose, trees bool) (*node.UpdateFormat, error) {
	if uf != nil && legacy != nil {
		return nil, ledgerapi.InvalidArgument("Both update_format and filter are set. Please use either backwards compatible arguments (filter and verbose) or update_format, but not both.")
	}
	f := &node.UpdateFormat{Shape: ledgerapi.TransactionShapeACSDelta, Trees: trees}
	switch {
	case legacy != nil:
		ef, err := eventFilter(c, nil, legacy, verbose)
		if err != nil {
			return nil, err
		}
		f.Transactions = ef
		if trees {
			f.Shape = ledgerapi.TransactionShapeLedgerEffects
		} else {
			// Canton's default for the filter form: the topology events of
			// the filter's parties (of every party for filtersForAnyParty).
			f.TopologyParties = map[string]bool{}
			if legacy.FiltersForAnyParty == nil {
				for p := range legacy.FiltersByParty {
					f.TopologyParties[p] = true
				}
			}
		}
	case uf == nil:
		return nil, ledgerapi.MissingField("update_format")
	case uf.IncludeTransactions != nil:
		tf := uf.IncludeTransactions
		switch tf.TransactionShape {
		case ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects:
		case "", ledgerapi.TransactionShapeUnspecified:
			return nil, ledgerapi.MissingField("transaction_shape")
		default:
			return nil, ledgerapi.InvalidField("transaction_shape", fmt.Sprintf("%q is not a transaction shape", tf.TransactionShape))
		}
		ef, err := eventFilter(c, &tf.EventFormat, nil, false)
		if err != nil {
			return nil, err
		}
		f.Transactions, f.Shape = ef, tf.TransactionShape
	}
	if uf != nil {
		// Reassignments and topology events: the filters are checked like
		// any other; a one-synchronizer node has no reassignments, and its
		// topology updates are its party allocations (topology_events.go).
		if uf.IncludeReassignments != nil {
			ef, err := eventFilter(c, uf.IncludeReassignments, nil, false)
			if err != nil {
				return nil, err
			}
			f.Reassignments = ef
		}
		if t := uf.IncludeTopologyEvents; t != nil && t.IncludeParticipantAuthorizationEvents != nil && !trees {
			ps := t.IncludeParticipantAuthorizationEvents.Parties
			if len(ps) == 0 && !c.CanReadAsAnyParty() {
				return nil, permissionDenied("user %q may not read as any party", c.UserID)
			}
			parties, err := readableParties(c, "include_topology_events.include_participant_authorization_events.parties", ps)
			if err != nil {
				return nil, err
			}
			f.TopologyParties = map[string]bool{}
			for _, p := range parties {
				f.TopologyParties[p] = true
			}
		}
	}
	return f, nil
}

// transactionFormat is the format of the deprecated transaction lookups:
// the given one, or ACS delta for the requesting parties.
func transactionFormat(c *Caller, tf *ledgerapi.TransactionFormat, parties []string, trees bool) (*node.UpdateFormat, error) {
	if tf != nil && len(parties) > 0 {
		return nil, ledgerapi.InvalidArgument("Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format, but not both.")
	}
	if tf == nil {
		if len(parties) == 0 {
			return nil, ledgerapi.MissingField("requesting_parties")
		}
		byParty := ledgerapi.Map[ledgerapi.Filters]{}
		for _, p := range parties {
			byParty[p] = ledgerapi.Filters{}
		}
		return updateFormat(c, nil, &ledgerapi.TransactionFilter{FiltersByParty: byParty}, true, trees)
	}
	return updateFormat(c, &ledgerapi.UpdateFormat{IncludeTransactions: tf}, nil, false, trees)
}

// ---- active contracts ----

func (s *Server) listActiveContracts(req *Request) (any, error) {
	return s.serveList(req, s.openActiveContracts)
}

func (s *Server) streamActiveContracts(req *Request) (any, error) {
	return s.serveWebsocket(req, s.openActiveContracts)
}

func (s *Server) openActiveContracts(c *Caller, decode func(v any) error) (stream, error) {
	var body ledgerapi.GetActiveContractsRequest
	if err := decode(&body); err != nil {
		return nil, err
	}
	f, err := eventFilter(c, body.EventFormat, body.Filter, body.Verbose)
	if err != nil {
		return nil, err
	}
	at, after := int64(body.ActiveAtOffset), int64(0)
	sum := acsStreamChecksum(&body)
	if body.StreamContinuationToken != "" {
		tokAt, seq, bad, err := s.parseToken("stream_continuation_token", tokenACSStream, sum, body.StreamContinuationToken)
		if err != nil {
			return nil, err
		}
		if bad != "" || tokAt != at {
			return nil, invalidContinuationToken()
		}
		after = seq
	}
	r, err := s.Node.ReadActiveContracts(f, at, after)
	if err != nil {
		return nil, err
	}
	r.PreferEncoded()
	return &acsStream{r: r, sync: s.Node.Identity().SynchronizerID, token: s.tokenPrefix(tokenACSStream, sum)}, nil
}

type acsStream struct {
	r     *node.ACSReader
	sync  string
	token string // the prefix of the contracts' continuation tokens
	buf   []byte
	ahead readAhead[[]node.ActiveContract]
}

func (a *acsStream) close() { a.ahead.wait() }

func (a *acsStream) next(ctx context.Context, max int, add func([]byte) error) (int, <-chan struct{}, bool, error) {
	read := func(max int) func() ([]node.ActiveContract, error) {
		return func() ([]node.ActiveContract, error) { return a.r.Next(ctx, max) }
	}
	cs, err := a.ahead.take(read(max))
	if err != nil {
		return 0, nil, false, err
	}
	if len(cs) == 0 {
		return 0, nil, true, nil
	}
	if rest := max - len(cs); rest > 0 && len(cs) == min(max, node.ReadsPerBatch) {
		a.ahead.start(read(rest)) // a full batch: there is likely more, and room for it
	}
	for i := range cs {
		if a.buf, err = appendActiveContract(a.buf[:0], &cs[i], a.sync, tokenWith(a.token, a.r.At(), cs[i].Seq)); err != nil {
			return 0, nil, false, err
		}
		if err := add(a.buf); err != nil {
			return 0, nil, false, err
		}
	}
	return len(cs), nil, false, nil
}

func appendActiveContract(b []byte, c *node.ActiveContract, sync, token string) ([]byte, error) {
	if c.Encoded != nil {
		out, ok := ledgerapi.AppendActiveContractParts(b, c.Offset, c.Encoded, c.Witnesses, sync, token)
		if !ok {
			return nil, fmt.Errorf("contract at position %d: its stored created event is malformed", c.Seq)
		}
		return out, nil
	}
	return ledgerapi.AppendActiveContract(b, c.WorkflowID, &c.Event, sync, token)
}

// pageSizeOf reads maxPageSize as Canton's FieldValidator.validatePageSize
// does: absent is def; zero, negative or above max is INVALID_ARGUMENT.
func pageSizeOf(v *ledgerapi.Int32, def, max int) (int, error) {
	switch {
	case v == nil:
		return def, nil
	case *v <= 0:
		return 0, ledgerapi.InvalidArgument("Requested page size must be positive, but got %d", *v)
	case int(*v) > max:
		return 0, ledgerapi.InvalidArgument("Requested page size must not exceed %d, but got %d", max, *v)
	}
	return int(*v), nil
}

// activeContractsPage answers POST (and the deprecated GET with a body)
// /v2/state/active-contracts-page: a page of the snapshot at activeAtOffset
// (the ledger end when absent), with the token of the next page when there
// are more.
func (s *Server) activeContractsPage(req *Request) (any, error) {
	var body ledgerapi.GetActiveContractsPageRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if body.EventFormat == nil {
		return nil, ledgerapi.MissingField("event_format")
	}
	f, err := eventFilter(req.Caller, body.EventFormat, nil, false)
	if err != nil {
		return nil, err
	}
	size, err := pageSizeOf(body.MaxPageSize, DefaultACSPageSize, MaxACSPageSize)
	if err != nil {
		return nil, err
	}
	at := s.Node.LedgerEnd()
	if body.ActiveAtOffset != nil {
		at = int64(*body.ActiveAtOffset)
	}
	var after int64
	sum := acsPageChecksum(&body)
	if body.PageToken != "" {
		tokAt, seq, bad, err := s.parseToken("page_token", tokenACSPage, sum, body.PageToken)
		if err != nil {
			return nil, err
		}
		if bad != "" {
			return nil, invalidACSPageToken(bad)
		}
		at, after = tokAt, seq
	}
	r, err := s.Node.ReadActiveContracts(f, at, after)
	if err != nil {
		return nil, err
	}
	// One more than the page, to know whether a next page exists. A read
	// of the node stops early (ReadsPerBatch, or a batch the filter
	// thinned out), so the page is read until it is full or the set ends.
	var cs []node.ActiveContract
	for len(cs) <= size {
		more, err := r.Next(req.Context(), size+1-len(cs))
		if err != nil {
			return nil, err
		}
		if len(more) == 0 {
			break
		}
		cs = append(cs, more...)
	}
	resp := ledgerapi.JsGetActiveContractsPageResponse{ActiveAtOffset: ledgerapi.Int64(at),
		ActiveContracts: make(ledgerapi.List[ledgerapi.JsGetActiveContractsResponse], 0, min(len(cs), size))}
	if len(cs) > size {
		cs = cs[:size]
		resp.NextPageToken = tokenWith(s.tokenPrefix(tokenACSPage, sum), at, cs[size-1].Seq)
	}
	sync := s.Node.Identity().SynchronizerID
	for i := range cs {
		resp.ActiveContracts = append(resp.ActiveContracts, ledgerapi.JsGetActiveContractsResponse{
			WorkflowID: cs[i].WorkflowID,
			ContractEntry: ledgerapi.JsContractEntry{ActiveContract: &ledgerapi.JsActiveContract{
				CreatedEvent: cs[i].Event, SynchronizerID: sync}},
		})
	}
	return resp, nil
}

func (s *Server) getLatestPrunedOffsets(req *Request) (any, error) {
	p := ledgerapi.Int64(s.Node.PrunedUpTo())
	return ledgerapi.GetLatestPrunedOffsetsResponse{ParticipantPrunedUpToInclusive: p, AllDivulgedContractsPrunedUpToInclusive: p}, nil
}

// ---- updates ----

// updatesKind says which of the three update streams a request is.
type updatesKind int

const (
	updatesAll   updatesKind = iota // /v2/updates: updateFormat (or filter)
	updatesFlats                    // /v2/updates/flats: ACS delta transactions
	updatesTrees                    // /v2/updates/trees: transaction trees
)

func (s *Server) listUpdates(req *Request) (any, error) {
	return s.serveList(req, s.updatesOpener(updatesAll))
}
func (s *Server) streamUpdates(req *Request) (any, error) {
	return s.serveWebsocket(req, s.updatesOpener(updatesAll))
}
func (s *Server) listFlats(req *Request) (any, error) {
	return s.serveList(req, s.updatesOpener(updatesFlats))
}
func (s *Server) streamFlats(req *Request) (any, error) {
	return s.serveWebsocket(req, s.updatesOpener(updatesFlats))
}
func (s *Server) listTrees(req *Request) (any, error) {
	return s.serveList(req, s.updatesOpener(updatesTrees))
}
func (s *Server) streamTrees(req *Request) (any, error) {
	return s.serveWebsocket(req, s.updatesOpener(updatesTrees))
}

func (s *Server) updatesOpener(kind updatesKind) streamOpener {
	return func(c *Caller, decode func(v any) error) (stream, error) {
		var body ledgerapi.GetUpdatesRequest
		if err := decode(&body); err != nil {
			return nil, err
		}
		uf := body.UpdateFormat
		if kind == updatesFlats && uf != nil && uf.IncludeTransactions != nil {
			uf.IncludeTransactions.TransactionShape = ledgerapi.TransactionShapeACSDelta
		}
		if kind == updatesTrees && uf != nil && uf.IncludeTransactions != nil {
			uf.IncludeTransactions.TransactionShape = ledgerapi.TransactionShapeLedgerEffects
		}
		f, err := updateFormat(c, uf, body.Filter, body.Verbose, kind == updatesTrees)
		if err != nil {
			return nil, err
		}
		var end int64
		if body.EndInclusive != nil {
			if end = int64(*body.EndInclusive); end <= 0 {
				return nil, node.NonPositiveOffset("end_inclusive", end, "the offset has to be either a positive integer (>0) or not defined at all")
			}
		}
		r, err := s.Node.ReadUpdates(f, int64(body.BeginExclusive), end, body.DescendingOrder)
		if err != nil {
			return nil, err
		}
		if end != 0 || body.DescendingOrder {
			return &updateStream{r: r}, nil
		}
		// Following the ledger: with offset checkpoints, as Canton's
		// tailing streams (checkpoints.go).
		return s.withCheckpoints(&updateStream{r: r}, int64(body.BeginExclusive), r.Cursor, updateCheckpoint), nil
	}
}

type updateStream struct {
	r     *node.UpdateReader
	buf   []byte
	ahead readAhead[updateBatch]
}

// updateBatch is what UpdateReader.Next returned.
type updateBatch struct {
	us      []node.Update
	changed <-chan struct{}
	done    bool
}

func (u *updateStream) close() { u.ahead.wait() }

func (u *updateStream) next(ctx context.Context, max int, add func([]byte) error) (int, <-chan struct{}, bool, error) {
	read := func(max int) func() (updateBatch, error) {
		return func() (updateBatch, error) {
			us, changed, done, err := u.r.Next(ctx, max)
			return updateBatch{us, changed, done}, err
		}
	}
	b, err := u.ahead.take(read(max))
	us, changed, done := b.us, b.changed, b.done
	if err != nil || done {
		return 0, nil, done, err
	}
	if rest := max - len(us); rest > 0 && len(us) == min(max, node.ReadsPerBatch) {
		u.ahead.start(read(rest))
	}
	for i := range us {
		if u.buf, err = appendUpdate(u.buf[:0], &us[i]); err != nil {
			return 0, nil, false, err
		}
		if err := add(u.buf); err != nil {
			return 0, nil, false, err
		}
	}
	return len(us), changed, false, nil
}

func jsUpdate(u *node.Update) ledgerapi.JsGetUpdatesResponse {
	return ledgerapi.JsGetUpdatesResponse{Update: ledgerapi.JsUpdate{Transaction: u.Transaction, TransactionTree: u.Tree,
		TopologyTransaction: u.Topology}}
}

func appendUpdate(b []byte, u *node.Update) ([]byte, error) {
	up := jsUpdate(u)
	return ledgerapi.AppendUpdateResponse(b, &up.Update)
}

// updatesPage answers POST /v2/updates/get-updates-page. Ascending pages
// run from beginOffsetExclusive (the pruning offset when absent) to
// endOffsetInclusive (the ledger end when absent; then the next-page token
// is always given, so a client can tail the ledger with it); descending
// pages run down from the end, to the pruning offset when no begin is given.
func (s *Server) updatesPage(req *Request) (any, error) {
	var body ledgerapi.GetUpdatesPageRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	f, err := updateFormat(req.Caller, body.UpdateFormat, nil, false, false)
	if err != nil {
		return nil, err
	}
	size, err := pageSizeOf(body.MaxPageSize, DefaultUpdatesPageSize, MaxUpdatesPageSize)
	if err != nil {
		return nil, err
	}
	begin := s.Node.PrunedUpTo()
	if body.BeginOffsetExclusive != nil && *body.BeginOffsetExclusive != 0 {
		begin = int64(*body.BeginOffsetExclusive)
	}
	var end int64
	if body.EndOffsetInclusive != nil {
		end = int64(*body.EndOffsetInclusive)
	}
	openEnded := end == 0
	sum := updatesPageChecksum(&body)
	if body.PageToken != "" {
		b, e, bad, err := s.parseToken("page_token", tokenUpdates, sum, body.PageToken)
		if err != nil {
			return nil, err
		}
		if bad != "" {
			return nil, invalidUpdatesPageToken(bad)
		}
		if b < 0 || e < 0 {
			return nil, invalidUpdatesPageToken("bounds")
		}
		begin, end = b, e
	}
	if body.DescendingOrder && (body.BeginOffsetExclusive == nil || *body.BeginOffsetExclusive == 0) {
		// A descending read with no begin of its own stops at the pruning
		// offset as it is when each page is read: pruning between pages
		// ends it there (TXPagedDynamicPruning*Descending).
		if pruned := s.Node.PrunedUpTo(); pruned > begin {
			begin = pruned
		}
	}
	updatesToken := func(begin, end int64) string { return tokenWith(s.tokenPrefix(tokenUpdates, sum), begin, end) }
	if end == 0 {
		end = s.Node.LedgerEnd()
	}
	resp := ledgerapi.JsGetUpdatesPageResponse{Updates: ledgerapi.List[ledgerapi.JsGetUpdateResponse]{},
		LowestPageOffsetExclusive: ledgerapi.Int64(begin), HighestPageOffsetInclusive: ledgerapi.Int64(end)}
	if end <= begin {
		// Nothing to read, but the filter is still checked: an unknown
		// interface fails the same request whatever range it names.
		if err := s.checkPageBounds(begin, end); err != nil {
			return nil, err
		}
		if err := s.Node.ResolveUpdateFormat(f); err != nil {
			return nil, err
		}
		if openEnded && !body.DescendingOrder {
			resp.NextPageToken = updatesToken(begin, 0)
		}
		return resp, nil
	}
	r, err := s.Node.ReadUpdates(f, begin, end, body.DescendingOrder)
	if err != nil {
		return nil, err
	}
	// One update past the page tells whether the page ends the range: a
	// page with nothing after it covers the range to its bound, as
	// Canton's (TXPagedFetchDynamicEnd).
	var got []node.Update
	for len(got) <= size {
		us, _, done, err := r.Next(req.Context(), size+1-len(got))
		if err != nil {
			return nil, err
		}
		got = append(got, us...)
		if done || len(us) == 0 {
			break
		}
	}
	full := len(got) > size
	if full {
		got = got[:size]
	}
	for i := range got {
		resp.Updates = append(resp.Updates, jsUpdate(&got[i]))
	}
	switch {
	case body.DescendingOrder && full:
		low := got[len(got)-1].Offset - 1
		resp.LowestPageOffsetExclusive = ledgerapi.Int64(low)
		if low > begin {
			resp.NextPageToken = updatesToken(begin, low)
		}
	case body.DescendingOrder:
	case full:
		high := got[len(got)-1].Offset
		resp.HighestPageOffsetInclusive = ledgerapi.Int64(high)
		next := end
		if openEnded {
			next = 0
		}
		if high < end || openEnded {
			resp.NextPageToken = updatesToken(high, next)
		}
	case openEnded:
		resp.NextPageToken = updatesToken(end, 0)
	}
	return resp, nil
}

func (s *Server) checkPageBounds(begin, end int64) error {
	if begin < 0 || end < 0 {
		return ledgerapi.InvalidArgument("offsets must not be negative")
	}
	return nil
}

func (s *Server) updateByOffset(req *Request) (any, error) {
	var body ledgerapi.GetUpdateByOffsetRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	f, err := updateFormat(req.Caller, body.UpdateFormat, nil, false, false)
	if err != nil {
		return nil, err
	}
	u, err := s.Node.UpdateByOffset(req.Context(), int64(body.Offset), f)
	if err != nil {
		return nil, err
	}
	return jsUpdate(&u), nil
}

func (s *Server) updateByID(req *Request) (any, error) {
	var body ledgerapi.GetUpdateByIDRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if body.UpdateID == "" {
		return nil, ledgerapi.MissingField("update_id")
	}
	f, err := updateFormat(req.Caller, body.UpdateFormat, nil, false, false)
	if err != nil {
		return nil, err
	}
	u, err := s.Node.UpdateByID(req.Context(), body.UpdateID, f)
	if err != nil {
		return nil, err
	}
	return jsUpdate(&u), nil
}

func (s *Server) transactionByOffset(req *Request) (any, error) {
	var body ledgerapi.GetTransactionByOffsetRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	f, err := transactionFormat(req.Caller, body.TransactionFormat, body.RequestingParties, false)
	if err != nil {
		return nil, err
	}
	u, err := s.Node.UpdateByOffset(req.Context(), int64(body.Offset), f)
	if err != nil {
		return nil, err
	}
	return ledgerapi.JsGetTransactionResponse{Transaction: *u.Transaction}, nil
}

func (s *Server) transactionByID(req *Request) (any, error) {
	var body ledgerapi.GetTransactionByIDRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if body.UpdateID == "" {
		return nil, ledgerapi.MissingField("update_id")
	}
	f, err := transactionFormat(req.Caller, body.TransactionFormat, body.RequestingParties, false)
	if err != nil {
		return nil, err
	}
	u, err := s.Node.UpdateByID(req.Context(), body.UpdateID, f)
	if err != nil {
		return nil, err
	}
	return ledgerapi.JsGetTransactionResponse{Transaction: *u.Transaction}, nil
}

// treeParties reads the parties query parameter of the tree lookups.
func treeParties(r *http.Request) []string { return r.URL.Query()["parties"] }

func (s *Server) transactionTreeByOffset(req *Request) (any, error) {
	off, err := strconv.ParseInt(req.PathValue("offset"), 10, 64)
	if err != nil {
		return nil, &DecodeError{What: "path parameter offset"}
	}
	f, err := transactionFormat(req.Caller, nil, treeParties(req.Request), true)
	if err != nil {
		return nil, err
	}
	u, err := s.Node.UpdateByOffset(req.Context(), off, f)
	if err != nil {
		return nil, err
	}
	return ledgerapi.JsGetTransactionTreeResponse{Transaction: *u.Tree}, nil
}

func (s *Server) transactionTreeByID(req *Request) (any, error) {
	f, err := transactionFormat(req.Caller, nil, treeParties(req.Request), true)
	if err != nil {
		return nil, err
	}
	u, err := s.Node.UpdateByID(req.Context(), req.PathValue("updateID"), f)
	if err != nil {
		return nil, err
	}
	return ledgerapi.JsGetTransactionTreeResponse{Transaction: *u.Tree}, nil
}

// ---- events and contracts ----

func (s *Server) eventsByContractID(req *Request) (any, error) {
	var body ledgerapi.GetEventsByContractIDRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if body.ContractID == "" {
		return nil, ledgerapi.MissingField("contract_id")
	}
	ef := body.EventFormat
	if ef == nil && len(body.RequestingParties) > 0 {
		ef = &ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{}, Verbose: true}
		for _, p := range body.RequestingParties {
			ef.FiltersByParty[p] = ledgerapi.Filters{}
		}
	}
	f, err := eventFilter(req.Caller, ef, nil, false)
	if err != nil {
		return nil, err
	}
	ev, err := s.Node.EventsByContractID(req.Context(), body.ContractID, f)
	if err != nil {
		return nil, err
	}
	sync := s.Node.Identity().SynchronizerID
	resp := ledgerapi.JsGetEventsByContractIDResponse{Created: &ledgerapi.JsCreated{CreatedEvent: *ev.Created, SynchronizerID: sync}}
	if ev.Archived != nil {
		resp.Archived = &ledgerapi.JsArchived{ArchivedEvent: *ev.Archived, SynchronizerID: sync}
	}
	return resp, nil
}

func (s *Server) contractByID(req *Request) (any, error) {
	var body ledgerapi.GetContractRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if body.ContractID == "" {
		return nil, ledgerapi.MissingField("contract_id")
	}
	if len(body.QueryingParties) == 0 && !req.Caller.CanReadAsAnyParty() {
		return nil, permissionDenied("user %q may not read as any party", req.Caller.UserID)
	}
	parties, err := readableParties(req.Caller, "querying_parties", body.QueryingParties)
	if err != nil {
		return nil, err
	}
	ev, err := s.Node.ContractByID(req.Context(), body.ContractID, parties)
	if err != nil {
		return nil, err
	}
	return ledgerapi.GetContractResponse{CreatedEvent: ev}, nil
}

// ---- command completions (3.5.7+) ----

func (s *Server) listCommandCompletions(req *Request) (any, error) {
	return s.listCompletionsWith(req, s.openGetCompletions)
}

func (s *Server) streamCommandCompletions(req *Request) (any, error) {
	return s.streamCompletionsWith(req, s.openGetCompletions)
}

// openGetCompletions starts GetCompletions: every user's completions whose
// submission acted as one of parties; no parties means all of them and
// needs CanReadAsAnyParty.
func (s *Server) openGetCompletions(c *Caller, decode func(v any) error) (*node.CompletionFollower, error) {
	var body ledgerapi.GetCompletionsRequest
	if err := decode(&body); err != nil {
		return nil, err
	}
	if len(body.Parties) == 0 && !c.CanReadAsAnyParty() {
		return nil, permissionDenied("user %q may not read as any party", c.UserID)
	}
	parties, err := readableParties(c, "parties", body.Parties)
	if err != nil {
		return nil, err
	}
	return s.Node.FollowCompletions("", parties, int64(body.BeginExclusive))
}

// readableParties checks the parties of field (at most
// node.MaxPartiesPerRequest, each a party id the caller may read as) and
// returns them without repeats.
func readableParties(c *Caller, field string, ps []string) ([]string, error) {
	if err := checkPartyCount(field, len(ps)); err != nil {
		return nil, err
	}
	var parties []string
	seen := map[string]bool{}
	for _, p := range ps {
		if err := ledgerapi.ValidatePartyID(field, p); err != nil {
			return nil, ledgerapi.InvalidArgument("%s", fieldReason(err))
		}
		if !c.CanReadAs(p) {
			return nil, permissionDenied("user %q may not read as party %q", c.UserID, p)
		}
		if !seen[p] {
			seen[p] = true
			parties = append(parties, p)
		}
	}
	return parties, nil
}
