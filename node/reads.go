package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/engine"
	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/node/ledger"
)

// The read side: the active contract set at an offset, the update stream,
// single updates by offset and id, the events of a contract, and pruning.
// Offsets and node ids are those the commits gave (a transaction's node ids
// are its nodes' ids, 0, 1, … in pre-order); a read that starts at or below
// the pruning offset is PARTICIPANT_PRUNED_DATA_ACCESSED, as Canton's
// QueryValidRange answers it.

// ReadsPerBatch is the most elements one reader Next returns.
const ReadsPerBatch = 500

// PrunedUpTo is the offset the ledger is pruned up to, inclusive (0: never).
func (n *Node) PrunedUpTo() int64 { return n.store.PrunedUpTo() }

func offsetField(v int64) string { return strconv.FormatInt(v, 10) }

// prunedError is Canton's PARTICIPANT_PRUNED_DATA_ACCESSED with the
// earliest_offset context key.
func prunedError(cause string, pruned int64) error {
	return ledgerapi.NewError(ledgerapi.CodeParticipantPrunedDataAccessed, cause,
		map[string]string{"earliest_offset": offsetField(pruned)})
}

// checkOffset is the validation of an offset field against the ledger end
// (Canton's "<kind> offset (n) is after ledger end (m)").
func (n *Node) checkOffset(kind, field string, offset int64) error {
	if offset < 0 {
		return ledgerapi.NewError(ledgerapi.CodeNegativeOffset,
			fmt.Sprintf("Offset %d in %s is a negative integer: the offset in %s field has to be a non-negative integer (>=0)", offset, field, field),
			map[string]string{"field_name": field, "offset_value": offsetField(offset)})
	}
	if end := n.store.LedgerEnd(); offset > end {
		return ledgerapi.NewError(ledgerapi.CodeOffsetAfterLedgerEnd,
			fmt.Sprintf("%s offset (%d) is after ledger end (%d)", kind, offset, end),
			map[string]string{"offset_value": offsetField(offset), "ledger_end": offsetField(end)})
	}
	return nil
}

// ---- active contracts ----

// ActiveContract is one element of the active contract set.
type ActiveContract struct {
	Seq        int64 // position in the snapshot, for continuation tokens
	WorkflowID string
	Event      ledgerapi.CreatedEvent
	// Encoded, for a reader that prefers it, is the element encoded ahead
	// (ledgerapi.EncodeActiveContractParts) in place of WorkflowID and
	// Event: created at Offset, read by Witnesses, without a blob.
	Encoded   []byte
	Offset    int64
	Witnesses []string
}

// ACSReader reads the active contract set at one offset, page by page.
type ACSReader struct {
	n      *Node
	filter *EventFilter
	q      ledger.ACSQuery
	blobs  bool
	views  bool
	obs    observerCache
	// encoded: Next returns contracts encoded ahead where it can; full:
	// the last page had contracts without, so read the next one whole.
	encoded, full bool
	byTemplate    bool // the filter needs each contract's template
}

// ReadActiveContracts starts reading the contracts active at offset at
// that filter selects, after the contract at position afterSeq (0: from the
// start). at must lie between the pruning offset and the ledger end; at 0
// the set is empty.
func (n *Node) ReadActiveContracts(filter *EventFilter, at, afterSeq int64) (*ACSReader, error) {
	if err := n.checkOffset("", "active_at_offset", at); err != nil && at < 0 {
		return nil, err
	}
	if err := filter.resolve(n.Packages(), n.cfg.StrictPackages); err != nil {
		return nil, err
	}
	// After the filter's identifiers, as Canton's IndexServiceImpl checks
	// them: OFFSET_AFTER_LEDGER_END.
	if err := n.checkOffset("active_at_offset", "active_at_offset", at); err != nil {
		return nil, err
	}
	if p := n.store.PrunedUpTo(); at < p {
		return nil, prunedError(fmt.Sprintf("Active contracts request at offset %d precedes pruned offset %d", at, p), p)
	}
	r := &ACSReader{n: n, filter: filter, q: ledger.ACSQuery{At: at, AfterSeq: afterSeq, TemplateIDs: filter.templatePushdown()}}
	r.blobs, r.views, r.byTemplate = filter.wantsBlobs(), filter.wantsViews(), filter.byTemplate()
	return r, nil
}

