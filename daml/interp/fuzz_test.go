package interp

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// The evaluator fuzz target generates small well-typed expressions from the
// fuzzer's bytes (integers, booleans, text, lists, optionals, functions,
// let, case, application and partial application, folds), evaluates them
// with the machine and with a direct recursive evaluator written for this
// test, and requires the same outcome: the same value, or both failing
// with an arithmetic error. The machine must never report an internal
// error: a Go panic recovered at its boundary is one. The machine's fast
// paths must agree with its plain evaluation.

type fty int

const (
	fInt fty = iota
	fBool
	fText
	fList
	fOpt
	fFun // Int64 -> Int64
	numFty
)

type exprGen struct {
	b    []byte
	vars [numFty][]string
	n    int
}

func (g *exprGen) next() int {
	if len(g.b) == 0 {
		return 0
	}
	c := g.b[0]
	g.b = g.b[1:]
	return int(c)
}

func (g *exprGen) fresh(t fty) string {
	g.n++
	return fmt.Sprintf("v%d_%d", t, g.n)
}

// withVar resolves body with name bound to a variable of type t.
func (g *exprGen) withVar(t fty, name string, body func() lf.Expr) lf.Expr {
	g.vars[t] = append(g.vars[t], name)
	e := body()
	g.vars[t] = g.vars[t][:len(g.vars[t])-1]
	return e
}

func (g *exprGen) expr(t fty, depth int) lf.Expr {
	c := g.next()
	if depth <= 0 {
		c %= 2 // leaves only
	}
	if c%8 == 1 && len(g.vars[t]) > 0 {
		return v(g.vars[t][g.next()%len(g.vars[t])])
	}
	switch c % 8 {
	case 2: // let
		u := fty(g.next() % int(numFty))
		name := g.fresh(u)
		bound := g.expr(u, depth-1)
		return let(name, bound, g.withVar(u, name, func() lf.Expr { return g.expr(t, depth-1) }))
	case 3: // if
		return ifte(g.expr(fBool, depth-1), g.expr(t, depth-1), g.expr(t, depth-1))
	case 4: // case on an optional
		name := g.fresh(fInt)
		return cas(g.expr(fOpt, depth-1), alt(lf.PNone{}, g.expr(t, depth-1)),
			alt(lf.PSome{Binder: name}, g.withVar(fInt, name, func() lf.Expr { return g.expr(t, depth-1) })))
	case 5: // case on a list
		h, tl := g.fresh(fInt), g.fresh(fList)
		return cas(g.expr(fList, depth-1), alt(lf.PNil{}, g.expr(t, depth-1)),
			alt(lf.PCons{Head: h, Tail: tl}, g.withVar(fInt, h, func() lf.Expr {
				return g.withVar(fList, tl, func() lf.Expr { return g.expr(t, depth-1) })
			})))
	case 6: // apply a function
		if t != fFun {
			return g.specific(t, depth)
		}
	}
	if c%8 >= 2 {
		return g.specific(t, depth)
	}
	return g.leaf(t)
}

func (g *exprGen) leaf(t fty) lf.Expr {
	switch t {
	case fInt:
		return i64(int64(g.next()-128) * int64(1+g.next()%4*1_000_000_000_000_000))
	case fBool:
		if g.next()%2 == 0 {
			return fls()
		}
		return tru()
	case fText:
		return text(string(rune('a' + g.next()%26)))
	case fList:
		return nilE()
	case fOpt:
		return none()
	default:
		return app(bi(lf.BuiltinAddInt64), i64(int64(g.next())))
	}
}

