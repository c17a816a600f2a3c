package interp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

func rec(name string, fields ...lf.FieldExpr) lf.Expr {
	return &lf.ERecCon{Type: tcApp(name), Fields: fields}
}
func fe(name string, e lf.Expr) lf.FieldExpr { return lf.FieldExpr{Name: name, Expr: e} }

type exprCase struct {
	name string
	e    lf.Expr
	want string // the value's String
}

// evalPureCases cover every expression kind of the pure language.
func evalPureCases() []exprCase {
	add := bi(lf.BuiltinAddInt64)
	shape := func(con string, e lf.Expr) lf.Expr { return &lf.EVariantCon{Type: tcApp("Shape"), Con: con, Arg: e} }
	color := func(con string) lf.Expr { return &lf.EEnumCon{Type: tcon("Color"), Con: con} }
	pair := rec("Pair", fe("fst", i64(1)), fe("snd", i64(2)))
	return []exprCase{
		{"literals", listE(i64(-3), text("é"), &lf.ENumeric{Value: "1.50", Scale: 2}, &lf.EDate{Days: 0}, &lf.ETimestamp{Micros: 1}), `[-3, "é", 1.50, 1970-01-01, 1970-01-01T00:00:00.000001Z]`},
		{"builtin constructors", listE(unit(), tru(), fls()), "[<unit>, true, false]"},
		{"lambda and application", app(lam([]string{"x", "y"}, app(add, v("x"), v("y"))), i64(1), i64(2)), "3"},
		{"one argument at a time", app1(lam([]string{"x", "y"}, app(bi(lf.BuiltinSubInt64), v("x"), v("y"))), i64(10), i64(3)), "7"},
		{"nested lambdas merge", app(lam([]string{"x"}, tyAbs(lam([]string{"y"}, app(bi(lf.BuiltinSubInt64), v("x"), v("y"))))), i64(10), i64(4)), "6"},
		{"partial application", let("inc", app(add, i64(1)), app(v("inc"), i64(41))), "42"},
		{"partial application of a closure", let("f", app(lam([]string{"a", "b", "c"}, app(add, v("a"), app(add, v("b"), v("c")))), i64(1)),
			let("g", app(v("f"), i64(2)), app(v("g"), i64(3)))), "6"},
		{"over-application", app(lam([]string{"x"}, lam([]string{"y"}, let("z", i64(0), app(add, v("x"), v("y"))))), i64(20), i64(22)), "42"},
		{"builtin over-application", app(bi(lf.BuiltinCoerceContractID), lam([]string{"x"}, v("x")), i64(5)), "5"},
		{"builtin as a value", app(lam([]string{"f"}, app(v("f"), i64(2), i64(3))), bi(lf.BuiltinMulInt64)), "6"},
		{"type abstraction and application are erased", app(tyApp(tyAbs(lam([]string{"x"}, v("x")))), i64(9)), "9"},
		{"closures capture", let("a", i64(100), let("f", lam([]string{"x"}, app(add, v("a"), v("x"))), let("a", i64(1), app(v("f"), v("a"))))), "101"},
		{"nested captures", app(lam([]string{"a"}, app(lam([]string{"b"}, app(lam([]string{"c"}, app(add, v("a"), app(add, v("b"), v("c")))), i64(3))), i64(2))), i64(1)), "6"},
		{"let shadowing", let("x", i64(1), let("x", app(add, v("x"), i64(1)), v("x"))), "2"},
		{"record", pair, "Test:Pair@00000000{ fst = 1, snd = 2 }"},
		{"record fields in type order", rec("Pair", fe("snd", i64(2)), fe("fst", i64(1))), "Test:Pair@00000000{ fst = 1, snd = 2 }"},
		{"record projection", &lf.ERecProj{Type: tcApp("Pair"), Field: "snd", Record: pair}, "2"},
		{"record update", &lf.ERecUpd{Type: tcApp("Pair"), Field: "fst", Record: pair, Update: i64(9)}, "Test:Pair@00000000{ fst = 9, snd = 2 }"},
		{"variant", shape("Square", i64(4)), "Test:Shape@00000000:Square(4)"},
		{"enum", color("Blue"), "Test:Color@00000000:Blue"},
		{"struct sorted by field", &lf.EStructCon{Fields: []lf.FieldExpr{fe("z", i64(1)), fe("a", i64(2))}}, "struct{ a = 2, z = 1 }"},
		{"struct projection", &lf.EStructProj{Field: "z", Struct: &lf.EStructCon{Fields: []lf.FieldExpr{fe("z", i64(1)), fe("a", i64(2))}}}, "1"},
		{"struct update", &lf.EStructUpd{Field: "a", Struct: &lf.EStructCon{Fields: []lf.FieldExpr{fe("z", i64(1)), fe("a", i64(2))}}, Update: i64(7)}, "struct{ a = 7, z = 1 }"},
		{"list cons", cons(listE(i64(3)), i64(1), i64(2)), "[1, 2, 3]"},
		{"optional", listE(some(i64(1)), none()), "[Option(1), None]"},
		{"case variant", cas(shape("Square", i64(4)),
			alt(lf.PVariant{Type: tcon("Shape"), Con: "Circle", Binder: "r"}, app(add, v("r"), i64(100))),
			alt(lf.PVariant{Type: tcon("Shape"), Con: "Square", Binder: "s"}, app(bi(lf.BuiltinMulInt64), v("s"), v("s")))), "16"},
		{"case enum", cas(color("Green"), alt(lf.PEnum{Type: tcon("Color"), Con: "Red"}, i64(0)), alt(lf.PEnum{Type: tcon("Color"), Con: "Green"}, i64(1))), "1"},
		{"case default", cas(color("Blue"), alt(lf.PEnum{Type: tcon("Color"), Con: "Red"}, i64(0)), alt(lf.PDefault{}, i64(2))), "2"},
		{"case bool", ifte(fls(), i64(1), i64(2)), "2"},
		{"case unit", cas(unit(), alt(lf.PBuiltinCon{Con: lf.ConUnit}, i64(3))), "3"},
		{"case nil", cas(nilE(), alt(lf.PCons{Head: "h", Tail: "t"}, i64(1)), alt(lf.PNil{}, i64(0))), "0"},
		{"case cons", cas(listE(i64(5), i64(6)), alt(lf.PNil{}, nilE()), alt(lf.PCons{Head: "h", Tail: "t"}, cons(v("t"), app(add, v("h"), i64(1))))), "[6, 6]"},
		{"case none", cas(none(), alt(lf.PSome{Binder: "x"}, v("x")), alt(lf.PNone{}, i64(-1))), "-1"},
		{"case some", cas(some(i64(8)), alt(lf.PNone{}, i64(-1)), alt(lf.PSome{Binder: "x"}, v("x"))), "8"},
		{"case scrutinee computed", cas(app(lam([]string{"x"}, some(v("x"))), i64(3)), alt(lf.PSome{Binder: "x"}, v("x"))), "3"},
		{"to_any and from_any", &lf.EFromAny{Type: int64T, Expr: &lf.EToAny{Type: int64T, Expr: i64(4)}}, "Option(4)"},
		{"from_any of another type", &lf.EFromAny{Type: lf.TBuiltin{Builtin: lf.BuiltinText}, Expr: &lf.EToAny{Type: int64T, Expr: i64(4)}}, "None"},
		{"type_rep", &lf.ETypeRep{Type: lf.TCon{Con: tcon("Pair")}}, "type_rep @Pair"},
		{"type_rep equality", app(bi(lf.BuiltinEqual), &lf.ETypeRep{Type: int64T}, &lf.ETypeRep{Type: int64T}), "true"},
		{"location", loc(3, i64(1)), "1"},
		{"top-level value", val("answer"), "42"},
		{"top-level function", app(val("sumTo"), i64(10)), "55"},
		{"recursion over a list", app(val("mapList"), app(add, i64(1)), listE(i64(1), i64(2), i64(3))), "[2, 3, 4]"},
		{"text map", app(bi(lf.BuiltinTextMapToList), app(bi(lf.BuiltinTextMapInsert), text("b"), i64(2),
			app(bi(lf.BuiltinTextMapInsert), text("a"), i64(1), bi(lf.BuiltinTextMapEmpty)))), "[struct{ key = \"a\", value = 1 }, struct{ key = \"b\", value = 2 }]"},
		{"gen map", app(bi(lf.BuiltinGenMapKeys), app(bi(lf.BuiltinGenMapInsert), listE(i64(2)), unit(),
			app(bi(lf.BuiltinGenMapInsert), listE(i64(1), i64(9)), unit(), bi(lf.BuiltinGenMapEmpty)))), "[[1, 9], [2]]"},
		{"update is a value until run", &lf.EUpdate{Update: &lf.UPure{Expr: i64(1)}}, "<pure/1>"},
		{"failure category literal", &lf.EFailureCategory{Category: lf.InvalidIndependentOfSystemState}, "8"},
	}
}

