package acceptance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

const (
	admin = "admin::1220aa"
	alice = "alice::1220bb"
	bob   = "bob::1220cc"
)

// tokenStandard names the interfaces of the token standard in a DAR.
type tokenStandard struct {
	holding, transferFactory, transferInstruction *value.Identifier
	holdingView                                   *value.Identifier
}

func standard(t testing.TB, a *app) tokenStandard {
	holding := a.pkg(t, "splice-api-token-holding-v1")
	ti := a.pkg(t, "splice-api-token-transfer-instruction-v1")
	return tokenStandard{
		holding:             id(holding, "Splice.Api.Token.HoldingV1:Holding"),
		holdingView:         id(holding, "Splice.Api.Token.HoldingV1:HoldingView"),
		transferFactory:     id(ti, "Splice.Api.Token.TransferInstructionV1:TransferFactory"),
		transferInstruction: id(ti, "Splice.Api.Token.TransferInstructionV1:TransferInstruction"),
	}
}

func micros(ts value.Timestamp) string { return ts.String() }

// transferArg is a TransferFactory_Transfer argument of amount from the
// holdings of sender to receiver, to be executed within an hour.
func transferArg(w *world, sender, receiver, amount string, holdings ...value.ContractID) string {
	var ids []string
	for _, h := range holdings {
		ids = append(ids, `"`+string(h)+`"`)
	}
	return fmt.Sprintf(`{"expectedAdmin": %q, "transfer": {"sender": %q, "receiver": %q, "amount": %q,
		"instrumentId": {"admin": %q, "id": "TOK"}, "requestedAt": %q, "executeBefore": %q,
		"inputHoldingCids": [%s], "meta": {"values": {}}},
		"extraArgs": {"context": {"values": {}}, "meta": {"values": {}}}}`,
		admin, sender, receiver, amount, admin, micros(w.now), micros(w.now+3_600_000_000), strings.Join(ids, ", "))
}

// holdingViews lists the Holding views of the active contracts of a
// template, as the read side's interface filter with includeInterfaceView
// shows them.
func holdingViews(t *testing.T, w *world, std tokenStandard, module, entity string) []string {
	var out []string
	for _, c := range w.ledger.Active(module, entity) {
		v, err := w.app.eng.InterfaceView(context.Background(), c.TemplateID, c.Argument, std.holding, interp.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w.app.json(t, lf.TCon{Con: tcon(std.holdingView)}, v))
	}
	return out
}

