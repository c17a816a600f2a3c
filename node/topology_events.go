package node

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Allocating a party is a topology change, and Canton's update stream shows
// it as a TopologyTransaction at an offset of its own (no completion), with
// a ParticipantAuthorizationAdded event naming the party, this participant
// and its permission; readers ask for them with
// includeTopologyEvents.includeParticipantAuthorizationEvents. The node
// records them when Config.TopologyEvents is on (`ledger serve` turns it
// on; --topology-events=false off): completions are then not gap-free from
// 1, the allocations' offsets lie between them, as on Canton.

// recordPartyTopology appends the topology event of a party just allocated
// (when Config.TopologyEvents is on).
func (n *Node) recordPartyTopology(ctx context.Context, party string, permission ledgerapi.ParticipantPermission) error {
	if !n.cfg.TopologyEvents {
		return nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "ledger-serve/topology\x00%s\x00%s\x00%d", party, n.identity.ParticipantID, n.now().UnixNano())
	te := &ledger.TopologyEvent{UpdateID: "1220" + hex.EncodeToString(h.Sum(nil)), Party: party,
		ParticipantID: n.identity.ParticipantID, Permission: string(permission)}
	if _, err := n.store.Commit(ctx, ledger.Entry{Topology: te}); err != nil {
		return fmt.Errorf("record the topology change of party %s: %w", party, err)
	}
	return nil
}

// topologyUpdate is a topology event as the update stream shows it.
func (n *Node) topologyUpdate(te *ledger.TopologyEvent) Update {
	type added struct { // the fields in Canton's order
		PartyID               string `json:"partyId"`
		ParticipantID         string `json:"participantId"`
		ParticipantPermission string `json:"participantPermission"`
	}
	ev, _ := json.Marshal(map[string]map[string]added{"ParticipantAuthorizationAdded": {"value": {
		PartyID: te.Party, ParticipantID: te.ParticipantID, ParticipantPermission: te.Permission}}})
	return Update{Offset: te.Offset, Topology: &ledgerapi.JsTopologyTransaction{
		UpdateID:       te.UpdateID,
		Offset:         ledgerapi.Int64(te.Offset),
		SynchronizerID: n.identity.SynchronizerID,
		RecordTime:     ledgerapi.NewTimestamp(te.RecordTime),
		Events:         ledgerapi.List[ledgerapi.TopologyEvent]{{Event: ev}},
	}}
}

// seesTopology reports whether format asks for te.
func (f *UpdateFormat) seesTopology(te *ledger.TopologyEvent) bool {
	if f.TopologyParties == nil {
		return false
	}
	return len(f.TopologyParties) == 0 || f.TopologyParties[te.Party]
}

// topologyIn reads the topology events of q the format asks for (none
// when it asks for none).
func (n *Node) topologyIn(ctx context.Context, f *UpdateFormat, q ledger.UpdateQuery) ([]ledger.TopologyEvent, error) {
	if f.TopologyParties == nil {
		return nil, nil
	}
	return n.store.TopologyRange(ctx, q)
}
