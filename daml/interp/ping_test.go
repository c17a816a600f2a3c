package interp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

const (
	alice = "alice::1220aa"
	bob   = "bob::1220bb"
	carol = "carol::1220cc"
)

func pingArg(e *Engine, id *value.Identifier) *value.Record {
	return record(id, "id", value.Text("ping-1"), "initiator", value.Party(alice), "responder", value.Party(bob))
}

// TestPing runs the acceptance flow of issue 15 on Canton's Ping template:
// create as the initiator, Respond as the responder archives it, Respond as
// the initiator is refused, AbortPing works for anyone named.
func TestPing(t *testing.T) {
	e, pkg := pingEngine(t)
	ctx := context.Background()
	ledger := newMemLedger()
	pingID := ident(pkg, "Canton.Internal.Ping", "Ping")

	res, err := e.Submit(ctx, testSubmission([]string{alice}, &CreateCommand{Template: pingID, Argument: pingArg(e, pingID)}), ledger)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Transaction
	if len(tr.Roots) != 1 || len(tr.Nodes) != 1 || len(tr.Seeds) != 1 || tr.Version != "2.1" {
		t.Fatalf("create transaction: %+v", tr)
	}
	c := tr.Nodes[0].(*tx.Create)
	if strings.Join(c.Signatories, ",") != alice || strings.Join(c.Stakeholders, ",") != alice+","+bob {
		t.Errorf("create node parties: %v %v", c.Signatories, c.Stakeholders)
	}
	rootSeed := tx.DeriveNodeSeed(tx.DeriveTransactionSeed(testSubmission(nil).SubmissionSeed, "participant1::1220abcd", 1754534109899822), 0)
	if tr.Seeds[0].Seed != rootSeed || c.ContractID != tx.ContractIDV1(rootSeed, 1754534109899822, []string{alice, bob}) {
		t.Errorf("seed %s / contract id %s not derived as Canton derives them", tr.Seeds[0].Seed, c.ContractID)
	}
	ids := ledger.commit(tr, 1)
	cid := ids[c.ContractID]

	// Respond as the initiator: the controller is the responder.
	_, err = e.Submit(ctx, testSubmission([]string{alice}, &ExerciseCommand{Template: pingID, ContractID: cid, Choice: "Respond",
		Argument: record(ident(pkg, "Canton.Internal.Ping", "Respond"))}), ledger)
	var ie *Error
	if !errors.As(err, &ie) || ie.ID != "DAML_AUTHORIZATION_ERROR" {
		t.Fatalf("Respond as initiator: %v", err)
	}
	want := "Interpretation error: Error: node NodeId(0) (" + pingID.String() + ") requires authorizers " + bob + ", but only " + alice + " were given"
	if ie.Cause != want || ie.Choice != "Respond" || ie.Template != pingID.String() {
		t.Errorf("Respond as initiator:\n got  %q (%s, %s)\n want %q", ie.Cause, ie.Template, ie.Choice, want)
	}

	// Respond as the responder: a consuming exercise with result unit.
	res, err = e.Submit(ctx, testSubmission([]string{bob}, &ExerciseCommand{Template: pingID, ContractID: cid, Choice: "Respond",
		Argument: record(ident(pkg, "Canton.Internal.Ping", "Respond"))}), ledger)
	if err != nil {
		t.Fatal(err)
	}
	ex := res.Transaction.Nodes[0].(*tx.Exercise)
	if !ex.Consuming || ex.Result != (value.Unit{}) || strings.Join(ex.ActingParties, ",") != bob || len(ex.Children) != 0 ||
		strings.Join(ex.Signatories, ",") != alice || len(res.Inputs) != 1 || res.Inputs[0].ID != cid {
		t.Errorf("Respond node: %+v, inputs %v", ex, res.Inputs)
	}
	ledger.commit(res.Transaction, 2)
	if c, _ := ledger.LookupContract(ctx, cid); c != nil {
		t.Error("Ping not archived")
	}

	// Respond again: the contract is gone.
	_, err = e.Submit(ctx, testSubmission([]string{bob}, &ExerciseCommand{Template: pingID, ContractID: cid, Choice: "Respond",
		Argument: record(ident(pkg, "Canton.Internal.Ping", "Respond"))}), ledger)
	if !errors.As(err, &ie) || ie.ID != "CONTRACT_NOT_FOUND" || ie.Cause != "Contract could not be found with id "+string(cid) {
		t.Errorf("Respond on an archived Ping: %v", err)
	}

	// Archive (the choice damlc generates): the signatory archives.
	res, err = e.Submit(ctx, testSubmission([]string{alice}, &CreateCommand{Template: pingID, Argument: pingArg(e, pingID)}), ledger)
	if err != nil {
		t.Fatal(err)
	}
	second := ledger.commit(res.Transaction, 3)[res.Transaction.Nodes[0].(*tx.Create).ContractID]
	archiveArg := record(&value.Identifier{PackageID: "9e70a8b3510d617f8a136213f33d6a903a10ca0eeec76bb06ba55d1ed9680f69",
		ModuleName: "DA.Internal.Template", EntityName: "Archive"})
	_, err = e.Submit(ctx, testSubmission([]string{bob}, &ExerciseCommand{Template: pingID, ContractID: second, Choice: "Archive", Argument: archiveArg}), ledger)
	if !errors.As(err, &ie) || ie.ID != "DAML_AUTHORIZATION_ERROR" {
		t.Errorf("Archive by the observer: %v", err)
	}
	res, err = e.Submit(ctx, testSubmission([]string{alice}, &ExerciseCommand{Template: pingID, ContractID: second, Choice: "Archive", Argument: archiveArg}), ledger)
	if err != nil {
		t.Fatal(err)
	}
	if ar := res.Transaction.Nodes[0].(*tx.Exercise); !ar.Consuming || ar.Choice != "Archive" || strings.Join(ar.ActingParties, ",") != alice {
		t.Errorf("Archive node %+v", ar)
	}

	// AbortPing by anyone named, in one transaction with its create.
	res, err = e.Submit(ctx, testSubmission([]string{alice, carol}, &CreateAndExerciseCommand{Template: pingID, CreateArgument: pingArg(e, pingID),
		Choice: "AbortPing", ChoiceArgument: record(ident(pkg, "Canton.Internal.Ping", "AbortPing"), "anyone", value.Party(carol))}), ledger)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transaction.Roots) != 2 {
		t.Fatalf("create-and-exercise roots %v", res.Transaction.Roots)
	}
	ab := res.Transaction.Nodes[1].(*tx.Exercise)
	if ab.Choice != "AbortPing" || ab.ContractID != res.Transaction.Nodes[0].(*tx.Create).ContractID || strings.Join(ab.ActingParties, ",") != carol {
		t.Errorf("AbortPing node %+v", ab)
	}
	// The second root's seed is derived with index 1.
	txSeed := tx.DeriveTransactionSeed(testSubmission(nil).SubmissionSeed, "participant1::1220abcd", 1754534109899822)
	if s, _ := res.Transaction.Seed(1); s != tx.DeriveNodeSeed(txSeed, 1) {
		t.Error("second root's seed")
	}
	// Exercising the archived-in-this-transaction contract again fails.
	_, err = e.Submit(ctx, testSubmission([]string{alice, carol},
		&CreateAndExerciseCommand{Template: pingID, CreateArgument: pingArg(e, pingID),
			Choice: "AbortPing", ChoiceArgument: record(ident(pkg, "Canton.Internal.Ping", "AbortPing"), "anyone", value.Party(carol))},
		&ExerciseCommand{Template: pingID, ContractID: ab.ContractID, Choice: "Respond",
			Argument: record(ident(pkg, "Canton.Internal.Ping", "Respond"))}), ledger)
	if !errors.As(err, &ie) || ie.ID != "CONTRACT_NOT_ACTIVE" {
		t.Errorf("exercise of a consumed contract: %v", err)
	}
}