// TestEvalPure evaluates every expression kind of the pure language.
func TestEvalPure(t *testing.T) {
	for _, c := range evalPureCases() {
		got, err := eval(t, c.e)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	oops := func(what string) lf.Expr {
		return &lf.EThrow{ReturnType: int64T, ExceptionType: lf.TCon{Con: tcon("Oops")}, Exception: rec("Oops", fe("what", text(what)))}
	}
	for _, c := range []struct {
		name, id, cause string
	}{
		{"error", "INTERPRETATION_USER_ERROR", "Interpretation error: Error: User abort: nope"},
		{"throw", "DAML_FAILURE", "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/Test:Oops (error category 9): oops: it broke"},
		{"throw in message", "DAML_FAILURE", "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/Test:Bad (error category 9): <Failed to calculate message as DA.Exception.ArithmeticError:ArithmeticError was thrown during conversion>"},
		{"arithmetic", "DAML_FAILURE", "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.ArithmeticError:ArithmeticError (error category 9): ArithmeticError while evaluating (DIV_INT64 1 0)."},
		{"compare functions", "NON_COMPARABLE_VALUES", "Interpretation error: Error: functions are not comparable"},
		{"broken top-level", "INTERPRETATION_USER_ERROR", "Interpretation error: Error: User abort: broken on purpose"},
		{"unsupported", "DAML_INTERPRETATION_ERROR", "Interpretation error: interfaces are not supported by this interpreter yet"},
	} {
		var e lf.Expr
		switch c.name {
		case "error":
			e = loc(7, app(bi(lf.BuiltinError), text("nope")))
		case "throw":
			e = loc(8, oops("it broke"))
		case "throw in message":
			e = &lf.EThrow{ReturnType: int64T, ExceptionType: lf.TCon{Con: tcon("Bad")}, Exception: rec("Bad")}
		case "arithmetic":
			e = app(bi(lf.BuiltinDivInt64), i64(1), i64(0))
		case "compare functions":
			e = app(bi(lf.BuiltinEqual), lam([]string{"x"}, v("x")), lam([]string{"x"}, v("x")))
		case "broken top-level":
			e = app(add(), val("broken"), i64(1))
		case "unsupported":
			e = &lf.EViewInterface{Interface: tcon("I"), Expr: unit()}
		}
		_, err := eval(t, e)
		var ie *Error
		if !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want an *Error", c.name, err)
			continue
		}
		if ie.ID != c.id || ie.Cause != c.cause {
			t.Errorf("%s:\n got  %s %q\n want %s %q", c.name, ie.ID, ie.Cause, c.id, c.cause)
		}
	}
}

