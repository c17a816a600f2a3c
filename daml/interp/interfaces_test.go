package interp

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// The interface test package: module "Ifc" with interfaces Token
// (requiring Base; method amount, view TokenView, choices Bump and
// Guarded) and Base, templates Coin (implements both) and Note
// (implements Base), and Tester, whose choices run the interface updates.

const ifcPkgID lf.PackageID = "0000000000000000000000000000000000000000000000000000000000000004"

var ifcMod = lf.DottedName{"Ifc"}

func itc(name string) lf.TypeConName { return tcIn(ifcPkgID, "Ifc", name) }

func iid(name string) *value.Identifier { return idIn(ifcPkgID, "Ifc", name) }

func iproj(rec, field string, e lf.Expr) lf.Expr { return projIn(itc(rec), field, e) }

func irec(name string, fields ...lf.FieldExpr) lf.Expr { return recIn(itc(name), fields...) }

func toIface(iface, tmpl string, e lf.Expr) lf.Expr {
	return &lf.EToInterface{Interface: itc(iface), Template: itc(tmpl), Expr: e}
}

func ifcPackage() *lf.Package {
	coinOwner := listE(iproj("Coin", "owner", v("this")))
	// Token's choices see the interface value as "this".
	tokenOwner := &lf.ESignatoryInterface{Interface: itc("Token"), Expr: v("this")}
	token := &lf.Interface{
		Name: lf.DottedName{"Token"}, Param: "this", Requires: []lf.TypeConName{itc("Base")},
		Methods: []lf.InterfaceMethod{{Name: "amount", Type: int64T}},
		View:    lf.TCon{Con: itc("TokenView")},
		Choices: []*lf.Choice{
			// Bump: consuming; creates a Coin with twice the amount, through the interface.
			choice("Bump", true, tokenOwner, upd(&lf.UCreateInterface{Interface: itc("Token"), Arg: toIface("Token", "Coin",
				irec("Coin", fe("owner", iproj("Bump", "owner", v("arg"))),
					fe("n", app(bi(lf.BuiltinMulInt64), i64(2), &lf.ECallInterface{Interface: itc("Token"), Method: "amount", Expr: v("this")}))))})),
			choice("Peek", false, tokenOwner, pure(&lf.EViewInterface{Interface: itc("Token"), Expr: v("this")})),
		},
	}
	base := &lf.Interface{Name: lf.DottedName{"Base"}, Param: "this", View: lf.TCon{Con: itc("Unit")}}
	coin := &lf.Template{Name: lf.DottedName{"Coin"}, Param: "this", Precond: tru(), Signatories: coinOwner, Observers: listE(),
		Implements: []*lf.InterfaceInstance{
			{Interface: itc("Token"), Methods: []lf.InterfaceInstanceMethod{{Name: "amount", Value: iproj("Coin", "n", v("this"))}},
				View: irec("TokenView", fe("n", iproj("Coin", "n", v("this"))))},
			{Interface: itc("Base"), View: irec("Unit")},
		},
		Choices: []*lf.Choice{choice("Archive", true, coinOwner, pure(unit()))},
	}
	note := &lf.Template{Name: lf.DottedName{"Note"}, Param: "this", Precond: tru(), Signatories: listE(iproj("Note", "owner", v("this"))), Observers: listE(),
		Implements: []*lf.InterfaceInstance{{Interface: itc("Base"), View: irec("Unit")}}}
	testerOwner := listE(iproj("Tester", "owner", v("this")))
	cidArg := iproj("Target", "cid", v("arg"))
	guarded := func(guard lf.Expr) lf.Expr {
		return upd(&lf.UExerciseInterface{Interface: itc("Token"), Choice: "Peek", ContractID: cidArg, Arg: irec("Unit"),
			Guard: lam([]string{"t"}, guard)})
	}
	tester := &lf.Template{Name: lf.DottedName{"Tester"}, Param: "this", Precond: tru(), Signatories: testerOwner, Observers: listE(),
		Choices: []*lf.Choice{
			choice("FetchToken", false, testerOwner, upd(&lf.UFetchInterface{Interface: itc("Token"), ContractID: cidArg})),
			choice("GuardTrue", false, testerOwner, guarded(tru())),
			choice("GuardFalse", false, testerOwner, guarded(fls())),
			choice("GuardThrows", false, testerOwner, guarded(app(bi(lf.BuiltinEqual), app(bi(lf.BuiltinDivInt64), i64(1), i64(0)), i64(0)))),
		},
	}
	cidT := lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinContractID}, Arg: lf.TCon{Con: itc("Token")}}
	mod, dup := lf.NewModule(lf.Module{
		Name: ifcMod,
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Coin"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}, {Name: "n", Type: int64T}}},
			{Name: lf.DottedName{"Note"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}}},
			{Name: lf.DottedName{"Tester"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}}},
			{Name: lf.DottedName{"TokenView"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "n", Type: int64T}}},
			{Name: lf.DottedName{"Bump"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}}},
			{Name: lf.DottedName{"Target"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "cid", Type: cidT}}},
			{Name: lf.DottedName{"Unit"}, Kind: lf.DataRecord, Serializable: true},
			{Name: lf.DottedName{"Token"}, Kind: lf.DataInterface},
			{Name: lf.DottedName{"Base"}, Kind: lf.DataInterface},
		},
		Templates:  []*lf.Template{coin, note, tester},
		Interfaces: []*lf.Interface{token, base},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: ifcPkgID, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "ifc", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

