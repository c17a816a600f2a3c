package ledgerapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// EventQueryServiceIT.scala.
func TestEventQueryServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	notFound := failure{code: "CONTRACT_EVENTS_NOT_FOUND", cause: "Contract events not found, or not visible", definite: true}
	events := func(cid string, ef ledgerapi.EventFormat) map[string]any {
		return map[string]any{"contractId": cid, "eventFormat": ef}
	}
	type eventsResponse struct {
		Created *struct {
			CreatedEvent ledgerapi.CreatedEvent `json:"createdEvent"`
		} `json:"created"`
		Archived json.RawMessage `json:"archived"`
	}

	t.Run("TXEventsByContractIdNotExistent", func(t *testing.T) {
		party := p.allocate(t, "party")
		nonExistent := strings.Repeat("00", 32) + "0001"
		p.mustFail(t, "POST", "/v2/events/events-by-contract-id", events(nonExistent, ledgerapi.EventFormatOf([]string{party}, nil, nil, false)), notFound)
	})

	t.Run("TXEventsByContractIdFilterCombinations", func(t *testing.T) {
		party, notTheSubmittingParty := p.allocate(t, "party"), p.allocate(t, "other")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		acs := p.activeContracts(t, party)
		if len(acs) == 0 {
			t.Fatal("Expected a created event")
		}
		expected := acs[0]
		check := func(name string, ef ledgerapi.EventFormat) {
			t.Helper()
			var r eventsResponse
			p.ok(t, "POST", "/v2/events/events-by-contract-id", events(expected.ContractID, ef), &r)
			if r.Created == nil || r.Created.CreatedEvent.ContractID != expected.ContractID || string(r.Created.CreatedEvent.CreateArgument) != string(expected.CreateArgument) {
				t.Errorf("%s: created %+v, want the transaction's event %+v", name, r.Created, expected)
			}
			if len(r.Archived) != 0 && string(r.Archived) != "null" {
				t.Errorf("%s: archived %s, want none", name, r.Archived)
			}
		}
		check("wildcardPartiesResult", ledgerapi.EventFormatOf(nil, nil, nil, false))
		check("templateFiltersResult", ledgerapi.EventFormatOf([]string{party}, []string{dummy}, nil, false))
		p.mustFail(t, "POST", "/v2/events/events-by-contract-id", events(expected.ContractID,
			ledgerapi.EventFormatOf([]string{notTheSubmittingParty}, []string{dummy}, nil, false)), notFound)
		p.mustFail(t, "POST", "/v2/events/events-by-contract-id", events(expected.ContractID,
			ledgerapi.EventFormatOf([]string{party}, []string{"#model-tests:Test:Agreement"}, nil, false)), notFound)
		p.exercise(t, party, dummy, cid, "Archive", nil)
	})
}
