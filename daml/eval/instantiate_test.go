package eval

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
)

// TestRunPolymorphic (issue 25, item 14): a function that takes a
// type-class dictionary or a Numeric scale runs once its type is given —
// the DAR's instance is passed for the dictionary — and says what to give
// when it is not.
func TestRunPolymorphic(t *testing.T) {
	d := ping(t)
	for _, c := range []struct {
		ref  string
		args []string
		inst Instantiation
		want string
	}{
		{"daml-stdlib:DA.List:sort", []string{`[3, 1, 2]`}, Instantiation{Types: []string{"Int64"}}, `["1","2","3"]`},
		{"daml-stdlib:DA.List:sort", []string{`["b", "a"]`}, Instantiation{Types: []string{"Text"}}, `["a","b"]`},
		{"daml-prim:GHC.Show:show", []string{`42`}, Instantiation{Types: []string{"Int"}}, `"42"`},
		{"daml-stdlib:DA.Numeric:mul", []string{`"1.5"`, `"2.5"`}, Instantiation{Scales: []int{10}}, `"3.7500000000"`},
		{"daml-stdlib:DA.List:sort", []string{`[[3], [1, 2], []]`}, Instantiation{Types: []string{"[Int]"}}, `[[],["1","2"],["3"]]`},
		{"daml-prim:GHC.Show:show", []string{`"1.5"`}, Instantiation{Types: []string{"Decimal"}}, `"1.5"`},
		{"daml-stdlib:DA.Internal.Prelude:sum", []string{`["1.25", "2.5"]`}, Instantiation{Types: []string{"Decimal"}}, `"3.7500000000"`},
	} {
		res, err := RunWith(context.Background(), d, c.ref, args(c.args...), c.inst, interp.Limits{})
		if err != nil {
			t.Errorf("%s %v: %v", c.ref, c.inst, err)
			continue
		}
		got, err := res.JSON()
		if err != nil || string(got) != c.want {
			t.Errorf("%s %v = %s (%v), want %s", c.ref, c.inst, got, err, c.want)
		}
	}
	for _, c := range []struct {
		ref  string
		args []string
		inst Instantiation
		want []string
	}{
		{"daml-stdlib:DA.List:sort", []string{`[3, 1]`}, Instantiation{}, []string{"polymorphic in a", "--type"}},
		{"daml-stdlib:DA.Numeric:mul", []string{`"1.5"`, `"2.5"`}, Instantiation{}, []string{"any scale", "--scale"}},
		{"daml-stdlib:DA.List:sort", []string{`[1]`}, Instantiation{Types: []string{"Int -> Int"}}, []string{"--type"}},
		{"daml-stdlib:DA.List:sort", []string{`[1]`}, Instantiation{Types: []string{"Nope"}}, []string{"--type", "Nope"}},
		{"daml-stdlib:DA.List:sort", []string{`[1]`}, Instantiation{Types: []string{"Int", "Text"}}, []string{"fewer type variables"}},
	} {
		_, err := RunWith(context.Background(), d, c.ref, args(c.args...), c.inst, interp.Limits{})
		var ie *InstantiationError
		if !errors.As(err, &ie) {
			t.Errorf("%s %v: %v, want an InstantiationError", c.ref, c.inst, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: %v lacks %q", c.ref, c.inst, err, w)
			}
		}
	}
}

// FuzzParseType: --type text never panics, and what parses has no type
// variable (a value's instantiation is closed).
func FuzzParseType(f *testing.F) {
	d := ping(&testing.T{})
	for _, s := range []string{"Int", "[Text]", "Numeric 10", "Optional (ContractId Canton.Internal.Ping:Ping)", "((", "[]", "Decimal", "daml-stdlib:DA.Types:Either Int Text", "99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ty, err := ParseType(d, s)
		if err == nil && hasTypeVars(ty) {
			t.Errorf("%q parsed to %s, with a type variable", s, ty)
		}
	})
}
