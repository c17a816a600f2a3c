package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceOutputsIT.scala: what the node answers for Daml values
// it built. TXVerbosity and TXNonVerboseNoTrailingNones are GrpcOnly (the
// JSON API always writes labels).
func TestTransactionServiceOutputsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())

	// The record without its trailing None, as the Scala suite expects:
	// Canton's JSON codec drops trailing nulls (removeTrailingNonesInRecords).
	t.Run("TXUnitAsArgumentToNothing", func(t *testing.T) {
		party := p.allocate(t, "party")
		tx := p.transaction(t, []string{party}, createCmd(builtTemplate("NothingArgument"), map[string]any{"operator": party}))
		created := createdEvents(tx)
		if len(created) != 1 {
			t.Fatalf("%d created events, want 1", len(created))
		}
		sameJSON(t, "UnitAsArgumentToNothing", created[0].CreateArgument, map[string]any{"operator": party})
	})

	// No trailing None in the active contract's arguments, its interface
	// view, the choice argument or the choice's result.
	t.Run("TXVerboseNoTrailingNones", func(t *testing.T) {
		party := p.allocate(t, "party")
		tpl, iface := builtTemplate("TrailingNones"), builtTemplate("TrailingNonesIface")
		cid := p.create(t, party, tpl, map[string]any{"owner": party, "nonOpt": "some", "opt": nil})
		var els []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t),
			"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{tpl}, []string{iface}, false)}, &els)
		if len(els) != 1 || els[0].ContractEntry.ActiveContract == nil {
			t.Fatalf("%d active contracts, want only one", len(els))
		}
		created := els[0].ContractEntry.ActiveContract.CreatedEvent
		sameJSON(t, "create arguments without trailing None", created.CreateArgument, map[string]any{"owner": party, "nonOpt": "some"})
		if len(created.InterfaceViews) != 1 {
			t.Fatalf("%d interface views, want one", len(created.InterfaceViews))
		}
		sameJSON(t, "interface view", created.InterfaceViews[0].ViewValue, map[string]any{"nonOpt": "some"})
		ex := exercisedEvents(p.exercise(t, party, tpl, cid, "ExerciseChoice", map[string]any{"nonOptArg": "populated field", "optArg": nil}))
		if len(ex) != 1 {
			t.Fatalf("%d exercised events, want one", len(ex))
		}
		sameJSON(t, "exercise argument", ex[0].ChoiceArgument, map[string]any{"nonOptArg": "populated field"})
		sameJSON(t, "exercise result", ex[0].ExerciseResult, map[string]any{"field1": "populated field"})
	})
}
