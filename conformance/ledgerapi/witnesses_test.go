package ledgerapi

import (
	"encoding/base64"
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// WitnessesIT.scala: the witnesses of a create are its stakeholders; of a
// non-consuming exercise the signatories and the actor; of a consuming one
// every stakeholder and the actor. Charlie, the actor, is no stakeholder:
// it exercises on the contract disclosed to it.
func TestWitnessesIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	tpl := builtTemplate("Witnesses")

	t.Run("RespectDisclosureRules", func(t *testing.T) {
		alice, bob, charlie := p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "charlie")
		all := []string{alice, bob, charlie}
		begin := p.ledgerEnd(t)
		witnesses := p.create(t, alice, tpl, map[string]any{"p_signatory": alice, "p_observer": bob, "p_actor": charlie})
		end := p.ledgerEnd(t)
		var els []struct {
			Update ledgerapi.JsUpdate `json:"update"`
		}
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": begin, "endInclusive": end,
			"updateFormat": map[string]any{"includeTransactions": map[string]any{
				"eventFormat":      ledgerapi.EventFormatOf(all, []string{tpl}, nil, true),
				"transactionShape": ledgerapi.TransactionShapeLedgerEffects}}}, &els)
		var txs []*ledgerapi.Transaction
		for _, el := range els {
			if el.Update.Transaction != nil {
				txs = append(txs, el.Update.Transaction)
			}
		}
		if len(txs) != 1 {
			t.Fatalf("%d transactions for Witnesses, want one", len(txs))
		}
		if len(txs[0].Events) != 1 || txs[0].Events[0].Created == nil {
			t.Fatalf("the creating transaction has events %+v, want a single CreatedEvent", txs[0].Events)
		}
		created := txs[0].Events[0].Created
		checkWitnesses(t, "the CreatedEvent", created.WitnessParties, alice, bob)
		disclosed := []any{map[string]any{"templateId": created.TemplateID, "contractId": created.ContractID,
			"createdEventBlob": base64.StdEncoding.EncodeToString(created.CreatedEventBlob), "synchronizerId": ""}}

		exercise := func(choice string) ledgerapi.Transaction {
			t.Helper()
			cmds := p.jsCommands([]string{charlie}, exerciseCmd(tpl, witnesses, choice, nil))
			cmds["disclosedContracts"] = disclosed
			var resp struct {
				Transaction ledgerapi.Transaction `json:"transaction"`
			}
			p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{"commands": cmds,
				"transactionFormat": map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{charlie}, nil, nil, false),
					"transactionShape": ledgerapi.TransactionShapeLedgerEffects}}, &resp)
			// Read back as all three see it.
			var byID struct {
				Transaction ledgerapi.Transaction `json:"transaction"`
			}
			p.ok(t, "POST", "/v2/updates/transaction-by-id", map[string]any{"updateId": resp.Transaction.UpdateID,
				"transactionFormat": map[string]any{"eventFormat": ledgerapi.EventFormatOf(all, nil, nil, false),
					"transactionShape": ledgerapi.TransactionShapeLedgerEffects}}, &byID)
			return byID.Transaction
		}
		for _, c := range []struct {
			choice string
			want   []string
		}{
			{"WitnessesNonConsumingChoice", []string{alice, charlie}},
			{"WitnessesChoice", []string{alice, bob, charlie}},
		} {
			tx := exercise(c.choice)
			if len(tx.Events) != 1 || tx.Events[0].Exercised == nil {
				t.Fatalf("%s: events %+v, want a single ExercisedEvent", c.choice, tx.Events)
			}
			checkWitnesses(t, c.choice, tx.Events[0].Exercised.WitnessParties, c.want...)
		}
	})
}

func checkWitnesses(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if !slices.Equal(g, w) {
		t.Errorf("witnesses of %s: %v, want %v", what, g, w)
	}
}