// At is the snapshot's offset.
func (r *ACSReader) At() int64 { return r.q.At }

// PreferEncoded lets Next return contracts whose created event the node
// encoded when it committed them as ActiveContract.Encoded (no Event): a
// reader that writes the elements as JSON splices them in, and the store
// reads a few columns of them instead of every one.
func (r *ACSReader) PreferEncoded() { r.encoded = true }

// encodedOf is c's created event encoded ahead, if it has one of the
// current format and the reader may use it.
func (r *ACSReader) encodedOf(c *ledger.Contract, blob bool) []byte {
	if !r.useEncoded() || blob || len(c.CreatedJSON) == 0 || c.CreatedJSON[0] != createdJSONFormat {
		return nil
	}
	return c.CreatedJSON[1:]
}

// useEncoded reports whether the reader takes contracts encoded ahead:
// when it prefers them and nothing reader-dependent beyond the witnesses
// is asked for (blobs, interface views).
func (r *ACSReader) useEncoded() bool { return r.encoded && !r.blobs && !r.views }

// Next returns the next active contracts: at most max, and at most one
// read of ReadsPerBatch (more reads only while the filter leaves a read
// empty); none means the set is exhausted.
func (r *ACSReader) Next(ctx context.Context, max int) ([]ActiveContract, error) {
	if r.q.At == 0 {
		return nil, nil
	}
	r.refresh()
	out := make([]ActiveContract, 0, min(max, ReadsPerBatch))
	for len(out) == 0 {
		q := r.q
		q.Limit = min(max-len(out), ReadsPerBatch)
		q.Encoded, q.ByTemplate = r.useEncoded() && !r.full, r.byTemplate
		cs, err := r.n.store.ActiveContracts(ctx, q, r.blobs)
		if err != nil {
			return nil, err
		}
		if r.useEncoded() {
			// Contracts committed before the node encoded them need the
			// full read; a full page with none of them ends it.
			all := true
			for i := range cs {
				all = all && r.encodedOf(&cs[i], false) != nil
			}
			if q.Encoded && !all {
				r.full = true
				continue
			}
			r.full = !all
		}
		if p := r.n.store.PrunedUpTo(); r.q.At < p {
			return nil, prunedError(fmt.Sprintf("Active contracts request at offset %d precedes pruned offset %d", r.q.At, p), p)
		}
		for i := range cs {
			c := &cs[i]
			r.q.AfterSeq = c.Seq
			w, blob := r.witnesses(c)
			if w == nil {
				continue
			}
			if enc := r.encodedOf(c, blob); enc != nil {
				out = append(out, ActiveContract{Seq: c.Seq, Encoded: enc, Offset: c.CreatedOffset, Witnesses: w})
				continue
			}
			ev, err := r.n.createdEvent(c, w, blob, &r.obs)
			if err != nil {
				return nil, err
			}
			if r.views {
				if err := r.n.addViews(ctx, r.filter, &ev); err != nil {
					return nil, err
				}
			}
			out = append(out, ActiveContract{Seq: c.Seq, WorkflowID: c.WorkflowID, Event: ev})
		}
		if len(cs) < q.Limit {
			break
		}
	}
	return out, nil
}

// refresh resolves the interface filters again when packages were uploaded
// since the last read.
func (r *ACSReader) refresh() {
	if set := r.n.Packages(); r.filter.packages != set && r.filter.hasInterfaces() && r.filter.resolve(set, r.n.cfg.StrictPackages) == nil {
		r.q.TemplateIDs = r.filter.templatePushdown()
	}
}

// witnesses are the stakeholders of c the filter reads c for, and whether
// any of them wants the blob.
func (r *ACSReader) witnesses(c *ledger.Contract) (w []string, blob bool) {
	for _, p := range c.Stakeholders {
		ok, b := r.filter.matches(p, c.TemplateID, c.PackageName)
		if ok {
			w = append(w, p)
			blob = blob || b
		}
	}
	return w, blob
}

func (f *EventFilter) wantsBlobs() bool {
	want := func(t *TemplateSet) bool {
		if t == nil {
			return false
		}
		if t.Wildcard && t.WildcardBlob {
			return true
		}
		for _, b := range t.Templates {
			if b {
				return true
			}
		}
		for _, i := range t.Interfaces {
			if i.Blob {
				return true
			}
		}
		return false
	}
	if want(f.AnyParty) {
		return true
	}
	for _, t := range f.ByParty {
		if want(t) {
			return true
		}
	}
	return false
}