var ifcEngine = NewEngine(resolve.NewPackages(ifcPackage()), Limits{})

// TestInterfaceExpressions evaluates the pure interface operations on
// interface values of Coin and Note.
func TestInterfaceExpressions(t *testing.T) {
	coin := irec("Coin", fe("owner", &lf.EText{Value: alice}), fe("n", i64(7)))
	note := irec("Note", fe("owner", &lf.EText{Value: alice}))
	cid := &lf.EText{Value: "00ab"}
	for _, c := range []struct {
		name string
		e    lf.Expr
		want string
	}{
		{"from_interface, same template", &lf.EFromInterface{Interface: itc("Token"), Template: itc("Coin"), Expr: toIface("Token", "Coin", coin)},
			`Option(Ifc:Coin@00000000{ owner = "` + alice + `", n = 7 })`},
		{"from_interface, another template", &lf.EFromInterface{Interface: itc("Base"), Template: itc("Note"), Expr: toIface("Base", "Coin", coin)}, "None"},
		{"unsafe_from_interface, another template", &lf.EUnsafeFromInterface{Interface: itc("Base"), Template: itc("Note"), ContractID: cid, Expr: toIface("Base", "Coin", coin)},
			"WRONGLY_TYPED_CONTRACT: Interpretation error: Error: Update failed due to wrongly typed contract id \"00ab\"\nExpected contract of type Ifc:Note@00000000 but got Ifc:Coin@00000000"},
		{"from_required_interface, implemented", &lf.EFromRequiredInterface{Required: itc("Base"), Requiring: itc("Token"), Expr: toIface("Base", "Coin", coin)},
			`Option(to_any @Coin Ifc:Coin@00000000{ owner = "` + alice + `", n = 7 })`},
		{"from_required_interface, not implemented", &lf.EFromRequiredInterface{Required: itc("Base"), Requiring: itc("Token"), Expr: toIface("Base", "Note", note)}, "None"},
		{"unsafe_from_required_interface, not implemented", &lf.EUnsafeFromRequiredInterface{Required: itc("Base"), Requiring: itc("Token"), ContractID: cid, Expr: toIface("Base", "Note", note)},
			"CONTRACT_DOES_NOT_IMPLEMENT_REQUIRING_INTERFACE: Interpretation error: Error: Update failed due to contract \"00ab\" not implementing the requiring interface\n" +
				"Expected contract to implement interface Ifc:Token@00000000 requirring the interface Ifc:Base@00000000 but contract has type Ifc:Note@00000000"},
		{"to_required_interface", &lf.EToRequiredInterface{Required: itc("Base"), Requiring: itc("Token"), Expr: toIface("Token", "Coin", coin)},
			`to_any @Coin Ifc:Coin@00000000{ owner = "` + alice + `", n = 7 }`},
		{"interface_template_type_rep", &lf.EInterfaceTemplateTypeRep{Interface: itc("Base"), Expr: toIface("Base", "Note", note)}, "type_rep @Note"},
		{"signatory_interface", &lf.ESignatoryInterface{Interface: itc("Token"), Expr: toIface("Token", "Coin", coin)}, `["` + alice + `"]`},
		{"observer_interface", &lf.EObserverInterface{Interface: itc("Token"), Expr: toIface("Token", "Coin", coin)}, "[]"},
		{"call_interface", &lf.ECallInterface{Interface: itc("Token"), Method: "amount", Expr: toIface("Token", "Coin", coin)}, "7"},
		{"view_interface", &lf.EViewInterface{Interface: itc("Token"), Expr: toIface("Token", "Coin", coin)}, "Ifc:TokenView@00000000{ n = 7 }"},
	} {
		lam, err := ifcEngine.Packages().Closed("test", c.e)
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := ifcEngine.EvalLambda(context.Background(), lam, Limits{})
		if got := outcome(v, err); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
	}
}

