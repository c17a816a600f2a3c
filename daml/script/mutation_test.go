package script

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

// mutateLiterals changes, in place, every literal under v (a decoded
// Daml-LF expression) that change alters, and returns how many it changed.
func mutateLiterals(v reflect.Value, change func(lf.Expr) bool) int {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		if e, ok := v.Interface().(lf.Expr); ok && change(e) {
			return 1
		}
		return mutateLiterals(v.Elem(), change)
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += mutateLiterals(v.Field(i), change)
			}
		}
		return n
	case reflect.Slice:
		n := 0
		for i := range v.Len() {
			n += mutateLiterals(v.Index(i), change)
		}
		return n
	}
	return 0
}

// numerics makes every Numeric literal ten times and more larger: 10.0
// becomes 110.0, -1.5 becomes -11.5.
func numerics(e lf.Expr) bool {
	n, ok := e.(*lf.ENumeric)
	if !ok {
		return false
	}
	if strings.HasPrefix(n.Value, "-") {
		n.Value = "-1" + n.Value[1:]
	} else {
		n.Value = "1" + n.Value
	}
	return true
}

// negate negates every Numeric literal (a tap of 42.0 becomes one of
// -42.0).
func negate(e lf.Expr) bool {
	n, ok := e.(*lf.ENumeric)
	if !ok {
		return false
	}
	if strings.HasPrefix(n.Value, "-") {
		n.Value = n.Value[1:]
	} else {
		n.Value = "-" + n.Value
	}
	return true
}

// halveInts halves every Int64 literal above 1 (minutes 6 becomes minutes
// 3).
func halveInts(e lf.Expr) bool {
	n, ok := e.(*lf.EInt64)
	if !ok || n.Value < 2 {
		return false
	}
	n.Value /= 2
	return true
}

// mutation breaks some definitions of the splice-wallet-test DAR.
type mutation struct {
	name   string
	change func(lf.Expr) bool
	// of picks the definitions to change, for the script being tested.
	of func(script lf.ValueName, pkg *lf.Package, mod *lf.Module, def string) bool
}

// ownDefinition is the script or a definition damlc lifted out of it.
func ownDefinition(script lf.ValueName, pkg *lf.Package, mod *lf.Module, def string) bool {
	return pkg.ID == script.Package && mod.Name.Equal(script.Module) &&
		(def == script.Name.String() || strings.HasPrefix(strings.TrimLeft(def, "$"), "sc_"+script.Name.String()+"_"))
}

var mutations = []mutation{
	{"the script's amounts and asserted balances", numerics, ownDefinition},
	{"the fees of the test configuration", numerics, func(_ lf.ValueName, pkg *lf.Package, mod *lf.Module, def string) bool {
		return pkg.Name == "splice-amulet-test" && mod.Name.String() == "Splice.Scripts.Parameters" &&
			(def == "defaultTransferConfig" || def == "defaultSynchronizerFeesConfig")
	}},
	{"the script's durations and counts", halveInts, ownDefinition},
	{"the script's amounts made negative", negate, ownDefinition},
}

// TestSpliceWalletScriptsFailWhenMutated breaks, for each script, lines it
// relies on — its own constants (the amounts it pays, the balances it
// asserts, the time it lets pass) or the fees of the configuration it runs
// with — and checks the script then fails: a pass means the runner ran its
// checks.
func TestSpliceWalletScriptsFailWhenMutated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each script up to four times (-short)")
	}
	names := newRunner(t, sharedDar(t, "splice-wallet-test-0.1.8.dar")).Scripts()
	for _, name := range names {
		t.Run(name.Name.String(), func(t *testing.T) {
			for _, mu := range mutations {
				dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
				changed := 0
				for _, p := range dar.Packages {
					for _, m := range p.Modules {
						for _, v := range m.Values {
							if mu.of(name, p, m, v.Name.String()) {
								changed += mutateLiterals(reflect.ValueOf(v.Body), mu.change)
							}
						}
					}
				}
				if changed == 0 {
					continue
				}
				r := newRunner(t, dar)
				_, err := r.Run(context.Background(), name, NewMemoryLedger(r), Options{})
				var f *Failure
				if errors.As(err, &f) {
					t.Logf("%s (%d literals) broken: %s: %s", mu.name, changed, f.Kind, strings.SplitN(f.Message, "\n", 2)[0])
					return
				}
			}
			t.Errorf("the script passes whichever mutation is applied")
		})
	}
}
