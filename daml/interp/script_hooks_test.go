package interp

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// evalClosed evaluates a closed expression of the test package.
func evalClosed(t *testing.T, e lf.Expr, limits Limits) (value.Value, error) {
	t.Helper()
	lamb, err := testEngine.Packages().Closed("test", e)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := testEngine.EvalLambda(context.Background(), lamb, limits)
	return v, err
}

func TestApplyContinuesAFunctionValue(t *testing.T) {
	// A closure an earlier evaluation returned (as a script's
	// continuation is), applied in a later one.
	f, err := evalClosed(t, lam([]string{"x"}, app(bi(lf.BuiltinAddInt64), v("x"), i64(1))), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, steps, err := testEngine.Apply(context.Background(), f, []value.Value{value.Int64(41)}, Limits{})
	if err != nil || got != value.Int64(42) || steps == 0 {
		t.Errorf("Apply = %v, %d steps, %v; want 42", got, steps, err)
	}
	// A partially applied builtin.
	add1, err := evalClosed(t, app(bi(lf.BuiltinAddInt64), i64(1)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := testEngine.Apply(context.Background(), add1, []value.Value{value.Int64(2)}, Limits{}); err != nil || got != value.Int64(3) {
		t.Errorf("Apply(add 1, 2) = %v, %v", got, err)
	}
	// Its own step budget.
	loop, err := evalClosed(t, lam([]string{"x"}, app(val("loop"), v("x"))), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = testEngine.Apply(context.Background(), loop, []value.Value{value.Int64(0)}, Limits{Steps: 10_000})
	if ie, ok := err.(*Error); !ok || ie.ID != "INTERPRETATION_TIME_EXCEEDED" {
		t.Errorf("Apply(loop) = %v, want INTERPRETATION_TIME_EXCEEDED", err)
	}
	// Not a function: an error, not a panic.
	if _, _, err := testEngine.Apply(context.Background(), value.Int64(1), []value.Value{value.Int64(2)}, Limits{}); err == nil {
		t.Error("Apply(1, 2) did not fail")
	}
}

func TestUnhandledExceptionCarriesTheException(t *testing.T) {
	thrown := &lf.EThrow{ReturnType: int64T, ExceptionType: lf.TCon{Con: tcon("Oops")}, Exception: rec("Oops", fe("what", text("it broke")))}
	_, err := evalClosed(t, thrown, Limits{})
	ie, ok := err.(*Error)
	if !ok || ie.Exception == nil {
		t.Fatalf("err = %#v, want an *Error with its exception", err)
	}
	if tc, ok := ie.Exception.Type.(lf.TCon); !ok || tc.Con.Name.String() != "Oops" {
		t.Errorf("exception type %v", ie.Exception.Type)
	}
	msg, err := testEngine.ExceptionMessage(context.Background(), ie.Exception, Limits{})
	if err != nil || msg != "oops: it broke" {
		t.Errorf("ExceptionMessage = %q, %v", msg, err)
	}
	// Other errors carry none.
	_, err = evalClosed(t, app(bi(lf.BuiltinError), text("no")), Limits{})
	if ie, ok := err.(*Error); !ok || ie.Exception != nil {
		t.Errorf("error builtin: %#v", err)
	}
}

func TestTraceHook(t *testing.T) {
	var got []string
	var at *lf.Location
	limits := Limits{Trace: func(msg string, loc *lf.Location) { got = append(got, msg); at = loc }}
	v, err := evalClosed(t, loc(3, app(bi(lf.BuiltinTrace), text("hello"), i64(7))), limits)
	if err != nil || v != value.Int64(7) {
		t.Fatalf("trace = %v, %v", v, err)
	}
	if len(got) != 1 || got[0] != "hello" || at == nil || at.Start.Line != 2 {
		t.Errorf("traced %q at %v", got, at)
	}
	// Without the hook trace only returns its argument.
	if v, err := evalClosed(t, app(bi(lf.BuiltinTrace), text("quiet"), i64(8)), Limits{}); err != nil || v != value.Int64(8) {
		t.Errorf("trace without hook = %v, %v", v, err)
	}
}
