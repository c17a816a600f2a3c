package engine

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

const (
	kindCreate   = "create"
	kindExercise = "exercise"
)

// eventsFormat is the version of the Events encoding.
const eventsFormat = 1

// eventNode is one node of a committed transaction as the engine records it.
type eventNode struct {
	NodeID     int32  `json:"nodeId"`
	Kind       string `json:"kind"`
	ContractID string `json:"contractId"`
	TemplateID string `json:"templateId"`
	// InterfaceID names the interface an exercise went through.
	InterfaceID    string          `json:"interfaceId,omitempty"`
	PackageName    string          `json:"packageName"`
	Argument       json.RawMessage `json:"argument"` // create or choice argument, Daml-LF JSON
	Signatories    []string        `json:"signatories"`
	Stakeholders   []string        `json:"stakeholders"`
	Choice         string          `json:"choice,omitempty"`
	ActingParties  []string        `json:"actingParties,omitempty"`
	Consuming      bool            `json:"consuming,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	LastDescendant int32           `json:"lastDescendant,omitempty"`
	// ContractKey (Daml-LF JSON) and KeyHash are a create's contract key.
	ContractKey json.RawMessage `json:"contractKey,omitempty"`
	KeyHash     []byte          `json:"keyHash,omitempty"`
	// Transient: a create whose contract this transaction also archives, or
	// a consuming exercise on such a contract. Neither is in the ACS delta.
	Transient bool `json:"transient,omitempty"`
	// Witnesses are the parties that see the node: its informees and
	// whoever sees its parent (Canton's disclosure). Set for interpreted
	// transactions; the generic model's nodes are all roots and use their
	// informees.
	Witnesses []string `json:"witnesses,omitempty"`
}

type recordedTx struct {
	Format         int         `json:"format"`
	UpdateID       string      `json:"updateId"`
	CommandID      string      `json:"commandId"`
	WorkflowID     string      `json:"workflowId"`
	SynchronizerID string      `json:"synchronizerId"`
	EffectiveAt    int64       `json:"effectiveAtMicros"`
	ExternalHash   string      `json:"externalTransactionHash,omitempty"` // hex
	Nodes          []eventNode `json:"nodes"`
}

// Events are the events of a committed transaction: the engine's record of
// its nodes, from which the JSON API's transaction tree and flat
// transactions are made once the offset and record time are known. The
// store keeps them as the opaque bytes of Marshal.
type Events struct {
	rec recordedTx
}

// Marshal encodes the events for storage (JSON, versioned).
func (e *Events) Marshal() []byte {
	b, _ := json.Marshal(e.rec) // plain data always marshals
	return b
}

// UnmarshalEvents decodes what Marshal wrote.
func UnmarshalEvents(b []byte) (*Events, error) {
	var rec recordedTx
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("stored transaction events do not decode: %w", err)
	}
	if rec.Format != eventsFormat {
		return nil, fmt.Errorf("stored transaction events have format %d; this build reads %d", rec.Format, eventsFormat)
	}
	return &Events{rec: rec}, nil
}

// UpdateID returns the transaction's update id.
func (e *Events) UpdateID() string { return e.rec.UpdateID }

// informees are the parties that see a node.
func (n *eventNode) informees() []string {
	if n.Witnesses != nil {
		return n.Witnesses
	}
	if n.Kind == kindCreate {
		return n.Stakeholders
	}
	set := map[string]bool{}
	base := n.Signatories
	if n.Consuming {
		base = n.Stakeholders
	}
	for _, p := range base {
		set[p] = true
	}
	for _, p := range n.ActingParties {
		set[p] = true
	}
	return sortedSet(set)
}

// witnesses intersects parties with the filter; an empty filter keeps all.
func witnesses(parties, filter []string) []string {
	if len(filter) == 0 {
		return append([]string{}, parties...)
	}
	want := map[string]bool{}
	for _, p := range filter {
		want[p] = true
	}
	out := []string{}
	for _, p := range parties {
		if want[p] {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func packageIDOf(templateID string) string {
	if t, err := ledgerapi.ParseTemplateID(templateID); err == nil {
		return t.PackageID
	}
	return ""
}

func (e *Events) effectiveAt() ledgerapi.Timestamp {
	return ledgerapi.NewTimestamp(time.UnixMicro(e.rec.EffectiveAt))
}

func (e *Events) createdEvent(n *eventNode, offset int64, w []string) *ledgerapi.CreatedEvent {
	sig := map[string]bool{}
	for _, p := range n.Signatories {
		sig[p] = true
	}
	observers := []string{}
	for _, p := range n.Stakeholders {
		if !sig[p] {
			observers = append(observers, p)
		}
	}
	return &ledgerapi.CreatedEvent{
		Offset:                  ledgerapi.Int64(offset),
		NodeID:                  ledgerapi.Int32(n.NodeID),
		ContractID:              n.ContractID,
		TemplateID:              n.TemplateID,
		ContractKey:             n.ContractKey,
		ContractKeyHash:         n.KeyHash,
		CreateArgument:          n.Argument,
		InterfaceViews:          ledgerapi.List[ledgerapi.InterfaceView]{},
		WitnessParties:          w,
		Signatories:             append([]string{}, n.Signatories...),
		Observers:               observers,
		CreatedAt:               e.effectiveAt(),
		PackageName:             n.PackageName,
		RepresentativePackageID: packageIDOf(n.TemplateID),
		ACSDelta:                !n.Transient,
	}
}

func (e *Events) exercisedEvent(n *eventNode, offset int64, w []string) *ledgerapi.ExercisedEvent {
	var iface *string
	if n.InterfaceID != "" {
		iface = &n.InterfaceID
	}
	return &ledgerapi.ExercisedEvent{
		Offset:                ledgerapi.Int64(offset),
		NodeID:                ledgerapi.Int32(n.NodeID),
		ContractID:            n.ContractID,
		TemplateID:            n.TemplateID,
		InterfaceID:           iface,
		Choice:                n.Choice,
		ChoiceArgument:        n.Argument,
		ActingParties:         append([]string{}, n.ActingParties...),
		Consuming:             n.Consuming,
		WitnessParties:        w,
		LastDescendantNodeID:  ledgerapi.Int32(n.LastDescendant),
		ExerciseResult:        n.Result,
		PackageName:           n.PackageName,
		ImplementedInterfaces: ledgerapi.List[string]{},
		ACSDelta:              n.Consuming && !n.Transient,
	}
}

// Tree is the transaction tree Canton 3.4+ shapes for
// submit-and-wait-for-transaction-tree: eventsById keyed by node id, with
// the witnesses among parties (every informee when parties is empty); events
// no listed party sees are left out. CommandID is always filled; a server
// answering a reader who did not submit the command blanks it. TraceContext
// is left nil for the caller to fill.
func (e *Events) Tree(at ledger.Committed, parties []string) ledgerapi.TransactionTree {
	byID := ledgerapi.Map[ledgerapi.TreeEvent]{}
	for i := range e.rec.Nodes {
		n := &e.rec.Nodes[i]
		w := witnesses(n.informees(), parties)
		if len(w) == 0 {
			continue
		}
		var ev ledgerapi.TreeEvent
		if n.Kind == kindCreate {
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

// Transaction is the transaction in the given shape. ACS delta (also for
// UNSPECIFIED): a CreatedEvent per contract that outlives the transaction
// and an ArchivedEvent per contract a consuming exercise archives, both
// witnessed by the stakeholders among parties. Ledger effects: every create
// and exercise as in Tree. Parties filter as in Tree.
func (e *Events) Transaction(at ledger.Committed, shape ledgerapi.TransactionShape, parties []string) ledgerapi.Transaction {
	events := ledgerapi.List[ledgerapi.Event]{}
	for i := range e.rec.Nodes {
		n := &e.rec.Nodes[i]
		if shape == ledgerapi.TransactionShapeLedgerEffects {
			w := witnesses(n.informees(), parties)
			if len(w) == 0 {
				continue
			}
			if n.Kind == kindCreate {
				events = append(events, ledgerapi.Event{Created: e.createdEvent(n, at.Offset, w)})
			} else {
				events = append(events, ledgerapi.Event{Exercised: e.exercisedEvent(n, at.Offset, w)})
			}
			continue
		}
		if n.Transient {
			continue
		}
		w := witnesses(n.Stakeholders, parties)
		if len(w) == 0 {
			continue
		}
		switch {
		case n.Kind == kindCreate:
			events = append(events, ledgerapi.Event{Created: e.createdEvent(n, at.Offset, w)})
		case n.Consuming:
			events = append(events, ledgerapi.Event{Archived: &ledgerapi.ArchivedEvent{
				Offset:                ledgerapi.Int64(at.Offset),
				NodeID:                ledgerapi.Int32(n.NodeID),
				ContractID:            n.ContractID,
				TemplateID:            n.TemplateID,
				WitnessParties:        w,
				PackageName:           n.PackageName,
				ImplementedInterfaces: ledgerapi.List[string]{},
			}})
		}
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

func newEvents(b *built, updateID, commandID, workflowID, synchronizerID string, effectiveAt time.Time, externalHash *[32]byte) *Events {
	rec := recordedTx{
		Format:         eventsFormat,
		UpdateID:       updateID,
		CommandID:      commandID,
		WorkflowID:     workflowID,
		SynchronizerID: synchronizerID,
		EffectiveAt:    effectiveAt.UnixMicro(),
		Nodes:          b.nodes,
	}
	if externalHash != nil {
		rec.ExternalHash = hex.EncodeToString(externalHash[:])
	}
	return &Events{rec: rec}
}