func add() lf.Expr { return bi(lf.BuiltinAddInt64) }

func TestErrorLocationAndBacktrace(t *testing.T) {
	// f x = <line 20> error "deep"; g y = <line 30> f y + 1
	f := lam([]string{"x"}, loc(20, app(bi(lf.BuiltinError), text("deep"))))
	g := lam([]string{"f", "y"}, loc(30, app(add(), app(v("f"), v("y")), i64(1))))
	_, err := eval(t, app(g, f, i64(1)))
	var ie *Error
	if !errors.As(err, &ie) {
		t.Fatalf("%v", err)
	}
	if ie.Location == nil || ie.Location.Start.Line != 19 {
		t.Errorf("location %v, want Test:20:1", ie.Location)
	}
	if !strings.Contains(ie.Error(), "at Test:20:1") {
		t.Errorf("message lacks the location:\n%s", ie.Error())
	}
	if len(ie.Backtrace) == 0 || ie.Backtrace[len(ie.Backtrace)-1].Location == nil || ie.Backtrace[len(ie.Backtrace)-1].Location.Start.Line != 29 {
		t.Errorf("backtrace %+v does not end at the caller (line 30)", ie.Backtrace)
	}
}

func TestTopLevelValueEvaluatedOnce(t *testing.T) {
	if _, err := eval(t, val("answer")); err != nil {
		t.Fatal(err)
	}
	lamb, err := testEngine.Packages().Closed("test", val("answer"))
	if err != nil {
		t.Fatal(err)
	}
	_, steps, err := testEngine.EvalLambda(context.Background(), lamb, Limits{})
	if err != nil || steps > 3 {
		t.Errorf("cached top-level value took %d steps (%v)", steps, err)
	}
}

