package interp

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// The exception test package: module "Exc" with one template, Box, whose
// choices throw and catch.

const excPkgID lf.PackageID = "0000000000000000000000000000000000000000000000000000000000000003"

var excMod = lf.DottedName{"Exc"}

func etc(name string) lf.TypeConName { return tcIn(excPkgID, "Exc", name) }

func eid(name string) *value.Identifier { return idIn(excPkgID, "Exc", name) }

func erec(name string, fields ...lf.FieldExpr) lf.Expr { return recIn(etc(name), fields...) }

// boom throws Boom with a message.
func boom(what string) lf.Expr {
	return &lf.EThrow{ReturnType: int64T, ExceptionType: lf.TCon{Con: etc("Boom")},
		Exception: erec("Boom", fe("what", text(what)))}
}

func try(body lf.Expr, handler lf.Expr) lf.Expr {
	return upd(&lf.UTryCatch{Try: body, Var: "e", Catch: handler})
}

func catchAll(e lf.Expr) lf.Expr { return some(e) }

func boxChoice(name string, update lf.Expr) *lf.Choice {
	c := choice(name, false, listE(&lf.ERecProj{Type: lf.TypeConApp{Con: etc("Box")}, Field: "owner", Record: v("this")}), update)
	c.Location = &lf.Location{Module: excMod, Definition: "Box:" + name, Start: lf.Position{Line: 20}}
	return c
}

func excPackage() *lf.Package {
	owner := listE(&lf.ERecProj{Type: lf.TypeConApp{Con: etc("Box")}, Field: "owner", Record: v("this")})
	exercise := func(choice string, cid lf.Expr) lf.Expr {
		return upd(&lf.UExercise{Template: etc("Box"), Choice: choice, ContractID: cid, Arg: erec("Unit")})
	}
	self := v("self")
	bigger := &lf.ERecUpd{Type: lf.TypeConApp{Con: etc("Box")}, Field: "n", Record: v("this"),
		Update: app(bi(lf.BuiltinAddInt64), &lf.ERecProj{Type: lf.TypeConApp{Con: etc("Box")}, Field: "n", Record: v("this")}, i64(10))}
	choices := []*lf.Choice{
		boxChoice("Touch", pure(unit())),
		// try (Touch; 1 / 0) catch _ -> -1: a rollback of a non-consuming exercise.
		boxChoice("TryTouchDiv", try(block(pure(app(bi(lf.BuiltinDivInt64), i64(1), i64(0))), bind("_", exercise("Touch", self))),
			catchAll(pure(i64(-1))))),
		// try (create a bigger box; throw) catch _ -> self: an effectful rollback.
		boxChoice("TryCreate", try(block(pure(boom("after create")), bind("_", upd(&lf.UCreate{Template: etc("Box"), Arg: bigger}))),
			catchAll(pure(self)))),
		// try (archive cid; throw) catch _ -> fetch cid.
		boxChoice("TryArchive", try(block(pure(boom("after archive")), bind("_", exercise("Archive", argField2("Target", "cid")))),
			catchAll(upd(&lf.UFetch{Template: etc("Box"), ContractID: argField2("Target", "cid")})))),
		// try throw catch _ -> None: rethrown.
		boxChoice("Rethrow", try(pure(boom("rethrown")), none())),
		// try (1 / 0) catch e -> message e.
		boxChoice("Message", try(pure(app(bi(lf.BuiltinInt64ToText), app(bi(lf.BuiltinDivInt64), i64(1), i64(0)))),
			catchAll(pure(app(bi(lf.BuiltinAnyExceptionMessage), v("e")))))),
		// try (try throw catch _ -> None) catch _ -> "outer".
		boxChoice("Nested", try(try(pure(boom("inner")), none()), catchAll(pure(text("outer"))))),
		// try (ThrowAfterTouch) catch _ -> 0: an exercise closed without result.
		boxChoice("TryDeep", try(exercise("ThrowAfterTouch", self), catchAll(pure(i64(0))))),
		boxChoice("ThrowAfterTouch", block(pure(boom("deep")), bind("_", exercise("Touch", self)))),
		// ThrowAfterTouch, one exercise deeper: the exercise trace's chain.
		boxChoice("ThrowDeeper", exercise("ThrowAfterTouch", self)),
		// try (exercise a choice whose controllers throw) catch _ -> (): not caught.
		boxChoice("TryBadController", try(exercise("BadController", self), catchAll(pure(unit())))),
		choice("BadController", false, boom("in controllers"), pure(unit())),
		// try (create a Picky whose ensure throws) catch e -> message e: a
		// failed precondition is caught, and nothing was created.
		boxChoice("TryPicky", try(upd(&lf.UCreate{Template: etc("Picky"), Arg: erec("Picky", fe("owner", &lf.ERecProj{Type: lf.TypeConApp{Con: etc("Box")}, Field: "owner", Record: v("this")}))}),
			catchAll(pure(app(bi(lf.BuiltinAnyExceptionMessage), v("e")))))),
		choice("Archive", true, owner, pure(unit())),
	}
	box := &lf.Template{Name: lf.DottedName{"Box"}, Param: "this", Precond: tru(), Signatories: owner, Observers: listE(),
		Location: &lf.Location{Module: excMod, Definition: "Box", Start: lf.Position{Line: 2}}, Choices: choices}
	picky := &lf.Template{Name: lf.DottedName{"Picky"}, Param: "this", Precond: boom("precondition"),
		Signatories: listE(&lf.ERecProj{Type: lf.TypeConApp{Con: etc("Picky")}, Field: "owner", Record: v("this")}), Observers: listE()}
	cidT := lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinContractID}, Arg: lf.TCon{Con: etc("Box")}}
	mod, dup := lf.NewModule(lf.Module{
		Name: excMod,
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Box"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}, {Name: "n", Type: int64T}}},
			{Name: lf.DottedName{"Unit"}, Kind: lf.DataRecord, Serializable: true},
			{Name: lf.DottedName{"Picky"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: partyT}}},
			{Name: lf.DottedName{"Target"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "cid", Type: cidT}}},
			{Name: lf.DottedName{"Boom"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "what", Type: lf.TBuiltin{Builtin: lf.BuiltinText}}}},
		},
		Templates: []*lf.Template{box, picky},
		Exceptions: []*lf.Exception{{Name: lf.DottedName{"Boom"}, Message: lam([]string{"b"}, app(bi(lf.BuiltinAppendText), text("boom: "),
			&lf.ERecProj{Type: lf.TypeConApp{Con: etc("Boom")}, Field: "what", Record: v("b")}))}},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: excPkgID, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "exc", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

