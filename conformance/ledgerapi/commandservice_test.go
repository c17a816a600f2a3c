package ledgerapi

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// commandServiceGeneric runs the CommandServiceIT cases on the generic
// model's Dummy and DummyFactory, on TestCommandServiceIT's node, where
// DummyNonConsuming is named nonconsuming as the model declares it.
// DummyFactoryCall creates nothing in the generic model, so
// CSReadyForExercise checks the exercise only.
func commandServiceGeneric(t *testing.T, p *participant) {
	le, ad := ledgerapi.TransactionShapeLedgerEffects, ledgerapi.TransactionShapeACSDelta
	dummyArgs := func(party string) map[string]any { return map[string]any{"operator": party} }

	// forTransaction is a SubmitAndWaitForTransactionRequest; filter nil is
	// any party.
	forTransaction := func(commands map[string]any, filter []string, templates []string, shape ledgerapi.TransactionShape) map[string]any {
		return map[string]any{"commands": commands, "transactionFormat": map[string]any{
			"eventFormat": ledgerapi.EventFormatOf(filter, templates, nil, false), "transactionShape": shape}}
	}
	submitForTransaction := func(t *testing.T, body map[string]any) ledgerapi.Transaction {
		t.Helper()
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", body, &resp)
		return resp.Transaction
	}
	byID := func(t *testing.T, id, party string, shape ledgerapi.TransactionShape) ledgerapi.Transaction {
		t.Helper()
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/updates/transaction-by-id", map[string]any{"updateId": id, "transactionFormat": map[string]any{
			"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "transactionShape": shape}}, &resp)
		return resp.Transaction
	}
	created := func(tx ledgerapi.Transaction) []ledgerapi.CreatedEvent {
		var out []ledgerapi.CreatedEvent
		for _, ev := range tx.Events {
			if ev.Created != nil {
				out = append(out, *ev.Created)
			}
		}
		return out
	}
	exercised := func(tx ledgerapi.Transaction) []ledgerapi.ExercisedEvent {
		var out []ledgerapi.ExercisedEvent
		for _, ev := range tx.Events {
			if ev.Exercised != nil {
				out = append(out, *ev.Exercised)
			}
		}
		return out
	}

	t.Run("CSsubmitAndWaitBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		var resp ledgerapi.SubmitAndWaitResponse
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, createCmd(dummy, dummyArgs(party))), &resp)
		if resp.UpdateID == "" {
			t.Fatal("The transaction identifier was empty but shouldn't.")
		}
		txs := p.updates(t, party, 0, nil, ad)
		if len(txs) != 1 {
			t.Fatalf("%s should see only one transaction but sees %d", party, len(txs))
		}
		tx := *txs[0].Transaction
		if len(tx.Events) != 1 || tx.Events[0].Created == nil {
			t.Fatalf("%s should see only one create but sees %v", party, tx.Events)
		}
		if tx.ExternalTransactionHash != nil {
			t.Error("Expected empty external transaction hash for a local party transaction")
		}
		if tx.PaidTrafficCost <= 0 {
			t.Error("Expected a non empty traffic cost")
		}
		retrieved := byID(t, resp.UpdateID, party, ad)
		if retrieved.UpdateID != resp.UpdateID || len(retrieved.Events) != 1 || retrieved.Events[0].Created == nil ||
			retrieved.Events[0].Created.ContractID != tx.Events[0].Created.ContractID {
			t.Errorf("The retrieved transaction does not match the one in the stream: %+v", retrieved)
		}
	})

	t.Run("CSsubmitAndWaitForTransactionBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		tx := submitForTransaction(t, forTransaction(p.jsCommands([]string{party}, createCmd(dummy, dummyArgs(party))), []string{party}, nil, ad))
		if tx.UpdateID == "" || len(created(tx)) != 1 {
			t.Errorf("transaction %q with %d creates, want one", tx.UpdateID, len(created(tx)))
		}
		if tx.PaidTrafficCost <= 0 {
			t.Error("Expected a non empty traffic cost")
		}
	})

	t.Run("CSsubmitAndWaitForTransactionLedgerEffectsBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		tx := submitForTransaction(t, forTransaction(p.jsCommands([]string{party},
			createAndExerciseCmd(dummy, dummyArgs(party), "DummyChoice1")), []string{party}, nil, le))
		if len(tx.Events) != 2 || tx.Events[0].Created == nil || tx.Events[1].Exercised == nil {
			t.Fatalf("The returned transaction should contain a created and an exercised event: %v", tx.Events)
		}
		if !strings.HasSuffix(tx.Events[0].Created.TemplateID, ":Test:Dummy") {
			t.Errorf("The template ID of the created event: %s", tx.Events[0].Created.TemplateID)
		}
	})

	for _, c := range []struct{ name, path string }{
		{"CSduplicateSubmitAndWaitBasic", "/v2/commands/submit-and-wait"},
		{"CSDuplicateSubmitAndWaitForTransactionData", "/v2/commands/submit-and-wait-for-transaction"},
	} {
		t.Run(c.name, func(t *testing.T) {
			party := p.allocate(t, "party")
			var body map[string]any = p.jsCommands([]string{party}, createCmd(dummy, dummyArgs(party)))
			if strings.HasSuffix(c.path, "transaction") {
				body = forTransaction(body, []string{party}, nil, ad)
			}
			p.ok(t, "POST", c.path, body, nil)
			p.mustFail(t, "POST", c.path, body, failure{code: "DUPLICATE_COMMAND", definite: true})
		})
	}

	both := func(party string) map[string]any {
		return p.jsCommands([]string{party}, createCmd(dummy, dummyArgs(party)), createCmd(dummyFactory, dummyArgs(party)))
	}
	t.Run("CSSubmitAndWaitForTransactionFilterByParty", func(t *testing.T) {
		party := p.allocate(t, "party")
		if tx := submitForTransaction(t, forTransaction(both(party), []string{party}, nil, ad)); len(tx.Events) != 2 {
			t.Errorf("Two create events should have been into the transaction: %d", len(tx.Events))
		}
	})

	t.Run("CSSubmitAndWaitForTransactionFilterByWrongParty", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party2")
		for _, shape := range []ledgerapi.TransactionShape{ad, le} {
			if tx := submitForTransaction(t, forTransaction(both(party), []string{party2}, nil, shape)); len(tx.Events) != 0 {
				t.Errorf("%s: No events should have been into the transaction: %d", shape, len(tx.Events))
			}
		}
	})

	t.Run("CSSubmitAndWaitForTransactionFilterAnyParty", func(t *testing.T) {
		party := p.allocate(t, "party")
		tx := submitForTransaction(t, forTransaction(both(party), nil, nil, ad))
		if len(tx.Events) != 2 {
			t.Errorf("Two create events should have been into the transaction: %d", len(tx.Events))
		}
		if tx.PaidTrafficCost <= 0 {
			t.Error("Expected a non empty traffic cost")
		}
	})

	t.Run("CSSubmitAndWaitForTransactionFilterTemplate", func(t *testing.T) {
		party := p.allocate(t, "party")
		tx := submitForTransaction(t, forTransaction(both(party), nil, []string{dummy}, ad))
		if cs := created(tx); len(cs) != 1 || !strings.HasSuffix(cs[0].TemplateID, ":Test:Dummy") {
			t.Errorf("One create event should have been into the transaction: %v", cs)
		}
	})

	t.Run("CSHugeCommandSubmission", func(t *testing.T) {
		party := p.allocate(t, "party")
		var cmds []map[string]any
		for range 15 {
			cmds = append(cmds, createCmd(dummy, dummyArgs(party)))
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, cmds...), nil)
		if acs := p.activeContracts(t, party); len(acs) != 15 {
			t.Errorf("Expected 15 contracts to be created, got %d instead", len(acs))
		}
	})

	t.Run("CSReadyForExercise", func(t *testing.T) {
		party := p.allocate(t, "party")
		factory := p.create(t, party, dummyFactory, dummyArgs(party))
		ex := exercised(p.exercise(t, party, dummyFactory, factory, "DummyFactoryCall", nil))
		if len(ex) != 1 || ex[0].ContractID != factory || !ex[0].Consuming {
			t.Errorf("There should only be one consuming exercise on the factory: %+v", ex)
		}
	})

	t.Run("CSCreateAndExercise", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			createAndExerciseCmd(dummy, dummyArgs(party), "DummyChoice1")), nil)
		for _, u := range p.updates(t, party, 0, nil, ad) {
			if len(u.Transaction.Events) != 0 {
				t.Errorf("A create-and-exercise acs delta transaction should show no event: %v", u.Transaction.Events)
			}
		}
		txs := p.updates(t, party, 0, nil, le)
		if len(txs) != 1 {
			t.Fatalf("%d ledger-effects transactions, want 1", len(txs))
		}
		cs, ex := created(*txs[0].Transaction), exercised(*txs[0].Transaction)
		if len(cs) != 1 || !strings.HasSuffix(cs[0].TemplateID, ":Test:Dummy") {
			t.Fatalf("Unexpected template identifier in create event: %v", cs)
		}
		if len(ex) != 1 || ex[0].Choice != "DummyChoice1" || ex[0].ContractID != cs[0].ContractID || !ex[0].Consuming {
			t.Errorf("Unexpected exercise event triple (choice, contractId, consuming): %+v", ex)
		}
	})

	t.Run("CSsubmitAndWaitCompletionOffset", func(t *testing.T) {
		party := p.allocate(t, "party")
		var resp ledgerapi.SubmitAndWaitResponse
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, createCmd(dummy, dummyArgs(party))), &resp)
		if resp.CompletionOffset <= 0 || resp.CompletionOffset != byID(t, resp.UpdateID, party, le).Offset {
			t.Error("SubmitAndWait does not contain the expected completion offset")
		}
		for _, shape := range []ledgerapi.TransactionShape{ad, le} {
			if tx := submitForTransaction(t, forTransaction(p.jsCommands([]string{party}, createCmd(dummy, dummyArgs(party))), []string{party}, nil, shape)); tx.Offset <= 0 {
				t.Errorf("%s: SubmitAndWaitForTransaction does not contain the expected completion offset", shape)
			}
		}
	})

	t.Run("CSSubmitAndWaitForTransactionNonConsumingChoice", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		cid := p.create(t, owner, dummy, dummyArgs(owner))
		tx := submitForTransaction(t, forTransaction(p.jsCommands([]string{owner}, exerciseCmd(dummy, cid, "DummyNonConsuming", nil)), []string{owner}, nil, ad))
		if len(tx.Events) != 0 {
			t.Errorf("an acs-delta transaction of a nonconsuming exercise has events: %v", tx.Events)
		}
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/updates/transaction-by-offset", transactionByOffsetShape(owner, int64(tx.Offset), le), &resp)
		if resp.Transaction.UpdateID != tx.UpdateID || len(exercised(resp.Transaction)) != 1 {
			t.Errorf("the ledger-effects transaction at %d: %+v", tx.Offset, resp.Transaction)
		}
	})
}

func transactionByOffsetShape(party string, offset int64, shape ledgerapi.TransactionShape) map[string]any {
	return map[string]any{"offset": offset, "transactionFormat": map[string]any{
		"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "transactionShape": shape}}
}