// TestLimits checks that a looping value and a deep recursion stop with
// clear errors, and that deep recursion within the limit does not grow the
// Go stack.
func TestLimits(t *testing.T) {
	_, err := evalLimits(t, app(val("loop"), i64(0)), Limits{Steps: 100_000})
	var ie *Error
	if !errors.As(err, &ie) || ie.ID != "INTERPRETATION_TIME_EXCEEDED" || !strings.Contains(ie.Cause, "step budget of 100000 steps") {
		t.Errorf("looping value: %v", err)
	}
	_, err = evalLimits(t, app(val("sumTo"), i64(100_000)), Limits{Depth: 1000})
	if !errors.As(err, &ie) || ie.ID != "DAML_INTERPRETATION_ERROR" || !strings.Contains(ie.Cause, "deeper than 1000 frames") {
		t.Errorf("deep recursion: %v", err)
	}
	if len(ie.Backtrace) == 0 || ie.Backtrace[0].Definition != "Test:sumTo" {
		t.Errorf("backtrace %+v", ie.Backtrace)
	}
	// 100,000 nested non-tail calls: fine with the default depth limit.
	got, err := eval(t, app(val("sumTo"), i64(100_000)))
	if err != nil || got != value.Int64(100_000*100_001/2) {
		t.Errorf("sumTo 100000: %v %v", got, err)
	}
	// A tail-recursive loop of 100,000 iterations uses no depth.
	got, err = evalLimits(t, app(val("count"), i64(100_000), i64(0)), Limits{Depth: 10})
	if err != nil || got != value.Int64(100_000) {
		t.Errorf("count: %v %v", got, err)
	}
	// A long list through a non-tail recursive map.
	got, err = eval(t, app(bi(lf.BuiltinFoldl), add(), i64(0), app(val("mapList"), app(add(), i64(1)), app(val("range"), i64(50_000)))))
	if err != nil || got != value.Int64(50_000*50_001/2+50_000) {
		t.Errorf("map over a long list: %v %v", got, err)
	}
}

func TestCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	lamb, err := testEngine.Packages().Closed("test", app(val("loop"), i64(0)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := testEngine.EvalLambda(ctx, lamb, Limits{Steps: 1 << 62})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		var ie *Error
		if !errors.As(err, &ie) || ie.ID != "INTERPRETATION_TIME_EXCEEDED" || !strings.Contains(ie.Cause, "context canceled") {
			t.Errorf("canceled: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancellation did not stop the machine")
	}
}
