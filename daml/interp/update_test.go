package interp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// The update test package: one module "Upd" with templates whose choices
// use each kind of update.

const updPkgID lf.PackageID = "0000000000000000000000000000000000000000000000000000000000000002"

var updMod = lf.DottedName{"Upd"}

func utc(name string) lf.TypeConName {
	return lf.TypeConName{Package: updPkgID, Module: updMod, Name: lf.DottedName{name}}
}

func uid(name string) *value.Identifier {
	return &value.Identifier{PackageID: string(updPkgID), ModuleName: "Upd", EntityName: name}
}

func urec(name string, fields ...lf.FieldExpr) lf.Expr {
	return &lf.ERecCon{Type: lf.TypeConApp{Con: utc(name)}, Fields: fields}
}

func uproj(name, field string, e lf.Expr) lf.Expr {
	return &lf.ERecProj{Type: lf.TypeConApp{Con: utc(name)}, Field: field, Record: e}
}

func upd(u lf.Update) lf.Expr { return &lf.EUpdate{Update: u} }
func pure(e lf.Expr) lf.Expr  { return upd(&lf.UPure{Expr: e}) }
func block(body lf.Expr, bs ...lf.Binding) lf.Expr {
	return upd(&lf.UBlock{Bindings: bs, Body: body})
}
func bind(name string, e lf.Expr) lf.Binding {
	return lf.Binding{Binder: lf.Binder{Name: name}, Bound: e}
}

var (
	partyT = lf.TBuiltin{Builtin: lf.BuiltinParty}
	listT  = lf.TBuiltin{Builtin: lf.BuiltinList}
)

func choice(name string, consuming bool, controllers, update lf.Expr) *lf.Choice {
	return &lf.Choice{Name: name, Consuming: consuming, Controllers: controllers, Observers: listE(),
		SelfBinder: "self", ArgBinder: lf.Binder{Name: "arg"}, Update: update,
		Location: &lf.Location{Module: updMod, Definition: "Asset:" + name, Start: lf.Position{Line: 9}}}
}

func field(name string) lf.Expr { return uproj("Asset", name, v("this")) }
func argField(rec, name string) lf.Expr {
	return uproj(rec, name, v("arg"))
}

