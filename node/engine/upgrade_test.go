package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Two versions of package "upg", written here because the shared DARs hold
// one version of each package: 1.0.0's Upg:Asset is {owner, n} with the
// choices Peek (n) and Archive; 2.0.0 adds the trailing field note
// (Optional Text) and the choice Note, which returns it.

const (
	upgV1 lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000a1"
	upgV2 lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000a2"
)

func upgPackage(id lf.PackageID, version int) *lf.Package {
	party, unitType := lf.TBuiltin{Builtin: lf.BuiltinParty}, lf.TBuiltin{Builtin: lf.BuiltinUnit}
	int64T := lf.TBuiltin{Builtin: lf.BuiltinInt64}
	optText := lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinOptional}, Arg: lf.TBuiltin{Builtin: lf.BuiltinText}}
	con := func(name string) lf.TypeConName {
		return lf.TypeConName{Package: id, Module: lf.DottedName{"Upg"}, Name: lf.DottedName{name}}
	}
	field := func(name string) lf.Expr {
		return &lf.ERecProj{Type: lf.TypeConApp{Con: con("Asset")}, Field: name, Record: &lf.EVar{Name: "this"}}
	}
	owner := &lf.ECons{Type: party, Front: []lf.Expr{field("owner")}, Tail: &lf.ENil{Type: party}}
	choice := func(name string, consuming bool, ret lf.Type, result lf.Expr) *lf.Choice {
		return &lf.Choice{Name: name, Consuming: consuming, Controllers: owner, Observers: &lf.ENil{Type: party},
			SelfBinder: "self", ArgBinder: lf.Binder{Name: "arg", Type: lf.TCon{Con: con("Unit")}}, ReturnType: ret,
			Update: &lf.EUpdate{Update: &lf.UPure{Type: ret, Expr: result}}}
	}
	fields := []lf.Field{{Name: "owner", Type: party}, {Name: "n", Type: int64T}}
	choices := []*lf.Choice{choice("Archive", true, unitType, &lf.EBuiltinCon{Con: lf.ConUnit}), choice("Peek", false, int64T, field("n"))}
	if version == 2 {
		fields = append(fields, lf.Field{Name: "note", Type: optText})
		choices = append(choices, choice("Note", false, optText, field("note")))
	}
	mod, dup := lf.NewModule(lf.Module{
		Name: lf.DottedName{"Upg"},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Asset"}, Kind: lf.DataRecord, Serializable: true, Fields: fields},
			{Name: lf.DottedName{"Unit"}, Kind: lf.DataRecord, Serializable: true},
		},
		Templates: []*lf.Template{{Name: lf.DottedName{"Asset"}, Param: "this", Precond: &lf.EBuiltinCon{Con: lf.ConTrue},
			Signatories: owner, Observers: &lf.ENil{Type: party}, Choices: choices}},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: id, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "upg",
		Version: []string{"", "1.0.0", "2.0.0"}[version], Modules: []*lf.Module{mod}})
}

// TestUpgradesOnNode: a contract created while only version 1 is vetted is
// exercised, once version 2 is vetted too, through version 2 by package
// name (its record gains note = None): the exercise node names version 2,
// the input contract keeps version 1, the hash is recomputed from the bytes
// and execute re-interprets with the packages the transaction names.
// packageIdSelectionPreference picks version 1 back; a version 2 contract
// whose note is set cannot be used as version 1 (Canton's
// INTERPRETATION_UPGRADE_ERROR_TRANSLATION_FAILED), one whose note is None
// can.
func TestUpgradesOnNode(t *testing.T) {
	v1, v2 := upgPackage(upgV1, 1), upgPackage(upgV2, 2)
	set := PackageSetOf(v1)
	f := newFixture(t, func(c *Config) { c.Packages = func() *PackageSet { return set } })
	ctx := context.Background()
	const asset = "#upg:Upg:Asset"
	old := f.createContract(asset, `{"owner":"`+f.alice+`","n":"7"}`)

	set = PackageSetOf(v1, v2)
	run := func(cmd ledgerapi.Command, preference ...string) (*Prepared, error) {
		req := prepareReq(f.alice, cmd)
		req.PackageIDSelectionPreference = preference
		p, err := f.eng.Prepare(ctx, req, "user1")
		if err != nil {
			return nil, err
		}
		checkHashes(t, p, hashing.V2)
		o, err := f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
		if err != nil {
			t.Fatalf("execute %s: %v", cmd.Exercise.Choice, err)
		}
		if o.Rejection != nil {
			t.Fatalf("execute %s rejected: %v", cmd.Exercise.Choice, o.Rejection)
		}
		return p, nil
	}
	p, err := run(exerciseCmd(asset, old, "Note", `{}`))
	if err != nil {
		t.Fatal(err)
	}
	ex := p.PreparedTransaction.GetTransaction().GetNodes()[0].GetV1().GetExercise()
	ic := p.PreparedTransaction.GetMetadata().GetInputContracts()
	if ex.GetTemplateId().GetPackageId() != string(upgV2) || ex.GetPackageName() != "upg" || ex.GetExerciseResult().GetOptional().GetValue() != nil ||
		len(ic) != 1 || ic[0].GetV1().GetTemplateId().GetPackageId() != string(upgV1) {
		t.Fatalf("Note on a version 1 contract: exercise %v\ninput contracts %v", ex, ic)
	}
	if got := ic[0].GetV1().GetArgument().GetRecord().GetFields(); len(got) != 2 {
		t.Errorf("the input contract is shown as created, with 2 fields: %v", got)
	}

	// Preferring version 1: Note does not exist there, Peek runs as version 1.
	if _, err := run(exerciseCmd(asset, old, "Note", `{}`), string(upgV1)); err == nil || !strings.Contains(err.Error(), "Note") {
		t.Errorf("Note with version 1 preferred: %v", err)
	}
	p, err = run(exerciseCmd(asset, old, "Peek", `{}`), string(upgV1))
	if err != nil {
		t.Fatal(err)
	}
	if ex := p.PreparedTransaction.GetTransaction().GetNodes()[0].GetV1().GetExercise(); ex.GetTemplateId().GetPackageId() != string(upgV1) {
		t.Errorf("Peek with version 1 preferred ran %s", ex.GetTemplateId().GetPackageId())
	}

	// Version 2 contracts through version 1: None drops, Some is refused.
	unset := f.createContract(asset, `{"owner":"`+f.alice+`","n":"3"}`)
	if _, err := run(exerciseCmd(asset, unset, "Peek", `{}`), string(upgV1)); err != nil {
		t.Errorf("Peek of a version 2 contract without note through version 1: %v", err)
	}
	set2 := f.createContract(asset, `{"owner":"`+f.alice+`","n":"3","note":"hi"}`)
	_, err = run(exerciseCmd(asset, set2, "Peek", `{}`), string(upgV1))
	if errorID(err) != "INTERPRETATION_UPGRADE_ERROR_TRANSLATION_FAILED" || !strings.Contains(err.Error(), "may not be dropped during downgrading") {
		t.Errorf("Peek of a version 2 contract with note through version 1: %v", err)
	}
}
