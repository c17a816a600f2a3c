// Package events is the node's record of committed transactions and their
// read encodings. The engine records the nodes of a transaction it accepts
// (New); the store keeps them as opaque bytes (Marshal, Unmarshal); the
// reads make the JSON API's transaction trees, flat and ledger-effects
// transactions and archived events from them once the commit has given
// the transaction an offset and record time, filtered by the parties and
// templates a reader selects (Match).
package events

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// The kinds of recorded nodes (Node.Kind). Fetch, query-by-key and
// rollback nodes make no event and are not recorded.
const (
	KindCreate   = "create"
	KindExercise = "exercise"
)

// eventsFormat is the version of the Events encoding.
const eventsFormat = 1

// Node is one node of a committed transaction as the engine records it.
type Node struct {
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
	Format         int    `json:"format"`
	UpdateID       string `json:"updateId"`
	CommandID      string `json:"commandId"`
	WorkflowID     string `json:"workflowId"`
	SynchronizerID string `json:"synchronizerId"`
	EffectiveAt    int64  `json:"effectiveAtMicros"`
	ExternalHash   string `json:"externalTransactionHash,omitempty"` // hex
	Nodes          []Node `json:"nodes"`
}

// Events are the events of a committed transaction: the engine's record of
// its nodes, from which the JSON API's transaction tree and flat
// transactions are made once the offset and record time are known. The
// store keeps them as the opaque bytes of Marshal.
type Events struct {
	rec  recordedTx
	strs *Strings // of UnmarshalShared, for the package ids
}

// Marshal encodes the events for storage (JSON, versioned).
func (e *Events) Marshal() []byte {
	b, _ := json.Marshal(e.rec) // plain data always marshals
	return b
}

// Unmarshal decodes what Marshal wrote.
func Unmarshal(b []byte) (*Events, error) {
	return UnmarshalShared(b, nil)
}

// UnmarshalShared is Unmarshal sharing repeating strings with
// the transactions decoded before through strs (nil: none).
func UnmarshalShared(b []byte, strs *Strings) (*Events, error) {
	var rec recordedTx
	if !fastUnmarshalEvents(b, &rec, strs) {
		rec = recordedTx{}
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("stored transaction events do not decode: %w", err)
		}
	}
	if rec.Format != eventsFormat {
		return nil, fmt.Errorf("stored transaction events have format %d; this build reads %d", rec.Format, eventsFormat)
	}
	return &Events{rec: rec, strs: strs}, nil
}

// UpdateID returns the transaction's update id.
func (e *Events) UpdateID() string { return e.rec.UpdateID }

// informees are the parties that see a node.
func (n *Node) informees() []string {
	if n.Witnesses != nil {
		return n.Witnesses
	}
	if n.Kind == KindCreate {
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

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
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

// observersOf are the stakeholders that are not signatories. The lists
// are a few parties long: a scan costs less than a set.
func observersOf(signatories, stakeholders []string) []string {
	observers := []string{}
	for _, p := range stakeholders {
		if !slices.Contains(signatories, p) {
			observers = append(observers, p)
		}
	}
	return observers
}

func (e *Events) createdEvent(n *Node, offset int64, w []string) *ledgerapi.CreatedEvent {
	observers := observersOf(n.Signatories, n.Stakeholders)
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
		RepresentativePackageID: e.strs.packageID(n.TemplateID),
		ACSDelta:                !n.Transient,
	}
}

func (e *Events) exercisedEvent(n *Node, offset int64, w []string) *ledgerapi.ExercisedEvent {
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
// submit-and-wait-for-transaction-tree: TreeMatching with the witnesses
// among parties (every informee when parties is empty). TraceContext is
// left nil for the caller to fill.
func (e *Events) Tree(at ledger.Committed, parties []string) ledgerapi.TransactionTree {
	return e.TreeMatching(at, PartiesMatch(parties))
}

// Transaction is the transaction in the given shape (TransactionMatching)
// as parties see it, every party when parties is empty.
func (e *Events) Transaction(at ledger.Committed, shape ledgerapi.TransactionShape, parties []string) ledgerapi.Transaction {
	return e.TransactionMatching(at, shape, PartiesMatch(parties))
}

// New records the nodes of a transaction the engine accepted (pre-order,
// index = node id) under its update and command ids; externalHash is the
// hash an external party signed (nil for an ordinary submission).
func New(nodes []Node, updateID, commandID, workflowID, synchronizerID string, effectiveAt time.Time, externalHash *[32]byte) *Events {
	rec := recordedTx{
		Format:         eventsFormat,
		UpdateID:       updateID,
		CommandID:      commandID,
		WorkflowID:     workflowID,
		SynchronizerID: synchronizerID,
		EffectiveAt:    effectiveAt.UnixMicro(),
		Nodes:          nodes,
	}
	if externalHash != nil {
		rec.ExternalHash = hex.EncodeToString(externalHash[:])
	}
	return &Events{rec: rec}
}
