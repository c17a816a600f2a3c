// Package eval evaluates a top-level value of a DAR offline, with
// arguments given as JSON: the work of `ledger daml eval`, callable from
// tests without the CLI.
//
// A value is named "Module:name" in the DAR's main package, or
// "package:Module:name" with a package name or id. Arguments are read by
// the value's parameter types in the JSON Ledger API's encoding, with the
// codec of package typed (numbers or strings for Int64 and Numeric, strings
// for Text, Party, Date, Timestamp and ContractId, objects by field for
// records, {"tag": …, "value": …} for variants, …; see typed's package
// documentation). Results are written the same way (Result.JSON).
package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

// Result is an evaluated value.
type Result struct {
	Name  lf.ValueName
	Value value.Value
	// Type is the type of the result, after the arguments were applied.
	Type  lf.Type
	Steps int64

	env *typed.Env
}

// JSON writes the result in the JSON Ledger API's encoding of its type. A
// value whose type has no JSON encoding (a function, an update, a type
// variable) is written as its text, a JSON string.
func (r *Result) JSON() (json.RawMessage, error) {
	plan, err := r.env.Plan(r.Type)
	if err != nil {
		return json.Marshal(r.Value.String())
	}
	return plan.EncodeJSON(r.Value)
}

// Run evaluates the value ref of dar applied to args (JSON, one per
// parameter). Interpretation failures are *interp.Error.
func Run(ctx context.Context, dar *archive.Dar, ref string, args []json.RawMessage, limits interp.Limits) (*Result, error) {
	return RunWith(ctx, dar, ref, args, Instantiation{}, limits)
}

// Instantiation fills in what a polymorphic value needs besides its
// arguments: the types of its type variables, in order (Types, as ParseType
// reads them), and the scales of its Numeric scale variables (Scales, in
// order; the last one given also serves those after it).
type Instantiation struct {
	Types  []string
	Scales []int
}

// InstantiationError says that a value needs a type, a scale or a
// type-class instance that was not given or cannot be found; the CLI
// shows it as a usage error.
type InstantiationError struct{ Msg string }

func (e *InstantiationError) Error() string { return e.Msg }

// RunWith evaluates the value ref of dar applied to args, as Run, with its
// type variables instantiated as inst says. A parameter that is a
// type-class dictionary (Daml-LF writes a class constraint as a parameter
// whose type is the class's synonym, Ord a, NumericScale n) is not read
// from the arguments: once its type variables are known, the DAR's
// instance of it ($fOrdInt for Ord Int, $fNumericScale10 for
// NumericScale 10) is evaluated and passed.
func RunWith(ctx context.Context, dar *archive.Dar, ref string, args []json.RawMessage, inst Instantiation, limits interp.Limits) (*Result, error) {
	pkg, mod, def, err := FindValue(dar, ref)
	if err != nil {
		return nil, err
	}
	pkgs := resolve.NewPackages(dar.Packages...)
	env := typed.NewEnv(dar.Packages...)
	eng := interp.NewEngine(pkgs, limits)
	name := lf.ValueName{Package: pkg.ID, Module: mod.Name, Name: def.Name}
	var types []lf.Type
	for _, ts := range inst.Types {
		t, err := ParseType(dar, ts)
		if err != nil {
			return nil, &InstantiationError{Msg: "--type: " + err.Error()}
		}
		types = append(types, t)
	}
	t := def.Type
	var vals []value.Value
	var steps int64
	next, scales := 0, 0
	for {
		if f, ok := t.(lf.TForall); ok {
			var with lf.Type
			switch f.Var.Kind.(type) {
			case lf.KNat:
				if len(inst.Scales) == 0 {
					if next < len(args) {
						return nil, &InstantiationError{Msg: fmt.Sprintf("%s : %s takes a Numeric of any scale (%s): give the scale with --scale, e.g. --scale 10", ref, def.Type, f.Var.Name)}
					}
					break
				}
				with = lf.TNat{N: inst.Scales[min(scales, len(inst.Scales)-1)]}
				scales++
			default:
				if len(types) == 0 {
					if next < len(args) {
						return nil, &InstantiationError{Msg: fmt.Sprintf("%s : %s is polymorphic in %s: give its type with --type, e.g. --type Int64 (one --type per type variable, in order)", ref, def.Type, f.Var.Name)}
					}
					break
				}
				with, types = types[0], types[1:]
			}
			if with == nil {
				break // no more arguments: the result is the polymorphic value itself
			}
			t = lf.Substitute(f.Body, map[string]lf.Type{f.Var.Name: with})
			continue
		}
		param, rest, ok := splitArrow(pkgs, t)
		if !ok {
			if next < len(args) {
				return nil, fmt.Errorf("%s takes %d argument(s), not %d", ref, next, len(args))
			}
			break
		}
		if dict, isDict := param.(lf.TSyn); isDict {
			if hasTypeVars(dict) {
				if next < len(args) {
					return nil, &InstantiationError{Msg: fmt.Sprintf("%s : %s needs an instance of %s, which depends on a type not given: give it with --type (or --scale for a Numeric)", ref, def.Type, dict)}
				}
				break
			}
			v, n, err := instanceOf(ctx, eng, dar, dict, limits, 0)
			steps += n
			var missing *InstantiationError
			if errors.As(err, &missing) {
				return nil, &InstantiationError{Msg: fmt.Sprintf("%s : %s: %s", ref, def.Type, err)}
			}
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
			t = rest
			continue
		}
		if next == len(args) {
			break
		}
		path := fmt.Sprintf("argument %d", next+1)
		if hasTypeVars(param) {
			return nil, &InstantiationError{Msg: fmt.Sprintf("%s: %s is polymorphic (%s): give its type with --type", path, ref, param)}
		}
		plan, err := env.Plan(param)
		if err != nil {
			return nil, fmt.Errorf("%s: a value of type %s cannot be read from JSON: %w", path, param, err)
		}
		v, err := plan.DecodeJSON(args[next], typed.DecodeOptions{Path: path})
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		next++
		t = rest
	}
	if len(types) > 0 {
		return nil, &InstantiationError{Msg: fmt.Sprintf("%s : %s has fewer type variables than --type gives", ref, def.Type)}
	}
	v, n, err := eng.Eval(ctx, name, vals, limits)
	if err != nil {
		return nil, err
	}
	return &Result{Name: name, Value: v, Type: t, Steps: steps + n, env: env}, nil
}

