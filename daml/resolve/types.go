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

// Substitute replaces the type variables of t that sub maps. A part of t
// reached twice (types share their interned entries) is substituted once
// past the first few dozen nodes, and the result shares it as t does: a
// type of forty entries that each name the one before twice is not walked
// as its 2^40 leaves.
func Substitute(t lf.Type, sub map[string]lf.Type) lf.Type {
	s := substitution{sub: sub}
	return s.of(t)
}

type substitution struct {
	sub   map[string]lf.Type
	steps int
	memo  map[lf.TypeNode]lf.Type // past memoAfterSteps
}

const memoAfterSteps = 64

func (s *substitution) of(t lf.Type) lf.Type {
	if s.steps++; s.steps <= memoAfterSteps {
		return s.node(t)
	}
	n := lf.NodeOf(t)
	if r, ok := s.memo[n]; ok {
		return r
	}
	r := s.node(t)
	if s.memo == nil {
		s.memo = map[lf.TypeNode]lf.Type{}
	}
	s.memo[n] = r
	return r
}

func (s *substitution) node(t lf.Type) lf.Type {
	switch x := t.(type) {
	case lf.TVar:
		if r, ok := s.sub[x.Name]; ok {
			return r
		}
	case lf.TApp:
		return lf.TApp{Fun: s.of(x.Fun), Arg: s.of(x.Arg)}
	case lf.TSyn:
		args := make([]lf.Type, len(x.Args))
		for i, a := range x.Args {
			args[i] = s.of(a)
		}
		return lf.TSyn{Syn: x.Syn, Args: args}
	case lf.TStruct:
		fs := make([]lf.Field, len(x.Fields))
		for i, f := range x.Fields {
			fs[i] = lf.Field{Name: f.Name, Type: s.of(f.Type)}
		}
		return lf.TStruct{Fields: fs}
	case lf.TForall:
		inner := map[string]lf.Type{}
		for k, v := range s.sub {
			if k != x.Var.Name {
				inner[k] = v
			}
		}
		return lf.TForall{Var: x.Var, Body: Substitute(x.Body, inner)}
	}
	return t
}
