package lf

// Substitute replaces the type variables of t that vars maps, keeping the
// rest of its syntax; a forall's own variable shadows vars in its body. A
// part of t reached twice (types share their interned entries) is
// substituted once past the first few dozen nodes, and the result shares it
// as t does: a type of forty entries that each name the one before twice is
// not walked as its 2^40 leaves.
func Substitute(t Type, vars map[string]Type) Type {
	return NewSubstitution(vars).Apply(t)
}

// Substitution is Substitute for several types under the same vars: parts
// they share are substituted once across the calls.
type Substitution struct {
	vars  map[string]Type
	steps int
	memo  map[TypeNode]Type // past memoAfterSteps, as TypeEqual
}

// NewSubstitution returns the substitution of vars.
func NewSubstitution(vars map[string]Type) *Substitution { return &Substitution{vars: vars} }

// Apply substitutes in t.
func (s *Substitution) Apply(t Type) Type {
	if s.steps++; s.steps <= memoAfterSteps {
		return s.node(t)
	}
	n := NodeOf(t)
	if r, ok := s.memo[n]; ok {
		return r
	}
	r := s.node(t)
	if s.memo == nil {
		s.memo = map[TypeNode]Type{}
	}
	s.memo[n] = r
	return r
}

func (s *Substitution) node(t Type) Type {
	switch x := t.(type) {
	case TVar:
		if r, ok := s.vars[x.Name]; ok {
			return r
		}
	case TApp:
		return TApp{Fun: s.Apply(x.Fun), Arg: s.Apply(x.Arg)}
	case TSyn:
		args := make([]Type, len(x.Args))
		for i, a := range x.Args {
			args[i] = s.Apply(a)
		}
		return TSyn{Syn: x.Syn, Args: args}
	case TStruct:
		fs := make([]Field, len(x.Fields))
		for i, f := range x.Fields {
			fs[i] = Field{Name: f.Name, Type: s.Apply(f.Type)}
		}
		return TStruct{Fields: fs}
	case TForall:
		// The body sees other bindings: its memo is its own.
		inner := make(map[string]Type, len(s.vars))
		for k, v := range s.vars {
			if k != x.Var.Name {
				inner[k] = v
			}
		}
		return TForall{Var: x.Var, Body: Substitute(x.Body, inner)}
	}
	return t
}
