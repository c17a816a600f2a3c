package script

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// scriptsPackage is a package of scripts written in Daml-LF by hand, against
// the daml-script and daml-prim packages of dar: what damlc makes of
//
//	catchThrow   = tryToEither (\() -> throwAnyException (toAnyException (GeneralError "boom")))
//	catchPure    = tryToEither (\() -> throw (GeneralError "pure"))
//	uncaught     = throwAnyException (toAnyException (GeneralError "boom"))
//	tryBackwards = tryCommands (passTime (RelTime (-1)))
//	tryForwards  = tryCommands (passTime (RelTime 1000000))
//
// (types are erased at run time, so the type applications are left out).
func scriptsPackage(t *testing.T, dar *archive.Dar) *lf.Package {
	t.Helper()
	find := func(pkgName, mod, name string, value bool) lf.QualifiedName {
		for _, p := range dar.Packages {
			if pkgName != "" && p.Name != pkgName {
				continue
			}
			if m := p.Module(mod); m != nil && (value && m.Value(name) != nil || !value && m.DataType(name) != nil) {
				return lf.QualifiedName{Package: p.ID, Module: m.Name, Name: lf.SplitDotted(name)}
			}
		}
		t.Fatalf("%s has no %s:%s", pkgName, mod, name)
		return lf.QualifiedName{}
	}
	val := func(pkg, mod, name string) lf.Expr { return &lf.EVal{Ref: find(pkg, mod, name, true)} }
	app := func(f lf.Expr, args ...lf.Expr) lf.Expr { return &lf.EApp{Fun: f, Args: args} }
	unit := lf.TBuiltin{Builtin: lf.BuiltinUnit}
	lam := func(body lf.Expr) lf.Expr {
		return &lf.EAbs{Params: []lf.Binder{{Name: "u", Type: unit}}, Body: body}
	}
	generalError := find("", "DA.Exception.GeneralError", "GeneralError", false)
	gerr := func(msg string) lf.Expr {
		return &lf.ERecCon{Type: lf.TypeConApp{Con: generalError}, Fields: []lf.FieldExpr{{Name: "message", Expr: &lf.EText{Value: msg}}}}
	}
	anyExc := func(msg string) lf.Expr {
		return &lf.EToAnyException{Type: lf.TCon{Con: generalError}, Expr: gerr(msg)}
	}
	relTime := func(us int64) lf.Expr {
		return &lf.ERecCon{Type: lf.TypeConApp{Con: find("", "DA.Time.Types", "RelTime", false)},
			Fields: []lf.FieldExpr{{Name: "microseconds", Expr: &lf.EInt64{Value: us}}}}
	}
	const exc, testing_, tm = "Daml.Script.Internal.Questions.Exceptions", "Daml.Script.Internal.Questions.Testing", "Daml.Script.Internal.Questions.Time"
	throwAny := val("daml-script", exc, "throwAnyException")
	scriptT := lf.TApp{Fun: lf.TCon{Con: find("daml-script", lowLevel, "Script", false)}, Arg: unit}
	defs := map[string]lf.Expr{
		"catchThrow":   app(val("daml-script", exc, "tryToEither"), lam(app(throwAny, anyExc("boom")))),
		"catchPure":    app(val("daml-script", exc, "tryToEither"), lam(&lf.EThrow{ReturnType: scriptT, ExceptionType: lf.TCon{Con: generalError}, Exception: gerr("pure")})),
		"uncaught":     app(throwAny, anyExc("boom")),
		"tryBackwards": app(val("daml-script", testing_, "tryCommands"), app(val("daml-script", tm, "passTime"), relTime(-1))),
		"tryForwards":  app(val("daml-script", testing_, "tryCommands"), app(val("daml-script", tm, "passTime"), relTime(1_000_000))),
		// traced = debugRaw "evaluating traced" tryForwards
		"traced": app(&lf.EBuiltinFun{Fun: lf.BuiltinTrace}, &lf.EText{Value: "evaluating traced"},
			app(val("daml-script", testing_, "tryCommands"), app(val("daml-script", tm, "passTime"), relTime(1)))),
	}
	var vals []*lf.Value
	for name, body := range defs {
		vals = append(vals, &lf.Value{Name: lf.DottedName{name}, Type: scriptT, Body: body})
	}
	mod, dup := lf.NewModule(lf.Module{Name: lf.DottedName{"Scripts"}, Values: vals})
	if dup != "" {
		t.Fatal(dup)
	}
	return lf.NewPackage(lf.Package{ID: "00000000000000000000000000000000000000000000000000000000000000aa", Name: "hand-written-scripts", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

func TestTryCatchThrowAndTryCommands(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	p := scriptsPackage(t, dar)
	r, err := New(append(dar.Packages, p), p.ID, interp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.Scripts()); got != 6 {
		t.Errorf("%d scripts, want 6", got)
	}
	run := func(name string) (value.Value, error) {
		n, err := r.Lookup("Scripts:" + name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background(), n, NewMemoryLedger(r), Options{})
		if err != nil {
			return nil, err
		}
		return res.Value, nil
	}
	left := func(name string, v value.Value) value.Value {
		t.Helper()
		x, ok := v.(*value.Variant)
		if !ok || x.Constructor != "Left" {
			t.Fatalf("%s = %v, want Left", name, v)
		}
		return x.Value
	}
	for _, c := range []struct{ name, msg string }{{"catchThrow", "boom"}, {"catchPure", "pure"}} {
		v, err := run(c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		exc, ok := left(c.name, v).(*value.Any)
		if !ok || !strings.Contains(exc.Value.String(), `"`+c.msg+`"`) {
			t.Errorf("%s caught %v", c.name, exc)
		}
	}
	_, err = run("uncaught")
	var f *Failure
	if !errors.As(err, &f) || f.Kind != "exception" ||
		!strings.HasPrefix(f.Message, "Unhandled Daml exception: DA.Exception.GeneralError:GeneralError@") || !strings.Contains(f.Message, `message = "boom"`) {
		t.Errorf("uncaught: %v", err)
	}
	v, err := run("tryBackwards")
	if err != nil {
		t.Fatalf("tryBackwards: %v", err)
	}
	failed := left("tryBackwards", v).(*value.Record) // FailedCmd
	if s := failed.String(); !strings.Contains(s, `"SetTime"`) || !strings.Contains(s, "cannot set the time back") {
		t.Errorf("tryBackwards: %s", s)
	}
	v, err = run("tryForwards")
	if x, ok := v.(*value.Variant); err != nil || !ok || x.Constructor != "Right" {
		t.Errorf("tryForwards = %v, %v; want Right ()", v, err)
	}
	// debug/trace lines are the script's trace.
	n, _ := r.Lookup("Scripts:traced")
	res, err := r.Run(context.Background(), n, NewMemoryLedger(r), Options{})
	if err != nil || len(res.Trace) != 1 || res.Trace[0].Message != "evaluating traced" {
		t.Errorf("traced: %+v, %v", res, err)
	}
}

func TestSubmitErrorValues(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	r := newRunner(t, dar)
	st := &run{r: r, ctx: context.Background(), res: &Result{}}
	cid := "00" + strings.Repeat("ab", 32)
	for _, c := range []struct {
		err  error
		want string
	}{
		{&interp.Error{ID: "DAML_AUTHORIZATION_ERROR", Cause: "missing authorization"}, `AuthorizationError(Daml.Script.Internal.Questions.Submit.Error:SubmitError.AuthorizationError@01584dda{ authorizationErrorMessage = "missing authorization" })`},
		{&interp.Error{ID: "CONTRACT_NOT_FOUND", Cause: "Contract could not be found with id " + cid}, `ContractNotFound(Daml.Script.Internal.Questions.Submit.Error:SubmitError.ContractNotFound@01584dda{ unknownContractIds = DA.NonEmpty.Types:NonEmpty@bde4bd30{ hd = "` + cid + `", tl = [] }, additionalDebuggingInfo = None })`},
		{&interp.Error{ID: "TEMPLATE_PRECONDITION_VIOLATED"}, `TemplatePreconditionViolated(<unit>)`},
		{&interp.Error{ID: "INTERPRETATION_USER_ERROR", Cause: "Interpretation error: Error: User abort: no"}, `UserError(Daml.Script.Internal.Questions.Submit.Error:SubmitError.UserError@01584dda{ userErrorMessage = "no" })`},
		{&SubmitFailure{ID: "DAML_FAILURE", Message: "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError (error category 9): boom"}, `UnhandledException(Daml.Script.Internal.Questions.Submit.Error:SubmitError.UnhandledException@01584dda{ exc = None })`},
		{&SubmitFailure{ID: "SOMETHING_ELSE", Message: "odd"}, `UnknownError(Daml.Script.Internal.Questions.Submit.Error:SubmitError.UnknownError@01584dda{ unknownErrorMessage = "odd" })`},
	} {
		got := st.submitError(c.err).String()
		if !strings.HasSuffix(got, c.want) {
			t.Errorf("%v:\n got %s\nwant …%s", c.err, got, c.want)
		}
	}
}

func TestNoDamlScript(t *testing.T) {
	dar := sharedDar(t, "splice-amulet-0.1.14.dar")
	_, err := New(dar.Packages, dar.Main, interp.Limits{})
	if err == nil || !strings.Contains(err.Error(), "the packages hold no daml-script package") {
		t.Errorf("New = %v", err)
	}
}

func TestPartyIDHint(t *testing.T) {
	for _, c := range []struct{ hint, name, prefix, err string }{
		{"", "alice", "alice-", ""},
		{"", "", "party-", ""},
		{"alice", "", "alice", ""},
		{"alice", "alice", "alice", ""},
		{"alice", "bob", "", "requested name 'bob' cannot be different from id hint 'alice'"},
	} {
		got, err := partyIDHint(c.hint, c.name)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("(%q, %q): %v, want %q", c.hint, c.name, err, c.err)
			}
			continue
		}
		if err != nil || !strings.HasPrefix(got, c.prefix) || c.hint == "" && len(got) != len(c.prefix)+8 {
			t.Errorf("(%q, %q) = %q, %v", c.hint, c.name, got, err)
		}
	}
	a, _ := partyIDHint("", "alice")
	b, _ := partyIDHint("", "alice")
	if a == b {
		t.Errorf("two allocations of alice got one hint %s", a)
	}
}

// TestCatchHandlesOnlyTheScriptsOwnExceptions: Daml's runner lets
// try/catch handle an exception the script threw or raised while being
// evaluated; a command that failed (a submission whose code threw) is a
// FailedCmd, for tryCommands only.
func TestCatchHandlesOnlyTheScriptsOwnExceptions(t *testing.T) {
	exc := &value.Any{Type: lf.TBuiltin{Builtin: lf.BuiltinUnit}, Value: value.Unit{}}
	raised := &interp.Error{ID: "DAML_FAILURE", Exception: exc}
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"thrown", &thrownError{exc: exc}, true},
		{"raised while evaluating", raised, true},
		{"a failed submission", &Failure{Kind: "exception", Command: "Submit", Err: raised}, false},
		{"another error", &interp.Error{ID: "INTERPRETATION_USER_ERROR"}, false},
	} {
		if got := exceptionOf(c.err) != nil; got != c.want {
			t.Errorf("%s: caught %v, want %v", c.name, got, c.want)
		}
	}
}