func (g *exprGen) specific(t fty, depth int) lf.Expr {
	d := depth - 1
	c := g.next()
	switch t {
	case fInt:
		switch c % 6 {
		case 0:
			ops := []lf.BuiltinFunction{lf.BuiltinAddInt64, lf.BuiltinSubInt64, lf.BuiltinMulInt64, lf.BuiltinDivInt64, lf.BuiltinModInt64, lf.BuiltinExpInt64}
			return app(bi(ops[g.next()%len(ops)]), g.expr(fInt, d), g.expr(fInt, d))
		case 1:
			return app(g.expr(fFun, d), g.expr(fInt, d))
		case 2:
			return app(bi(lf.BuiltinFoldl), bi(lf.BuiltinAddInt64), g.expr(fInt, d), g.expr(fList, d))
		case 3:
			return app(bi(lf.BuiltinFoldr), bi(lf.BuiltinSubInt64), g.expr(fInt, d), g.expr(fList, d))
		default:
			return g.leaf(fInt)
		}
	case fBool:
		switch c % 4 {
		case 0:
			return app(bi(lf.BuiltinEqual), g.expr(fInt, d), g.expr(fInt, d))
		case 1:
			return app(bi(lf.BuiltinLess), g.expr(fList, d), g.expr(fList, d))
		case 2:
			return app(bi(lf.BuiltinLessEq), g.expr(fText, d), g.expr(fText, d))
		default:
			return app(bi(lf.BuiltinEqual), g.expr(fOpt, d), g.expr(fOpt, d))
		}
	case fText:
		switch c % 3 {
		case 0:
			return app(bi(lf.BuiltinAppendText), g.expr(fText, d), g.expr(fText, d))
		case 1:
			return app(bi(lf.BuiltinInt64ToText), g.expr(fInt, d))
		default:
			return g.leaf(fText)
		}
	case fList:
		if c%3 == 0 {
			return nilE()
		}
		return cons(g.expr(fList, d), g.expr(fInt, d))
	case fOpt:
		switch c % 3 {
		case 0:
			return none()
		case 1:
			return some(g.expr(fInt, d))
		default:
			return app(bi(lf.BuiltinTextToInt64), g.expr(fText, d))
		}
	default: // Int64 -> Int64
		switch c % 3 {
		case 0:
			name := g.fresh(fInt)
			return lam([]string{name}, g.withVar(fInt, name, func() lf.Expr { return g.expr(fInt, d) }))
		case 1:
			// A two-argument lambda partially applied.
			a, b := g.fresh(fInt), g.fresh(fInt)
			f := lam([]string{a, b}, g.withVar(fInt, a, func() lf.Expr {
				return g.withVar(fInt, b, func() lf.Expr { return g.expr(fInt, d) })
			}))
			return app(f, g.expr(fInt, d))
		default:
			return app(bi(lf.BuiltinMulInt64), g.expr(fInt, d))
		}
	}
}

// refValue is a value of the reference evaluator: a value.Value or a
// function.
type refValue any

type refFn func(refValue) (refValue, error)

var errRefArith = errors.New("arithmetic error")

// refEval evaluates the generated subset directly, by recursion.
func refEval(e lf.Expr, env map[string]refValue) (refValue, error) {
	switch x := e.(type) {
	case *lf.EInt64:
		return value.Int64(x.Value), nil
	case *lf.EText:
		return value.Text(x.Value), nil
	case *lf.EBuiltinCon:
		return value.Bool(x.Con == lf.ConTrue), nil
	case *lf.EVar:
		return env[x.Name], nil
	case *lf.ELet:
		b := x.Bindings[0]
		bv, err := refEval(b.Bound, env)
		if err != nil {
			return nil, err
		}
		return refEval(x.Body, extend(env, b.Binder.Name, bv))
	case *lf.ENil:
		return (*value.List)(nil), nil
	case *lf.ECons:
		tail, err := refEval(x.Tail, env)
		if err != nil {
			return nil, err
		}
		h, err := refEval(x.Front[0], env)
		if err != nil {
			return nil, err
		}
		return tail.(*value.List).Cons(h.(value.Value)), nil
	case *lf.ENone:
		return value.None, nil
	case *lf.ESome:
		inner, err := refEval(x.Value, env)
		if err != nil {
			return nil, err
		}
		return value.Some(inner.(value.Value)), nil
	case *lf.EAbs:
		names := make([]string, len(x.Params))
		for i, p := range x.Params {
			names[i] = p.Name
		}
		var mk func(env map[string]refValue, i int) refFn
		mk = func(env map[string]refValue, i int) refFn {
			return func(a refValue) (refValue, error) {
				env2 := extend(env, names[i], a)
				if i == len(names)-1 {
					return refEval(x.Body, env2)
				}
				return mk(env2, i+1), nil
			}
		}
		return mk(env, 0), nil
	case *lf.EApp:
		f, err := refEval(x.Fun, env)
		if err != nil {
			return nil, err
		}
		for _, a := range x.Args {
			av, err := refEval(a, env)
			if err != nil {
				return nil, err
			}
			if f, err = f.(refFn)(av); err != nil {
				return nil, err
			}
		}
		return f, nil
	case *lf.EBuiltinFun:
		return refBuiltin(x.Fun), nil
	case *lf.ECase:
		s, err := refEval(x.Scrut, env)
		if err != nil {
			return nil, err
		}
		for _, a := range x.Alts {
			switch p := a.Pattern.(type) {
			case lf.PBuiltinCon:
				if s == value.Bool(p.Con == lf.ConTrue) {
					return refEval(a.Body, env)
				}
			case lf.PNone:
				if s.(value.Optional).Value == nil {
					return refEval(a.Body, env)
				}
			case lf.PSome:
				if o := s.(value.Optional); o.Value != nil {
					return refEval(a.Body, extend(env, p.Binder, o.Value))
				}
			case lf.PNil:
				if s.(*value.List).Len() == 0 {
					return refEval(a.Body, env)
				}
			case lf.PCons:
				if h, t, ok := s.(*value.List).Uncons(); ok {
					return refEval(a.Body, extend(extend(env, p.Head, h), p.Tail, t))
				}
			}
		}
	}
	return nil, fmt.Errorf("reference evaluator: unexpected %T", e)
}

