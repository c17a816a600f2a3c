package interp

import (
	"context"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// The key test package: module "Keys", template Account with key
// AccountKey {owner, label} maintained by owner; Tool, whose choices use
// the key updates; NoMaint (no maintainers) and BadMaint (a maintainer who
// is not a signatory).

const keysPkgID lf.PackageID = "0000000000000000000000000000000000000000000000000000000000000005"

var keysMod = lf.DottedName{"Keys"}

func ktc(name string) lf.TypeConName { return tcIn(keysPkgID, "Keys", name) }

func kid(name string) *value.Identifier { return idIn(keysPkgID, "Keys", name) }

func kproj(rec, field string, e lf.Expr) lf.Expr { return projIn(ktc(rec), field, e) }

func krec(name string, fields ...lf.FieldExpr) lf.Expr { return recIn(ktc(name), fields...) }

func keysPackage() *lf.Package {
	accountKey := krec("AccountKey", fe("owner", kproj("Account", "owner", v("this"))), fe("label", kproj("Account", "label", v("this"))))
	ownerMaint := lam([]string{"k"}, listE(kproj("AccountKey", "owner", v("k"))))
	account := &lf.Template{Name: lf.DottedName{"Account"}, Param: "this", Precond: tru(),
		Signatories: listE(kproj("Account", "owner", v("this"))), Observers: listE(),
		Key: &lf.TemplateKey{Type: lf.TCon{Con: ktc("AccountKey")}, Body: accountKey, Maintainers: ownerMaint},
		Choices: []*lf.Choice{choice("Archive", true, listE(kproj("Account", "owner", v("this"))), pure(unit())),
			choice("Touch", false, listE(kproj("Account", "owner", v("this"))), pure(kproj("Account", "label", v("this"))))},
	}
	noMaint := &lf.Template{Name: lf.DottedName{"NoMaint"}, Param: "this", Precond: tru(), Signatories: listE(kproj("NoMaint", "owner", v("this"))), Observers: listE(),
		Key: &lf.TemplateKey{Type: partyT, Body: kproj("NoMaint", "owner", v("this")), Maintainers: lam([]string{"k"}, listE())}}
	badMaint := &lf.Template{Name: lf.DottedName{"BadMaint"}, Param: "this", Precond: tru(), Signatories: listE(kproj("BadMaint", "owner", v("this"))), Observers: listE(),
		Key: &lf.TemplateKey{Type: partyT, Body: kproj("BadMaint", "other", v("this")), Maintainers: lam([]string{"k"}, listE(v("k")))}}
	cidKey := &lf.Template{Name: lf.DottedName{"CidKey"}, Param: "this", Precond: tru(), Signatories: listE(kproj("CidKey", "owner", v("this"))), Observers: listE(),
		Key: &lf.TemplateKey{Type: lf.TCon{Con: ktc("RefKey")}, Body: krec("RefKey", fe("owner", kproj("CidKey", "owner", v("this"))), fe("ref", kproj("CidKey", "ref", v("this")))),
			Maintainers: lam([]string{"k"}, listE(kproj("RefKey", "owner", v("k"))))}}
	toolOwner := listE(kproj("Tool", "owner", v("this")))
	key := func() lf.Expr {
		return krec("AccountKey", fe("owner", kproj("Tool", "owner", v("this"))), fe("label", kproj("Label", "label", v("arg"))))
	}
	newAccount := func() lf.Expr {
		return upd(&lf.UCreate{Template: ktc("Account"), Arg: krec("Account", fe("owner", kproj("Tool", "owner", v("this"))), fe("label", kproj("Label", "label", v("arg"))))})
	}
	tool := &lf.Template{Name: lf.DottedName{"Tool"}, Param: "this", Precond: tru(), Signatories: toolOwner, Observers: listE(),
		Choices: []*lf.Choice{
			// Two accounts with the same key, then the three most recent.
			choice("CreateTwiceAndQuery", false, toolOwner, block(app1(upd(&lf.UQueryNByKey{Template: ktc("Account")}), i64(3), key()),
				bind("_", newAccount()), bind("_", newAccount()))),
			choice("Query", false, toolOwner, app1(upd(&lf.UQueryNByKey{Template: ktc("Account")}), i64(3), key())),
			choice("FetchByKey", false, toolOwner, app1(upd(&lf.UFetchByKey{Template: ktc("Account")}), key())),
			// Archive the most recent by key, then fetch by key again.
			choice("ArchiveAndFetch", false, toolOwner, block(app1(upd(&lf.UFetchByKey{Template: ktc("Account")}), key()),
				bind("_", upd(&lf.UExerciseByKey{Template: ktc("Account"), Choice: "Archive", Key: key(), Arg: krec("Unit")})))),
		},
	}
	mod, dup := lf.NewModule(lf.Module{
		Name: keysMod,
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Account"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}, {Name: "label", Type: lf.TBuiltin{Builtin: lf.BuiltinText}}}},
			{Name: lf.DottedName{"AccountKey"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}, {Name: "label", Type: lf.TBuiltin{Builtin: lf.BuiltinText}}}},
			{Name: lf.DottedName{"NoMaint"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}}},
			{Name: lf.DottedName{"BadMaint"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}, {Name: "other", Type: partyT}}},
			{Name: lf.DottedName{"CidKey"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}, {Name: "ref", Type: partyT}}},
			{Name: lf.DottedName{"RefKey"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}, {Name: "ref", Type: partyT}}},
			{Name: lf.DottedName{"Tool"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}}},
			{Name: lf.DottedName{"Label"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "label", Type: lf.TBuiltin{Builtin: lf.BuiltinText}}}},
			{Name: lf.DottedName{"Unit"}, Kind: lf.DataRecord, Serializable: true},
		},
		Templates: []*lf.Template{account, noMaint, badMaint, cidKey, tool},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: keysPkgID, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 3}, Name: "keys", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

