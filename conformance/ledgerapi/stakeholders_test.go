package ledgerapi

import (
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceStakeholdersIT.scala. The test tool's CallablePayout
// and WithObservers are Ping (the initiator the signatory, the responder
// an observer); its Dummy is the generic model's.
func TestTransactionServiceStakeholdersIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))
	ad, le := ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects

	created := func(txs []ledgerapi.JsUpdate) []ledgerapi.CreatedEvent {
		var out []ledgerapi.CreatedEvent
		for _, u := range txs {
			for _, ev := range u.Transaction.Events {
				if ev.Created != nil {
					out = append(out, *ev.Created)
				}
			}
		}
		return out
	}
	// byTemplate is the test tool's transactionsByTemplateId.
	byTemplate := func(t *testing.T, party, template string) int {
		t.Helper()
		var els []struct {
			Update ledgerapi.JsUpdate `json:"update"`
		}
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": 0, "updateFormat": map[string]any{
			"includeTransactions": map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{template}, nil, false),
				"transactionShape": ad}}}, &els)
		n := 0
		for _, el := range els {
			if el.Update.Transaction != nil {
				n++
			}
		}
		return n
	}

	t.Run("TXStakeholders", func(t *testing.T) {
		receiver, giver := p.allocate(t, "receiver"), p.allocate(t, "giver")
		p.create(t, giver, pingTemplate, pingArgs(giver, receiver))
		cs := created(p.updates(t, giver, 0, nil, ad))
		if len(cs) != 1 {
			t.Fatalf("Stakeholders: %d created events", len(cs))
		}
		if !slices.Equal(cs[0].Signatories, []string{giver}) {
			t.Errorf("Signatories %v, want [%s]", cs[0].Signatories, giver)
		}
		if !slices.Equal(cs[0].Observers, []string{receiver}) {
			t.Errorf("Observers %v, want [%s]", cs[0].Observers, receiver)
		}
	})

	// Ping has one observer, so the overlap is the signatory as its own
	// responder: no observer is left.
	t.Run("TXnoSignatoryObservers", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		p.create(t, alice, pingTemplate, pingArgs(alice, alice))
		for _, shape := range []ledgerapi.TransactionShape{ad, le} {
			cs := created(p.updates(t, alice, 0, nil, shape))
			if len(cs) != 1 || len(cs[0].Observers) != 0 {
				t.Errorf("%s: Expected observers without the signatory, but received %+v", shape, cs)
			}
		}
	})

	t.Run("TXTransientObservableSubmitter", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			createAndExerciseCmd(dummy, map[string]any{"operator": party}, "Archive")), nil)
		if txs := p.updates(t, party, 0, nil, ad); len(txs) != 0 {
			t.Errorf("Expected no flat transaction, but received %d", len(txs))
		}
		if n := byTemplate(t, party, dummy); n != 0 {
			t.Errorf("Expected no transaction for Dummy, but received %d", n)
		}
	})

	t.Run("TXTransientNotObservableNoSubmitters", func(t *testing.T) {
		submitter, observer := p.allocate(t, "submitter"), p.allocate(t, "observer")
		for range 2 {
			p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{submitter},
				createAndExerciseCmd(pingTemplate, pingArgs(submitter, observer), "Archive")), nil)
		}
		if txs := p.updates(t, observer, 0, nil, ad); len(txs) != 0 {
			t.Errorf("No transaction expected but got %d instead", len(txs))
		}
		if n := byTemplate(t, observer, pingTemplate); n != 0 {
			t.Errorf("No transaction expected but got %d instead", n)
		}
	})

	t.Run("TXTransientSubmitAndWaitForTransaction", func(t *testing.T) {
		party := p.allocate(t, "party")
		var resp struct {
			Transaction *ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{
			"commands": p.jsCommands([]string{party}, createAndExerciseCmd(dummy, map[string]any{"operator": party}, "Archive"))}, &resp)
		if resp.Transaction == nil {
			t.Fatal("Expected a transaction but did not received one")
		}
		if len(resp.Transaction.Events) != 0 {
			t.Errorf("Expected no events, but received %v", resp.Transaction.Events)
		}
	})
}
