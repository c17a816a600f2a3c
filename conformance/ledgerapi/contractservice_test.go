package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// ContractServiceIT.scala: POST /v2/contracts/contract-by-id, on the
// generic model's Dummy.
func TestContractServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	contract := func(t *testing.T, cid string, parties []string) ledgerapi.CreatedEvent {
		t.Helper()
		var resp struct {
			CreatedEvent ledgerapi.CreatedEvent `json:"createdEvent"`
		}
		body := map[string]any{"contractId": cid}
		if parties != nil {
			body["queryingParties"] = parties
		}
		p.ok(t, "POST", "/v2/contracts/contract-by-id", body, &resp)
		return resp.CreatedEvent
	}
	found := func(t *testing.T, parties func(party string) []string) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		c := contract(t, cid, parties(party))
		if c.ContractID != cid {
			t.Errorf("The contract ID should be the same as the created contract, expected: %s and found: %s", cid, c.ContractID)
		}
		if len(c.CreatedEventBlob) == 0 {
			t.Error("The createdEventBlob should be populated but it is empty")
		}
	}

	t.Run("CSNotFound", func(t *testing.T) {
		party, other := p.allocate(t, "party"), p.allocate(t, "other")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		p.mustFail(t, "POST", "/v2/contracts/contract-by-id", map[string]any{"contractId": cid, "queryingParties": []string{other}},
			failure{code: "CONTRACT_PAYLOAD_NOT_FOUND", cause: "Contract payload not found, or not visible.", definite: true})
	})
	t.Run("CSanyParty", func(t *testing.T) { found(t, func(string) []string { return nil }) })
	t.Run("CSforParty", func(t *testing.T) { found(t, func(party string) []string { return []string{party} }) })
}