func updPackage() *lf.Package {
	owner := listE(field("owner"))
	recT := func(name string, fields ...string) *lf.DataType {
		d := &lf.DataType{Name: lf.DottedName{name}, Kind: lf.DataRecord, Serializable: true}
		for _, f := range fields {
			d.Fields = append(d.Fields, lf.Field{Name: f, Type: partyT})
		}
		return d
	}
	asset := &lf.Template{
		Name:  lf.DottedName{"Asset"},
		Param: "this",
		// ensure n >= 0, returning False (not throwing) when violated.
		Precond:     app(bi(lf.BuiltinGreaterEq), field("n"), i64(0)),
		Signatories: owner,
		Observers:   field("obs"),
		Location:    &lf.Location{Module: updMod, Definition: "Asset", Start: lf.Position{Line: 2}},
		Choices: []*lf.Choice{
			// nonconsuming FetchOther: controller p; fetch cid
			choice("FetchOther", false, listE(argField("FetchOther", "p")),
				upd(&lf.UFetch{Template: utc("Asset"), ContractID: argField("FetchOther", "cid")})),
			// nonconsuming Now: get_time
			choice("Now", false, owner, upd(&lf.UGetTime{})),
			// nonconsuming Before: ledger time < t
			choice("Before", false, owner, upd(&lf.ULedgerTimeLT{Time: argField("Before", "t")})),
			// nonconsuming Embedded: embed_expr (if flag then error "boom" else pure 5)
			choice("Embedded", false, owner, upd(&lf.UEmbedExpr{Expr: ifte(argField("Embedded", "fail"),
				app(bi(lf.BuiltinError), text("boom")), pure(i64(5)))})),
			// Grow: consuming; create Asset with n+1 and observers, then
			// exercise Touch on the new one; return the new id.
			choice("Grow", true, owner, block(pure(v("new")),
				bind("new", upd(&lf.UCreate{Template: utc("Asset"), Arg: &lf.ERecUpd{Type: lf.TypeConApp{Con: utc("Asset")},
					Field: "n", Record: v("this"), Update: app(bi(lf.BuiltinAddInt64), field("n"), i64(1))}})),
				bind("_", upd(&lf.UExercise{Template: utc("Asset"), Choice: "Touch", ContractID: v("new"), Arg: urec("Touch")})))),
			// nonconsuming Touch: pure ()
			choice("Touch", false, owner, pure(unit())),
			// Nobody: no controllers.
			choice("Nobody", false, listE(), pure(unit())),
			// Give: consuming, controller owner; create an Asset owned by
			// someone else (needs their authority).
			choice("Give", true, owner, upd(&lf.UCreate{Template: utc("Asset"), Arg: &lf.ERecUpd{Type: lf.TypeConApp{Con: utc("Asset")},
				Field: "owner", Record: v("this"), Update: argField("Give", "to")}})),
			// Twice: exercise Archive on cid twice.
			choice("Twice", false, owner, block(pure(unit()),
				bind("_", upd(&lf.UExercise{Template: utc("Asset"), Choice: "Archive", ContractID: argField("Twice", "cid"), Arg: urec("Archive")})),
				bind("_", upd(&lf.UExercise{Template: utc("Asset"), Choice: "Archive", ContractID: argField("Twice", "cid"), Arg: urec("Archive")})))),
			choice("Archive", true, owner, pure(unit())),
		},
	}
	noSig := &lf.Template{Name: lf.DottedName{"NoSig"}, Param: "this", Precond: tru(), Signatories: listE(), Observers: listE()}
	cidT := lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinContractID}, Arg: lf.TCon{Con: utc("Asset")}}
	mod, dup := lf.NewModule(lf.Module{
		Name: updMod,
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Asset"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{
				{Name: "owner", Type: partyT}, {Name: "obs", Type: lf.TApp{Fun: listT, Arg: partyT}}, {Name: "n", Type: int64T}}},
			{Name: lf.DottedName{"FetchOther"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "p", Type: partyT}, {Name: "cid", Type: cidT}}},
			{Name: lf.DottedName{"Before"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "t", Type: lf.TBuiltin{Builtin: lf.BuiltinTimestamp}}}},
			{Name: lf.DottedName{"Embedded"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "fail", Type: lf.TBuiltin{Builtin: lf.BuiltinBool}}}},
			{Name: lf.DottedName{"Twice"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "cid", Type: cidT}}},
			recT("Give", "to"), recT("Now"), recT("Grow"), recT("Touch"), recT("Nobody"), recT("Archive"), recT("NoSig"),
		},
		Templates: []*lf.Template{asset, noSig},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: updPkgID, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "upd", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

var updEngine = NewEngine(resolve.NewPackages(updPackage()), Limits{})

func assetArg(owner string, n int64, obs ...string) *value.Record {
	return record(uid("Asset"), "owner", value.Party(owner), "obs", parties(obs...), "n", value.Int64(n))
}

// setup creates an Asset owned by owner and commits it.
func setupAsset(t *testing.T, l *memLedger, owner string, n int64, obs ...string) value.ContractID {
	t.Helper()
	res, err := updEngine.Submit(context.Background(), testSubmission([]string{owner}, &CreateCommand{Template: uid("Asset"), Argument: assetArg(owner, n, obs...)}), l)
	if err != nil {
		t.Fatal(err)
	}
	ids := l.commit(res.Transaction, 1)
	return ids[res.Transaction.Nodes[0].(*tx.Create).ContractID]
}

func exerciseCmd(cid value.ContractID, choice string, arg *value.Record) Command {
	return &ExerciseCommand{Template: uid("Asset"), ContractID: cid, Choice: choice, Argument: arg}
}

func wantError(t *testing.T, err error, id, cause string) *Error {
	t.Helper()
	var ie *Error
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want %s", err, id)
	}
	if ie.ID != id || !strings.Contains(ie.Cause, cause) {
		t.Errorf("got %s %q, want %s containing %q", ie.ID, ie.Cause, id, cause)
	}
	return ie
}

