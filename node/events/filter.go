package events

import (
	"strconv"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Match reports whether party reads the events of a template: the event
// filter of a read request (eventFormat), resolved by the node. A node's
// witnesses in a filtered transaction are its candidate parties (informees
// for ledger effects, stakeholders for the ACS delta) that Match keeps; a
// node with none is left out, as Canton leaves out events no requesting
// party may see.
type Match func(party, templateID, packageName string) bool

// PartiesMatch keeps every template for the listed parties, and every party
// when parties is empty.
func PartiesMatch(parties []string) Match {
	if len(parties) == 0 {
		return func(string, string, string) bool { return true }
	}
	want := make(map[string]bool, len(parties))
	for _, p := range parties {
		want[p] = true
	}
	return func(p, _, _ string) bool { return want[p] }
}

// matching returns the parties of candidates m keeps for node n, sorted as
// candidates are (nil when none).
func matching(candidates []string, n *Node, m Match) []string {
	var out []string
	for _, p := range candidates {
		if m(p, n.TemplateID, n.PackageName) {
			if out == nil {
				out = make([]string, 0, len(candidates))
			}
			out = append(out, p)
		}
	}
	return out
}

// anyMatching reports whether m keeps one of candidates for node n.
func anyMatching(candidates []string, n *Node, m Match) bool {
	for _, p := range candidates {
		if m(p, n.TemplateID, n.PackageName) {
			return true
		}
	}
	return false
}

// TreeMatching is the transaction tree as readers selected by m see it:
// eventsById keyed by node id, each event witnessed by the informees m
// keeps; events with no such witness are left out. CommandID is always
// filled; a reader that did not submit the command gets it blanked by the
// caller.
func (e *Events) TreeMatching(at ledger.Committed, m Match) ledgerapi.TransactionTree {
	byID := ledgerapi.Map[ledgerapi.TreeEvent]{}
	for i := range e.rec.Nodes {
		n := &e.rec.Nodes[i]
		w := matching(n.informees(), n, m)
		if w == nil {
			continue
		}
		var ev ledgerapi.TreeEvent
		if n.Kind == KindCreate {
			ev.Created = e.createdEvent(n, at.Offset, w)
		} else {
			ev.Exercised = e.exercisedEvent(n, at.Offset, w)
		}
		byID[strconv.Itoa(int(n.NodeID))] = ev
	}
	return ledgerapi.TransactionTree{
		UpdateID:       e.rec.UpdateID,
		CommandID:      e.rec.CommandID,
		WorkflowID:     e.rec.WorkflowID,
		EffectiveAt:    e.effectiveAt(),
		Offset:         ledgerapi.Int64(at.Offset),
		EventsByID:     byID,
		SynchronizerID: e.rec.SynchronizerID,
		RecordTime:     ledgerapi.NewTimestamp(at.RecordTime),
	}
}

// TransactionMatching is the transaction in shape as readers selected by m
// see it. Ledger effects: every create and exercise an informee m keeps
// witnesses. ACS delta (also for UNSPECIFIED): a CreatedEvent per contract
// that outlives the transaction and an ArchivedEvent per contract a
// consuming exercise archives, witnessed by the stakeholders m keeps.
// Events no kept party witnesses are left out; the transaction may end up
// with none.
func (e *Events) TransactionMatching(at ledger.Committed, shape ledgerapi.TransactionShape, m Match) ledgerapi.Transaction {
	events := ledgerapi.List[ledgerapi.Event]{}
	for i := range e.rec.Nodes {
		n := &e.rec.Nodes[i]
		if shape == ledgerapi.TransactionShapeLedgerEffects {
			w := matching(n.informees(), n, m)
			if w == nil {
				continue
			}
			// acsDelta: the ACS-delta shape shows the node to these
			// readers, which needs one of them to be a stakeholder (a
			// contract divulged to a reader is in neither its ACS delta
			// nor its active contracts).
			inDelta := anyMatching(n.Stakeholders, n, m)
			if n.Kind == KindCreate {
				ev := e.createdEvent(n, at.Offset, w)
				ev.ACSDelta = ev.ACSDelta && inDelta
				events = append(events, ledgerapi.Event{Created: ev})
			} else {
				ev := e.exercisedEvent(n, at.Offset, w)
				ev.ACSDelta = ev.ACSDelta && inDelta
				events = append(events, ledgerapi.Event{Exercised: ev})
			}
			continue
		}
		if n.Transient || n.Kind != KindCreate && !n.Consuming {
			continue
		}
		w := matching(n.Stakeholders, n, m)
		if w == nil {
			continue
		}
		if n.Kind == KindCreate {
			events = append(events, ledgerapi.Event{Created: e.createdEvent(n, at.Offset, w)})
			continue
		}
		events = append(events, ledgerapi.Event{Archived: archivedEvent(n, at.Offset, w)})
	}
	var ext *string
	if e.rec.ExternalHash != "" {
		h := e.rec.ExternalHash
		ext = &h
	}
	return ledgerapi.Transaction{
		UpdateID:                e.rec.UpdateID,
		CommandID:               e.rec.CommandID,
		WorkflowID:              e.rec.WorkflowID,
		EffectiveAt:             e.effectiveAt(),
		Events:                  events,
		Offset:                  ledgerapi.Int64(at.Offset),
		SynchronizerID:          e.rec.SynchronizerID,
		RecordTime:              ledgerapi.NewTimestamp(at.RecordTime),
		ExternalTransactionHash: ext,
	}
}

func archivedEvent(n *Node, offset int64, w []string) *ledgerapi.ArchivedEvent {
	return &ledgerapi.ArchivedEvent{
		Offset:                ledgerapi.Int64(offset),
		NodeID:                ledgerapi.Int32(n.NodeID),
		ContractID:            n.ContractID,
		TemplateID:            n.TemplateID,
		WitnessParties:        w,
		PackageName:           n.PackageName,
		ImplementedInterfaces: ledgerapi.List[string]{},
	}
}

// Archival is the ArchivedEvent of contractID in this transaction, as
// readers selected by m see it: the consuming exercise that archives it,
// witnessed by the stakeholders m keeps. ok is false when the transaction
// does not archive the contract or no kept party is a stakeholder.
func (e *Events) Archival(at ledger.Committed, contractID string, m Match) (ev *ledgerapi.ArchivedEvent, ok bool) {
	for i := range e.rec.Nodes {
		n := &e.rec.Nodes[i]
		if n.Kind != KindExercise || !n.Consuming || n.ContractID != contractID {
			continue
		}
		w := matching(n.Stakeholders, n, m)
		if w == nil {
			return nil, false
		}
		return archivedEvent(n, at.Offset, w), true
	}
	return nil, false
}

// CreatedNode is where a transaction creates a contract: the node id and the
// create argument as events show it (Daml-LF JSON).
type CreatedNode struct {
	NodeID   int32
	Argument []byte
	Key      []byte // Daml-LF JSON; nil without a key
}

// CreatedNodes maps the id of every contract the transaction creates to its
// create node.
func (e *Events) CreatedNodes() map[string]CreatedNode {
	out := map[string]CreatedNode{}
	for i := range e.rec.Nodes {
		n := &e.rec.Nodes[i]
		if n.Kind == KindCreate {
			out[n.ContractID] = CreatedNode{NodeID: n.NodeID, Argument: n.Argument, Key: n.ContractKey}
		}
	}
	return out
}