// TestTokenApp runs my-exercise-app's token through the token-standard
// interfaces: the admin creates a transfer factory and a holding; the
// sender transfers through TransferFactory, which creates a pending
// TokenTransferInstruction; the admin executes it through
// TransferInstruction_Update (the input holding archived, the receiver's
// and the change created); a second transfer is withdrawn by the sender;
// direct accept is refused, as TokenTransfer.daml says.
func TestTokenApp(t *testing.T) {
	a := loadApp(t, "my-exercise-app.dar")
	std := standard(t, a)
	w := newWorld(t, a)
	main := a.dar.Main
	factoryID := id(main, "TokenTransfer:TokenTransferFactory")
	holdingID := id(main, "TokenHolding:TokenHolding")

	factory := w.create([]string{admin}, factoryID, fmt.Sprintf(`{"admin": %q, "meta": {"values": {}}, "observers": [%q]}`, admin, alice))
	holding := w.create([]string{admin}, holdingID, fmt.Sprintf(`{"owner": %q, "dso": %q, "instrumentId": {"admin": %q, "id": "TOK"},
		"amount": "100.0", "meta": {"values": {"note": "minted"}}}`, alice, admin, admin))
	views := holdingViews(t, w, std, "TokenHolding", "TokenHolding")
	want := `{"amount":"100.0000000000","instrumentId":{"admin":"` + admin + `","id":"TOK"},"lock":null,"meta":{"values":{"note":"minted"}},"owner":"` + alice + `"}`
	if len(views) != 1 || views[0] != want {
		t.Errorf("holding views:\n got  %v\n want %s", views, want)
	}

	// Transfer 40 to bob through the TransferFactory interface.
	transfer := &interp.ExerciseCommand{Template: std.transferFactory, ContractID: factory, Choice: "TransferFactory_Transfer",
		Argument: a.value(t, id(std.transferFactory.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer"),
			transferArg(w, alice, bob, "40.0", holding))}
	res, ids := w.submit([]string{alice}, transfer)
	if got := describe(res.Transaction); got != "exercise TokenTransferFactory via TransferFactory TransferFactory_Transfer\n  create TokenTransferInstruction\n" {
		t.Errorf("transfer:\n%s", got)
	}
	ex := res.Transaction.Nodes[0].(*tx.Exercise)
	if ex.InterfaceID.String() != std.transferFactory.String() || ex.TemplateID.String() != factoryID.String() || ex.Consuming ||
		strings.Join(ex.ActingParties, ",") != alice || !res.DependsOnTime || *res.TimeBounds.Min != w.now-1_000_000 {
		t.Errorf("exercise node %+v, time %v", ex, res.DependsOnTime)
	}
	instr := created(res.Transaction, ids, "TokenTransferInstruction")[0]
	out := ex.Result.(*value.Record).Field("output").(*value.Variant)
	if out.Constructor != "TransferInstructionResult_Pending" || ids[out.Value.(*value.Record).Field("transferInstructionCid").(value.ContractID)] != instr {
		t.Errorf("result %s", ex.Result)
	}

	// The admin executes it.
	update := func(cid value.ContractID, meta string) interp.Command {
		return &interp.ExerciseCommand{Template: std.transferInstruction, ContractID: cid, Choice: "TransferInstruction_Update",
			Argument: a.value(t, id(std.transferInstruction.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferInstruction_Update"),
				fmt.Sprintf(`{"extraActors": [%q], "extraArgs": {"context": {"values": {}}, "meta": {"values": %s}}}`, admin, meta))}
	}
	res, _ = w.submit([]string{admin}, update(instr, `{}`))
	want = "exercise TokenTransferInstruction via TransferInstruction TransferInstruction_Update (consuming)\n" +
		"  fetch TokenHolding via Holding\n  exercise TokenHolding via Holding Archive (consuming)\n  create TokenHolding\n  create TokenHolding\n"
	if got := describe(res.Transaction); got != want {
		t.Errorf("update:\n%s", got)
	}
	views = holdingViews(t, w, std, "TokenHolding", "TokenHolding")
	if len(views) != 2 || !strings.Contains(views[0], `"amount":"40.0000000000"`) || !strings.Contains(views[0], bob) ||
		!strings.Contains(views[1], `"amount":"60.0000000000"`) || !strings.Contains(views[1], alice) {
		t.Errorf("holdings after the transfer: %v", views)
	}

	// A second transfer, withdrawn by the sender.
	change := w.ledger.Active("TokenHolding", "TokenHolding")[1].ID
	transfer.Argument = a.value(t, id(std.transferFactory.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer"),
		transferArg(w, alice, bob, "10.0", change))
	res, ids = w.submit([]string{alice}, transfer)
	instr = created(res.Transaction, ids, "TokenTransferInstruction")[0]
	withdrawArg := a.value(t, id(std.transferInstruction.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferInstruction_Withdraw"),
		`{"extraArgs": {"context": {"values": {}}, "meta": {"values": {}}}}`)
	_, err := w.try([]string{bob}, &interp.ExerciseCommand{Template: std.transferInstruction, ContractID: instr, Choice: "TransferInstruction_Withdraw", Argument: withdrawArg})
	wantError(t, err, "DAML_AUTHORIZATION_ERROR", "requires authorizers "+alice)
	res, _ = w.submit([]string{alice}, &interp.ExerciseCommand{Template: std.transferInstruction, ContractID: instr, Choice: "TransferInstruction_Withdraw", Argument: withdrawArg})
	if out := res.Transaction.Nodes[0].(*tx.Exercise).Result.(*value.Record).Field("output").(*value.Variant); out.Constructor != "TransferInstructionResult_Failed" {
		t.Errorf("withdraw: %s", out)
	}
	if len(w.ledger.Active("TokenTransfer", "TokenTransferInstruction")) != 0 {
		t.Error("withdrawn instruction still active")
	}

	// Direct accept is disabled by the token's implementation.
	res, ids = w.submit([]string{alice}, transfer)
	instr = created(res.Transaction, ids, "TokenTransferInstruction")[0]
	_, err = w.try([]string{bob}, &interp.ExerciseCommand{Template: std.transferInstruction, ContractID: instr, Choice: "TransferInstruction_Accept",
		Argument: a.value(t, id(std.transferInstruction.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferInstruction_Accept"),
			`{"extraArgs": {"context": {"values": {}}, "meta": {"values": {}}}}`)})
	wantError(t, err, "DAML_FAILURE", "UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError (error category 9): Direct accept is disabled. Use updateImpl by admin instead.")

	// The admin removes it with the "remove" action.
	res, _ = w.submit([]string{admin}, update(instr, `{"action": "remove"}`))
	if got := describe(res.Transaction); got != "exercise TokenTransferInstruction via TransferInstruction TransferInstruction_Update (consuming)\n" {
		t.Errorf("remove:\n%s", got)
	}

	// A contract that does not implement the interface.
	_, err = w.try([]string{admin}, update(factory, `{}`))
	wantError(t, err, "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE", "Update failed due to contract "+string(factory)+" not implementing an interface\n"+
		"Expected contract to implement interface Splice.Api.Token.TransferInstructionV1:TransferInstruction@55ba4deb but contract has type TokenTransfer:TokenTransferFactory@5459a731")
}

// TestSpliceTestToken runs splice-test-token-v1's Token through the
// token-standard interfaces, as TestTokenV1.daml says: the transfer
// factory (TokenRules) consumes the input holdings, creates the change and
// a TokenTransferOffer (itself a locked Holding); the receiver accepts it
// (a Token for the receiver), the sender withdraws or the receiver rejects
// another (a Token back to the sender); update is refused.
func TestSpliceTestToken(t *testing.T) {
	a := loadApp(t, "splice-test-token-v1-1.0.0.dar")
	std := standard(t, a)
	w := newWorld(t, a)
	main := a.dar.Main
	rulesID := id(main, "Splice.Testing.Tokens.TestTokenV1:TokenRules")
	tokenID := id(main, "Splice.Testing.Tokens.TestTokenV1:Token")
	transferArgID := id(std.transferFactory.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer")
	extraArgs := `{"extraArgs": {"context": {"values": {}}, "meta": {"values": {}}}}`
	instruction := func(choice string) *value.Identifier {
		return id(std.transferInstruction.PackageID, "Splice.Api.Token.TransferInstructionV1:"+choice)
	}

	rules := w.create([]string{admin}, rulesID, fmt.Sprintf(`{"admin": %q}`, admin))
	token := w.create([]string{alice, admin}, tokenID, fmt.Sprintf(`{"holding": {"owner": %q, "instrumentId": {"admin": %q, "id": "TOK"},
		"amount": "100.0", "lock": null, "meta": {"values": {}}}}`, alice, admin))
	_, err := w.try([]string{alice, admin}, &interp.CreateCommand{Template: tokenID, Argument: a.value(t, tokenID,
		fmt.Sprintf(`{"holding": {"owner": %q, "instrumentId": {"admin": %q, "id": "TOK"}, "amount": "-1.0", "lock": null, "meta": {"values": {}}}}`, alice, admin))})
	wantError(t, err, "DAML_FAILURE", "UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed")

	transfer := func(amount string, holding value.ContractID) (*interp.Result, map[value.ContractID]value.ContractID) {
		w.now += 1_000_000
		arg := transferArg(w, alice, bob, amount, holding)
		w.now += 1_000_000 // requestedAt must be in the past
		return w.submit([]string{alice}, &interp.ExerciseCommand{Template: std.transferFactory, ContractID: rules,
			Choice: "TransferFactory_Transfer", Argument: a.value(t, transferArgID, arg)})
	}
	res, ids := transfer("30.0", token)
	t.Logf("transfer: %d nodes, %d machine steps, %d bytes of values built", len(res.Transaction.Nodes), res.Steps, res.Memory)
	want := "exercise TokenRules via TransferFactory TransferFactory_Transfer\n" +
		"  fetch Token via Holding\n  exercise Token via Holding Archive (consuming)\n  create Token\n  create TokenTransferOffer\n"
	if got := describe(res.Transaction); got != want {
		t.Errorf("transfer:\n%s", got)
	}
	// The deadlines bound the ledger time: requestedAt ≤ time < executeBefore.
	if !res.DependsOnTime || *res.TimeBounds.Min != w.now-2_000_000 || *res.TimeBounds.Max != w.now-2_000_000+3_600_000_000-1 {
		t.Errorf("time bounds [%v, %v]", res.TimeBounds.Min, res.TimeBounds.Max)
	}
	offer := created(res.Transaction, ids, "TokenTransferOffer")[0]
	change := created(res.Transaction, ids, "Token")[0]
	views := holdingViews(t, w, std, "Splice.Testing.Tokens.TestTokenV1", "TokenTransferOffer")
	if len(views) != 1 || !strings.Contains(views[0], `"lock":{"context":"transfer to '`+bob+`'"`) || !strings.Contains(views[0], `"amount":"30.0000000000"`) {
		t.Errorf("offer's holding view: %v", views)
	}

	// The receiver accepts.
	res, _ = w.submit([]string{bob}, &interp.ExerciseCommand{Template: std.transferInstruction, ContractID: offer,
		Choice: "TransferInstruction_Accept", Argument: a.value(t, instruction("TransferInstruction_Accept"), extraArgs)})
	if got := describe(res.Transaction); got != "exercise TokenTransferOffer via TransferInstruction TransferInstruction_Accept (consuming)\n  create Token\n" {
		t.Errorf("accept:\n%s", got)
	}
	views = holdingViews(t, w, std, "Splice.Testing.Tokens.TestTokenV1", "Token")
	if len(views) != 2 || !strings.Contains(views[0], alice) || !strings.Contains(views[0], `"70.0000000000"`) ||
		!strings.Contains(views[1], bob) || !strings.Contains(views[1], `"30.0000000000"`) {
		t.Errorf("holdings after accept: %v", views)
	}

	// The sender withdraws a second offer, the receiver rejects a third:
	// the amount comes back to the sender.
	res, ids = transfer("20.0", change)
	offer, change = created(res.Transaction, ids, "TokenTransferOffer")[0], created(res.Transaction, ids, "Token")[0]
	res, _ = w.submit([]string{alice}, &interp.ExerciseCommand{Template: std.transferInstruction, ContractID: offer,
		Choice: "TransferInstruction_Withdraw", Argument: a.value(t, instruction("TransferInstruction_Withdraw"), extraArgs)})
	if got := describe(res.Transaction); got != "exercise TokenTransferOffer via TransferInstruction TransferInstruction_Withdraw (consuming)\n  create Token\n" {
		t.Errorf("withdraw:\n%s", got)
	}
	res, ids = transfer("50.0", change)
	offer = created(res.Transaction, ids, "TokenTransferOffer")[0]
	_, err = w.try([]string{admin}, &interp.ExerciseCommand{Template: std.transferInstruction, ContractID: offer, Choice: "TransferInstruction_Update",
		Argument: a.value(t, instruction("TransferInstruction_Update"), `{"extraActors": [], "extraArgs": {"context": {"values": {}}, "meta": {"values": {}}}}`)})
	wantError(t, err, "DAML_FAILURE", "V1.TransferInstruction_Update: not supported by TokenTransferOffer")
	w.submit([]string{bob}, &interp.ExerciseCommand{Template: std.transferInstruction, ContractID: offer,
		Choice: "TransferInstruction_Reject", Argument: a.value(t, instruction("TransferInstruction_Reject"), extraArgs)})
	var total []string
	for _, c := range w.ledger.Active("Splice.Testing.Tokens.TestTokenV1", "Token") {
		h := c.Argument.(*value.Record).Field("holding").(*value.Record)
		total = append(total, fmt.Sprintf("%s %s", h.Field("owner"), h.Field("amount")))
	}
	if got := strings.Join(total, ", "); got != "'"+bob+"' 30.0000000000, '"+alice+"' 20.0000000000, '"+alice+"' 50.0000000000" {
		t.Errorf("tokens at the end: %s", got)
	}
}