func argField2(rec, name string) lf.Expr {
	return &lf.ERecProj{Type: lf.TypeConApp{Con: etc(rec)}, Field: name, Record: v("arg")}
}

var excEngine = NewEngine(resolve.NewPackages(excPackage()), Limits{})

func setupBox(t *testing.T, l *memLedger, owner string, n int64) value.ContractID {
	t.Helper()
	res, err := excEngine.Submit(context.Background(), testSubmission([]string{owner},
		&CreateCommand{Template: eid("Box"), Argument: record(eid("Box"), "owner", value.Party(owner), "n", value.Int64(n))}), l)
	if err != nil {
		t.Fatal(err)
	}
	return l.Commit(res.Transaction, 1)[res.Transaction.Nodes[0].(*tx.Create).ContractID]
}

func boxCmd(cid value.ContractID, choice string, arg *value.Record) Command {
	if arg == nil {
		arg = record(eid("Unit"))
	}
	return &ExerciseCommand{Template: eid("Box"), ContractID: cid, Choice: choice, Argument: arg}
}

// TestTryCatch runs the try/catch forms: a caught arithmetic error leaves
// a rollback node holding what the try block did, seeds and node ids as
// Canton numbers them; rethrowing, nesting, and exceptions that may not be
// caught.
func TestTryCatch(t *testing.T) {
	ctx := context.Background()
	l := newMemLedger()
	cid := setupBox(t, l, alice, 1)

	s := testSubmission([]string{alice}, boxCmd(cid, "TryTouchDiv", nil))
	res, err := excEngine.Submit(ctx, s, l)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Transaction
	if got := describe(tr); got != "exercise Box TryTouchDiv (nonconsuming)\n  rollback\n    exercise Box Touch (nonconsuming)\n" {
		t.Errorf("TryTouchDiv:\n%s", got)
	}
	checkSeeds(t, s, tr)
	if tr.Nodes[0].(*tx.Exercise).Result != value.Int64(-1) || len(tr.Seeds) != 2 {
		t.Errorf("result %v, seeds %v", tr.Nodes[0].(*tx.Exercise).Result, tr.Seeds)
	}

	// The message of the caught exception.
	res, err = excEngine.Submit(ctx, testSubmission([]string{alice}, boxCmd(cid, "Message", nil)), l)
	if err != nil || res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Text("ArithmeticError while evaluating (DIV_INT64 1 0).") ||
		len(res.Transaction.Nodes) != 1 {
		t.Errorf("Message: %v %v", err, res)
	}

	// Rethrown by a handler that returns None.
	_, err = excEngine.Submit(ctx, testSubmission([]string{alice}, boxCmd(cid, "Rethrow", nil)), l)
	ie := wantError(t, err, "DAML_FAILURE", "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/Exc:Boom (error category 9): boom: rethrown")
	if ie.Metadata["error_id"] != "UNHANDLED_EXCEPTION/Exc:Boom" || ie.Choice != "Rethrow" {
		t.Errorf("rethrown: %v %v", ie.Metadata, ie.Choice)
	}

	// The inner handler rethrows, the outer one catches.
	res, err = excEngine.Submit(ctx, testSubmission([]string{alice}, boxCmd(cid, "Nested", nil)), l)
	if err != nil || res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Text("outer") {
		t.Errorf("Nested: %v", err)
	}

	// An exercise the exception unwinds through stays, without a result,
	// under the rollback node.
	s = testSubmission([]string{alice}, boxCmd(cid, "TryDeep", nil))
	res, err = excEngine.Submit(ctx, s, l)
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(res.Transaction); got != "exercise Box TryDeep (nonconsuming)\n  rollback\n    exercise Box ThrowAfterTouch (nonconsuming) (no result)\n      exercise Box Touch (nonconsuming)\n" {
		t.Errorf("TryDeep:\n%s", got)
	}
	checkSeeds(t, s, res.Transaction)

	// A precondition that throws is caught (Canton 3.5 too: nothing was
	// created), and leaves no node.
	res, err = excEngine.Submit(ctx, testSubmission([]string{alice}, boxCmd(cid, "TryPicky", nil)), l)
	if err != nil || res.Transaction.Nodes[0].(*tx.Exercise).Result != value.Text("boom: precondition") || len(res.Transaction.Nodes) != 1 {
		t.Errorf("TryPicky: %v %v", err, res)
	}

	// Controllers are computed where exceptions may not be caught.
	_, err = excEngine.Submit(ctx, testSubmission([]string{alice}, boxCmd(cid, "TryBadController", nil)), l)
	wantError(t, err, "DAML_FAILURE", "UNHANDLED_EXCEPTION/Exc:Boom (error category 9): boom: in controllers")
}

