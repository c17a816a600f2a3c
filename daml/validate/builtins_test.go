package validate

import (
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

// lf's builtin table and the types of Canton's typeOfBuiltinFunction agree:
// a builtin takes as many value arguments as its type has arrows (and one
// more, the token, when it returns an update), so the
// resolver and the interpreter apply each builtin to the right number of
// arguments.
func TestBuiltinArityMatchesType(t *testing.T) {
	for _, f := range lf.BuiltinFunctions() {
		typ, ok := builtinFunctionTypes[f]
		if !ok {
			t.Errorf("%s has no type", f)
			continue
		}
		_, body := lf.SplitForall(typ)
		n := 0
		for {
			outer, ok := body.(lf.TApp)
			if !ok {
				break
			}
			inner, ok := outer.Fun.(lf.TApp)
			if !ok || inner.Fun != tArrowCon {
				break
			}
			n++
			body = outer.Arg
		}
		// An update takes the ledger token as one more argument, as the
		// interpreter's update operations do.
		if res, ok := body.(lf.TApp); ok && res.Fun == (lf.TBuiltin{Builtin: lf.BuiltinUpdate}) {
			n++
		}
		if f.Arity() != n {
			t.Errorf("%s: the table says %d arguments, its type %d", f, f.Arity(), n)
		}
	}
}
