package resolve

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
)

func sharedDars(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", dir)
	}
	return dir
}

// TestResolveSharedDars resolves every value, template and exception of
// every package of the real DARs: the resolver knows every expression
// real Daml code uses (unsupported features resolve to Unsupported).
func TestResolveSharedDars(t *testing.T) {
	if testing.Short() {
		t.Skip("resolves every definition of every real DAR")
	}
	dir := sharedDars(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.dar"))
	seen := map[lf.PackageID]bool{}
	defs := 0
	for _, f := range files {
		base := filepath.Base(f)
		if base == "dummy-1.15.dar" || base == "illformed.dar" {
			continue
		}
		d, err := archive.ReadDarFile(f, archive.Options{AllowDev: true})
		if err != nil {
			t.Fatal(err)
		}
		p := NewPackages(d.Packages...)
		for _, pkg := range d.Packages {
			if seen[pkg.ID] {
				continue
			}
			seen[pkg.ID] = true
			for _, m := range pkg.Modules {
				for _, v := range m.Values {
					d, err := p.Value(lf.ValueName{Package: pkg.ID, Module: m.Name, Name: v.Name})
					if err == nil {
						_, err = d.Body()
					}
					if err != nil {
						t.Errorf("%s: %s %s:%s: %v", base, pkg.Name, m.Name, v.Name, err)
					}
					defs++
				}
				for _, tm := range m.Templates {
					if _, err := p.Template(lf.TypeConName{Package: pkg.ID, Module: m.Name, Name: tm.Name}); err != nil {
						t.Errorf("%s: template %s:%s: %v", base, m.Name, tm.Name, err)
					}
					defs++
				}
				for _, ex := range m.Exceptions {
					if _, err := p.Exception(lf.TypeConName{Package: pkg.ID, Module: m.Name, Name: ex.Name}); err != nil {
						t.Errorf("%s: exception %s:%s: %v", base, m.Name, ex.Name, err)
					}
					defs++
				}
			}
		}
	}
	t.Logf("resolved %d definitions of %d packages", defs, len(seen))
}

// TestSlots checks slot assignment: parameters first, let- and case-bound
// variables after, slots reused across disjoint scopes, captures listed.
func TestSlots(t *testing.T) {
	p := NewPackages()
	// \x y -> let a = x in (\z -> a) (case y of Some b -> b | None -> a)
	e := &lf.EAbs{Params: []lf.Binder{{Name: "x"}, {Name: "y"}}, Body: &lf.ELet{
		Bindings: []lf.Binding{{Binder: lf.Binder{Name: "a"}, Bound: &lf.EVar{Name: "x"}}},
		Body: &lf.EApp{
			Fun: &lf.EAbs{Params: []lf.Binder{{Name: "z"}}, Body: &lf.EVar{Name: "a"}},
			Args: []lf.Expr{&lf.ECase{Scrut: &lf.EVar{Name: "y"}, Alts: []lf.CaseAlt{
				{Pattern: lf.PSome{Binder: "b"}, Body: &lf.EVar{Name: "b"}},
				{Pattern: lf.PNone{}, Body: &lf.EVar{Name: "a"}},
			}}},
		},
	}}
	lam, err := p.Closed("t", e)
	if err != nil {
		t.Fatal(err)
	}
	mc := lam.Body.(*MakeClosure)
	outer := mc.Lambda
	if outer.Arity != 2 || outer.Slots != 4 || len(mc.Captures) != 0 {
		t.Fatalf("outer lambda: arity %d slots %d captures %d", outer.Arity, outer.Slots, len(mc.Captures))
	}
	let := outer.Body.(*Let)
	if let.Slot != 2 {
		t.Errorf("a in slot %d", let.Slot)
	}
	app := let.Body.(*App)
	inner := app.Fun.(*MakeClosure)
	if len(inner.Captures) != 1 || inner.Captures[0].(*Local).Slot != 2 || inner.Lambda.Body.(*Free).Index != 0 {
		t.Errorf("inner closure captures %v", inner.Captures)
	}
	cs := app.Args[0].(*Case)
	if cs.Alts[0].Slot != 3 || cs.Alts[0].Body.(*Local).Slot != 3 || cs.Alts[1].Body.(*Local).Slot != 2 {
		t.Errorf("case slots %+v", cs.Alts)
	}
	// An unbound variable is an error naming it.
	if _, err := p.Closed("t", &lf.EVar{Name: "nope"}); err == nil || !strings.Contains(err.Error(), "unbound variable nope") {
		t.Errorf("unbound variable: %v", err)
	}
}