// observerCache remembers the observers of the last signatory and
// stakeholder lists: contracts of a big set share them.
type observerCache struct {
	sigs, stks []string
	observers  []string
}

func (o *observerCache) of(sigs, stks []string) []string {
	if len(sigs) > 0 && len(stks) > 0 && len(o.sigs) > 0 && len(o.stks) > 0 &&
		&o.sigs[0] == &sigs[0] && &o.stks[0] == &stks[0] && len(o.sigs) == len(sigs) && len(o.stks) == len(stks) {
		return o.observers
	}
	isSig := make(map[string]bool, len(sigs))
	for _, p := range sigs {
		isSig[p] = true
	}
	obs := make([]string, 0, len(stks))
	for _, p := range stks {
		if !isSig[p] {
			obs = append(obs, p)
		}
	}
	o.sigs, o.stks, o.observers = sigs, stks, obs
	return obs
}

// createdEvent is a stored contract's CreatedEvent as the ACS, the events
// of a contract and contract-by-id show it: created at its creation offset
// and node, witnessed by w, with its blob when asked.
func (n *Node) createdEvent(c *ledger.Contract, w []string, blob bool, obs *observerCache) (ledgerapi.CreatedEvent, error) {
	arg := c.ArgumentJSON
	if arg == nil {
		arg, _ = argumentOfCreated(c)
	}
	nodeID, key := c.NodeID, c.KeyJSON
	if arg == nil || len(c.KeyHash) > 0 && key == nil { // stored before schema version 2, or 7 for a key
		cn, err := n.createdNodeOf(c)
		if err != nil {
			return ledgerapi.CreatedEvent{}, err
		}
		arg, nodeID, key = cn.Argument, cn.NodeID, cn.Key
	}
	ev := createdEventOf(c, arg, nodeID, w, obs)
	if len(c.KeyHash) > 0 {
		ev.ContractKey, ev.ContractKeyHash = key, c.KeyHash
	}
	if blob {
		b, err := n.engine.CreatedEventBlob(c)
		if err != nil {
			return ledgerapi.CreatedEvent{}, fmt.Errorf("created event blob of %s: %w", c.ContractID, err)
		}
		ev.CreatedEventBlob = b
	}
	return ev, nil
}

// createdJSONFormat is the first byte of a Contract.CreatedJSON the node
// writes: the version of createdEventOf it encodes, so that contracts
// encoded by an earlier one are read whole and shown as it shows them now.
// Contracts stored without argument_json (ledger.Contract.ArgumentInCreated)
// have their argument only here: a new format must keep it readable for
// argumentOfCreated in the contracts stored with this one.
const createdJSONFormat = '1'

// encodeCreated is c's element of the active contract set encoded ahead,
// with the created event createdEvent shows less the reader's fields, for
// the store to keep with the contract (Contract.CreatedJSON); nil when c
// has no JSON argument or it does not encode (then reads take the
// contract whole, and fail as they would). workflowID is the creating
// transaction's.
func encodeCreated(c *ledger.Contract, workflowID string) []byte {
	if c.ArgumentJSON == nil || len(c.KeyHash) > 0 && c.KeyJSON == nil {
		return nil
	}
	var obs observerCache
	ev := createdEventOf(c, c.ArgumentJSON, c.NodeID, nil, &obs)
	if len(c.KeyHash) > 0 {
		ev.ContractKey, ev.ContractKeyHash = c.KeyJSON, c.KeyHash
	}
	ev.Offset, ev.ACSDelta = 0, false
	parts, err := ledgerapi.EncodeActiveContractParts(workflowID, &ev)
	if err != nil {
		return nil
	}
	return append([]byte{createdJSONFormat}, parts...)
}

// argumentOfCreated is the JSON argument held in c.CreatedJSON, for a
// contract stored without its own (ledger.Contract.ArgumentInCreated);
// false when c has no key-less created event of the current format.
func argumentOfCreated(c *ledger.Contract) (json.RawMessage, bool) {
	if len(c.KeyHash) > 0 || len(c.CreatedJSON) == 0 || c.CreatedJSON[0] != createdJSONFormat {
		return nil, false
	}
	return ledgerapi.ActiveContractPartsArgument(c.CreatedJSON[1:])
}

