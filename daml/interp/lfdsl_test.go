package interp

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// A small language for writing Daml-LF expressions in tests. Types are
// left out where the interpreter does not read them.

func v(name string) lf.Expr { return &lf.EVar{Name: name} }
func i64(n int64) lf.Expr   { return &lf.EInt64{Value: n} }
func text(s string) lf.Expr { return &lf.EText{Value: s} }
func tru() lf.Expr          { return &lf.EBuiltinCon{Con: lf.ConTrue} }
func fls() lf.Expr          { return &lf.EBuiltinCon{Con: lf.ConFalse} }
func unit() lf.Expr         { return &lf.EBuiltinCon{Con: lf.ConUnit} }
func bi(f lf.BuiltinFunction) lf.Expr {
	return &lf.EBuiltinFun{Fun: f}
}
func app(f lf.Expr, args ...lf.Expr) lf.Expr { return &lf.EApp{Fun: f, Args: args} }

// app1 applies one argument at a time, as LF 2.2+ archives write it.
func app1(f lf.Expr, args ...lf.Expr) lf.Expr {
	for _, a := range args {
		f = &lf.EApp{Fun: f, Args: []lf.Expr{a}}
	}
	return f
}

func lam(params []string, body lf.Expr) lf.Expr {
	bs := make([]lf.Binder, len(params))
	for i, p := range params {
		bs[i] = lf.Binder{Name: p}
	}
	return &lf.EAbs{Params: bs, Body: body}
}

func tyAbs(body lf.Expr) lf.Expr {
	return &lf.ETyAbs{Params: []lf.TypeVar{{Name: "a", Kind: lf.KStar{}}}, Body: body}
}

func tyApp(e lf.Expr) lf.Expr {
	return &lf.ETyApp{Expr: e, Types: []lf.Type{lf.TBuiltin{Builtin: lf.BuiltinInt64}}}
}

func let(name string, bound, body lf.Expr) lf.Expr {
	return &lf.ELet{Bindings: []lf.Binding{{Binder: lf.Binder{Name: name}, Bound: bound}}, Body: body}
}

func cas(scrut lf.Expr, alts ...lf.CaseAlt) lf.Expr { return &lf.ECase{Scrut: scrut, Alts: alts} }
func alt(p lf.Pattern, body lf.Expr) lf.CaseAlt     { return lf.CaseAlt{Pattern: p, Body: body} }
func ifte(c, t, e lf.Expr) lf.Expr {
	return cas(c, alt(lf.PBuiltinCon{Con: lf.ConTrue}, t), alt(lf.PBuiltinCon{Con: lf.ConFalse}, e))
}
func nilE() lf.Expr { return &lf.ENil{Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}} }
func cons(tail lf.Expr, front ...lf.Expr) lf.Expr {
	return &lf.ECons{Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}, Front: front, Tail: tail}
}
func listE(es ...lf.Expr) lf.Expr {
	if len(es) == 0 {
		return nilE()
	}
	return cons(nilE(), es...)
}
func some(e lf.Expr) lf.Expr { return &lf.ESome{Value: e} }
func none() lf.Expr          { return &lf.ENone{Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}} }
func loc(line int32, e lf.Expr) lf.Expr {
	return &lf.ELocation{Location: lf.Location{Package: testPkgID, Module: testModName, Definition: "test", Start: lf.Position{Line: line - 1, Col: 0}}, Expr: e}
}
func val(name string) lf.Expr {
	return &lf.EVal{Ref: lf.ValueName{Package: testPkgID, Module: testModName, Name: lf.DottedName{name}}}
}

const testPkgID lf.PackageID = "0000000000000000000000000000000000000000000000000000000000000001"

var testModName = lf.DottedName{"Test"}

func tcon(name string) lf.TypeConName {
	return lf.TypeConName{Package: testPkgID, Module: testModName, Name: lf.DottedName{name}}
}

func tcApp(name string) lf.TypeConApp { return lf.TypeConApp{Con: tcon(name)} }

var int64T = lf.TBuiltin{Builtin: lf.BuiltinInt64}