// TestRollbackEffects: Canton 3.5 refuses to roll back a try block that
// created or archived a contract; Canton 3.4 rolls its effects back.
func TestRollbackEffects(t *testing.T) {
	ctx := context.Background()
	l := newMemLedger()
	cid := setupBox(t, l, alice, 1)
	other := setupBox(t, l, alice, 2)

	_, err := excEngine.Submit(ctx, testSubmission([]string{alice}, boxCmd(cid, "TryCreate", nil)), l)
	wantError(t, err, "DAML_EFFECTFUL_ROLLBACK_ERROR", "Interpretation error: Error: Tried to rollback side-effectful node(s): Create of Exc:Box@00000000 ( ")
	_, err = excEngine.Submit(ctx, testSubmission([]string{alice}, boxCmd(cid, "TryArchive", record(eid("Target"), "cid", other))), l)
	wantError(t, err, "DAML_EFFECTFUL_ROLLBACK_ERROR", "Tried to rollback side-effectful node(s): Consuming exercise of Archive on Exc:Box@00000000 ( "+string(other)+" )")

	// Canton 3.4: the created contract is not active after the rollback,
	// the archived one is active again and can be fetched.
	s := testSubmission([]string{alice}, boxCmd(cid, "TryCreate", nil))
	s.StateMode = StateNoKey
	res, err := excEngine.Submit(ctx, s, l)
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(res.Transaction); got != "exercise Box TryCreate (nonconsuming)\n  rollback\n    create Box\n" {
		t.Errorf("TryCreate:\n%s", got)
	}
	checkSeeds(t, s, res.Transaction)
	created := res.Transaction.Nodes[2].(*tx.Create).ContractID
	s = testSubmission([]string{alice}, boxCmd(cid, "TryCreate", nil), boxCmd(created, "Touch", nil))
	s.StateMode = StateNoKey
	_, err = excEngine.Submit(ctx, s, l)
	wantError(t, err, "CONTRACT_NOT_FOUND", "Interpretation error: Error: Update failed due to a unknown contract "+string(created))

	s = testSubmission([]string{alice}, boxCmd(cid, "TryArchive", record(eid("Target"), "cid", other)), boxCmd(other, "Touch", nil))
	s.StateMode = StateNoKey
	res, err = excEngine.Submit(ctx, s, l)
	if err != nil {
		t.Fatal(err)
	}
	want := "exercise Box TryArchive (nonconsuming)\n  rollback\n    exercise Box Archive\n  fetch Box\nexercise Box Touch (nonconsuming)\n"
	if got := describe(res.Transaction); got != want {
		t.Errorf("TryArchive:\n%s", got)
	}
	checkSeeds(t, s, res.Transaction)
}
