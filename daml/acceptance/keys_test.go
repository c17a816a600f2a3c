package acceptance

import (
	"fmt"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// TestJSONAPIKeys runs the keyed templates of the JSON API's test DAR
// (Daml-LF 2.dev): create TemplateFoo (key: its party) and TemplateBar
// (key: a party and a record), fetch and exercise by key, and look up a
// key no contract has.
func TestJSONAPIKeys(t *testing.T) {
	a := loadApp(t, "DamlDefinitionsServiceMain.dar")
	w := newWorld(t, a)
	dep := a.pkg(t, "DamlDefinitionsServiceDep")
	foo := id(dep, "ExternalDep:TemplateFoo")
	bar := id(dep, "ExternalDep:TemplateBar")

	res, ids := w.submit([]string{alice}, &interp.CreateCommand{Template: foo, Argument: a.value(t, foo, fmt.Sprintf(`{"someParty": %q,
		"someRecordField": {"tag": "SomeVariant", "value": "7"}, "someRecordTyped": {"foo": {"tag": "SomeEnum", "value": {}}},
		"someOptionalRecField": null}`, alice))})
	c := res.Transaction.Nodes[0].(*tx.Create)
	if c.Key == nil || c.Key.Key != value.Party(alice) || len(c.Key.Maintainers) != 1 || c.Key.Maintainers[0] != alice || c.Version != "2" {
		t.Fatalf("TemplateFoo's create node key %+v, version %s", c.Key, c.Version)
	}
	fooID := ids[c.ContractID]
	res, _ = w.submit([]string{alice}, &interp.CreateCommand{Template: bar, Argument: a.value(t, bar, fmt.Sprintf(`{"anotherParty": %q,
		"firstTemplateRef": %q, "someRecordForKey": {"foo": "42"}}`, alice, fooID))})
	if k := res.Transaction.Nodes[0].(*tx.Create).Key; k == nil || k.Key.(*value.Record).Fields[1].Value.(*value.Record).Fields[0].Value != value.Int64(42) {
		t.Errorf("TemplateBar's key %+v", k)
	}

	res, err := w.try([]string{alice}, &interp.FetchByKeyCommand{Template: foo, Key: value.Party(alice)})
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Transaction.Nodes[0].(*tx.Fetch); f.ContractID != fooID || !f.ByKey || describe(res.Transaction) != "fetch TemplateFoo by key\n" {
		t.Errorf("fetch by key: %+v", f)
	}
	choiceArg := a.value(t, id(dep, "ExternalDep:SourceTemplate_Args_RetRecord"),
		`{"choiceArg": {"foo": "2026-01-01T00:00:00Z"}}`)
	res, _ = w.submit([]string{alice}, &interp.ExerciseByKeyCommand{Template: foo, Key: value.Party(alice), Choice: "SourceTemplate_Args_RetRecord", Argument: choiceArg})
	ex := res.Transaction.Nodes[0].(*tx.Exercise)
	if ex.ContractID != fooID || !ex.ByKey || !ex.Consuming || ex.Key == nil {
		t.Errorf("exercise by key: %+v", ex)
	}
	if len(w.ledger.Active("ExternalDep", "TemplateFoo")) != 0 {
		t.Error("TemplateFoo not archived by the consuming choice")
	}

	res, err = w.try([]string{alice}, &interp.LookupByKeyCommand{Template: foo, Key: value.Party(alice)})
	if err != nil {
		t.Fatal(err)
	}
	if q := res.Transaction.Nodes[0].(*tx.QueryByKey); len(q.Result) != 0 || !q.Exhaustive || q.Key.Hash != c.Key.Hash {
		t.Errorf("lookup of a missing key: %+v", q)
	}
	_, err = w.try([]string{alice}, &interp.ExerciseByKeyCommand{Template: foo, Key: value.Party(alice), Choice: "SourceTemplate_Args_RetRecord", Argument: choiceArg})
	wantError(t, err, "CONTRACT_KEY_NOT_FOUND", "dependency error: couldn't find key: GlobalKey("+foo.String()+", ")
}