// testValues are the top-level values of the test package.
var testValues = map[string]lf.Expr{
	// sumTo n = if n == 0 then 0 else n + sumTo (n - 1): not tail
	// recursive, so its depth is n.
	"sumTo": lam([]string{"n"}, ifte(app(bi(lf.BuiltinEqual), v("n"), i64(0)), i64(0),
		app(bi(lf.BuiltinAddInt64), v("n"), app(val("sumTo"), app(bi(lf.BuiltinSubInt64), v("n"), i64(1)))))),
	// count n acc: tail recursive.
	"count": lam([]string{"n", "acc"}, ifte(app(bi(lf.BuiltinEqual), v("n"), i64(0)), v("acc"),
		app1(val("count"), app(bi(lf.BuiltinSubInt64), v("n"), i64(1)), app(bi(lf.BuiltinAddInt64), v("acc"), i64(1))))),
	// loop x = loop x
	"loop": lam([]string{"x"}, app(val("loop"), v("x"))),
	// bomb t = bomb (t <> t): the text doubles each call, as Daml a
	// developer can write by mistake.
	"bomb": lam([]string{"t"}, app(val("bomb"), app(bi(lf.BuiltinAppendText), v("t"), v("t")))),
	// hoard n acc: a list of n copies of the same record; the memory it
	// keeps grows by a fixed amount per step.
	"hoard": lam([]string{"n", "acc"}, ifte(app(bi(lf.BuiltinEqual), v("n"), i64(0)), v("acc"),
		app1(val("hoard"), app(bi(lf.BuiltinSubInt64), v("n"), i64(1)),
			cons(v("acc"), &lf.ERecCon{Type: tcApp("Pair"), Fields: []lf.FieldExpr{{Name: "fst", Expr: v("n")}, {Name: "snd", Expr: v("n")}}})))),
	// counter: a top-level value that is not a function, evaluated once.
	"answer": app(bi(lf.BuiltinMulInt64), i64(6), i64(7)),
	"broken": app(bi(lf.BuiltinError), text("broken on purpose")),
	// mapList f xs, the usual recursion over a list.
	"mapList": lam([]string{"f", "xs"}, cas(v("xs"),
		alt(lf.PNil{}, nilE()),
		alt(lf.PCons{Head: "h", Tail: "t"}, cons(app(val("mapList"), v("f"), v("t")), app(v("f"), v("h")))))),
	// range n: [n, n-1 .. 1]
	"range": lam([]string{"n"}, ifte(app(bi(lf.BuiltinEqual), v("n"), i64(0)), nilE(),
		cons(app(val("range"), app(bi(lf.BuiltinSubInt64), v("n"), i64(1))), v("n")))),
}

func testPackage() *lf.Package {
	var vals []*lf.Value
	for name, body := range testValues {
		vals = append(vals, &lf.Value{Name: lf.DottedName{name}, Type: int64T, Body: body})
	}
	mod, dup := lf.NewModule(lf.Module{
		Name: testModName,
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Pair"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "fst", Type: int64T}, {Name: "snd", Type: int64T}}},
			{Name: lf.DottedName{"Shape"}, Kind: lf.DataVariant, Serializable: true, Fields: []lf.Field{{Name: "Circle", Type: int64T}, {Name: "Square", Type: int64T}}},
			{Name: lf.DottedName{"Color"}, Kind: lf.DataEnum, Serializable: true, EnumCons: []string{"Red", "Green", "Blue"}},
			{Name: lf.DottedName{"Oops"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "what", Type: lf.TBuiltin{Builtin: lf.BuiltinText}}}},
			{Name: lf.DottedName{"Bad"}, Kind: lf.DataRecord, Serializable: true},
		},
		Values: vals,
		Exceptions: []*lf.Exception{{
			Name: lf.DottedName{"Oops"},
			Message: lam([]string{"e"}, app(bi(lf.BuiltinAppendText), text("oops: "),
				&lf.ERecProj{Type: tcApp("Oops"), Field: "what", Record: v("e")})),
		}, {
			// Bad's message function itself fails.
			Name:    lf.DottedName{"Bad"},
			Message: lam([]string{"e"}, app(bi(lf.BuiltinInt64ToText), app(bi(lf.BuiltinDivInt64), i64(1), i64(0)))),
		}},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: testPkgID, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "test", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

var testEngine = NewEngine(resolve.NewPackages(testPackage()), Limits{})

// eval evaluates a closed expression of the test package.
func eval(t testing.TB, e lf.Expr) (value.Value, error) {
	t.Helper()
	return evalLimits(t, e, Limits{})
}

func evalLimits(t testing.TB, e lf.Expr, l Limits) (value.Value, error) {
	t.Helper()
	lam, err := testEngine.Packages().Closed("test", e)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	v, _, err := testEngine.EvalLambda(context.Background(), lam, l)
	return v, err
}