// createdEventOf is createdEvent without the blob, for a contract whose
// JSON argument and create node id are known.
func createdEventOf(c *ledger.Contract, arg []byte, nodeID int32, w []string, obs *observerCache) ledgerapi.CreatedEvent {
	return ledgerapi.CreatedEvent{
		Offset:                  ledgerapi.Int64(c.CreatedOffset),
		NodeID:                  ledgerapi.Int32(nodeID),
		ContractID:              c.ContractID,
		TemplateID:              c.TemplateID,
		ContractKeyHash:         ledgerapi.Bytes{},
		CreateArgument:          arg,
		CreatedEventBlob:        ledgerapi.Bytes{},
		InterfaceViews:          ledgerapi.List[ledgerapi.InterfaceView]{},
		WitnessParties:          w,
		Signatories:             c.Signatories,
		Observers:               obs.of(c.Signatories, c.Stakeholders),
		CreatedAt:               ledgerapi.NewTimestamp(c.CreatedAt),
		PackageName:             c.PackageName,
		RepresentativePackageID: packageIDOf(c.TemplateID),
		ACSDelta:                true,
	}
}

// createdNodeOf finds a contract's create node in its creating transaction,
// for contracts stored before the contracts table kept it.
func (n *Node) createdNodeOf(c *ledger.Contract) (events.CreatedNode, error) {
	u, err := n.store.UpdateAt(context.Background(), c.CreatedOffset)
	if err == nil {
		ev, err := events.Unmarshal(u.Events)
		if err != nil {
			return events.CreatedNode{}, err
		}
		if cn, ok := ev.CreatedNodes()[c.ContractID]; ok {
			return cn, nil
		}
	}
	v, err := engine.UnmarshalValue(c.Argument)
	if err != nil {
		return events.CreatedNode{}, err
	}
	arg, err := generic.ValueToJSON(v)
	return events.CreatedNode{Argument: arg}, err
}

func packageIDOf(templateID string) string {
	if t, err := ledgerapi.ParseTemplateID(templateID); err == nil {
		return t.PackageID
	}
	return ""
}

// ---- updates ----

// UpdateFormat says what an update read returns: transactions in a shape
// for the filter's parties (nil: none), or trees (the deprecated
// /v2/updates/trees and transaction-tree lookups).
type UpdateFormat struct {
	Transactions *EventFilter
	Shape        ledgerapi.TransactionShape
	Trees        bool
	// TopologyParties asks for the topology events of these parties (an
	// empty map: of every party; nil: none).
	TopologyParties map[string]bool
	// Reassignments is the filter of reassignments (nil: none). A node of
	// one synchronizer has none; its interface filters are checked as
	// Canton checks them.
	Reassignments *EventFilter
}

// Update is one element of an update read: a transaction or a tree.
type Update struct {
	Offset      int64
	Transaction *ledgerapi.Transaction
	Tree        *ledgerapi.TransactionTree
	Topology    *ledgerapi.JsTopologyTransaction
}

// view renders u in format, or reports that the reader sees none of it.
func (n *Node) view(ctx context.Context, u *ledger.Update, f *UpdateFormat, strs *events.Strings) (Update, bool, error) {
	if f.Transactions == nil {
		return Update{}, false, nil
	}
	ev, err := events.UnmarshalShared(u.Events, strs)
	if err != nil {
		return Update{}, false, fmt.Errorf("update at offset %d: %w", u.Offset, err)
	}
	at := ledger.Committed{Offset: u.Offset, RecordTime: u.RecordTime}
	m := f.Transactions.Match()
	submitter := f.Transactions.sees(u.ActAs)
	trace := traceContext(u.TraceParent)
	if f.Trees {
		t := ev.TreeMatching(at, m)
		if len(t.EventsByID) == 0 {
			return Update{}, false, nil
		}
		if !submitter {
			t.CommandID = ""
		}
		t.TraceContext = trace
		if err := n.projectTree(ctx, f.Transactions, &t); err != nil {
			return Update{}, false, err
		}
		return Update{Offset: u.Offset, Tree: &t}, true, nil
	}
	t := ev.TransactionMatching(at, f.Shape, m)
	if len(t.Events) == 0 {
		return Update{}, false, nil
	}
	if submitter {
		t.PaidTrafficCost = ledgerapi.Int64(u.PaidTrafficCost)
	} else {
		t.CommandID = ""
	}
	t.TraceContext = trace
	if err := n.projectEvents(ctx, f.Transactions, t.Events); err != nil {
		return Update{}, false, err
	}
	return Update{Offset: u.Offset, Transaction: &t}, true, nil
}

