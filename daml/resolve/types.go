package resolve

import "github.com/ledger-cli/ledger/daml/lf"

// DataType returns the data type n names, or nil.
func (pkgs *Packages) DataType(n lf.TypeConName) *lf.DataType {
	_, m, err := pkgs.module(n.Package, n.Module.String())
	if err != nil {
		return nil
	}
	return m.DataType(n.Name.String())
}

// Expand replaces type synonyms at the head of t by their definitions.
func (pkgs *Packages) Expand(t lf.Type) lf.Type {
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
		t = Substitute(def.Type, sub)
	}
	return t
}

// Substitute replaces the type variables of t that sub maps.
func Substitute(t lf.Type, sub map[string]lf.Type) lf.Type {
	switch x := t.(type) {
	case lf.TVar:
		if r, ok := sub[x.Name]; ok {
			return r
		}
	case lf.TApp:
		return lf.TApp{Fun: Substitute(x.Fun, sub), Arg: Substitute(x.Arg, sub)}
	case lf.TSyn:
		args := make([]lf.Type, len(x.Args))
		for i, a := range x.Args {
			args[i] = Substitute(a, sub)
		}
		return lf.TSyn{Syn: x.Syn, Args: args}
	case lf.TStruct:
		fs := make([]lf.Field, len(x.Fields))
		for i, f := range x.Fields {
			fs[i] = lf.Field{Name: f.Name, Type: Substitute(f.Type, sub)}
		}
		return lf.TStruct{Fields: fs}
	case lf.TForall:
		inner := map[string]lf.Type{}
		for k, v := range sub {
			if k != x.Var.Name {
				inner[k] = v
			}
		}
		return lf.TForall{Var: x.Var, Body: Substitute(x.Body, inner)}
	}
	return t
}
