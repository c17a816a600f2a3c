package acceptance

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
)

// TestSharedDarsImplemented resolves every definition of every shared DAR
// — values, templates (with keys, choices and interface instances),
// interfaces, exceptions — and lists the builtins and expressions the
// interpreter does not evaluate: none in the Daml-LF 2.1–2.3 DARs; in the
// JSON API's 2.dev DAR only dev-only features (BigNumeric, rounding
// modes, the experimental primitives), which its keyed templates do not
// reach.
func TestSharedDarsImplemented(t *testing.T) {
	if testing.Short() {
		t.Skip("resolves every definition of every real DAR")
	}
	dir := sharedDars(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.dar"))
	for _, f := range files {
		base := filepath.Base(f)
		if base == "dummy-1.15.dar" || base == "illformed.dar" {
			continue
		}
		d, err := archive.ReadDarFile(f, archive.Options{AllowDev: true})
		if err != nil {
			t.Fatal(err)
		}
		missing := map[string]bool{}
		p := resolve.NewPackages(d.Packages...)
		var lams []*resolve.Lambda
		for _, pkg := range d.Packages {
			for _, m := range pkg.Modules {
				name := func(n lf.DottedName) lf.TypeConName { return lf.TypeConName{Package: pkg.ID, Module: m.Name, Name: n} }
				for _, v := range m.Values {
					def, err := p.Value(lf.ValueName{Package: pkg.ID, Module: m.Name, Name: v.Name})
					if err != nil {
						t.Fatal(err)
					}
					body, err := def.Body()
					if err != nil {
						t.Fatalf("%s: %s: %v", base, v.Name, err)
					}
					lams = append(lams, body)
				}
				for _, tm := range m.Templates {
					rt, err := p.Template(name(tm.Name))
					if err != nil {
						t.Fatalf("%s: %v", base, err)
					}
					lams = append(lams, rt.Precond, rt.Signatories, rt.Observers)
					if rt.Key != nil {
						lams = append(lams, rt.Key.Body, rt.Key.Maintainers)
					}
					for _, c := range tm.Choices {
						lams = append(lams, choiceLambdas(rt.Choice(c.Name))...)
					}
					for _, ii := range tm.Implements {
						inst := rt.Implements(ii.Interface)
						lams = append(lams, inst.View)
						for _, meth := range ii.Methods {
							lams = append(lams, inst.Method(meth.Name))
						}
					}
				}
				for _, i := range m.Interfaces {
					ri, err := p.Interface(name(i.Name))
					if err != nil {
						t.Fatalf("%s: %v", base, err)
					}
					for _, c := range i.Choices {
						lams = append(lams, choiceLambdas(ri.Choice(c.Name))...)
					}
				}
				for _, e := range m.Exceptions {
					re, err := p.Exception(name(e.Name))
					if err != nil {
						t.Fatalf("%s: %v", base, err)
					}
					lams = append(lams, re.Message)
				}
			}
		}
		for _, l := range lams {
			walkLambda(l, func(e resolve.Expr) {
				switch x := e.(type) {
				case *resolve.Unsupported:
					missing[x.What] = true
				case *resolve.Call:
					if b, ok := x.Op.(*resolve.Builtin); ok && !interp.Implemented(b.Fn) {
						missing[b.Fn.String()] = true
					}
				case *resolve.OpRef:
					if b, ok := x.Op.(*resolve.Builtin); ok && !interp.Implemented(b.Fn) {
						missing[b.Fn.String()] = true
					}
				}
			})
		}
		var list []string
		for m := range missing {
			list = append(list, m)
		}
		sort.Strings(list)
		dev := d.MainPackage().LanguageVersion.IsDev()
		t.Logf("%s (%d packages): not evaluated: %s", base, len(d.Packages), strings.Join(list, ", "))
		if !dev && len(list) > 0 {
			t.Errorf("%s uses what the interpreter does not evaluate: %s", base, strings.Join(list, ", "))
		}
	}
}

func choiceLambdas(c *resolve.Choice) []*resolve.Lambda {
	out := []*resolve.Lambda{c.Controllers, c.Body}
	if c.Observers != nil {
		out = append(out, c.Observers)
	}
	if c.Authorizers != nil {
		out = append(out, c.Authorizers)
	}
	return out
}

// walkLambda calls f on every expression of a lambda's body, nested
// lambdas included.
func walkLambda(l *resolve.Lambda, f func(resolve.Expr)) {
	var walk func(e resolve.Expr)
	walk = func(e resolve.Expr) {
		f(e)
		switch x := e.(type) {
		case *resolve.MakeClosure:
			walk(x.Lambda.Body)
			for _, c := range x.Captures {
				walk(c)
			}
		case *resolve.App:
			walk(x.Fun)
			for _, a := range x.Args {
				walk(a)
			}
		case *resolve.Call:
			for _, a := range x.Args {
				walk(a)
			}
		case *resolve.Let:
			walk(x.Bound)
			walk(x.Body)
		case *resolve.Case:
			walk(x.Scrut)
			for _, a := range x.Alts {
				walk(a.Body)
			}
		case *resolve.Located:
			walk(x.Expr)
		case *resolve.TryCatch:
			walk(x.Body)
			walk(x.Handler)
		}
	}
	walk(l.Body)
}
