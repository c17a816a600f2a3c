package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// The shared DARs have no template whose choices look keys up (Splice
// predates keys), so this package is written here: Keyed:Account has the
// key owner, maintained by it; Keyed:Tool's nonconsuming choice Lookup runs
// lookup_by_key on its owner's key, which records a QueryByKey node.

const keyedPkg lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000ee"

func keyedPackage() *lf.Package {
	party := lf.TBuiltin{Builtin: lf.BuiltinParty}
	con := func(name string) lf.TypeConName {
		return lf.TypeConName{Package: keyedPkg, Module: lf.DottedName{"Keyed"}, Name: lf.DottedName{name}}
	}
	owner := func(tmpl string) lf.Expr {
		return &lf.ERecProj{Type: lf.TypeConApp{Con: con(tmpl)}, Field: "owner", Record: &lf.EVar{Name: "this"}}
	}
	list := func(e lf.Expr) lf.Expr {
		return &lf.ECons{Type: party, Front: []lf.Expr{e}, Tail: &lf.ENil{Type: party}}
	}
	record := func(name string, fields ...lf.Field) *lf.DataType {
		return &lf.DataType{Name: lf.DottedName{name}, Kind: lf.DataRecord, Serializable: true, Fields: fields}
	}
	unitType := lf.TBuiltin{Builtin: lf.BuiltinUnit}
	archive := func(tmpl string) *lf.Choice {
		return &lf.Choice{Name: "Archive", Consuming: true, Controllers: list(owner(tmpl)), Observers: &lf.ENil{Type: party},
			SelfBinder: "self", ArgBinder: lf.Binder{Name: "arg", Type: lf.TCon{Con: con("Archive")}}, ReturnType: unitType,
			Update: &lf.EUpdate{Update: &lf.UPure{Type: unitType, Expr: &lf.EBuiltinCon{Con: lf.ConUnit}}}}
	}
	template := func(name string, key *lf.TemplateKey, choices ...*lf.Choice) *lf.Template {
		return &lf.Template{Name: lf.DottedName{name}, Param: "this", Precond: &lf.EBuiltinCon{Con: lf.ConTrue},
			Signatories: list(owner(name)), Observers: &lf.ENil{Type: party}, Key: key, Choices: append(choices, archive(name))}
	}
	account := template("Account", &lf.TemplateKey{Type: party, Body: owner("Account"),
		Maintainers: &lf.EAbs{Params: []lf.Binder{{Name: "k", Type: party}}, Body: list(&lf.EVar{Name: "k"})}})
	found := lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinOptional},
		Arg: lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinContractID}, Arg: lf.TCon{Con: con("Account")}}}
	lookup := &lf.Choice{Name: "Lookup", Controllers: list(owner("Tool")), Observers: &lf.ENil{Type: party},
		SelfBinder: "self", ArgBinder: lf.Binder{Name: "arg", Type: lf.TCon{Con: con("Lookup")}}, ReturnType: found,
		Update: &lf.EApp{Fun: &lf.EUpdate{Update: &lf.ULookupByKey{Template: con("Account")}}, Args: []lf.Expr{owner("Tool")}}}
	mod, dup := lf.NewModule(lf.Module{
		Name: lf.DottedName{"Keyed"},
		DataTypes: []*lf.DataType{
			record("Account", lf.Field{Name: "owner", Type: party}), record("Tool", lf.Field{Name: "owner", Type: party}),
			record("Lookup"), record("Archive"),
		},
		Templates: []*lf.Template{account, template("Tool", nil, lookup)},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: keyedPkg, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 3}, Name: "keyed", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

// TestQueryByKeyPrepared: a choice that looks a key up makes a QueryByKey
// node, which a PreparedTransaction carries (lf_version "2", the key with
// its hash and maintainers, the contracts found, exhaustiveness) and only
// V3 hashes; the signed V3 transaction re-interprets to the same bytes at
// execute, the key lookup answered from its input contracts.
func TestQueryByKeyPrepared(t *testing.T) {
	f := newFixture(t, withPackages(PackageSetOf(keyedPackage())))
	ctx := context.Background()
	const account, tool = "#keyed:Keyed:Account", "#keyed:Keyed:Tool"
	run := func(cmd ledgerapi.Command, scheme ledgerapi.HashingSchemeVersion) (*Prepared, *Outcome, error) {
		req := prepareReq(f.alice, cmd)
		req.HashingSchemeVersion = scheme
		p, err := f.eng.Prepare(ctx, req, "user1")
		if err != nil {
			return nil, nil, err
		}
		o, err := f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
		if err != nil {
			t.Fatalf("execute: %v", err)
		}
		return p, o, nil
	}
	_, o, err := run(createCmd(account, `{"owner":"`+f.alice+`"}`), ledgerapi.HashingSchemeVersionV3)
	if err != nil {
		t.Fatal(err)
	}
	f.ledger.commit(t, o, f.now)
	acct := o.Transaction.Created[0].ContractID
	toolCid := f.createContract(tool, `{"owner":"`+f.alice+`"}`)

	lookup := exerciseCmd(tool, toolCid, "Lookup", `{}`)
	_, _, err = run(lookup, ledgerapi.HashingSchemeVersionV2)
	if je, ok := err.(*ledgerapi.JsCantonError); !ok || je.Code != "FAILED_TO_PREPARE_TRANSACTION" || !strings.Contains(je.Cause, "Please using hashing scheme V3 or higher") {
		t.Fatalf("V2 prepare of a query by key: %v", err)
	}
	p, o, err := run(lookup, ledgerapi.HashingSchemeVersionV3)
	if err != nil {
		t.Fatal(err)
	}
	checkHashes(t, p, hashing.V3)
	txn := p.PreparedTransaction.GetTransaction()
	if txn.GetVersion() != "2" || len(txn.GetNodes()) != 2 {
		t.Fatalf("transaction version %s, %d nodes", txn.GetVersion(), len(txn.GetNodes()))
	}
	x, q := txn.GetNodes()[0].GetV1().GetExercise(), txn.GetNodes()[1].GetV1().GetQueryByKey()
	hash, _ := tx.KeyHash("keyed", "Keyed", "Account", value.Party(f.alice))
	if x.GetLfVersion() != "2.1" || strings.Join(x.GetChildren(), ",") != "1" || q == nil || q.GetLfVersion() != "2" ||
		strings.Join(q.GetResult(), ",") != acct || q.GetExhaustive() || q.GetPackageName() != "keyed" ||
		q.GetTemplateId().GetEntityName() != "Account" || string(q.GetKey().GetKey().GetHash()) != string(hash[:]) ||
		q.GetKey().GetKey().GetKey().GetParty() != f.alice || strings.Join(q.GetKey().GetMaintainers(), ",") != f.alice {
		t.Fatalf("exercise %v\nquery by key %v", x, q)
	}
	if x.GetExerciseResult().GetOptional().GetValue().GetContractId() != acct {
		t.Errorf("Lookup result %v", x.GetExerciseResult())
	}
	ics := p.PreparedTransaction.GetMetadata().GetInputContracts()
	if len(ics) != 2 || ics[0].GetV1().GetLfVersion() == ics[1].GetV1().GetLfVersion() {
		t.Errorf("input contracts: the keyed Account at \"2\", the Tool at \"2.1\": %v", ics)
	}
	tree := o.Tree(f.ledger.commit(t, o, f.now))
	if len(tree.EventsByID) != 1 || tree.EventsByID["0"].Exercised == nil || tree.EventsByID["0"].Exercised.LastDescendantNodeID != 1 {
		t.Errorf("Lookup tree %+v", tree.EventsByID)
	}
}