func TestUpdateCreate(t *testing.T) {
	l := newMemLedger()
	ctx := context.Background()
	// A precondition that is False (not a throw) is TEMPLATE_PRECONDITION_VIOLATED.
	_, err := updEngine.Submit(ctx, testSubmission([]string{alice}, &CreateCommand{Template: uid("Asset"), Argument: assetArg(alice, -1)}), l)
	ie := wantError(t, err, "TEMPLATE_PRECONDITION_VIOLATED",
		`Interpretation error: Error: Update failed due to precondition violation when creating Upd:Asset@00000000 with Upd:Asset@00000000{ owner = '`+alice+`', obs = [], n = -1 }`)
	if ie.Template != uid("Asset").String() || ie.Location == nil || ie.Location.Start.Line != 2 {
		t.Errorf("context: %s %v", ie.Template, ie.Location)
	}
	// Signatories must authorize.
	_, err = updEngine.Submit(ctx, testSubmission([]string{bob}, &CreateCommand{Template: uid("Asset"), Argument: assetArg(alice, 1)}), l)
	wantError(t, err, "DAML_AUTHORIZATION_ERROR", "node NodeId(0) ("+uid("Asset").String()+") requires authorizers "+alice+", but only "+bob+" were given")
	// At least one signatory.
	_, err = updEngine.Submit(ctx, testSubmission([]string{bob}, &CreateCommand{Template: uid("NoSig"), Argument: record(uid("NoSig"))}), l)
	wantError(t, err, "DAML_AUTHORIZATION_ERROR", "node NodeId(0) ("+uid("NoSig").String()+") has no signatories")
	// Observers are stakeholders.
	res, err := updEngine.Submit(ctx, testSubmission([]string{alice}, &CreateCommand{Template: uid("Asset"), Argument: assetArg(alice, 1, carol, bob, carol)}), l)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Transaction.Nodes[0].(*tx.Create)
	if strings.Join(c.Stakeholders, ",") != strings.Join(sorted(alice, bob, carol), ",") || c.Version != "2.1" || c.PackageName != "upd" {
		t.Errorf("create node %+v", c)
	}
	// A command argument of another type is refused before interpretation.
	_, err = updEngine.Submit(ctx, testSubmission([]string{alice}, &CreateCommand{Template: uid("Asset"), Argument: value.Int64(1)}), l)
	wantError(t, err, "COMMAND_PREPROCESSING_FAILED", "must be a record of type")
}

func TestUpdateExerciseNesting(t *testing.T) {
	l := newMemLedger()
	cid := setupAsset(t, l, alice, 1)
	s := testSubmission([]string{alice}, exerciseCmd(cid, "Grow", record(uid("Grow"))))
	res, err := updEngine.Submit(context.Background(), s, l)
	if err != nil {
		t.Fatal(err)
	}
	checkSeeds(t, s, res.Transaction)
	if got := describe(res.Transaction); got != "exercise Asset Grow\n  create Asset\n  exercise Asset Touch (nonconsuming)\n" {
		t.Errorf("Grow:\n%s", got)
	}
	ex := res.Transaction.Nodes[0].(*tx.Exercise)
	created := res.Transaction.Nodes[1].(*tx.Create)
	if ex.Result != created.ContractID || !ex.Consuming || created.Argument.(*value.Record).Field("n") != value.Int64(2) {
		t.Errorf("result %v, created %v", ex.Result, created.Argument)
	}
	touch := res.Transaction.Nodes[2].(*tx.Exercise)
	if touch.ContractID != created.ContractID || touch.Result != (value.Unit{}) {
		t.Errorf("Touch %+v", touch)
	}
}

func TestUpdateAuthorization(t *testing.T) {
	l := newMemLedger()
	ctx := context.Background()
	cid := setupAsset(t, l, alice, 1, bob)
	// Inside a choice the authority is signatories ∪ controllers: alice
	// cannot give bob an asset he did not authorize.
	_, err := updEngine.Submit(ctx, testSubmission([]string{alice}, exerciseCmd(cid, "Give", record(uid("Give"), "to", value.Party(bob)))), l)
	ie := wantError(t, err, "DAML_AUTHORIZATION_ERROR", "node NodeId(1) ("+uid("Asset").String()+") requires authorizers "+bob+", but only "+alice+" were given")
	if ie.Choice != "Give" || ie.Template != uid("Asset").String() || ie.Action != "create of "+uid("Asset").String() ||
		!strings.Contains(ie.Error(), "\n  in create of "+uid("Asset").String()+",\n  in choice Give of template "+uid("Asset").String()) {
		t.Errorf("context:\n%v", ie)
	}
	// No controllers.
	_, err = updEngine.Submit(ctx, testSubmission([]string{alice}, exerciseCmd(cid, "Nobody", record(uid("Nobody")))), l)
	wantError(t, err, "DAML_AUTHORIZATION_ERROR", "node NodeId(0) ("+uid("Asset").String()+") has no controllers")
	// Fetch needs a stakeholder among the authorizers: carol's contract
	// fetched under bob's authority.
	other := setupAsset(t, l, carol, 1)
	_, err = updEngine.Submit(ctx, testSubmission([]string{bob}, exerciseCmd(cid, "FetchOther", record(uid("FetchOther"), "p", value.Party(bob), "cid", other))), l)
	wantError(t, err, "DAML_AUTHORIZATION_ERROR", "node NodeId(1) requires one of the stakeholders TreeSet("+carol+") of the fetched contract to be an authorizer, but authorizers were TreeSet("+alice+", "+bob+")")
	// A stakeholder fetches: acting parties are the authorizing stakeholders.
	s := testSubmission([]string{bob}, exerciseCmd(cid, "FetchOther", record(uid("FetchOther"), "p", value.Party(bob), "cid", cid)))
	res, err := updEngine.Submit(ctx, s, l)
	if err != nil {
		t.Fatal(err)
	}
	checkSeeds(t, s, res.Transaction)
	f := res.Transaction.Nodes[1].(*tx.Fetch)
	if strings.Join(f.ActingParties, ",") != strings.Join(sorted(alice, bob), ",") || res.Transaction.Nodes[0].(*tx.Exercise).Result.(*value.Record).Field("n") != value.Int64(1) {
		t.Errorf("fetch %+v", f)
	}
	if len(res.Inputs) != 1 {
		t.Errorf("inputs %v", res.Inputs)
	}
}