func extend(env map[string]refValue, name string, v refValue) map[string]refValue {
	out := make(map[string]refValue, len(env)+1)
	for k, x := range env {
		out[k] = x
	}
	out[name] = v
	return out
}

func curry2(f func(a, b refValue) (refValue, error)) refFn {
	return func(a refValue) (refValue, error) {
		return refFn(func(b refValue) (refValue, error) { return f(a, b) }), nil
	}
}

func refBuiltin(f lf.BuiltinFunction) refFn {
	switch f {
	case lf.BuiltinAddInt64, lf.BuiltinSubInt64, lf.BuiltinMulInt64, lf.BuiltinDivInt64, lf.BuiltinModInt64, lf.BuiltinExpInt64:
		return curry2(func(a, b refValue) (refValue, error) {
			x, y := int64(a.(value.Int64)), int64(b.(value.Int64))
			r, ok := refInt(f, x, y)
			if !ok {
				return nil, errRefArith
			}
			return value.Int64(r), nil
		})
	case lf.BuiltinEqual, lf.BuiltinLess, lf.BuiltinLessEq:
		return curry2(func(a, b refValue) (refValue, error) {
			c, err := value.Compare(a.(value.Value), b.(value.Value))
			if err != nil {
				return nil, err
			}
			switch f {
			case lf.BuiltinEqual:
				return value.Bool(c == 0), nil
			case lf.BuiltinLess:
				return value.Bool(c < 0), nil
			}
			return value.Bool(c <= 0), nil
		})
	case lf.BuiltinAppendText:
		return curry2(func(a, b refValue) (refValue, error) { return a.(value.Text) + b.(value.Text), nil })
	case lf.BuiltinInt64ToText:
		return func(a refValue) (refValue, error) {
			return value.Text(strconv.FormatInt(int64(a.(value.Int64)), 10)), nil
		}
	case lf.BuiltinTextToInt64:
		return func(a refValue) (refValue, error) {
			i, err := strconv.ParseInt(string(a.(value.Text)), 10, 64)
			if err != nil {
				return value.None, nil
			}
			return value.Some(value.Int64(i)), nil
		}
	case lf.BuiltinFoldl, lf.BuiltinFoldr:
		return func(fn refValue) (refValue, error) {
			return curry2(func(z, l refValue) (refValue, error) {
				xs := l.(*value.List).Slice()
				acc := z
				for i := range xs {
					var x, y refValue = acc, xs[i]
					if f == lf.BuiltinFoldr {
						x, y = xs[len(xs)-1-i], acc
					}
					g, err := fn.(refFn)(x)
					if err != nil {
						return nil, err
					}
					if acc, err = g.(refFn)(y); err != nil {
						return nil, err
					}
				}
				return acc, nil
			}), nil
		}
	}
	return func(refValue) (refValue, error) { return nil, fmt.Errorf("reference evaluator: builtin %s", f) }
}

