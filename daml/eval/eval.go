// Package eval evaluates a top-level value of a DAR offline, with
// arguments given as JSON: the work of `ledger daml eval`, callable from
// tests without the CLI.
//
// A value is named "Module:name" in the DAR's main package, or
// "package:Module:name" with a package name or id. Arguments are read by
// the value's parameter types, in a simple form of the JSON Ledger API's
// encoding: numbers or strings for Int64 and Numeric, strings for Text,
// Party, Date, Timestamp and ContractId, booleans, arrays for lists, null or
// the value for Optional, objects by field for records and text maps,
// {"tag": …, "value": …} for variants, the constructor's name for enums,
// [[k, v], …] for generic maps. Results are rendered the same way
// (ValueJSON), Int64 and Numeric as strings.
package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// Result is an evaluated value.
type Result struct {
	Name  lf.ValueName
	Value value.Value
	// Type is the type of the result, after the arguments were applied.
	Type  lf.Type
	Steps int64
}

// Run evaluates the value ref of dar applied to args (JSON, one per
// parameter). Interpretation failures are *interp.Error.
func Run(ctx context.Context, dar *archive.Dar, ref string, args []json.RawMessage, limits interp.Limits) (*Result, error) {
	pkg, mod, def, err := FindValue(dar, ref)
	if err != nil {
		return nil, err
	}
	pkgs := resolve.NewPackages(dar.Packages...)
	name := lf.ValueName{Package: pkg.ID, Module: mod.Name, Name: def.Name}
	t := def.Type
	var vals []value.Value
	for i, raw := range args {
		param, rest, ok := splitArrow(pkgs, t)
		if !ok {
			return nil, fmt.Errorf("%s takes %d argument(s), not %d", ref, i, len(args))
		}
		v, err := fromJSON(pkgs, param, raw, fmt.Sprintf("argument %d", i+1))
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		t = rest
	}
	eng := interp.NewEngine(pkgs, limits)
	v, steps, err := eng.Eval(ctx, name, vals, limits)
	if err != nil {
		return nil, err
	}
	return &Result{Name: name, Value: v, Type: t, Steps: steps}, nil
}

// FindValue finds the value ref names in dar.
func FindValue(dar *archive.Dar, ref string) (*lf.Package, *lf.Module, *lf.Value, error) {
	parts := strings.Split(ref, ":")
	var pkg *lf.Package
	switch len(parts) {
	case 2:
		pkg = dar.MainPackage()
	case 3:
		for _, p := range dar.Packages {
			if string(p.ID) == parts[0] || p.Name == parts[0] {
				pkg = p
				break
			}
		}
		if pkg == nil {
			return nil, nil, nil, fmt.Errorf("the DAR has no package %q (give a package name or id)", parts[0])
		}
		parts = parts[1:]
	default:
		return nil, nil, nil, fmt.Errorf("value %q: write Module:name or package:Module:name", ref)
	}
	mod := pkg.Module(parts[0])
	if mod == nil {
		return nil, nil, nil, fmt.Errorf("package %s has no module %s; its modules are %s", pkg.Name, parts[0], strings.Join(pkg.ModuleNames(), ", "))
	}
	def := mod.Value(parts[1])
	if def == nil {
		return nil, nil, nil, fmt.Errorf("module %s of %s has no value %s", parts[0], pkg.Name, parts[1])
	}
	return pkg, mod, def, nil
}

// splitArrow returns the parameter and result of a function type, looking
// through foralls (when the parameter does not use their variables) and
// synonyms.
func splitArrow(pkgs *resolve.Packages, t lf.Type) (param, result lf.Type, ok bool) {
	t = expand(pkgs, t)
	for {
		f, isForall := t.(lf.TForall)
		if !isForall {
			break
		}
		t = expand(pkgs, f.Body)
	}
	head, args := lf.SplitApp(t)
	if b, isB := head.(lf.TBuiltin); !isB || b.Builtin != lf.BuiltinArrow || len(args) != 2 {
		return nil, nil, false
	}
	return args[0], args[1], true
}

// expand replaces a type synonym at the head of t by its definition.
func expand(pkgs *resolve.Packages, t lf.Type) lf.Type {
	for i := 0; i < 100; i++ {
		s, ok := t.(lf.TSyn)
		if !ok {
			return t
		}
		pkg := pkgs.Package(s.Syn.Package)
		if pkg == nil {
			return t
		}
		m := pkg.Module(s.Syn.Module.String())
		if m == nil {
			return t
		}
		def := m.Synonym(s.Syn.Name.String())
		if def == nil || len(def.Params) != len(s.Args) {
			return t
		}
		sub := map[string]lf.Type{}
		for i, p := range def.Params {
			sub[p.Name] = s.Args[i]
		}
		t = substitute(def.Type, sub)
	}
	return t
}

// substitute replaces type variables by sub.
func substitute(t lf.Type, sub map[string]lf.Type) lf.Type {
	switch x := t.(type) {
	case lf.TVar:
		if r, ok := sub[x.Name]; ok {
			return r
		}
	case lf.TApp:
		return lf.TApp{Fun: substitute(x.Fun, sub), Arg: substitute(x.Arg, sub)}
	case lf.TSyn:
		args := make([]lf.Type, len(x.Args))
		for i, a := range x.Args {
			args[i] = substitute(a, sub)
		}
		return lf.TSyn{Syn: x.Syn, Args: args}
	case lf.TStruct:
		fs := make([]lf.Field, len(x.Fields))
		for i, f := range x.Fields {
			fs[i] = lf.Field{Name: f.Name, Type: substitute(f.Type, sub)}
		}
		return lf.TStruct{Fields: fs}
	case lf.TForall:
		inner := map[string]lf.Type{}
		for k, v := range sub {
			if k != x.Var.Name {
				inner[k] = v
			}
		}
		return lf.TForall{Var: x.Var, Body: substitute(x.Body, inner)}
	}
	return t
}