// UpdateReader reads the updates of one request in offset order.
type UpdateReader struct {
	n       *Node
	strs    events.Strings // strings repeating across the updates read
	format  *UpdateFormat
	cursor  int64 // ascending: last offset read; descending: next offset bound (exclusive upper)
	through int64 // 0: open-ended
	begin   int64
	desc    bool
	done    bool
}

// ReadUpdates starts reading the updates in (begin, end] (end 0: without
// end, following the ledger) in format, descending when desc (which needs
// an end). begin must be at or above the pruning offset and neither bound
// after the ledger end.
func (n *Node) ReadUpdates(format *UpdateFormat, begin, end int64, desc bool) (*UpdateReader, error) {
	if err := n.checkOffset("Begin", "begin_exclusive", begin); err != nil {
		return nil, err
	}
	if end != 0 {
		if err := n.checkOffset("End", "end_inclusive", end); err != nil {
			return nil, err
		}
		if end < begin { // Canton's IndexServiceImpl.between
			return nil, ledgerapi.Errorf(ledgerapi.CodeOffsetOutOfRange, "End offset %d is before begin offset %d.", end, begin)
		}
	} else if desc {
		return nil, ledgerapi.Errorf(CodeDescendingOrderMissingEnd, "end_inclusive is not provided when descending_order is true")
	}
	if err := n.checkRange(begin, end); err != nil {
		return nil, err
	}
	if err := format.resolve(n.Packages(), n.cfg.StrictPackages); err != nil {
		return nil, err
	}
	r := &UpdateReader{n: n, format: format, cursor: begin, through: end, begin: begin, desc: desc}
	if desc {
		r.cursor = end + 1
	}
	return r, nil
}

// checkRange refuses a read of updates that starts below the pruning
// offset, in the words of Canton 3.5's UpdateReader (which checks the range
// first). An empty range (end at or before begin) reads nothing, so it is
// answered empty even in pruned space, as Canton does.
func (n *Node) checkRange(begin, end int64) error {
	if p := n.store.PrunedUpTo(); begin < p && (end == 0 || end > begin) {
		shown := end
		if shown == 0 {
			shown = n.store.LedgerEnd()
		}
		return prunedError(fmt.Sprintf("Transactions request from %d to %d precedes pruned offset %d", begin+1, shown, p), p)
	}
	return nil
}

// Next returns the next updates the reader sees: at most max, and at most
// one read of ReadsPerBatch (more reads only while the format leaves a read
// empty). done reports the range exhausted (never for an open-ended read);
// with no updates and not done, wait on changed.
func (r *UpdateReader) Next(ctx context.Context, max int) (us []Update, changed <-chan struct{}, done bool, err error) {
	if r.done {
		return nil, nil, true, nil
	}
	st := r.n.store
	changed = st.Changed()
	end := st.LedgerEnd()
	_ = r.format.resolve(r.n.Packages(), r.n.cfg.StrictPackages) // packages uploaded since: checked at the start, cannot fail now
	for len(us) == 0 {
		q := ledger.UpdateQuery{After: r.cursor, Through: r.through, Limit: min(max-len(us), ReadsPerBatch), ForView: true}
		if r.desc {
			q = ledger.UpdateQuery{After: r.begin, Through: r.cursor - 1, Descending: true, Limit: q.Limit, ForView: true}
		}
		// Through 0 is the open end of an ascending read; a descending
		// one that has walked down to offset 0 has nothing left.
		if q.Through == 0 && !r.desc || q.Through > end {
			q.Through = end
		}
		if !r.desc && q.After >= q.Through || r.desc && q.Through <= q.After {
			break
		}
		window, complete, err := r.window(ctx, q, max-len(us))
		if err != nil {
			return nil, nil, false, err
		}
		if err := r.n.checkRange(r.begin, r.through); err != nil {
			return nil, nil, false, err
		}
		us = append(us, window.us...)
		r.cursor = window.bound
		if complete {
			break
		}
	}
	if r.desc && r.cursor <= r.begin+1 || !r.desc && r.through != 0 && r.cursor >= r.through {
		r.done = true
	}
	return us, changed, r.done && len(us) == 0, nil
}

