package lf_test

import (
	"testing"
	"unicode/utf8"

	"github.com/ledger-cli/ledger/daml/lf"
)

// exprBuilder makes an expression of fuzz bytes: each byte picks a node
// kind, the next ones its children, so that every input is an expression
// and mutations stay expressions.
type exprBuilder struct {
	data  []byte
	depth int
}

func (b *exprBuilder) byte() byte {
	if len(b.data) == 0 {
		return 0
	}
	c := b.data[0]
	b.data = b.data[1:]
	return c
}

var (
	fuzzVars   = []string{"this", "arg", "x", "ds", "key"}
	fuzzFields = []string{"owner", "amount", "_1", "f"}
	fuzzValues = []string{"$$csignatory", "$$c$u003e1", "$$ctoParties", "$$sel$u003aowner$u003aR", "plain", "$$fOrdTime", "$$$$sc_a", "$$$$sc_b", "toParties", "$$c_maintainer"}
	fuzzFuns   = []lf.BuiltinFunction{lf.BuiltinEqual, lf.BuiltinLess, lf.BuiltinAddNumeric, lf.BuiltinAppendText, lf.BuiltinError, lf.BuiltinGreaterEq}
)

func fuzzRef(name string) lf.ValueName {
	return lf.ValueName{Package: "p", Module: lf.DottedName{"M"}, Name: lf.DottedName{name}}
}

func (b *exprBuilder) expr() lf.Expr {
	if len(b.data) == 0 || b.depth > 200 {
		return &lf.EVar{Name: "this"}
	}
	b.depth++
	defer func() { b.depth-- }()
	c := b.byte()
	pick := func(n int) int { return int(b.byte()) % n }
	switch c % 16 {
	case 0:
		return &lf.EVar{Name: fuzzVars[pick(len(fuzzVars))]}
	case 1:
		return &lf.ERecProj{Field: fuzzFields[pick(len(fuzzFields))], Record: b.expr()}
	case 2:
		args := []lf.Expr{b.expr()}
		if c&0x10 != 0 {
			args = append(args, b.expr())
		}
		return &lf.EApp{Fun: b.expr(), Args: args}
	case 3:
		return &lf.EAbs{Params: []lf.Binder{{Name: fuzzVars[pick(len(fuzzVars))]}}, Body: b.expr()}
	case 4:
		return &lf.ELet{Bindings: []lf.Binding{{Binder: lf.Binder{Name: fuzzVars[pick(len(fuzzVars))]}, Bound: b.expr()}}, Body: b.expr()}
	case 5:
		return &lf.EVal{Ref: fuzzRef(fuzzValues[pick(len(fuzzValues))])}
	case 6:
		e := &lf.ECons{Front: []lf.Expr{b.expr(), b.expr()}, Tail: &lf.ENil{}}
		if c&0x10 != 0 {
			e.Tail = b.expr()
		}
		return e
	case 7:
		return &lf.ECase{Scrut: b.expr(), Alts: []lf.CaseAlt{
			{Pattern: lf.PBuiltinCon{Con: lf.BuiltinCon(pick(3))}, Body: b.expr()},
			{Pattern: lf.PBuiltinCon{Con: lf.BuiltinCon(pick(3))}, Body: b.expr()}}}
	case 8:
		return &lf.EBuiltinFun{Fun: fuzzFuns[pick(len(fuzzFuns))]}
	case 9:
		return &lf.ETyApp{Expr: b.expr()}
	case 10:
		return &lf.ETyAbs{Body: b.expr()}
	case 11:
		switch pick(5) {
		case 0:
			return &lf.EInt64{Value: int64(b.byte()) - 100}
		case 1:
			return &lf.ENumeric{Value: "1.2500000000", Scale: 10}
		case 2:
			n := pick(64)
			s := make([]byte, 0, n)
			for range n {
				s = append(s, b.byte())
			}
			return &lf.EText{Value: string(s)}
		case 3:
			return &lf.EDate{Days: int32(b.byte()) * 1000}
		}
		return &lf.EBuiltinCon{Con: lf.BuiltinCon(pick(3))}
	case 12:
		if c&0x10 != 0 {
			return &lf.ENone{}
		}
		return &lf.ESome{Value: b.expr()}
	case 13:
		return &lf.ERecCon{Type: lf.TypeConApp{Con: lf.TypeConName{Package: "p", Module: lf.DottedName{"DA", "Types"}, Name: lf.DottedName{"Tuple2"}}},
			Fields: []lf.FieldExpr{{Name: "_1", Expr: b.expr()}, {Name: "_2", Expr: b.expr()}}}
	case 14:
		return &lf.ELocation{Expr: b.expr()}
	}
	return &lf.EUpdate{Update: &lf.UGetTime{}}
}

// FuzzPrintExpr prints expressions of fuzz bytes, with values of fuzz
// bytes to inline: it does not panic, and its text is bounded and UTF-8.
func FuzzPrintExpr(f *testing.F) {
	f.Add([]byte{2, 5, 0, 0, 0})                      // $csignatory this
	f.Add([]byte{4, 2, 1, 0, 0, 0, 5, 2, 0, 3})       // let ds = this.owner in toParties ds
	f.Add([]byte{0x12, 8, 1, 11, 1, 1, 0, 0, 0})      // 1.25 < this
	f.Add([]byte{5, 6, 5, 7, 6, 5, 7, 5, 6, 5, 6, 5}) // values that use each other
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &exprBuilder{data: data}
		vals := map[string]*lf.Value{}
		for _, name := range []string{"$$csignatory", "$$$$sc_a", "$$$$sc_b", "$$c_maintainer"} {
			vals[name] = &lf.Value{Body: b.expr()}
		}
		e := b.expr()
		pr := lf.ExprPrinter{Lookup: func(n lf.ValueName) *lf.Value { return vals[n.Name.String()] }, Fields: []string{"this", "arg"}}
		for _, s := range []string{pr.Print(e), pr.PrintApplied(e, "key")} {
			if len(s) > lf.MaxExprString+len("…") || !utf8.ValidString(s) || s == "" {
				t.Fatalf("printed %d bytes (UTF-8 %v): %q", len(s), utf8.ValidString(s), s)
			}
		}
	})
}