// maxInstanceDepth bounds how deep instances that need instances (Ord
// [Int] needs Ord Int) are looked up.
const maxInstanceDepth = 8

// instanceOf evaluates the DAR's instance of the class dictionary dict:
// a top-level value the Daml compiler wrote for it, either of type dict
// itself ($fOrdInt : Ord Int) or a function from the instances it needs
// to it ($fOrdList : forall a. Ord a -> Ord [a]), applied to those.
func instanceOf(ctx context.Context, eng *interp.Engine, dar *archive.Dar, dict lf.TSyn, limits interp.Limits, depth int) (value.Value, int64, error) {
	if depth > maxInstanceDepth {
		return nil, 0, fmt.Errorf("the instance of %s needs instances more than %d deep", dict, maxInstanceDepth)
	}
	for _, p := range dar.Packages {
		for _, m := range p.Modules {
			for _, v := range m.Values {
				needs, ok := instanceFor(v.Type, dict)
				if !ok {
					continue
				}
				var args []value.Value
				var steps int64
				for _, need := range needs {
					a, n, err := instanceOf(ctx, eng, dar, need, limits, depth+1)
					steps += n
					if err != nil {
						return nil, steps, err
					}
					args = append(args, a)
				}
				r, n, err := eng.Eval(ctx, lf.ValueName{Package: p.ID, Module: m.Name, Name: v.Name}, args, limits)
				return r, steps + n, err
			}
		}
	}
	return nil, 0, &InstantiationError{Msg: fmt.Sprintf("no instance of %s (a type-class dictionary) is in the DAR", dict)}
}

// instanceFor says whether a value of type t is an instance for dict:
// t is dict, or forall vs. D1 -> … -> Dn -> C where C matches dict with
// the variables vs bound; it returns the Di with them bound.
func instanceFor(t lf.Type, dict lf.TSyn) ([]lf.TSyn, bool) {
	vars := map[string]bool{}
	for {
		f, ok := t.(lf.TForall)
		if !ok {
			break
		}
		vars[f.Var.Name] = true
		t = f.Body
	}
	var needs []lf.TSyn
	for {
		head, args := lf.SplitApp(t)
		if b, ok := head.(lf.TBuiltin); !ok || b.Builtin != lf.BuiltinArrow || len(args) != 2 {
			break
		}
		d, ok := args[0].(lf.TSyn)
		if !ok {
			return nil, false
		}
		needs = append(needs, d)
		t = args[1]
	}
	c, ok := t.(lf.TSyn)
	if !ok || !reflect.DeepEqual(c.Syn, dict.Syn) || len(c.Args) != len(dict.Args) {
		return nil, false
	}
	bound := map[string]lf.Type{}
	for i := range c.Args {
		if !matchType(c.Args[i], dict.Args[i], vars, bound) {
			return nil, false
		}
	}
	for i, n := range needs {
		sub, ok := lf.Substitute(n, bound).(lf.TSyn)
		if !ok || hasTypeVars(sub) {
			return nil, false
		}
		needs[i] = sub
	}
	return needs, true
}

// matchType matches pattern against t, binding the pattern's variables
// (vars) in bound.
func matchType(pattern, t lf.Type, vars map[string]bool, bound map[string]lf.Type) bool {
	if v, ok := pattern.(lf.TVar); ok && vars[v.Name] {
		if b, seen := bound[v.Name]; seen {
			return reflect.DeepEqual(b, t)
		}
		bound[v.Name] = t
		return true
	}
	switch p := pattern.(type) {
	case lf.TApp:
		a, ok := t.(lf.TApp)
		return ok && matchType(p.Fun, a.Fun, vars, bound) && matchType(p.Arg, a.Arg, vars, bound)
	case lf.TSyn:
		s, ok := t.(lf.TSyn)
		if !ok || !reflect.DeepEqual(p.Syn, s.Syn) || len(p.Args) != len(s.Args) {
			return false
		}
		for i := range p.Args {
			if !matchType(p.Args[i], s.Args[i], vars, bound) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(pattern, t)
}

// hasTypeVars says whether t mentions a type variable.
func hasTypeVars(t lf.Type) bool {
	switch t := t.(type) {
	case lf.TVar:
		return true
	case lf.TApp:
		return hasTypeVars(t.Fun) || hasTypeVars(t.Arg)
	case lf.TSyn:
		for _, a := range t.Args {
			if hasTypeVars(a) {
				return true
			}
		}
	case lf.TStruct:
		for _, f := range t.Fields {
			if hasTypeVars(f.Type) {
				return true
			}
		}
	case lf.TForall:
		return true
	}
	return false
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
	t = pkgs.Expand(t)
	for {
		f, isForall := t.(lf.TForall)
		if !isForall {
			break
		}
		t = pkgs.Expand(f.Body)
	}
	head, args := lf.SplitApp(t)
	if b, isB := head.(lf.TBuiltin); !isB || b.Builtin != lf.BuiltinArrow || len(args) != 2 {
		return nil, nil, false
	}
	return args[0], args[1], true
}
