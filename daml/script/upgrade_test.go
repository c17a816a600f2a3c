package script

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

// upgradedRunner is a runner over splice-wallet-test-0.1.8 (written
// against splice-amulet 0.1.8) with splice-amulet 0.1.14 and its
// dependencies on the ledger too; it returns the ids of the two
// splice-amulet packages.
func upgradedRunner(t *testing.T) (r *Runner, old, upgraded lf.PackageID) {
	t.Helper()
	test := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	amulet := sharedDar(t, "splice-amulet-0.1.14.dar")
	pkgs := append([]*lf.Package(nil), test.Packages...)
	have := map[lf.PackageID]bool{}
	for _, p := range pkgs {
		have[p.ID] = true
		if p.Name == "splice-amulet" {
			old = p.ID
		}
	}
	for _, p := range amulet.Packages {
		if !have[p.ID] {
			pkgs = append(pkgs, p)
		}
	}
	r, err := New(pkgs, test.Main, interp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return r, old, amulet.Main
}

func decodeArg(t *testing.T, r *Runner, id *value.Identifier, js string) value.Value {
	t.Helper()
	plan, err := r.Packages().Env.Plan(tcon(id))
	if err != nil {
		t.Fatal(err)
	}
	v, err := plan.DecodeJSON([]byte(js), typed.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A command that names its template by package name (createCmd:
// explicitPackageId = False) runs with the ledger's preferred package of
// that name — the highest vetted version, or the one the submission's
// package preference names — and the script sees the result as the version
// it names; an exact command (createExactCmd) keeps its package.
// queryContractId finds a contract of another version of the template and
// converts it.
func TestPackageNameResolution(t *testing.T) {
	r, old, upgraded := upgradedRunner(t)
	ctx := context.Background()
	l := NewMemoryLedger(r)
	dso, err := l.AllocateParty(ctx, "dso")
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &value.Identifier{PackageID: string(old), ModuleName: "Splice.Amulet", EntityName: "FeaturedAppRight"}
	arg := decodeArg(t, r, tmpl, fmt.Sprintf(`{"dso": %q, "provider": %q}`, dso, dso))
	st := &run{r: r, ctx: ctx, ledger: l, res: &Result{}, limits: r.limits}
	create := func(byName bool, preference ...lf.PackageID) (created, seen *tx.Create) {
		t.Helper()
		sub := &Submission{ActAs: []string{dso}, Commands: []interp.Command{&interp.CreateCommand{Template: tmpl, Argument: arg}},
			ByName: []bool{byName}, PackagePreference: preference}
		tr, err := l.Submit(ctx, sub)
		if err != nil {
			t.Fatal(err)
		}
		written, err := st.asWritten(sub.Commands, tr)
		if err != nil {
			t.Fatal(err)
		}
		return tr.Nodes[tr.Roots[0]].(*tx.Create), written.Nodes[written.Roots[0]].(*tx.Create)
	}
	pkgOf := func(v value.Value) string {
		switch x := v.(type) {
		case *value.Record:
			return x.TypeCon.PackageID
		case *value.Enum:
			return x.TypeCon.PackageID
		}
		return fmt.Sprintf("(not data: %s)", v)
	}

	created, seen := create(true)
	if created.TemplateID.PackageID != string(upgraded) || pkgOf(created.Argument) != string(upgraded) {
		t.Errorf("by name: created %s (argument %s), want splice-amulet 0.1.14 %s", created.TemplateID, pkgOf(created.Argument), upgraded)
	}
	if *seen.TemplateID != *tmpl || pkgOf(seen.Argument) != string(old) {
		t.Errorf("by name: the script sees %s (argument %s), want %s", seen.TemplateID, pkgOf(seen.Argument), tmpl)
	}
	q, err := st.queryContractID(&value.Record{Fields: []value.Field{
		{Label: "parties", Value: value.NewList(value.Party(dso))}, {Label: "tplId", Value: r.types.typeRep(tmpl)}, {Label: "cid", Value: created.ContractID}}})
	if err != nil {
		t.Fatal(err)
	}
	o, ok := q.(value.Optional)
	if !ok || o.Value == nil {
		t.Fatalf("queryContractId of the 0.1.14 contract as 0.1.8: %v", q)
	}
	if a := o.Value.(*value.Record).Fields[0].Value.(*value.Record).Fields[0].Value.(*value.Any); pkgOf(a.Value) != string(old) {
		t.Errorf("queryContractId argument of package %s, want %s", pkgOf(a.Value), old)
	}

	// An exercise by name: its argument converted to 0.1.14's choice type,
	// its result back to 0.1.8's.
	choiceID := &value.Identifier{PackageID: string(old), ModuleName: "Splice.Amulet", EntityName: "FeaturedAppRight_Withdraw"}
	withdraw := &interp.ExerciseCommand{Template: tmpl, ContractID: created.ContractID, Choice: "FeaturedAppRight_Withdraw",
		Argument: decodeArg(t, r, choiceID, `{"reason": "upgrade test"}`)}
	sub := &Submission{ActAs: []string{dso}, Commands: []interp.Command{withdraw}, ByName: []bool{true}}
	tr, err := l.Submit(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	ran := tr.Nodes[tr.Roots[0]].(*tx.Exercise)
	if ran.TemplateID.PackageID != string(upgraded) || pkgOf(ran.ChosenValue) != string(upgraded) || pkgOf(ran.Result) != string(upgraded) {
		t.Errorf("by name: exercised %s with %s, result %s; want all of 0.1.14", ran.TemplateID, ran.ChosenValue, ran.Result)
	}
	written, err := st.asWritten(sub.Commands, tr)
	if err != nil {
		t.Fatal(err)
	}
	if e := written.Nodes[written.Roots[0]].(*tx.Exercise); *e.TemplateID != *tmpl || pkgOf(e.ChosenValue) != string(old) || pkgOf(e.Result) != string(old) {
		t.Errorf("the script sees %s with %s, result %s; want all of 0.1.8", e.TemplateID, e.ChosenValue, e.Result)
	}

	exact, _ := create(false)
	if exact.TemplateID.PackageID != string(old) {
		t.Errorf("exact: created %s, want %s", exact.TemplateID, old)
	}
	// splice-amulet 0.1.8's FeaturedAppRight does not implement the
	// featured-app API's interface, 0.1.14's does: as Daml's runner, the
	// 0.1.8 contract is seen through the preferred 0.1.14.
	var iface *value.Identifier
	for _, p := range r.lfPkgs {
		if p.Name == "splice-api-featured-app-v1" {
			iface = &value.Identifier{PackageID: string(p.ID), ModuleName: "Splice.Api.FeaturedAppRightV1", EntityName: "FeaturedAppRight"}
		}
	}
	queryView := func() value.Value {
		t.Helper()
		v, err := st.queryInterfaceContractID(&value.Record{Fields: []value.Field{
			{Label: "parties", Value: value.NewList(value.Party(dso))}, {Label: "interfaceId", Value: r.types.typeRep(iface)}, {Label: "cid", Value: exact.ContractID}}})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v, ok := queryView().(value.Optional); !ok || v.Value == nil {
		t.Errorf("view of the 0.1.8 contract through 0.1.14: %v", v)
	}
	if created, _ := create(true, old); created.TemplateID.PackageID != string(old) {
		t.Errorf("by name, preferring 0.1.8: created %s", created.TemplateID)
	}
	if err := l.SetVetting(ctx, []PackageRef{{"splice-amulet", "0.1.14"}}, false); err != nil {
		t.Fatal(err)
	}
	if created, _ := create(true); created.TemplateID.PackageID != string(old) {
		t.Errorf("by name, 0.1.14 unvetted: created %s", created.TemplateID)
	}
	if v, ok := queryView().(value.Optional); !ok || v.Value != nil {
		t.Errorf("view of the 0.1.8 contract with 0.1.14 unvetted: %v, want None", v)
	}
}

// The splice scripts create with createCmd (by package name): with
// splice-amulet 0.1.14 on the ledger their AmuletRules is a 0.1.14
// contract, which their query of the 0.1.8 template does not return — as
// on Daml's IDE ledger, whose query matches the exact template id.
func TestScriptsCreateByPackageName(t *testing.T) {
	r, _, upgraded := upgradedRunner(t)
	n, err := r.Lookup("Splice.Scripts.Wallet.TestSubscriptions:testSetup")
	if err != nil {
		t.Fatal(err)
	}
	l := NewMemoryLedger(r)
	_, err = r.Run(context.Background(), n, l, Options{})
	if err == nil || !strings.Contains(err.Error(), `No active AmuletRules contract`) {
		t.Errorf("testSetup with splice-amulet 0.1.14 vetted: %v", err)
	}
	var rules *tx.Contract
	for _, c := range l.active {
		if c.TemplateID.EntityName == "AmuletRules" {
			rules = c
		}
	}
	if rules == nil || rules.TemplateID.PackageID != string(upgraded) {
		t.Errorf("AmuletRules %v, want a contract of splice-amulet 0.1.14", rules)
	}
}