// updateWindow is what one read of the reader covers: the updates seen,
// and the offset the window reaches (ascending: the highest it covers;
// descending: the lowest).
type updateWindow struct {
	us    []Update
	bound int64
}

// window reads the transactions of q and the topology events among them
// the format asks for, merged in offset order, at most room of them seen.
// complete reports that the window reached the end of q.
func (r *UpdateReader) window(ctx context.Context, q ledger.UpdateQuery, room int) (updateWindow, bool, error) {
	rows, err := r.n.store.UpdateRange(ctx, q)
	if err != nil {
		return updateWindow{}, false, err
	}
	complete := len(rows) < q.Limit
	var w updateWindow
	switch {
	case r.desc && complete:
		w.bound = q.After + 1
	case complete:
		w.bound = q.Through
	default:
		w.bound = rows[len(rows)-1].Offset
	}
	// The topology events inside the window: (After, bound] ascending,
	// [bound, Through] descending.
	tq := ledger.UpdateQuery{After: q.After, Through: w.bound, Limit: q.Limit}
	if r.desc {
		tq = ledger.UpdateQuery{After: w.bound - 1, Through: q.Through, Descending: true, Limit: q.Limit}
	}
	topo, err := r.n.topologyIn(ctx, r.format, tq)
	if err != nil {
		return updateWindow{}, false, err
	}
	if len(topo) == q.Limit { // many topology events: the window ends at the last one read
		w.bound, complete = topo[len(topo)-1].Offset, false
	}
	before := func(a, b int64) bool { return a < b != r.desc }
	inWindow := func(off int64) bool { return off == w.bound || before(off, w.bound) }
	i, j := 0, 0
	for i < len(rows) || j < len(topo) {
		var u Update
		var ok bool
		var off int64
		if j >= len(topo) || i < len(rows) && before(rows[i].Offset, topo[j].Offset) {
			off = rows[i].Offset
			if !inWindow(off) {
				break
			}
			if u, ok, err = r.n.view(ctx, &rows[i], r.format, &r.strs); err != nil {
				return updateWindow{}, false, err
			}
			i++
		} else {
			off = topo[j].Offset
			if !inWindow(off) {
				break
			}
			ok = r.format.seesTopology(&topo[j])
			if ok {
				u = r.n.topologyUpdate(&topo[j])
			}
			j++
		}
		if ok {
			w.us = append(w.us, u)
			if len(w.us) == room && (i < len(rows) || j < len(topo)) {
				w.bound, complete = off, false // full: the rest is read again next time
				break
			}
		}
	}
	return w, complete, nil
}

// Cursor is the offset up to which the reader has read (ascending).
func (r *UpdateReader) Cursor() int64 { return r.cursor }

// UpdateByOffset is the update at offset in format; not found (also when
// the reader sees nothing of it) is Canton's UPDATE_NOT_FOUND.
func (n *Node) UpdateByOffset(ctx context.Context, offset int64, f *UpdateFormat) (Update, error) {
	if offset <= 0 {
		return Update{}, NonPositiveOffset("offset", offset, "the offset has to be a positive integer (>0)")
	}
	if err := f.resolve(n.Packages(), n.cfg.StrictPackages); err != nil {
		return Update{}, err
	}
	if offset <= n.store.PrunedUpTo() {
		// Pruned is gone: Canton's lookup finds nothing (ParticipantPruningIT
		// PRPruneByOffset wants UPDATE_NOT_FOUND, not PARTICIPANT_PRUNED_DATA_ACCESSED).
		return n.oneUpdate(ctx, ledger.Update{}, ledger.ErrNotFound, f, "OFFSET", offsetField(offset))
	}
	u, err := n.store.UpdateAt(ctx, offset)
	if errors.Is(err, ledger.ErrNotFound) && f.TopologyParties != nil {
		if te, terr := n.store.TopologyEventAt(ctx, offset); terr == nil && f.seesTopology(&te) {
			return n.topologyUpdate(&te), nil
		}
	}
	return n.oneUpdate(ctx, u, err, f, "OFFSET", offsetField(offset))
}

