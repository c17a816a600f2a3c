package validate_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/validate"
)

// pingWith returns the real Ping package with its Ping module changed by
// edit (a copy: the decoded tree is shared and immutable).
func pingWith(t *testing.T, edit func(m *lf.Module)) (*lf.Package, validate.Lookup) {
	t.Helper()
	d := readDar(t, filepath.Join(sharedDars(t), "canton-builtin-admin-workflow-ping.dar"))
	p := d.Package(d.Main)
	cp := *p
	cp.Modules = nil
	for _, m := range p.Modules {
		if m.Name.String() == "Canton.Internal.Ping" {
			mm := *m
			edit(&mm)
			nm, dup := lf.NewModule(mm)
			if dup != "" {
				t.Fatalf("duplicate %s", dup)
			}
			m = nm
		}
		cp.Modules = append(cp.Modules, m)
	}
	np := lf.NewPackage(cp)
	return np, lookupIn(append([]*lf.Package{np}, d.Packages...)...)
}

func wantKind(t *testing.T, err error, kind, contains string) {
	t.Helper()
	var ve *validate.Error
	if !errors.As(err, &ve) || ve.Kind != kind || !strings.Contains(err.Error(), contains) {
		t.Fatalf("got %v, want %s containing %q", err, kind, contains)
	}
}

// TestChoiceBodyTyped: a choice declared () whose body returns an Int64
// is refused in the choice's own context.
func TestChoiceBodyTyped(t *testing.T) {
	p, lookup := pingWith(t, func(m *lf.Module) {
		// The choice's HasExercise instance would meet it first.
		var vals []*lf.Value
		for _, v := range m.Values {
			if n := v.Name.String(); !strings.Contains(n, "HasExercise") || !strings.Contains(n, "Respond") {
				vals = append(vals, v)
			}
		}
		m.Values = vals
		var tpls []*lf.Template
		for _, tp := range m.Templates {
			ntp := *tp
			ntp.Choices = nil
			for _, ch := range tp.Choices {
				nch := *ch
				if ch.Name == "Respond" {
					nch.Update = &lf.EUpdate{Update: &lf.UPure{Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}, Expr: &lf.EInt64{Value: 42}}}
				}
				ntp.Choices = append(ntp.Choices, &nch)
			}
			tpls = append(tpls, &ntp)
		}
		m.Templates = tpls
	})
	err := validate.Package(context.Background(), p, lookup, validate.Options{})
	wantKind(t, err, "ETypeMismatch", "in choice Respond in template")
	if !strings.Contains(err.Error(), "expected type: Update ()") || !strings.Contains(err.Error(), "found type: Update Int") {
		t.Errorf("message %q", err)
	}
}

// exponential returns a type of depth n whose tree has 2^n leaves but
// which shares its halves: leaf at the bottom.
func exponential(n int, leaf lf.Type) lf.Type {
	ty := leaf
	for i := 0; i < n; i++ {
		ty = lf.TApp{Fun: lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinArrow}, Arg: ty}, Arg: ty}
	}
	return ty
}

