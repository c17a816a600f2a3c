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

	// lookup reads the events of cid as ef sees them, and the archived
	// event decoded.
	lookup := func(t *testing.T, cid string, ef ledgerapi.EventFormat) (eventsResponse, *ledgerapi.ArchivedEvent) {
		t.Helper()
		var r eventsResponse
		p.ok(t, "POST", "/v2/events/events-by-contract-id", events(cid, ef), &r)
		if len(r.Archived) == 0 || string(r.Archived) == "null" {
			return r, nil
		}
		var a struct {
			ArchivedEvent *ledgerapi.ArchivedEvent `json:"archivedEvent"`
		}
		if err := json.Unmarshal(r.Archived, &a); err != nil {
			t.Fatalf("archived %s: %v", r.Archived, err)
		}
		return r, a.ArchivedEvent
	}

	t.Run("TXEventsByContractIdBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		acs := p.activeContracts(t, party)
		if len(acs) == 0 {
			t.Fatal("Expected a created event")
		}
		expected := acs[0]
		r, _ := lookup(t, expected.ContractID, ledgerapi.EventFormatOf([]string{party}, nil, nil, false))
		if r.Created == nil {
			t.Fatal("Expected a created event wrapper")
		}
		got, _ := json.Marshal(r.Created.CreatedEvent)
		want, _ := json.Marshal(expected)
		if string(got) != string(want) {
			t.Errorf("Looked up event should match the transaction event\n got: %s\nwant: %s", got, want)
		}
		p.exercise(t, party, dummy, cid, "Archive", nil)
	})

	t.Run("TXEventsByContractIdConsumed", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{
			"commands": p.jsCommands([]string{party}, exerciseCmd(dummy, cid, "DummyChoice1", nil)),
			"transactionFormat": map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false),
				"transactionShape": ledgerapi.TransactionShapeACSDelta}}, &resp)
		var expected *ledgerapi.ArchivedEvent
		for _, ev := range resp.Transaction.Events {
			if ev.Archived != nil {
				expected = ev.Archived
			}
		}
		if expected == nil {
			t.Fatal("Expected an archived event")
		}
		r, archived := lookup(t, cid, ledgerapi.EventFormatOf([]string{party}, nil, nil, false))
		if r.Created == nil {
			t.Error("Expected a create event")
		}
		if archived == nil {
			t.Fatal("Expected a exercise event wrapper")
		}
		got, _ := json.Marshal(archived)
		want, _ := json.Marshal(expected)
		if string(got) != string(want) {
			t.Errorf("Looked up event should match the transaction event\n got: %s\nwant: %s", got, want)
		}
	})

	t.Run("TXEventsByContractIdNotVisible", func(t *testing.T) {
		party, notTheSubmittingParty := p.allocate(t, "party"), p.allocate(t, "other")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		p.mustFail(t, "POST", "/v2/events/events-by-contract-id", events(cid, ledgerapi.EventFormatOf([]string{notTheSubmittingParty}, nil, nil, false)), notFound)
		p.exercise(t, party, dummy, cid, "Archive", nil)
	})

	t.Run("TXEventsByContractIdTransient", func(t *testing.T) {
		party := p.allocate(t, "party")
		tx := p.transaction(t, []string{party}, createAndExerciseCmd(dummy, map[string]any{"operator": party}, "Archive"))
		cid := ""
		for _, ev := range tx.Events {
			if ev.Created != nil {
				cid = ev.Created.ContractID
			}
		}
		if cid == "" {
			t.Fatal("Expected a created event")
		}
		for name, ef := range map[string]ledgerapi.EventFormat{"by party": ledgerapi.EventFormatOf([]string{party}, nil, nil, false),
			"party wildcard": ledgerapi.EventFormatOf(nil, nil, nil, false)} {
			r, archived := lookup(t, cid, ef)
			if r.Created == nil || archived == nil {
				t.Errorf("%s: Expected a created and an archived event: %+v %v", name, r.Created, archived)
			}
		}
	})
}