func TestUpdateTime(t *testing.T) {
	l := newMemLedger()
	ctx := context.Background()
	cid := setupAsset(t, l, alice, 1)
	s := testSubmission([]string{alice}, exerciseCmd(cid, "Now", record(uid("Now"))))
	s.LedgerTime = 5_000_000
	res, err := updEngine.Submit(ctx, s, l)
	if err != nil {
		t.Fatal(err)
	}
	if res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Timestamp(5_000_000) || !res.DependsOnTime ||
		*res.TimeBounds.Min != 5_000_000 || *res.TimeBounds.Max != 5_000_000 {
		t.Errorf("get_time: %+v %v %v", res.Transaction.Nodes[0], res.TimeBounds.Min, res.TimeBounds.Max)
	}
	// ledger time < t narrows the upper bound; ≥ t the lower one.
	s = testSubmission([]string{alice}, exerciseCmd(cid, "Before", record(uid("Before"), "t", value.Timestamp(9_000_000))))
	s.LedgerTime = 5_000_000
	res, err = updEngine.Submit(ctx, s, l)
	if err != nil {
		t.Fatal(err)
	}
	if res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Bool(true) || *res.TimeBounds.Max != 8_999_999 || *res.TimeBounds.Min != value.MinTimestamp {
		t.Errorf("ledger time before: %v [%v, %v]", res.Transaction.Nodes[0].(*tx.Exercise).Result, *res.TimeBounds.Min, *res.TimeBounds.Max)
	}
	s.LedgerTime = 9_000_000
	res, err = updEngine.Submit(ctx, s, l)
	if err != nil {
		t.Fatal(err)
	}
	if res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Bool(false) || *res.TimeBounds.Min != 9_000_000 || *res.TimeBounds.Max != value.MaxTimestamp {
		t.Errorf("ledger time not before: [%v, %v]", *res.TimeBounds.Min, *res.TimeBounds.Max)
	}
	// Without time, no bounds.
	res, err = updEngine.Submit(ctx, testSubmission([]string{alice}, exerciseCmd(cid, "Touch", record(uid("Touch")))), l)
	if err != nil || res.DependsOnTime || res.TimeBounds.Min != nil {
		t.Errorf("no time: %v %+v", err, res)
	}
}

func TestUpdateEmbedAndAbort(t *testing.T) {
	l := newMemLedger()
	ctx := context.Background()
	cid := setupAsset(t, l, alice, 1)
	res, err := updEngine.Submit(ctx, testSubmission([]string{alice}, exerciseCmd(cid, "Embedded", record(uid("Embedded"), "fail", value.Bool(false)))), l)
	if err != nil || res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Int64(5) {
		t.Fatalf("embed_expr: %v", err)
	}
	_, err = updEngine.Submit(ctx, testSubmission([]string{alice}, exerciseCmd(cid, "Embedded", record(uid("Embedded"), "fail", value.Bool(true)))), l)
	ie := wantError(t, err, "INTERPRETATION_USER_ERROR", "Interpretation error: Error: User abort: boom")
	if ie.Choice != "Embedded" || !strings.Contains(ie.Error(), "in choice Embedded of template "+uid("Asset").String()) {
		t.Errorf("abort context:\n%v", ie)
	}
}

