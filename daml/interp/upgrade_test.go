package interp

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// Two versions of package "upg" and an interface package "count": version
// 1.0.0 of Upg:Asset is {owner, n}; 2.0.0 adds an optional note and a
// choice that reads it, and counts ten times n through the interface.

const (
	upgV1 lf.PackageID = "0000000000000000000000000000000000000000000000000000000000000006"
	upgV2 lf.PackageID = "0000000000000000000000000000000000000000000000000000000000000007"
	count lf.PackageID = "0000000000000000000000000000000000000000000000000000000000000008"
)

func countPackage() *lf.Package {
	counted := tcIn(count, "Count", "Counted")
	mod, _ := lf.NewModule(lf.Module{
		Name: lf.DottedName{"Count"},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Counted"}, Kind: lf.DataInterface},
			{Name: lf.DottedName{"Count"}, Kind: lf.DataRecord, Serializable: true},
			{Name: lf.DottedName{"CountView"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "n", Type: int64T}}},
		},
		Interfaces: []*lf.Interface{{Name: lf.DottedName{"Counted"}, Param: "this", View: lf.TCon{Con: tcIn(count, "Count", "CountView")},
			Methods: []lf.InterfaceMethod{{Name: "count", Type: int64T}},
			Choices: []*lf.Choice{choice("Count", false, &lf.ESignatoryInterface{Interface: counted, Expr: v("this")},
				pure(&lf.ECallInterface{Interface: counted, Method: "count", Expr: v("this")}))}}},
	})
	return lf.NewPackage(lf.Package{ID: count, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "count", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

func upgPackage(id lf.PackageID, version int) *lf.Package {
	asset := tcIn(id, "Upg", "Asset")
	field := func(name string) lf.Expr {
		return &lf.ERecProj{Type: lf.TypeConApp{Con: asset}, Field: name, Record: v("this")}
	}
	owner := listE(field("owner"))
	fields := []lf.Field{{Name: "owner", Type: partyT}, {Name: "n", Type: int64T}}
	counted := tcIn(count, "Count", "Counted")
	countImpl := field("n")
	choices := []*lf.Choice{choice("Archive", true, owner, pure(unit())), choice("Peek", false, owner, pure(field("n"))),
		// FromCounted: fetch cid through Counted and cast it back to this version's Asset.
		choice("FromCounted", false, owner, block(pure(&lf.EFromInterface{Interface: counted, Template: asset, Expr: v("i")}),
			bind("i", upd(&lf.UFetchInterface{Interface: counted, ContractID: &lf.ERecProj{Type: lf.TypeConApp{Con: tcIn(id, "Upg", "Target")}, Field: "cid", Record: v("arg")}}))))}
	if version == 2 {
		fields = append(fields, lf.Field{Name: "note", Type: lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinOptional}, Arg: lf.TBuiltin{Builtin: lf.BuiltinText}}})
		choices = append(choices, choice("Note", false, owner, pure(field("note"))))
		countImpl = app(bi(lf.BuiltinMulInt64), i64(10), field("n"))
	}
	cidT := lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinContractID}, Arg: lf.TCon{Con: counted}}
	mod, _ := lf.NewModule(lf.Module{
		Name: lf.DottedName{"Upg"},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Asset"}, Kind: lf.DataRecord, Serializable: true, Fields: fields},
			{Name: lf.DottedName{"Target"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "cid", Type: cidT}}},
			{Name: lf.DottedName{"Unit"}, Kind: lf.DataRecord, Serializable: true},
		},
		Templates: []*lf.Template{{Name: lf.DottedName{"Asset"}, Param: "this", Precond: tru(), Signatories: owner, Observers: listE(), Choices: choices,
			Implements: []*lf.InterfaceInstance{{Interface: counted, Methods: []lf.InterfaceInstanceMethod{{Name: "count", Value: countImpl}},
				View: &lf.ERecCon{Type: lf.TypeConApp{Con: tcIn(count, "Count", "CountView")}, Fields: []lf.FieldExpr{fe("n", field("n"))}}}}}},
	})
	return lf.NewPackage(lf.Package{ID: id, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "upg",
		Version: []string{"", "1.0.0", "2.0.0"}[version], Modules: []*lf.Module{mod}})
}

var upgEngine = NewEngine(resolve.NewPackages(countPackage(), upgPackage(upgV1, 1), upgPackage(upgV2, 2)), Limits{})

func upgID(pkg lf.PackageID, name string) *value.Identifier { return idIn(pkg, "Upg", name) }

