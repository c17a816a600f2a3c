package integration

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// splice-test-token-v1's templates, by package name.
const (
	testTokenRules = "#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenRules"
	testToken      = "#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token"
)

// TestSpliceTestTokenOnNode is issue 16's acceptance for
// splice-test-token-v1 on a started node, each effect as TestTokenV1.daml
// says. The admin's TokenRules is the transfer factory; Alice's transfer
// through TransferFactory reads it as a disclosed contract (its created
// event blob, as a registry hands it out), archives her Token and creates
// her change and a TokenTransferOffer, itself a locked Holding. Bob accepts
// through TransferInstruction (a Token for him); Alice withdraws a second
// offer and Bob rejects a third (the amount back to her); the admin's
// update is refused by the template. Holdings are read through the Holding
// interface with their views after each step.
func TestSpliceTestTokenOnNode(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	n.ok("POST", "/v2/dars", "", sharedDar(t, "splice-test-token-v1-1.0.0.dar"), nil)
	admin := n.allocate("Admin").Party
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party

	rules := onlyCreated(t, n.tree("rules", []string{admin}, splice.Create(testTokenRules, splice.Object{"admin": admin})))
	holding := func(owner, amount string) splice.Object {
		return splice.Object{"holding": splice.Object{"owner": owner, "instrumentId": splice.Object{"admin": admin, "id": "TOK"},
			"amount": amount, "lock": nil, "meta": splice.Object{"values": splice.Object{}}}}
	}
	token := onlyCreated(t, n.tree("mint", []string{alice, admin}, splice.Create(testToken, holding(alice, "100.0"))))
	e := n.refused("mint-negative", []string{alice, admin}, splice.Create(testToken, holding(alice, "-1.0")), 400, "DAML_FAILURE")
	if e.Context["error_id"] != "UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed" {
		t.Errorf("a negative token: %+v", e)
	}

	// The factory as a registry discloses it: the admin's created event blob.
	var acs []ledgerapi.JsGetActiveContractsResponse
	n.ok("POST", "/v2/state/active-contracts", "", map[string]any{"activeAtOffset": n.ledgerEnd(), "eventFormat": map[string]any{
		"filtersByParty": map[string]any{admin: map[string]any{"cumulative": []any{map[string]any{"identifierFilter": map[string]any{
			"TemplateFilter": map[string]any{"value": map[string]any{"templateId": testTokenRules, "includeCreatedEventBlob": true}}}}}}}}}, &acs)
	if len(acs) != 1 || len(acs[0].ContractEntry.ActiveContract.CreatedEvent.CreatedEventBlob) == 0 {
		t.Fatalf("the TokenRules with its blob: %+v", acs)
	}
	rulesEvent := acs[0].ContractEntry.ActiveContract.CreatedEvent
	disclosed := map[string]any{"disclosedContracts": []any{map[string]any{"templateId": rulesEvent.TemplateID, "contractId": rules,
		"createdEventBlob": rulesEvent.CreatedEventBlob, "synchronizerId": n.identity().SynchronizerID}}, "userId": damlUser}

	// transfer sends amount of input to Bob; a transfer of all of it
	// leaves no change.
	transfer := func(id, amount, input string, all bool) (offer, change string) {
		t.Helper()
		var resp treeResponse
		n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "", commands(id, []string{alice},
			[]map[string]any{tokenTransfer(rules, admin, alice, bob, amount, input)}, disclosed), &resp)
		tree := resp.TransactionTree
		want := "0 exercise TokenRules TransferFactory_Transfer (last 4) via TransferFactory\n" +
			"2 exercise Token Archive (last 2) via Holding\n3 create Token\n4 create TokenTransferOffer\n"
		if all {
			want = "0 exercise TokenRules TransferFactory_Transfer (last 3) via TransferFactory\n" +
				"2 exercise Token Archive (last 2) via Holding\n3 create TokenTransferOffer\n"
		}
		if got := describeInterfaces(tree); got != want {
			t.Fatalf("%s:\n%swant\n%s", id, got, want)
		}
		if all {
			return tree.EventsByID["3"].Created.ContractID, ""
		}
		return tree.EventsByID["4"].Created.ContractID, tree.EventsByID["3"].Created.ContractID
	}
	// holdings lists what the Holding views say of Alice's and Bob's
	// holdings: owner, amount and whether locked.
	holdings := func() string {
		t.Helper()
		var out []string
		for _, p := range []string{alice, bob} {
			n.ok("POST", "/v2/state/active-contracts", "", map[string]any{"activeAtOffset": n.ledgerEnd(),
				"eventFormat": interfaceFormat(p, splice.Holding, true)}, &acs)
			for _, a := range acs {
				ev := a.ContractEntry.ActiveContract.CreatedEvent
				if len(ev.InterfaceViews) != 1 || ev.InterfaceViews[0].ViewStatus.Code != 0 {
					t.Fatalf("holding %s: views %+v", ev.ContractID, ev.InterfaceViews)
				}
				var hv holdingView
				mustUnmarshal(t, ev.InterfaceViews[0].ViewValue, &hv)
				if hv.Owner != p {
					continue // Alice sees the offer she sent Bob as her own locked holding
				}
				who := map[string]string{alice: "alice", bob: "bob"}[hv.Owner]
				locked := ""
				if string(hv.Lock) != "null" {
					var lock struct {
						Context string `json:"context"`
					}
					_ = json.Unmarshal(hv.Lock, &lock)
					locked = " locked (" + strings.ReplaceAll(lock.Context, bob, "bob") + ")"
				}
				out = append(out, who+" "+hv.Amount+locked)
			}
		}
		sort.Strings(out)
		return strings.Join(out, ", ")
	}

	offer, change := transfer("transfer-30", "30.0", token, false)
	if got := holdings(); got != "alice 30.0000000000 locked (transfer to 'bob'), alice 70.0000000000" {
		t.Errorf("holdings after the transfer: %s", got)
	}
	accept := n.tree("accept", []string{bob}, splice.InstructionChoice(offer, "TransferInstruction_Accept", nil))
	if got := describeInterfaces(accept); got != "0 exercise TokenTransferOffer TransferInstruction_Accept (last 1) via TransferInstruction\n1 create Token\n" {
		t.Errorf("accept:\n%s", got)
	}
	if got := holdings(); got != "alice 70.0000000000, bob 30.0000000000" {
		t.Errorf("holdings after Bob's accept: %s", got)
	}

	offer, change = transfer("transfer-20", "20.0", change, false)
	withdraw := n.tree("withdraw", []string{alice}, splice.InstructionChoice(offer, "TransferInstruction_Withdraw", nil))
	if got := describeInterfaces(withdraw); got != "0 exercise TokenTransferOffer TransferInstruction_Withdraw (last 1) via TransferInstruction\n1 create Token\n" {
		t.Errorf("withdraw:\n%s", got)
	}
	offer, _ = transfer("transfer-50", "50.0", change, true)
	e = n.refused("update", []string{admin}, splice.Exercise(splice.TransferInstruction, offer, "TransferInstruction_Update",
		splice.Object{"extraActors": []string{}, "extraArgs": splice.Object{"context": splice.Object{"values": splice.Object{}},
			"meta": splice.Object{"values": splice.Object{}}}}), 400, "DAML_FAILURE")
	if !strings.Contains(e.Cause, "V1.TransferInstruction_Update: not supported by TokenTransferOffer") {
		t.Errorf("the admin's update: %+v", e)
	}
	// Bob rejects, and the answer shows the transaction as an update read
	// with Alice's Holding filter would: the offer's archive and the token
	// returned to her, with its view.
	var rejected ledgerapi.SubmitAndWaitForTransactionResponse
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction", "", map[string]any{
		"commands": commands("reject", []string{bob}, []map[string]any{splice.InstructionChoice(offer, "TransferInstruction_Reject", nil)},
			map[string]any{"userId": damlUser}),
		"transactionFormat": map[string]any{"transactionShape": "TRANSACTION_SHAPE_ACS_DELTA", "eventFormat": interfaceFormat(alice, splice.Holding, true)}}, &rejected)
	if evs := rejected.Transaction.Events; len(evs) != 2 || evs[0].Archived == nil || len(evs[0].Archived.ImplementedInterfaces) != 1 ||
		evs[1].Created == nil || len(evs[1].Created.InterfaceViews) != 1 {
		t.Fatalf("the reject through Alice's Holding filter: %+v", evs)
	} else {
		var hv holdingView
		mustUnmarshal(t, evs[1].Created.InterfaceViews[0].ViewValue, &hv)
		if hv.Owner != alice || hv.Amount != "50.0000000000" || rejected.Transaction.CommandID != "" {
			t.Errorf("the returned token's view %+v (command id %q: Alice did not submit)", hv, rejected.Transaction.CommandID)
		}
	}
	if got := holdings(); got != "alice 20.0000000000, alice 50.0000000000, bob 30.0000000000" {
		t.Errorf("holdings at the end: %s", got)
	}
}