func TestUpdateConsumedTwice(t *testing.T) {
	l := newMemLedger()
	ctx := context.Background()
	cid := setupAsset(t, l, alice, 1)
	other := setupAsset(t, l, alice, 2)
	_, err := updEngine.Submit(ctx, testSubmission([]string{alice}, exerciseCmd(cid, "Twice", record(uid("Twice"), "cid", other))), l)
	wantError(t, err, "CONTRACT_NOT_ACTIVE", "Update failed due to fetch of an inactive contract "+string(other)+" (Upd:Asset@00000000).\nThe contract had been consumed in sub-transaction #NodeId(1):")
	// Exercising a contract on itself after consuming it: Grow consumes cid.
	_, err = updEngine.Submit(ctx, testSubmission([]string{alice}, exerciseCmd(cid, "Grow", record(uid("Grow"))), exerciseCmd(cid, "Touch", record(uid("Touch")))), l)
	wantError(t, err, "CONTRACT_NOT_ACTIVE", "inactive contract "+string(cid))
}

func TestUpdateWronglyTyped(t *testing.T) {
	e, pkg := pingEngine(t)
	l := newMemLedger()
	pingID := ident(pkg, "Canton.Internal.Ping", "Ping")
	res, err := e.Submit(context.Background(), testSubmission([]string{alice}, &CreateCommand{Template: pingID, Argument: pingArg(e, pingID)}), l)
	if err != nil {
		t.Fatal(err)
	}
	cid := l.commit(res.Transaction, 1)[res.Transaction.Nodes[0].(*tx.Create).ContractID]
	_, err = e.Submit(context.Background(), testSubmission([]string{alice}, &ExerciseCommand{Template: ident(pkg, "Canton.Internal.Bong", "Bong"),
		ContractID: cid, Choice: "Ack", Argument: record(ident(pkg, "Canton.Internal.Bong", "Ack"))}), l)
	wantError(t, err, "WRONGLY_TYPED_CONTRACT", "Update failed due to wrongly typed contract id "+string(cid)+"\nExpected contract of type Canton.Internal.Bong:Bong@de2cc2f9 but got Canton.Internal.Ping:Ping@de2cc2f9")
}

func TestUpdateLedgerMetadataMismatch(t *testing.T) {
	l := newMemLedger()
	cid := setupAsset(t, l, alice, 1)
	// The ledger claims other signatories than the template computes.
	l.contracts[cid].Signatories = []string{bob}
	_, err := updEngine.Submit(context.Background(), testSubmission([]string{alice}, exerciseCmd(cid, "Touch", record(uid("Touch")))), l)
	wantError(t, err, "INTERPRETATION_UPGRADE_ERROR_VALIDATION_FAILED", "Validation fails when trying to upgrade the contract "+string(cid))
}

func TestDisclosedContracts(t *testing.T) {
	l := newMemLedger()
	cid := setupAsset(t, l, alice, 1)
	c := l.contracts[cid]
	delete(l.contracts, cid) // the ledger does not show it to the submitter
	s := testSubmission([]string{alice}, exerciseCmd(cid, "Touch", record(uid("Touch"))))
	_, err := updEngine.Submit(context.Background(), s, l)
	wantError(t, err, "CONTRACT_NOT_FOUND", "Contract could not be found with id "+string(cid))
	s.Disclosed = []*tx.Contract{c}
	res, err := updEngine.Submit(context.Background(), s, l)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 1 || res.Inputs[0] != c {
		t.Errorf("inputs %v", res.Inputs)
	}
}

func TestRootSeedsReinterpretation(t *testing.T) {
	l := newMemLedger()
	s := testSubmission([]string{alice}, &CreateCommand{Template: uid("Asset"), Argument: assetArg(alice, 1)})
	first, err := updEngine.Submit(context.Background(), s, l)
	if err != nil {
		t.Fatal(err)
	}
	s.RootSeeds = []tx.Hash{first.Transaction.Seeds[0].Seed}
	s.SubmissionSeed = tx.Hash{}
	again, err := updEngine.Submit(context.Background(), s, l)
	if err != nil {
		t.Fatal(err)
	}
	if again.Transaction.Nodes[0].(*tx.Create).ContractID != first.Transaction.Nodes[0].(*tx.Create).ContractID {
		t.Error("reinterpretation from the root seed gives another contract id")
	}
}