// TestExponentialTypesBounded: types that share their halves (as interned
// types do) and differ only at the bottom, and synonyms that double at each
// level, are refused quickly: the checker walks shared types by node, so
// the mismatch at the bottom is found and named (ETypeMismatch); an
// expression DAG and a type nested too deep are refused by the budgets.
func TestExponentialTypesBounded(t *testing.T) {
	int64T, textT := lf.TBuiltin{Builtin: lf.BuiltinInt64}, lf.TBuiltin{Builtin: lf.BuiltinText}
	syn := func(name string) lf.TypeSynName {
		return lf.TypeSynName{Module: lf.ModuleName{"Canton", "Internal", "Ping"}, Name: lf.DottedName{name}}
	}
	cases := map[string]func(m *lf.Module, pkg lf.PackageID){
		"shared_type_dag": func(m *lf.Module, pkg lf.PackageID) {
			a, b := exponential(200, int64T), exponential(200, textT)
			// w is well typed (ERROR @b "never" : b); v's type differs from
			// w's only at the bottom.
			w := &lf.Value{Name: lf.DottedName{"w"}, Type: b, Body: &lf.EApp{
				Fun:  &lf.ETyApp{Expr: &lf.EBuiltinFun{Fun: lf.BuiltinError}, Types: []lf.Type{b}},
				Args: []lf.Expr{&lf.EText{Value: "never"}}}}
			wRef := lf.ValueName{Package: pkg, Module: m.Name, Name: w.Name}
			v := &lf.Value{Name: lf.DottedName{"v"}, Type: a, Body: &lf.EVal{Ref: wRef}}
			m.Values = []*lf.Value{w, v}
		},
		"shared_expression_dag": func(m *lf.Module, pkg lf.PackageID) {
			// e(i) = ADD_INT64 e(i-1) e(i-1), one node per level, as an
			// interned expression table may share them.
			var e lf.Expr = &lf.EInt64{Value: 1}
			for i := 0; i < 200; i++ {
				e = &lf.EApp{Fun: &lf.EBuiltinFun{Fun: lf.BuiltinAddInt64}, Args: []lf.Expr{e, e}}
			}
			m.Values = []*lf.Value{{Name: lf.DottedName{"v"}, Type: int64T, Body: e}}
		},
		"deep_type": func(m *lf.Module, pkg lf.PackageID) {
			// Deeper than the decoder allows, as substitution may build.
			ty := lf.Type(int64T)
			for i := 0; i < 30_000; i++ {
				ty = lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinList}, Arg: ty}
			}
			m.Values = []*lf.Value{{Name: lf.DottedName{"v"}, Type: ty, Body: &lf.ENil{Type: int64T}}}
		},
		"doubling_synonyms": func(m *lf.Module, pkg lf.PackageID) {
			// S0 = Int64, Si = S(i-1) -> S(i-1); A = S80 -> Int64 and
			// B = S80 -> Text differ only once S80 is walked.
			ref := func(name string) lf.Type {
				s := syn(name)
				s.Package = pkg
				return lf.TSyn{Syn: s}
			}
			arrow := func(a, b lf.Type) lf.Type {
				return lf.TApp{Fun: lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinArrow}, Arg: a}, Arg: b}
			}
			m.Synonyms = []*lf.TypeSyn{{Name: lf.DottedName{"S0"}, Type: int64T}}
			for i := 1; i <= 80; i++ {
				prev := ref("S" + itoa(i-1))
				m.Synonyms = append(m.Synonyms, &lf.TypeSyn{Name: lf.DottedName{"S" + itoa(i)}, Type: arrow(prev, prev)})
			}
			m.Synonyms = append(m.Synonyms,
				&lf.TypeSyn{Name: lf.DottedName{"A"}, Type: arrow(ref("S80"), int64T)},
				&lf.TypeSyn{Name: lf.DottedName{"B"}, Type: arrow(ref("S80"), textT)})
			w := &lf.Value{Name: lf.DottedName{"w"}, Type: ref("B"), Body: &lf.EApp{
				Fun:  &lf.ETyApp{Expr: &lf.EBuiltinFun{Fun: lf.BuiltinError}, Types: []lf.Type{ref("B")}},
				Args: []lf.Expr{&lf.EText{Value: "never"}}}}
			wRef := lf.ValueName{Package: pkg, Module: m.Name, Name: w.Name}
			v := &lf.Value{Name: lf.DottedName{"v"}, Type: ref("A"), Body: &lf.EVal{Ref: wRef}}
			m.Values = []*lf.Value{w, v}
		},
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			var id lf.PackageID
			p, _ := pingWith(t, func(m *lf.Module) {})
			id = p.ID
			p, lookup := pingWith(t, func(m *lf.Module) { edit(m, id) })
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			err := validate.Package(context.Background(), p, lookup, validate.Options{})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			t.Logf("%s: refused in %v, %d MB allocated", name, took, (after.TotalAlloc-before.TotalAlloc)>>20)
			if took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			if name == "shared_type_dag" || name == "doubling_synonyms" {
				wantKind(t, err, "ETypeMismatch", "type mismatch")
			} else {
				wantKind(t, err, "EBudget", "more than")
			}
			if name == "deep_type" && !strings.Contains(err.Error(), "nest more than") {
				t.Errorf("deep type: %v", err)
			}
		})
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestCancelled: a cancelled context stops the check.
func TestCancelled(t *testing.T) {
	d := readDar(t, filepath.Join(sharedDars(t), "splice-amulet-0.1.14.dar"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := validate.Package(ctx, d.Package(d.Main), lookupIn(d.Packages...), validate.Options{})
	wantKind(t, err, "ECancelled", "cancelled")
}
