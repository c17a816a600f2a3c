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
	"fmt"
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
	pkg, mod, def, err := FindValue(dar, ref)
	if err != nil {
		return nil, err
	}
	pkgs := resolve.NewPackages(dar.Packages...)
	env := typed.NewEnv(dar.Packages...)
	name := lf.ValueName{Package: pkg.ID, Module: mod.Name, Name: def.Name}
	t := def.Type
	var vals []value.Value
	for i, raw := range args {
		param, rest, ok := splitArrow(pkgs, t)
		if !ok {
			return nil, fmt.Errorf("%s takes %d argument(s), not %d", ref, i, len(args))
		}
		path := fmt.Sprintf("argument %d", i+1)
		plan, err := env.Plan(param)
		if err != nil {
			return nil, fmt.Errorf("%s: a value of type %s cannot be read from JSON: %w", path, param, err)
		}
		v, err := plan.DecodeJSON(raw, typed.DecodeOptions{Path: path})
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
	return &Result{Name: name, Value: v, Type: t, Steps: steps, env: env}, nil
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
