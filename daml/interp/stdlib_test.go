package interp

import (
	"context"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

// TestStdlib runs functions of the Daml standard library shipped in the Ping
// DAR, with the results Daml gives: real, optimized Daml code exercising
// type-class dictionaries, folds, text functions and maps.
func TestStdlib(t *testing.T) {
	e, d := engineFor(t, pingDar)
	pkgs := map[string]lf.PackageID{}
	for _, p := range d.Packages {
		pkgs[p.Name] = p.ID
	}
	ref := func(pkg, mod, name string) lf.Expr {
		return &lf.EVal{Ref: lf.ValueName{Package: pkgs[pkg], Module: lf.DottedName(strings.Split(mod, ".")), Name: lf.DottedName{name}}}
	}
	prim := func(mod, name string) lf.Expr { return ref("daml-prim", mod, name) }
	std := func(mod, name string) lf.Expr { return ref("daml-stdlib", mod, name) }
	ordInt := prim("GHC.Classes", "$$fOrdInt")
	showInt, showText := prim("GHC.Show", "$$fShowInt"), prim("GHC.Show", "$$fShowText")
	show := prim("GHC.Show", "show")
	for _, c := range []struct {
		name string
		e    lf.Expr
		want string
	}{
		{"sort", app(std("DA.List", "sort"), ordInt, listE(i64(3), i64(1), i64(2), i64(1))), "[1, 1, 2, 3]"},
		{"unique", app(std("DA.List", "unique"), ordInt, listE(i64(1), i64(2), i64(1))), "false"},
		{"unique holds", app(std("DA.List", "unique"), ordInt, listE(i64(1), i64(2))), "true"},
		{"dedup", app(std("DA.List", "dedup"), ordInt, listE(i64(3), i64(1), i64(3))), "[3, 1]"},
		{"show Int", app(show, showInt, i64(-42)), `"-42"`},
		{"show Text escapes", app(show, showText, text(`a"b`)), `""a\"b""`},
		{"show Either", app(show, app(prim("GHC.Show", "$$fShowEither"), showInt, showText),
			&lf.EVariantCon{Type: lf.TypeConApp{Con: lf.TypeConName{Package: pkgs["daml-prim-DA-Types"], Module: lf.DottedName{"DA", "Types"}, Name: lf.DottedName{"Either"}}}, Con: "Left", Arg: i64(7)}), `"Left 7"`},
		{"splitOn", app(std("DA.Text", "splitOn"), text(", "), text("a, b, c")), `["a", "b", "c"]`},
		{"words", app(std("DA.Text", "words"), text(" two  words ")), `["two", "words"]`},
		{"reverse text", app(std("DA.Text", "reverse"), text("héllo")), `"olléh"`},
		{"text length in code points", app(std("DA.Text", "length"), text("h😀")), "2"},
		{"replicate", app(std("DA.Internal.Prelude", "replicate"), i64(3), text("x")), `["x", "x", "x"]`},
	} {
		lamb, err := e.Packages().Closed("stdlib test", c.e)
		if err != nil {
			t.Errorf("%s: resolve: %v", c.name, err)
			continue
		}
		got, _, err := e.EvalLambda(context.Background(), lamb, Limits{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