// UpdateByID is the update with this id in format.
func (n *Node) UpdateByID(ctx context.Context, updateID string, f *UpdateFormat) (Update, error) {
	if err := f.resolve(n.Packages(), n.cfg.StrictPackages); err != nil {
		return Update{}, err
	}
	u, err := n.store.UpdateWithID(ctx, updateID)
	if errors.Is(err, ledger.ErrNotFound) && f.TopologyParties != nil {
		if te, terr := n.store.TopologyEventWithID(ctx, updateID); terr == nil && f.seesTopology(&te) {
			return n.topologyUpdate(&te), nil
		}
	}
	return n.oneUpdate(ctx, u, err, f, "UPDATE_ID", updateID)
}

func (n *Node) oneUpdate(ctx context.Context, u ledger.Update, err error, f *UpdateFormat, resource, value string) (Update, error) {
	notFound := func() error {
		return ledgerapi.Errorf(CodeUpdateNotFound, "Update not found, or not visible.").WithResource(resource, value)
	}
	if errors.Is(err, ledger.ErrNotFound) {
		return Update{}, notFound()
	}
	if err != nil {
		return Update{}, err
	}
	v, ok, err := n.view(ctx, &u, f, nil)
	if err != nil {
		return Update{}, err
	}
	if !ok {
		return Update{}, notFound()
	}
	return v, nil
}

// NonPositiveOffset is Canton's NON_POSITIVE_OFFSET for field.
func NonPositiveOffset(field string, offset int64, message string) error {
	return ledgerapi.NewError(ledgerapi.CodeNonPositiveOffset,
		fmt.Sprintf("Offset %d in %s is not a positive integer: %s", offset, field, message),
		map[string]string{"field_name": field, "offset_value": offsetField(offset)})
}

// Errors of the read requests (Canton's RequestValidationErrors).
var (
	CodeDescendingOrderMissingEnd = ledgerapi.ErrorCode{ID: "DESCENDING_ORDER_MISSING_END", Category: 8}
)

// CodeUpdateNotFound is Canton's error for a lookup of an update the
// reader cannot see (RequestValidationErrors.NotFound.Update).
var CodeUpdateNotFound = ledgerapi.ErrorCode{ID: "UPDATE_NOT_FOUND", Category: 11}

// CodeContractEventsNotFound is Canton's error when events-by-contract-id
// finds nothing the reader may see.
var CodeContractEventsNotFound = ledgerapi.ErrorCode{ID: "CONTRACT_EVENTS_NOT_FOUND", Category: 11}

// CodeContractPayloadNotFound is Canton's error when contract-by-id finds
// nothing the querying parties may see.
var CodeContractPayloadNotFound = ledgerapi.ErrorCode{ID: "CONTRACT_PAYLOAD_NOT_FOUND", Category: 11}

// ---- events and contracts ----

// ContractEvents are the created and archived events of one contract.
type ContractEvents struct {
	Created  *ledgerapi.CreatedEvent
	Archived *ledgerapi.ArchivedEvent
}

// EventsByContractID returns the created event of the contract and, when
// it is archived, its archived event, as filter's parties see them (ACS
// delta shape: witnesses are the stakeholders the filter reads). A contract
// unknown, pruned or invisible is CONTRACT_EVENTS_NOT_FOUND.
func (n *Node) EventsByContractID(ctx context.Context, contractID string, filter *EventFilter) (ContractEvents, error) {
	notFound := ledgerapi.Errorf(CodeContractEventsNotFound, "Contract events not found, or not visible.").
		WithResource("CONTRACT_ID", contractID)
	if err := filter.resolve(n.Packages(), n.cfg.StrictPackages); err != nil {
		return ContractEvents{}, err
	}
	c, err := n.store.ContractByID(ctx, contractID)
	if errors.Is(err, ledger.ErrNotFound) {
		return ContractEvents{}, notFound
	}
	if err != nil {
		return ContractEvents{}, err
	}
	r := ACSReader{filter: filter}
	w, blob := r.witnesses(&c)
	if w == nil {
		return ContractEvents{}, notFound
	}
	var obs observerCache
	created, err := n.createdEvent(&c, w, blob, &obs)
	if err != nil {
		return ContractEvents{}, err
	}
	if err := n.addViews(ctx, filter, &created); err != nil {
		return ContractEvents{}, err
	}
	out := ContractEvents{Created: &created}
	if c.ArchivedOffset != 0 {
		u, err := n.store.UpdateAt(ctx, c.ArchivedOffset)
		if err != nil {
			return ContractEvents{}, fmt.Errorf("archival of %s: %w", contractID, err)
		}
		ev, err := events.Unmarshal(u.Events)
		if err != nil {
			return ContractEvents{}, err
		}
		if a, ok := ev.Archival(ledger.Committed{Offset: u.Offset, RecordTime: u.RecordTime}, contractID, filter.Match()); ok {
			a.ImplementedInterfaces = implemented(filter, a.WitnessParties, a.TemplateID)
			out.Archived = a
		}
	}
	return out, nil
}