// refInt is Int64 arithmetic written with math/big-free checks, separately
// from int64Op.
func refInt(f lf.BuiltinFunction, x, y int64) (int64, bool) {
	const maxI, minI = int64(^uint64(0) >> 1), -int64(^uint64(0)>>1) - 1
	switch f {
	case lf.BuiltinAddInt64:
		if y > 0 && x > maxI-y || y < 0 && x < minI-y {
			return 0, false
		}
		return x + y, true
	case lf.BuiltinSubInt64:
		if y < 0 && x > maxI+y || y > 0 && x < minI+y {
			return 0, false
		}
		return x - y, true
	case lf.BuiltinMulInt64:
		if x == 0 || y == 0 {
			return 0, true
		}
		p := x * y
		if p/y != x || x == -1 && y == minI || y == -1 && x == minI {
			return 0, false
		}
		return p, true
	case lf.BuiltinDivInt64:
		if y == 0 || x == minI && y == -1 {
			return 0, false
		}
		return x / y, true
	case lf.BuiltinModInt64:
		if y == 0 {
			return 0, false
		}
		return x % y, true
	case lf.BuiltinExpInt64:
		if y < 0 {
			return 0, false
		}
		r := int64(1)
		for i := int64(0); i < y; i++ {
			var ok bool
			if r, ok = refInt(lf.BuiltinMulInt64, r, x); !ok {
				return 0, false
			}
			if r == 0 || r == 1 && x == 1 {
				return r, true
			}
			if x == -1 {
				if y%2 == 0 {
					return 1, true
				}
				return -1, true
			}
		}
		return r, true
	}
	return 0, false
}

func FuzzEval(f *testing.F) {
	for _, seed := range [][]byte{
		{}, {2, 0, 3, 1, 1}, {5, 0, 2, 1, 200, 3, 3, 3}, {0, 6, 1, 0, 9, 9},
		{3, 3, 0, 0, 0, 200, 4, 3, 2, 1, 7, 7, 7, 7, 250, 250, 250, 250},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &exprGen{b: data}
		ty := fty(g.next() % 3) // Int64, Bool or Text at the top
		e := g.expr(ty, 6)
		want, refErr := refEval(e, map[string]refValue{})
		got, err := evalLimits(t, e, Limits{Steps: 1_000_000, Depth: 10_000})
		if fast, plain := outcome(got, err), outcome(evalLimits(t, e, Limits{Steps: 1_000_000, Depth: 10_000, plain: true})); fast != plain {
			t.Fatalf("fast path %s, plain %s", fast, plain)
		}
		var ie *Error
		if err != nil && errors.As(err, &ie) && (ie.kind == errInternal || ie.kind == errSteps || ie.kind == errDepth) {
			t.Fatalf("machine: %v\n%s", err, ie.goStack)
		}
		switch {
		case refErr != nil && err == nil:
			t.Fatalf("reference fails (%v), machine gives %s", refErr, got)
		case refErr == nil && err != nil:
			t.Fatalf("machine fails (%v), reference gives %v", err, want)
		case refErr != nil:
			arith := ie != nil && ie.Metadata["error_id"] == "UNHANDLED_EXCEPTION/DA.Exception.ArithmeticError:ArithmeticError"
			if (refErr == errRefArith) != arith {
				t.Fatalf("different failures: reference %v, machine %v", refErr, err)
			}
		default:
			w, ok := want.(value.Value)
			if !ok {
				t.Fatalf("reference gives a function")
			}
			if eq, cerr := value.Equal(w, got); cerr != nil || !eq {
				t.Fatalf("machine gives %s, reference %s", got, w)
			}
		}
	})
}

func TestFuzzEvalSeeds(t *testing.T) {
	// The generator makes well-typed expressions; show one for the record.
	g := &exprGen{b: []byte{3, 3, 0, 0, 0, 200, 4, 3, 2, 1, 7, 7, 7, 7, 250, 250, 250, 250}}
	e := g.expr(fInt, 6)
	if _, err := eval(t, e); err != nil {
		var ie *Error
		if errors.As(err, &ie) && ie.kind == errInternal {
			t.Fatal(err)
		}
	}
}
