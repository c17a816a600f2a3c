package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceVisibilityIT.scala, the cases one participant
// expresses. The test tool's AgreementFactory (the submitter's, the
// listener an observer) and WithObservers are Ping (the initiator's, the
// responder an observer); MultiPartyContract is the test token's Token
// (two signatories).
func TestTransactionServiceVisibilityIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))
	p.uploadModel(t, testModel())

	byID := func(t *testing.T, id, party string, shape ledgerapi.TransactionShape) ledgerapi.Transaction {
		t.Helper()
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/updates/transaction-by-id", map[string]any{"updateId": id, "transactionFormat": map[string]any{
			"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "transactionShape": shape}}, &resp)
		return resp.Transaction
	}

	for _, s := range []struct {
		name  string
		shape ledgerapi.TransactionShape
	}{{"LedgerEffects", ledgerapi.TransactionShapeLedgerEffects}, {"AcsDelta", ledgerapi.TransactionShapeACSDelta}} {
		t.Run("TX"+s.name+"HideCommandIdToNonSubmittingSameParticipantStakeholders", func(t *testing.T) {
			submitter, listener := p.allocate(t, "submitter"), p.allocate(t, "listener")
			begin := p.ledgerEnd(t)
			first := p.transaction(t, []string{submitter}, createCmd(pingTemplate, pingArgs(submitter, listener)))
			for range 3 {
				p.create(t, submitter, pingTemplate, pingArgs(submitter, listener))
			}
			if tx := byID(t, first.UpdateID, listener, s.shape); tx.CommandID != "" {
				t.Errorf("The command identifier for the transaction was supposed to be empty but it's `%s` instead.", tx.CommandID)
			}
			if tx := byID(t, first.UpdateID, submitter, s.shape); tx.CommandID == "" {
				t.Error("The command identifier for the transaction queries by the submitter was supposed to be present but it's empty instead.")
			}
			txs := p.updates(t, listener, begin, nil, s.shape)
			if len(txs) != 4 {
				t.Fatalf("Four transactions expected but got %d instead.", len(txs))
			}
			if id := txs[0].Transaction.CommandID; id != "" {
				t.Errorf("The command identifier for the transaction was supposed to be empty but it's `%s` instead.", id)
			}
			if own := p.updates(t, submitter, begin, nil, s.shape); len(own) != 4 || own[0].Transaction.CommandID == "" {
				t.Errorf("the submitter's stream: %d transactions, the first without its command id", len(own))
			}
		})

		t.Run("TX"+s.name+"ShowCommandIdToSubmittingStakeholders", func(t *testing.T) {
			submitter, submitter2 := p.allocate(t, "submitter"), p.allocate(t, "submitter2")
			begin := p.ledgerEnd(t)
			tx := p.transaction(t, []string{submitter, submitter2}, createCmd(testToken, tokenArgs(submitter, submitter2)))
			if got := byID(t, tx.UpdateID, submitter2, s.shape); got.CommandID == "" {
				t.Error("The command identifier for the transaction was supposed to be present but it's empty instead.")
			}
			txs := p.updates(t, submitter2, begin, nil, s.shape)
			if len(txs) != 1 {
				t.Fatalf("One transaction expected but got %d instead.", len(txs))
			}
			if txs[0].Transaction.CommandID == "" {
				t.Error("The command identifier for the transaction was supposed to be present but it's empty instead.")
			}
		})
	}

	// Scala has bob on another participant than alice; here both are on
	// this one, which must still not show alice a create she does not sign.
	t.Run("TXNotDiscloseCreateToNonSignatory", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		tx := p.transaction(t, []string{bob}, createCmd(builtTemplate("BranchingSignatories"),
			map[string]any{"whichSign": false, "signTrue": alice, "signFalse": bob}))
		if len(createdEvents(tx)) != 1 {
			t.Fatalf("Expected single create event: %+v", tx)
		}
		cid := createdEvents(tx)[0].ContractID
		for _, seen := range p.transactionsOf(t, ledgerapi.TransactionShapeACSDelta, alice) {
			for _, c := range createdEvents(seen) {
				if c.ContractID == cid {
					t.Errorf("The transaction %s should not have been disclosed to alice", tx.UpdateID)
				}
			}
		}
	})
	// Scala has alice on one participant and bob, eve on another; here
	// all three are on this one.
	branching := func(t *testing.T, which bool) (alice, bob, eve string, tx ledgerapi.Transaction, args map[string]any) {
		alice, bob, eve = p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "eve")
		args = map[string]any{"giver": alice, "whichCtrl": which, "ctrlTrue": bob, "ctrlFalse": eve}
		return alice, bob, eve, p.transaction(t, []string{alice}, createCmd(builtTemplate("BranchingControllers"), args)), args
	}
	creates := func(t *testing.T, party string) []*ledgerapi.CreatedEvent {
		var out []*ledgerapi.CreatedEvent
		for _, tx := range p.transactionsOf(t, ledgerapi.TransactionShapeACSDelta, party) {
			out = append(out, createdEvents(tx)...)
		}
		return out
	}
	t.Run("TXDiscloseCreateToSignatory", func(t *testing.T) {
		alice, bob, eve, _, args := branching(t, true)
		for _, c := range []struct{ who, party string }{{"Alice", alice}, {"Bob", bob}} {
			seen := creates(t, c.party)
			if len(seen) != 1 {
				t.Fatalf("%s should see one transaction: %d creates", c.who, len(seen))
			}
			sameJSON(t, c.who+" arguments", seen[0].CreateArgument, args)
		}
		if seen := creates(t, eve); len(seen) != 0 {
			t.Errorf("Eve should not see any contract: %+v", seen)
		}
	})
	t.Run("TXNotDiscloseCreateToNonChosenBranchingController", func(t *testing.T) {
		_, bob, _, tx, _ := branching(t, false)
		for _, seen := range p.transactionsOf(t, ledgerapi.TransactionShapeACSDelta, bob) {
			if seen.UpdateID == tx.UpdateID {
				t.Errorf("The transaction %s should not have been disclosed.", tx.UpdateID)
			}
		}
	})
	t.Run("TXDiscloseCreateToObservers", func(t *testing.T) {
		alice, observer := p.allocate(t, "alice"), p.allocate(t, "observer")
		begin := p.ledgerEnd(t)
		tx := p.transaction(t, []string{alice}, createCmd(pingTemplate, pingArgs(alice, observer)))
		seen := false
		for _, u := range p.updates(t, observer, begin, nil, ledgerapi.TransactionShapeACSDelta) {
			seen = seen || u.Transaction.UpdateID == tx.UpdateID
		}
		if !seen {
			t.Errorf("the observer does not see the create %s", tx.UpdateID)
		}
	})
}
