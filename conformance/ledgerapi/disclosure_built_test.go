package ledgerapi

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// ExplicitDisclosureIT.scala's cases on the built Test.daml Dummy
// (PublicChoice, which any party may exercise) and DiscloseCreate. The
// two parties are on the one node.
func TestExplicitDisclosureITBuilt(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	dummyT := builtTemplate("Dummy")

	// ledgerEffects is party's ledger-effects transactions filtered to the
	// Dummy, with created event blobs (formatByPartyAndTemplate).
	ledgerEffects := func(t *testing.T, party string) []ledgerapi.Transaction {
		t.Helper()
		var els []struct {
			Update ledgerapi.JsUpdate `json:"update"`
		}
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": 0, "endInclusive": p.ledgerEnd(t),
			"updateFormat": map[string]any{"includeTransactions": map[string]any{
				"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{dummyT}, nil, true), "transactionShape": ledgerapi.TransactionShapeLedgerEffects}}}, &els)
		var out []ledgerapi.Transaction
		for _, el := range els {
			if el.Update.Transaction != nil {
				out = append(out, *el.Update.Transaction)
			}
		}
		return out
	}
	// disclosedOfParty is the disclosed contract of the Dummy cid as party
	// read it, with the blob.
	disclosedOfParty := func(t *testing.T, party, cid string) map[string]any {
		t.Helper()
		for _, tx := range ledgerEffects(t, party) {
			for _, c := range createdEvents(tx) {
				if c.ContractID == cid {
					if len(c.CreatedEventBlob) == 0 {
						t.Fatal("createdEventBlob is empty")
					}
					return map[string]any{"templateId": c.TemplateID, "contractId": cid,
						"createdEventBlob": base64.StdEncoding.EncodeToString(c.CreatedEventBlob), "synchronizerId": ""}
				}
			}
		}
		t.Fatalf("no create of %s in %s's transactions", cid, party)
		return nil
	}
	publicChoice := func(party string, disclosed map[string]any) map[string]any {
		body := p.jsCommands([]string{party}, exerciseCmd(dummyT, disclosed["contractId"].(string), "PublicChoice", map[string]any{"anyParty": party}))
		body["disclosedContracts"] = []any{disclosed}
		return body
	}

	t.Run("EDDisclosedContractsArchiveRaceTest", func(t *testing.T) {
		// Ten races (the Scala's ten, repeated three times) of the owner's
		// Archive against the other party's PublicChoice with the contract
		// disclosed: exactly one of each pair succeeds.
		party1, party2 := p.allocate(t, "party1"), p.allocate(t, "party2")
		for range 10 {
			cid := p.create(t, party1, dummyT, map[string]any{"operator": party1})
			d := disclosedOfParty(t, party1, cid)
			archived := make(chan int, 1)
			go func() {
				archived <- p.do(t, "POST", "/v2/commands/submit-and-wait", p.admin,
					p.jsCommands([]string{party1}, exerciseCmd(dummyT, cid, "Archive", nil))).status
			}()
			withDisclosure := p.do(t, "POST", "/v2/commands/submit-and-wait", p.admin, publicChoice(party2, d)).status
			if a := <-archived; (a == 200) == (withDisclosure == 200) {
				t.Errorf("Exactly one request should have succeeded: archive %d, exercise with disclosure %d", a, withDisclosure)
			}
		}
	})

	t.Run("EDDiscloseeUsesWitnessedContract", func(t *testing.T) {
		owner, witness := p.allocate(t, "owner"), p.allocate(t, "witness")
		dc := p.create(t, owner, builtTemplate("DiscloseCreate"), map[string]any{"owner": owner})
		p.exercise(t, owner, builtTemplate("DiscloseCreate"), dc, "DiscloseCreate_To", map[string]any{"disclosee": witness})
		txs := ledgerEffects(t, witness)
		if len(txs) != 1 {
			t.Fatalf("Witness' transactions: %d, want 1", len(txs))
		}
		created := createdEvents(txs[0])
		if len(created) != 1 {
			t.Fatalf("The witnessed create: %d events", len(created))
		}
		d := disclosedOfParty(t, witness, created[0].ContractID)
		p.ok(t, "POST", "/v2/commands/submit-and-wait", publicChoice(witness, d), nil)
	})
}

// CommandServiceIT.scala's CSSubmitAndWaitForTransactionExplicitDisclosure
// on the built DummyFlexibleController: the stranger consumes the owner's
// contract, disclosed; its ACS-delta transaction has no event of the
// stranger's and otherwise equals the ledger-effects one read by id.
func TestCommandServiceITExplicitDisclosure(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	flexible := builtTemplate("DummyFlexibleController")
	t.Run("CSSubmitAndWaitForTransactionExplicitDisclosure", func(t *testing.T) {
		owner, stranger := p.allocate(t, "owner"), p.allocate(t, "stranger")
		cid := p.create(t, owner, flexible, map[string]any{"holder": owner})
		var els []struct {
			Update ledgerapi.JsUpdate `json:"update"`
		}
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": 0, "endInclusive": p.ledgerEnd(t),
			"updateFormat": map[string]any{"includeTransactions": map[string]any{
				"eventFormat": ledgerapi.EventFormatOf([]string{owner}, []string{flexible}, nil, true), "transactionShape": ledgerapi.TransactionShapeLedgerEffects}}}, &els)
		if len(els) != 1 || els[0].Update.Transaction == nil {
			t.Fatalf("Owners' transactions: %+v", els)
		}
		created := createdEvents(*els[0].Update.Transaction)
		if len(created) != 1 {
			t.Fatalf("The create: %d events", len(created))
		}
		body := p.jsCommands([]string{stranger}, exerciseCmd(flexible, cid, "FlexibleConsume", map[string]any{"actor": stranger}))
		body["disclosedContracts"] = []any{map[string]any{"templateId": created[0].TemplateID, "contractId": cid,
			"createdEventBlob": base64.StdEncoding.EncodeToString(created[0].CreatedEventBlob), "synchronizerId": ""}}
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{"commands": body,
			"transactionFormat": map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{stranger}, nil, nil, false),
				"transactionShape": ledgerapi.TransactionShapeACSDelta}}, &resp)
		var le struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/updates/transaction-by-id", map[string]any{"updateId": resp.Transaction.UpdateID, "transactionFormat": map[string]any{
			"eventFormat": ledgerapi.EventFormatOf([]string{stranger}, nil, nil, false), "transactionShape": ledgerapi.TransactionShapeLedgerEffects}}, &le)
		if len(resp.Transaction.Events) != 0 {
			t.Errorf("the stranger's ACS-delta transaction has events: %+v", resp.Transaction.Events)
		}
		want := le.Transaction
		want.Events = resp.Transaction.Events
		a, _ := json.Marshal(resp.Transaction)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Errorf("The transaction should contain the same details (except events) as the ledger effects transaction:\n%s\n%s", a, b)
		}
	})
}