// TestInterfaceUpdates exercises and fetches through interfaces: the
// nodes name the template and the interface; create_interface creates the
// template; choice guards; contracts that do not implement the interface.
func TestInterfaceUpdates(t *testing.T) {
	ctx := context.Background()
	l := newMemLedger()
	submit := func(actAs string, cmd Command) (*Result, error) {
		return ifcEngine.Submit(ctx, testSubmission([]string{actAs}, cmd), l)
	}
	create := func(tmpl string, arg *value.Record) value.ContractID {
		res, err := submit(alice, &CreateCommand{Template: iid(tmpl), Argument: arg})
		if err != nil {
			t.Fatal(err)
		}
		return l.Commit(res.Transaction, 1)[res.Transaction.Nodes[0].(*tx.Create).ContractID]
	}
	coin := create("Coin", record(iid("Coin"), "owner", value.Party(alice), "n", value.Int64(21)))
	note := create("Note", record(iid("Note"), "owner", value.Party(alice)))
	tester := create("Tester", record(iid("Tester"), "owner", value.Party(alice)))

	// An exercise command naming the interface.
	res, err := submit(alice, &ExerciseCommand{Template: iid("Token"), ContractID: coin, Choice: "Bump", Argument: record(iid("Bump"), "owner", value.Party(alice))})
	if err != nil {
		t.Fatal(err)
	}
	ex := res.Transaction.Nodes[0].(*tx.Exercise)
	made := res.Transaction.Nodes[1].(*tx.Create)
	if ex.TemplateID.String() != iid("Coin").String() || ex.InterfaceID.String() != iid("Token").String() || !ex.Consuming ||
		made.TemplateID.EntityName != "Coin" || made.Argument.(*value.Record).Field("n") != value.Int64(42) || ex.Result != made.ContractID {
		t.Errorf("Bump: %+v\n%+v", ex, made)
	}
	coin = l.Commit(res.Transaction, 2)[made.ContractID]

	// fetch_interface: a fetch node naming the interface; the result is
	// the interface value.
	target := func(cid value.ContractID) *value.Record { return record(iid("Target"), "cid", cid) }
	res, err = submit(alice, &ExerciseCommand{Template: iid("Tester"), ContractID: tester, Choice: "FetchToken", Argument: target(coin)})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Transaction.Nodes[1].(*tx.Fetch)
	if f.TemplateID.EntityName != "Coin" || f.InterfaceID.String() != iid("Token").String() || res.Transaction.Nodes[0].(*tx.Exercise).Result.(*value.Any) == nil {
		t.Errorf("fetch_interface: %+v", f)
	}
	_, err = submit(alice, &ExerciseCommand{Template: iid("Tester"), ContractID: tester, Choice: "FetchToken", Argument: target(note)})
	wantError(t, err, "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE", "Update failed due to contract "+string(note)+" not implementing an interface\n"+
		"Expected contract to implement interface Ifc:Token@00000000 but contract has type Ifc:Note@00000000")

	// Guards.
	res, err = submit(alice, &ExerciseCommand{Template: iid("Tester"), ContractID: tester, Choice: "GuardTrue", Argument: target(coin)})
	if err != nil || res.Transaction.Nodes[1].(*tx.Exercise).Result.String() != "Ifc:TokenView@00000000{ n = 42 }" {
		t.Errorf("guard true: %v", err)
	}
	for _, choice := range []string{"GuardFalse", "GuardThrows"} {
		_, err = submit(alice, &ExerciseCommand{Template: iid("Tester"), ContractID: tester, Choice: choice, Argument: target(coin)})
		wantError(t, err, "INTERPRETATION_DEV_ERROR", "Choice guard failed for Ifc:Coin@00000000 contract "+string(coin)+" when exercising choice Peek by interface Ifc:Token@00000000")
	}

	// Views for the read side.
	c, _ := l.LookupContract(ctx, coin)
	v, err := ifcEngine.InterfaceView(ctx, c.TemplateID, c.Argument, iid("Token"), Limits{})
	if err != nil || v.String() != "Ifc:TokenView@00000000{ n = 42 }" {
		t.Errorf("view: %v %v", v, err)
	}
	c, _ = l.LookupContract(ctx, note)
	_, err = ifcEngine.InterfaceView(ctx, c.TemplateID, c.Argument, iid("Token"), Limits{})
	wantError(t, err, "COMMAND_PREPROCESSING_FAILED", "template "+iid("Note").String()+" does not implement interface "+iid("Token").String())
}
