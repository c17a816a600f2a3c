package lf

// TypeEqual reports whether a and b are the same type, structurally: type
// synonyms are not expanded and bound variables must have the same names.
//
// It walks shared types by node: a node is equal to itself, and past a few
// dozen comparisons each pair of nodes is compared once, so two types of
// forty interned entries that each name the one before twice (2^40 leaves
// written out) compare in the time of their nodes.
func TypeEqual(a, b Type) bool {
	var e typeEq
	return e.equal(a, b)
}

// typeEq is one TypeEqual: its comparisons so far and, past
// memoAfterSteps of them, the answers by pair of nodes.
type typeEq struct {
	steps int
	memo  map[[2]TypeNode]bool
}

// memoAfterSteps: small types, most of those compared, need no memo.
const memoAfterSteps = 64

func (e *typeEq) equal(a, b Type) bool {
	na, nb := NodeOf(a), NodeOf(b)
	if na == nb {
		return true
	}
	if e.steps++; e.steps > memoAfterSteps {
		if e.memo == nil {
			e.memo = map[[2]TypeNode]bool{}
		}
		if eq, ok := e.memo[[2]TypeNode{na, nb}]; ok {
			return eq
		}
		eq := e.node(a, b)
		e.memo[[2]TypeNode{na, nb}] = eq
		return eq
	}
	return e.node(a, b)
}

func (e *typeEq) node(a, b Type) bool {
	switch a := a.(type) {
	case TVar:
		b, ok := b.(TVar)
		return ok && a.Name == b.Name
	case TCon:
		b, ok := b.(TCon)
		return ok && a.Con.Equal(b.Con)
	case TBuiltin:
		b, ok := b.(TBuiltin)
		return ok && a.Builtin == b.Builtin
	case TNat:
		b, ok := b.(TNat)
		return ok && a.N == b.N
	case TApp:
		b, ok := b.(TApp)
		return ok && e.equal(a.Fun, b.Fun) && e.equal(a.Arg, b.Arg)
	case TSyn:
		b, ok := b.(TSyn)
		return ok && a.Syn.Equal(b.Syn) && e.all(a.Args, b.Args)
	case TStruct:
		b, ok := b.(TStruct)
		if !ok || len(a.Fields) != len(b.Fields) {
			return false
		}
		for i := range a.Fields {
			if a.Fields[i].Name != b.Fields[i].Name || !e.equal(a.Fields[i].Type, b.Fields[i].Type) {
				return false
			}
		}
		return true
	case TForall:
		b, ok := b.(TForall)
		return ok && a.Var.Name == b.Var.Name && a.Var.Kind.String() == b.Var.Kind.String() &&
			e.equal(a.Body, b.Body)
	}
	return false
}

func (e *typeEq) all(a, b []Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !e.equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// HasSynonym reports whether t mentions a type synonym. Decoded types
// share their interned parts, so a type of a few dozen nodes can stand for
// a tree of 2^40: a type larger than a small walk is visited once per node.
func HasSynonym(t Type) bool {
	budget := 256
	if found, done := hasSynonymWalk(t, &budget); done {
		return found
	}
	return hasSynonymNodes(t, map[TypeNode]bool{})
}

// hasSynonymWalk walks t as a tree while budget lasts; done is false when
// it ran out first.
func hasSynonymWalk(t Type, budget *int) (found, done bool) {
	if *budget--; *budget < 0 {
		return false, false
	}
	switch t := t.(type) {
	case TSyn:
		return true, true
	case TApp:
		if found, done = hasSynonymWalk(t.Fun, budget); found || !done {
			return found, done
		}
		return hasSynonymWalk(t.Arg, budget)
	case TStruct:
		for _, f := range t.Fields {
			if found, done = hasSynonymWalk(f.Type, budget); found || !done {
				return found, done
			}
		}
	case TForall:
		return hasSynonymWalk(t.Body, budget)
	}
	return false, true
}

func hasSynonymNodes(whole Type, seen map[TypeNode]bool) bool {
	switch t := whole.(type) {
	case TSyn:
		return true
	case TApp:
		n := NodeOf(whole)
		if seen[n] {
			return false // already looked at, and had none
		}
		seen[n] = true
		return hasSynonymNodes(t.Fun, seen) || hasSynonymNodes(t.Arg, seen)
	case TStruct:
		for _, f := range t.Fields {
			if hasSynonymNodes(f.Type, seen) {
				return true
			}
		}
	case TForall:
		return hasSynonymNodes(t.Body, seen)
	}
	return false
}

// LiteralType returns the type of e when e, under any locations, is a
// builtin constructor or a literal, whose type needs no context; ok is
// false for every other expression.
func LiteralType(e Expr) (t Type, ok bool) {
	for {
		l, isLoc := e.(*ELocation)
		if !isLoc {
			break
		}
		e = l.Expr
	}
	switch e := e.(type) {
	case *EBuiltinCon:
		if e.Con == ConUnit {
			return TBuiltin{Builtin: BuiltinUnit}, true
		}
		return TBuiltin{Builtin: BuiltinBool}, true
	case *EInt64:
		return TBuiltin{Builtin: BuiltinInt64}, true
	case *ENumeric:
		return TApp{Fun: TBuiltin{Builtin: BuiltinNumeric}, Arg: TNat{N: e.Scale}}, true
	case *EText:
		return TBuiltin{Builtin: BuiltinText}, true
	case *ETimestamp:
		return TBuiltin{Builtin: BuiltinTimestamp}, true
	case *EDate:
		return TBuiltin{Builtin: BuiltinDate}, true
	case *ERoundingMode:
		return TBuiltin{Builtin: BuiltinRoundingMode}, true
	case *EFailureCategory:
		return TBuiltin{Builtin: BuiltinFailureCategory}, true
	}
	return nil, false
}