var keysEngine = NewEngine(resolve.NewPackages(keysPackage()), Limits{})

func accountKey(owner, label string) *value.Record {
	return record(kid("AccountKey"), "owner", value.Party(owner), "label", value.Text(label))
}

// TestContractKeys: keys and maintainers on create nodes, hashed as Canton
// hashes them; fetch, exercise and lookup by key from commands; the
// maintainers' authority for lookups; keys that are not unique (Canton
// 3.5), queried most recent first, the transaction's own contracts before
// the ledger's; the key errors.
func TestContractKeys(t *testing.T) {
	ctx := context.Background()
	l := newMemLedger()
	submit := func(actAs string, cmds ...Command) (*Result, error) {
		return keysEngine.Submit(ctx, testSubmission([]string{actAs}, cmds...), l)
	}
	commit := func(res *Result) map[value.ContractID]value.ContractID { return l.Commit(res.Transaction, 1) }
	res, err := submit(alice, &CreateCommand{Template: kid("Account"), Argument: record(kid("Account"), "owner", value.Party(alice), "label", value.Text("main"))})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Transaction.Nodes[0].(*tx.Create)
	wantHash, _ := tx.KeyHash("keys", "Keys", "Account", accountKey(alice, "main"))
	if c.Key == nil || c.Key.Hash != wantHash || strings.Join(c.Key.Maintainers, ",") != alice || c.Version != "2" || res.Transaction.Version != "2" {
		t.Fatalf("create node key %+v, version %s", c.Key, c.Version)
	}
	account := commit(res)[c.ContractID]

	// Fetch, exercise and lookup by key.
	res, err = submit(alice, &FetchByKeyCommand{Template: kid("Account"), Key: accountKey(alice, "main")})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Transaction.Nodes[0].(*tx.Fetch)
	if f.ContractID != account || !f.ByKey || f.Key == nil || f.Key.Hash != wantHash {
		t.Errorf("fetch by key: %+v", f)
	}
	res, err = submit(alice, &ExerciseByKeyCommand{Template: kid("Account"), Key: accountKey(alice, "main"), Choice: "Touch", Argument: record(kid("Unit"))})
	if err != nil {
		t.Fatal(err)
	}
	if ex := res.Transaction.Nodes[0].(*tx.Exercise); ex.ContractID != account || !ex.ByKey || ex.Key == nil || ex.Result != value.Text("main") {
		t.Errorf("exercise by key: %+v", ex)
	}
	res, err = submit(alice, &LookupByKeyCommand{Template: kid("Account"), Key: accountKey(alice, "main")},
		&LookupByKeyCommand{Template: kid("Account"), Key: accountKey(alice, "nope")})
	if err != nil {
		t.Fatal(err)
	}
	found, missing := res.Transaction.Nodes[0].(*tx.QueryByKey), res.Transaction.Nodes[1].(*tx.QueryByKey)
	if len(found.Result) != 1 || found.Result[0] != account || found.Exhaustive || len(missing.Result) != 0 || !missing.Exhaustive ||
		found.Version != "2" || found.Key.Key.String() != accountKey(alice, "main").String() {
		t.Errorf("lookups: %+v %+v", found, missing)
	}
	_, err = submit(bob, &LookupByKeyCommand{Template: kid("Account"), Key: accountKey(alice, "main")})
	wantError(t, err, "DAML_AUTHORIZATION_ERROR", "node NodeId(0) ("+kid("Account").String()+") requires authorizers "+alice+" for lookup by key, but it only has "+bob)
	_, err = submit(alice, &FetchByKeyCommand{Template: kid("Account"), Key: accountKey(alice, "nope")})
	wantError(t, err, "CONTRACT_KEY_NOT_FOUND", `dependency error: couldn't find key: GlobalKey(`+kid("Account").String()+`, keys, { owner = '`+alice+`', label = "nope" }, `)

	// Keys are not unique: two more with the same key in one transaction;
	// a query lists the new ones, most recent first, then the ledger's.
	res, err = submit(alice, &CreateCommand{Template: kid("Tool"), Argument: record(kid("Tool"), "owner", value.Party(alice))})
	if err != nil {
		t.Fatal(err)
	}
	tool := commit(res)[res.Transaction.Nodes[0].(*tx.Create).ContractID]
	toolCmd := func(choice, label string) Command {
		return &ExerciseCommand{Template: kid("Tool"), ContractID: tool, Choice: choice, Argument: record(kid("Label"), "label", value.Text(label))}
	}
	res, err = submit(alice, toolCmd("CreateTwiceAndQuery", "main"))
	if err != nil {
		t.Fatal(err)
	}
	first, second := res.Transaction.Nodes[1].(*tx.Create).ContractID, res.Transaction.Nodes[2].(*tx.Create).ContractID
	q := res.Transaction.Nodes[3].(*tx.QueryByKey)
	if len(q.Result) != 3 || q.Result[0] != second || q.Result[1] != first || q.Result[2] != account || q.Exhaustive {
		t.Errorf("query: %v exhaustive %v", q.Result, q.Exhaustive)
	}
	ids := commit(res)
	res, err = submit(alice, toolCmd("Query", "main"))
	if err != nil {
		t.Fatal(err)
	}
	if q = res.Transaction.Nodes[1].(*tx.QueryByKey); len(q.Result) != 3 || q.Result[0] != ids[second] || q.Exhaustive {
		t.Errorf("query on the ledger: %v", q.Result)
	}
	if got := res.Transaction.Nodes[0].(*tx.Exercise).Result.(value.Optional).Value.(*value.List).Len(); got != 3 {
		t.Errorf("query result has %d pairs", got)
	}

	// Archive the most recent by key: fetch by key finds the next one.
	res, err = submit(alice, toolCmd("ArchiveAndFetch", "main"))
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(res.Transaction); got != "exercise Tool ArchiveAndFetch (nonconsuming)\n  exercise Account Archive\n  fetch Account\n" {
		t.Errorf("archive and fetch:\n%s", got)
	}
	if res.Transaction.Nodes[1].(*tx.Exercise).ContractID != ids[second] || res.Transaction.Nodes[2].(*tx.Fetch).ContractID != ids[first] {
		t.Errorf("archived %s, fetched %s", res.Transaction.Nodes[1].(*tx.Exercise).ContractID, res.Transaction.Nodes[2].(*tx.Fetch).ContractID)
	}

	// The key errors.
	_, err = submit(alice, &CreateCommand{Template: kid("NoMaint"), Argument: record(kid("NoMaint"), "owner", value.Party(alice))})
	wantError(t, err, "CREATE_EMPTY_CONTRACT_KEY_MAINTAINERS", "Update failed due to a contract key with an empty set of maintainers when creating Keys:NoMaint@00000000")
	_, err = submit(alice, &FetchByKeyCommand{Template: kid("NoMaint"), Key: value.Party(alice)})
	wantError(t, err, "FETCH_EMPTY_CONTRACT_KEY_MAINTAINERS", "when fetching or looking up by key keys/Keys:NoMaint@00000000\nThe provided shared key is '"+alice+"'")
	_, err = submit(alice, &CreateCommand{Template: kid("BadMaint"), Argument: record(kid("BadMaint"), "owner", value.Party(alice), "other", value.Party(bob))})
	wantError(t, err, "DAML_AUTHORIZATION_ERROR", "node NodeId(0) ("+kid("BadMaint").String()+") has maintainers "+bob+" which are not a subset of the signatories TreeSet("+alice+")")
	_, err = submit(alice, &CreateCommand{Template: kid("CidKey"), Argument: record(kid("CidKey"), "owner", value.Party(alice), "ref", value.ContractID(account))})
	wantError(t, err, "CONTRACT_ID_IN_CONTRACT_KEY", "Contract IDs are not supported in contract keys: "+string(account))
	_, err = submit(alice, &FetchByKeyCommand{Template: kid("Tool"), Key: value.Unit{}})
	wantError(t, err, "COMMAND_PREPROCESSING_FAILED", "has no contract key")
}