// TestUpgrades: a contract of version 1 exercised through version 2 (its
// record gains None), through the interface with the preferred version (the
// highest, or the submission's preference), cast back to version 1 by
// from_interface; a version 2 contract used as version 1 (down-cast,
// refused when the new field is set); commands naming the package by
// name.
func TestUpgrades(t *testing.T) {
	ctx := context.Background()
	l := newMemLedger()
	submit := func(s *Submission) (*Result, error) { return upgEngine.Submit(ctx, s, l) }
	create := func(pkg lf.PackageID, arg *value.Record) value.ContractID {
		res, err := submit(testSubmission([]string{alice}, &CreateCommand{Template: upgID(pkg, "Asset"), Argument: arg}))
		if err != nil {
			t.Fatal(err)
		}
		return l.Commit(res.Transaction, 1)[res.Transaction.Nodes[0].(*tx.Create).ContractID]
	}
	v1 := create(upgV1, record(upgID(upgV1, "Asset"), "owner", value.Party(alice), "n", value.Int64(7)))

	// Version 2's choice on the version 1 contract: note is None.
	res, err := submit(testSubmission([]string{alice}, &ExerciseCommand{Template: upgID(upgV2, "Asset"), ContractID: v1, Choice: "Note", Argument: record(upgID(upgV2, "Unit"))}))
	if err != nil {
		t.Fatal(err)
	}
	ex := res.Transaction.Nodes[0].(*tx.Exercise)
	if ex.Result != value.None || ex.TemplateID.PackageID != string(upgV2) || ex.PackageName != "upg" || res.Inputs[0].TemplateID.PackageID != string(upgV1) {
		t.Errorf("Note through version 2: %+v", ex)
	}

	// Through the interface: the preferred version counts.
	countCmd := &ExerciseCommand{Template: &value.Identifier{PackageID: string(count), ModuleName: "Count", EntityName: "Counted"}, ContractID: v1,
		Choice: "Count", Argument: &value.Record{TypeCon: &value.Identifier{PackageID: string(count), ModuleName: "Count", EntityName: "Count"}}}
	res, err = submit(testSubmission([]string{alice}, countCmd))
	if err != nil {
		t.Fatal(err)
	}
	if ex = res.Transaction.Nodes[0].(*tx.Exercise); ex.Result != value.Int64(70) || ex.TemplateID.PackageID != string(upgV2) {
		t.Errorf("Count with version 2 preferred: %v %s", ex.Result, ex.TemplateID)
	}
	s := testSubmission([]string{alice}, countCmd)
	s.PackagePreference = []lf.PackageID{upgV1}
	res, err = submit(s)
	if err != nil || res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Int64(7) {
		t.Errorf("Count with version 1 preferred: %v", err)
	}

	// from_interface in version 1 of a version 2 interface value.
	res, err = submit(testSubmission([]string{alice}, &ExerciseCommand{Template: upgID(upgV1, "Asset"), ContractID: v1, Choice: "FromCounted",
		Argument: record(upgID(upgV1, "Target"), "cid", v1)}))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Transaction.Nodes[0].(*tx.Exercise).Result.String(); got != "Option(Upg:Asset@00000000{ owner = '"+alice+"', n = 7 })" {
		t.Errorf("FromCounted: %s", got)
	}
	if f := res.Transaction.Nodes[1].(*tx.Fetch); f.TemplateID.PackageID != string(upgV2) {
		t.Errorf("fetch through the interface used %s", f.TemplateID)
	}

	// Version 1's choice on version 2 contracts: None is dropped, Some refused.
	unset := create(upgV2, record(upgID(upgV2, "Asset"), "owner", value.Party(alice), "n", value.Int64(3), "note", value.None))
	res, err = submit(testSubmission([]string{alice}, &ExerciseCommand{Template: upgID(upgV1, "Asset"), ContractID: unset, Choice: "Peek", Argument: record(upgID(upgV1, "Unit"))}))
	if err != nil || res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Int64(3) {
		t.Errorf("Peek through version 1: %v", err)
	}
	set := create(upgV2, record(upgID(upgV2, "Asset"), "owner", value.Party(alice), "n", value.Int64(3), "note", value.Some(value.Text("hi"))))
	_, err = submit(testSubmission([]string{alice}, &ExerciseCommand{Template: upgID(upgV1, "Asset"), ContractID: set, Choice: "Peek", Argument: record(upgID(upgV1, "Unit"))}))
	wantError(t, err, "INTERPRETATION_UPGRADE_ERROR_TRANSLATION_FAILED", "Translation of contract "+string(set)+" to a value of type Upg:Asset@00000000 fails.\n"+
		"Reason: Type-checking fails Found an optional contract field with a value of Some at index 2, may not be dropped during downgrading.")

	// A command naming the package by name runs the preferred version.
	res, err = submit(testSubmission([]string{alice}, &CreateCommand{Template: &value.Identifier{PackageID: "#upg", ModuleName: "Upg", EntityName: "Asset"},
		Argument: record(upgID(upgV2, "Asset"), "owner", value.Party(alice), "n", value.Int64(1), "note", value.None)}))
	if err != nil || res.Transaction.Nodes[0].(*tx.Create).TemplateID.PackageID != string(upgV2) {
		t.Errorf("create by package name: %v", err)
	}
	_, err = submit(testSubmission([]string{alice}, &CreateCommand{Template: &value.Identifier{PackageID: "#nope", ModuleName: "Upg", EntityName: "Asset"},
		Argument: record(upgID(upgV2, "Asset"))}))
	wantError(t, err, "PACKAGE_NOT_FOUND", "no package named nope")
}

// TestInterfaceViewAcrossVersions: the read side computes a view with the
// implementation of another version of the contract's template: a version
// 1 argument gains None for version 2; a version 2 argument with the new
// field set does not convert to version 1.
func TestInterfaceViewAcrossVersions(t *testing.T) {
	ctx := context.Background()
	counted := &value.Identifier{PackageID: string(count), ModuleName: "Count", EntityName: "Counted"}
	v1 := record(upgID(upgV1, "Asset"), "owner", value.Party(alice), "n", value.Int64(7))
	v, err := upgEngine.InterfaceView(ctx, upgID(upgV2, "Asset"), v1, counted, Limits{})
	if err != nil || v.String() != "Count:CountView@00000000{ n = 7 }" {
		t.Errorf("version 1 contract, version 2 view: %v %v", v, err)
	}
	set := record(upgID(upgV2, "Asset"), "owner", value.Party(alice), "n", value.Int64(3), "note", value.Some(value.Text("hi")))
	_, err = upgEngine.InterfaceView(ctx, upgID(upgV1, "Asset"), set, counted, Limits{})
	wantError(t, err, "INTERPRETATION_UPGRADE_ERROR_TRANSLATION_FAILED", "Translation of a contract to a value of type Upg:Asset@00000000 fails.\n"+
		"Reason: Type-checking fails Found an optional contract field with a value of Some at index 2, may not be dropped during downgrading.")
}