// ContractByID is the created event of a contract, active or archived, for
// contract-by-id: witnesses are the querying parties among its stakeholders
// (every stakeholder when none are given). As Canton's ApiContractService
// fills it: offset 1 and node id 0 (placeholders the API says not to use),
// the created event blob, no interface views, acsDelta false. Not found or
// not visible is CONTRACT_PAYLOAD_NOT_FOUND.
func (n *Node) ContractByID(ctx context.Context, contractID string, parties []string) (ledgerapi.CreatedEvent, error) {
	notFound := ledgerapi.Errorf(CodeContractPayloadNotFound, "Contract payload not found, or not visible.").
		WithResource("CONTRACT_ID", contractID)
	c, err := n.store.ContractByID(ctx, contractID)
	if errors.Is(err, ledger.ErrNotFound) {
		return ledgerapi.CreatedEvent{}, notFound
	}
	if err != nil {
		return ledgerapi.CreatedEvent{}, err
	}
	filter := WildcardFilter(parties...)
	if len(parties) == 0 {
		filter = &EventFilter{AnyParty: &TemplateSet{Wildcard: true}}
	}
	r := ACSReader{filter: filter}
	w, _ := r.witnesses(&c)
	if w == nil {
		return ledgerapi.CreatedEvent{}, notFound
	}
	var obs observerCache
	ev, err := n.createdEvent(&c, w, true, &obs)
	if err != nil {
		return ledgerapi.CreatedEvent{}, err
	}
	ev.Offset, ev.NodeID, ev.ACSDelta = 1, 0, false
	return ev, nil
}

// ---- pruning ----

// CodeParticipantPruningInProgress is Canton's error for a second prune.
var CodeParticipantPruningInProgress = ledgerapi.ErrorCode{ID: "PARTICIPANT_PRUNING_IN_PROGRESS", Category: 9}

// Prune removes the ledger's history at or below upTo, keeping the
// contracts still active (see Store.Prune); reads below upTo are refused
// from the moment it starts. upTo must be positive and before the ledger
// end.
func (n *Node) Prune(ctx context.Context, upTo int64, progress func(ledger.PruneProgress)) error {
	if upTo == 0 {
		return ledgerapi.InvalidArgument("prune_up_to not specified or zero")
	}
	if upTo < 0 {
		return NonPositiveOffset("prune_up_to", upTo, "the offset has to be a positive integer (>0)")
	}
	// Canton's ApiParticipantPruningService refuses an offset at or past
	// the ledger end with OFFSET_OUT_OF_RANGE, a category no retry cures: a
	// prune past the end is a mistake, not a read that waits for the ledger
	// to grow.
	if end := n.store.LedgerEnd(); upTo >= end {
		return ledgerapi.NewError(ledgerapi.CodeOffsetOutOfRange,
			fmt.Sprintf("prune_up_to needs to be before ledger end %d", end),
			map[string]string{"offset_value": offsetField(upTo), "ledger_end": offsetField(end)})
	}
	err := n.store.Prune(ctx, upTo, 0, progress)
	if errors.Is(err, ledger.ErrPruneInProgress) {
		return ledgerapi.Errorf(CodeParticipantPruningInProgress, "Pruning in progress. Please try later.")
	}
	if err == nil {
		n.log.Info("pruned", "upTo", upTo)
	}
	return err
}

// OffsetBefore is the last offset recorded before t (0: none).
func (n *Node) OffsetBefore(ctx context.Context, t time.Time) (int64, error) {
	return n.store.OffsetBefore(ctx, t)
}
