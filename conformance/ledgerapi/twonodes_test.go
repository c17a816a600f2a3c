package ledgerapi

import (
	"net/url"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// PartyManagementServiceIT's PMGetPartiesIsLocal on two participants:
// two independent `ledger serve` nodes, alice allocated on alpha and bob
// on beta. Each node reports its own party as local and the other's as
// not local or not at all (the nodes share no synchronizer, so the other
// party is unknown to them).
func TestPartyManagementServiceITTwoNodes(t *testing.T) {
	alpha, beta := startParticipant(t, node.Config{}), startParticipant(t, node.Config{})
	t.Run("PMGetPartiesIsLocal", func(t *testing.T) {
		alice, bob := alpha.allocate(t, "alice"), beta.allocate(t, "bob")
		alpha.create(t, alice, dummy, map[string]any{"operator": alice})
		beta.create(t, bob, dummy, map[string]any{"operator": bob})
		idOf := func(p *participant) string {
			var r ledgerapi.GetParticipantIDResponse
			p.ok(t, "GET", "/v2/parties/participant-id", nil, &r)
			return r.ParticipantID
		}
		if a, b := idOf(alpha), idOf(beta); a == b {
			t.Fatalf("both nodes are participant %s", a)
		}
		get := func(p *participant) map[string]ledgerapi.PartyDetails {
			var r ledgerapi.GetPartiesResponse
			p.ok(t, "GET", "/v2/parties/"+url.PathEscape(alice)+"?"+url.Values{"parties": {bob}}.Encode(), nil, &r)
			out := map[string]ledgerapi.PartyDetails{}
			for _, d := range r.PartyDetails {
				out[d.Party] = d
			}
			return out
		}
		onAlpha, onBeta := get(alpha), get(beta)
		if d, ok := onAlpha[alice]; !ok || !d.IsLocal {
			t.Errorf("Missing expected party from first participant: %+v", onAlpha)
		}
		if d, ok := onBeta[bob]; !ok || !d.IsLocal {
			t.Errorf("Missing expected party from second participant: %+v", onBeta)
		}
		if d, ok := onAlpha[bob]; ok && d.IsLocal {
			t.Errorf("Unexpected remote party marked as local found on first participant: %+v", d)
		}
		if d, ok := onBeta[alice]; ok && d.IsLocal {
			t.Errorf("Unexpected remote party marked as local found on second participant: %+v", d)
		}
	})
}
