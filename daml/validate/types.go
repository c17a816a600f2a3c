package validate

import (
	"strconv"

	"github.com/ledger-cli/ledger/daml/lf"
)

// Builtin types and their applications.
var (
	tUnit            lf.Type = lf.TBuiltin{Builtin: lf.BuiltinUnit}
	tBool            lf.Type = lf.TBuiltin{Builtin: lf.BuiltinBool}
	tInt64           lf.Type = lf.TBuiltin{Builtin: lf.BuiltinInt64}
	tText            lf.Type = lf.TBuiltin{Builtin: lf.BuiltinText}
	tTimestamp       lf.Type = lf.TBuiltin{Builtin: lf.BuiltinTimestamp}
	tDate            lf.Type = lf.TBuiltin{Builtin: lf.BuiltinDate}
	tParty           lf.Type = lf.TBuiltin{Builtin: lf.BuiltinParty}
	tAny             lf.Type = lf.TBuiltin{Builtin: lf.BuiltinAny}
	tAnyException    lf.Type = lf.TBuiltin{Builtin: lf.BuiltinAnyException}
	tTypeRep         lf.Type = lf.TBuiltin{Builtin: lf.BuiltinTypeRep}
	tRoundingMode    lf.Type = lf.TBuiltin{Builtin: lf.BuiltinRoundingMode}
	tBigNumeric      lf.Type = lf.TBuiltin{Builtin: lf.BuiltinBigNumeric}
	tFailureCategory lf.Type = lf.TBuiltin{Builtin: lf.BuiltinFailureCategory}
	tArrowCon        lf.Type = lf.TBuiltin{Builtin: lf.BuiltinArrow}
	tParties                 = tList(tParty)
)

func app1(b lf.BuiltinType, a lf.Type) lf.Type { return lf.TApp{Fun: lf.TBuiltin{Builtin: b}, Arg: a} }

func tArrow(a, b lf.Type) lf.Type   { return lf.TApp{Fun: lf.TApp{Fun: tArrowCon, Arg: a}, Arg: b} }
func tList(a lf.Type) lf.Type       { return app1(lf.BuiltinList, a) }
func tOptional(a lf.Type) lf.Type   { return app1(lf.BuiltinOptional, a) }
func tUpdate(a lf.Type) lf.Type     { return app1(lf.BuiltinUpdate, a) }
func tContractID(a lf.Type) lf.Type { return app1(lf.BuiltinContractID, a) }
func tTextMap(a lf.Type) lf.Type    { return app1(lf.BuiltinTextMap, a) }
func tNumeric(a lf.Type) lf.Type    { return app1(lf.BuiltinNumeric, a) }
func tGenMap(k, v lf.Type) lf.Type  { return lf.TApp{Fun: app1(lf.BuiltinGenMap, k), Arg: v} }
func tCon(c lf.TypeConName) lf.Type { return lf.TCon{Con: c} }
func arrows(ts ...lf.Type) lf.Type {
	r := ts[len(ts)-1]
	for i := len(ts) - 2; i >= 0; i-- {
		r = tArrow(ts[i], r)
	}
	return r
}

// tuple2 is daml-prim's DA.Types:Tuple2, which fetch_by_key returns.
var tuple2 = lf.TypeConName{
	Package: "5aee9b21b8e9a4c4975b5f4c4198e6e6e8469df49e2010820e792f393db870f4",
	Module:  lf.ModuleName{"DA", "Types"},
	Name:    lf.DottedName{"Tuple2"},
}

// matchBuiltin1 returns a when t is b a.
func matchBuiltin1(t lf.Type, b lf.BuiltinType) (lf.Type, bool) {
	if a, ok := t.(lf.TApp); ok {
		if h, ok := a.Fun.(lf.TBuiltin); ok && h.Builtin == b {
			return a.Arg, true
		}
	}
	return nil, false
}

func matchArrow(t lf.Type) (lf.Type, lf.Type, bool) {
	if a, ok := t.(lf.TApp); ok {
		if f, ok := a.Fun.(lf.TApp); ok {
			if h, ok := f.Fun.(lf.TBuiltin); ok && h.Builtin == lf.BuiltinArrow {
				return f.Arg, a.Arg, true
			}
		}
	}
	return nil, nil, false
}

// Kinds.

var (
	kStar lf.Kind = lf.KStar{}
	kNat  lf.Kind = lf.KNat{}
)

func kindEqual(a, b lf.Kind) bool {
	switch a := a.(type) {
	case lf.KStar:
		_, ok := b.(lf.KStar)
		return ok
	case lf.KNat:
		_, ok := b.(lf.KNat)
		return ok
	case lf.KArrow:
		b, ok := b.(lf.KArrow)
		return ok && kindEqual(a.Param, b.Param) && kindEqual(a.Result, b.Result)
	}
	return false
}

// Kinds of builtin types, made once: a kind in an interface is an
// allocation.
var (
	kNatToStar        lf.Kind = lf.KArrow{Param: kNat, Result: kStar}
	kStarToStar       lf.Kind = lf.KArrow{Param: kStar, Result: kStar}
	kStarToStarToStar lf.Kind = lf.KArrow{Param: kStar, Result: kStarToStar}
)

func kindOfBuiltin(b lf.BuiltinType) lf.Kind {
	switch b {
	case lf.BuiltinNumeric:
		return kNatToStar
	case lf.BuiltinList, lf.BuiltinUpdate, lf.BuiltinContractID, lf.BuiltinOptional, lf.BuiltinTextMap:
		return kStarToStar
	case lf.BuiltinArrow, lf.BuiltinGenMap:
		return kStarToStarToStar
	}
	return kStar
}

// checkKind refuses a Nat kind right of an arrow.
func (t *typer) checkKind(k lf.Kind) {
	for depth := 0; ; depth++ {
		a, ok := k.(lf.KArrow)
		if !ok {
			return
		}
		t.step()
		if _, nat := a.Result.(lf.KNat); nat {
			t.fail("ENatKindRightOfArrow", "invalid kind %s", k)
		}
		t.checkKind(a.Param)
		k = a.Result
	}
}

// tvars is the type variables in scope, innermost first.
type tvars struct {
	name string
	kind lf.Kind
	next *tvars
}

func (v *tvars) with(name string, k lf.Kind) *tvars { return &tvars{name: name, kind: k, next: v} }

func (v *tvars) lookup(name string) (lf.Kind, bool) {
	for ; v != nil; v = v.next {
		if v.name == name {
			return v.kind, true
		}
	}
	return nil, false
}

func kindOfParams(params []lf.TypeVar) lf.Kind {
	k := kStar
	for i := len(params) - 1; i >= 0; i-- {
		k = lf.KArrow{Param: params[i].Kind, Result: k}
	}
	return k
}

// checkType checks that ty has kind want with tv in scope.
func (t *typer) checkType(ty lf.Type, want lf.Kind, tv *tvars) {
	if k := t.kindOf(ty, tv); !kindEqual(k, want) {
		t.fail("EKindMismatch", "kind mismatch:\n * expected kind: %s\n * found Kind: %s", want, k)
	}
}

// kindKey is a type application and the type variables in scope.
type kindKey struct {
	node lf.TypeNode
	tv   *tvars
}

func (t *typer) kindOf(whole lf.Type, tv *tvars) lf.Kind {
	t.enter()
	defer t.leave()
	t.step()
	switch ty := whole.(type) {
	case lf.TVar:
		k, ok := tv.lookup(ty.Name)
		if !ok {
			t.fail("EUnknownTypeVar", "unknown type variable: %s", ty.Name)
		}
		return k
	case lf.TNat:
		return kNat
	case lf.TCon:
		d := t.dataType(ty.Con)
		if len(d.Params) == 0 {
			return kStar
		}
		k, ok := t.dataKinds[d]
		if !ok {
			k = kindOfParams(d.Params)
			t.dataKinds[d] = k
		}
		return k
	case lf.TBuiltin:
		return kindOfBuiltin(ty.Builtin)
	case lf.TApp:
		// Decoded types share their interned parts: an application is
		// kind-checked once per node and scope, so a type that doubles
		// forty times costs its nodes, not its 2^40 leaves.
		// Only an application whose argument is itself an application can
		// stand for a large tree; the others are cheaper walked than looked up.
		_, big := ty.Arg.(lf.TApp)
		key := kindKey{lf.NodeOf(whole), tv} // the interface as decoded, not the copy ty
		if big {
			if k, ok := t.kinds[key]; ok {
				return k
			}
		}
		fk, ok := t.kindOf(ty.Fun, tv).(lf.KArrow)
		if !ok {
			t.fail("EExpectedHigherKind", "expected higher kinded type, but found: %s", kStar)
		}
		t.checkType(ty.Arg, fk.Param, tv)
		if big {
			if t.kinds == nil {
				t.kinds = map[kindKey]lf.Kind{}
			}
			t.kinds[key] = fk.Result
		}
		return fk.Result
	case lf.TSyn:
		def := t.checkedSynonym(ty.Syn)
		if len(def.Params) != len(ty.Args) {
			t.fail("ETypeSynAppWrongArity", "wrong arity in type synonym application: %s", t.show(ty))
		}
		for i, a := range ty.Args {
			t.checkType(a, def.Params[i].Kind, tv)
		}
		return kStar
	case lf.TForall:
		t.checkKind(ty.Var.Kind)
		t.checkType(ty.Body, kStar, tv.with(ty.Var.Name, ty.Var.Kind))
		return kStar
	case lf.TStruct:
		t.checkFields(ty.Fields, tv)
		return kStar
	}
	t.fail("EInternal", "unknown type %T", whole)
	return nil
}

func (t *typer) checkFields(fields []lf.Field, tv *tvars) {
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if seen[f.Name] {
			t.fail("EDuplicateField", "duplicate field: %s", f.Name)
		}
		seen[f.Name] = true
	}
	for _, f := range fields {
		t.checkType(f.Type, kStar, tv)
	}
}

// synState is what the checker knows of a synonym definition.
type synState struct {
	def      *lf.TypeSyn
	checking bool
	expanded lf.Type // the body with every synonym expanded, once computed
}

// checkedSynonym returns a synonym's definition once its parameters and
// body are kind-checked (once per checker): an application then only needs
// its arguments checked. A synonym met again while its own body is being
// checked is a cycle.
func (t *typer) checkedSynonym(ref lf.TypeSynName) *lf.TypeSyn {
	k := defKey{ref.Package, joinName(ref.Module), joinName(ref.Name)}
	if ref.Package == t.pkg.ID {
		t.noteModuleRef(k.mod)
	}
	if s, ok := t.syns[k]; ok {
		if s.checking {
			t.fail("ETypeSynCycle", "cycle in type synonym definitions %s", ref)
		}
		return s.def
	}
	def := t.synonym(ref)
	s := &synState{def: def, checking: true}
	t.syns[k] = s
	r, l := t.at("type synonym " + ref.String())
	mod := t.curMod
	if ref.Package == t.pkg.ID {
		t.curMod = k.mod
	}
	var tv *tvars
	seen := map[string]bool{}
	for _, p := range def.Params {
		t.checkKind(p.Kind)
		if seen[p.Name] {
			t.fail("EDuplicateTypeParam", "duplicate type parameter: %s", p.Name)
		}
		seen[p.Name] = true
		tv = tv.with(p.Name, p.Kind)
	}
	t.checkType(def.Type, kStar, tv)
	t.restore(r, l)
	t.curMod = mod
	s.checking = false
	return def
}

// Substitution.

type subst struct {
	vars []string
	vals []lf.Type
}

func (s subst) get(name string) (lf.Type, bool) {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i] == name {
			return s.vals[i], true
		}
	}
	return nil, false
}

// substitute replaces the free variables of ty by s, renaming a binder
// that would capture a variable of a replacement.
func (t *typer) substitute(ty lf.Type, s subst) lf.Type {
	if len(s.vars) == 0 {
		return ty
	}
	r, _ := t.subst(ty, s)
	return r
}

// mapFields applies f to the fields' types and returns the new fields,
// copied only when f changed one (changed says so).
func mapFields(fields []lf.Field, f func(lf.Type) (lf.Type, bool)) (out []lf.Field, changed bool) {
	for i, fd := range fields {
		n, c := f(fd.Type)
		if c && out == nil {
			out = append(make([]lf.Field, 0, len(fields)), fields[:i]...)
		}
		if out != nil {
			out = append(out, lf.Field{Name: fd.Name, Type: n})
		}
	}
	return out, out != nil
}

func (t *typer) subst(ty lf.Type, s subst) (lf.Type, bool) {
	t.enter()
	defer t.leave()
	t.step()
	switch ty := ty.(type) {
	case lf.TVar:
		if v, ok := s.get(ty.Name); ok {
			return v, true
		}
	case lf.TApp:
		f, cf := t.subst(ty.Fun, s)
		a, ca := t.subst(ty.Arg, s)
		if cf || ca {
			t.built()
			return lf.TApp{Fun: f, Arg: a}, true
		}
	case lf.TSyn:
		var args []lf.Type
		for i, a := range ty.Args {
			n, c := t.subst(a, s)
			if c && args == nil {
				args = append(make([]lf.Type, 0, len(ty.Args)), ty.Args[:i]...)
			}
			if args != nil {
				args = append(args, n)
			}
		}
		if args != nil {
			t.built()
			return lf.TSyn{Syn: ty.Syn, Args: args}, true
		}
	case lf.TStruct:
		if fs, changed := mapFields(ty.Fields, func(ft lf.Type) (lf.Type, bool) { return t.subst(ft, s) }); changed {
			t.built()
			return lf.TStruct{Fields: fs}, true
		}
	case lf.TForall:
		v := ty.Var
		inner := s
		if _, shadowed := s.get(v.Name); shadowed {
			inner = subst{vars: append([]string{}, s.vars...), vals: append([]lf.Type{}, s.vals...)}
			inner.vars = append(inner.vars, v.Name)
			inner.vals = append(inner.vals, lf.TVar{Name: v.Name})
		}
		if t.capturedBy(v.Name, inner) {
			fresh := t.fresh(v.Name, inner)
			inner = subst{vars: append(append([]string{}, inner.vars...), v.Name), vals: append(append([]lf.Type{}, inner.vals...), lf.TVar{Name: fresh})}
			v = lf.TypeVar{Name: fresh, Kind: v.Kind}
		}
		b, c := t.subst(ty.Body, inner)
		if c || v.Name != ty.Var.Name {
			t.built()
			return lf.TForall{Var: v, Body: b}, true
		}
	}
	return ty, false
}

// capturedBy reports whether name occurs free in a replacement of s.
func (t *typer) capturedBy(name string, s subst) bool {
	for i, v := range s.vals {
		if tv, ok := v.(lf.TVar); ok && tv.Name == s.vars[i] {
			continue
		}
		if t.freeIn(name, v) {
			return true
		}
	}
	return false
}

func (t *typer) freeIn(name string, ty lf.Type) bool {
	t.enter()
	defer t.leave()
	t.step()
	switch ty := ty.(type) {
	case lf.TVar:
		return ty.Name == name
	case lf.TApp:
		return t.freeIn(name, ty.Fun) || t.freeIn(name, ty.Arg)
	case lf.TSyn:
		for _, a := range ty.Args {
			if t.freeIn(name, a) {
				return true
			}
		}
	case lf.TStruct:
		for _, f := range ty.Fields {
			if t.freeIn(name, f.Type) {
				return true
			}
		}
	case lf.TForall:
		return ty.Var.Name != name && t.freeIn(name, ty.Body)
	}
	return false
}

func (t *typer) fresh(base string, s subst) string {
	for i := 1; ; i++ {
		n := base + "$" + strconv.Itoa(i)
		if !t.capturedBy(n, s) {
			return n
		}
	}
}

// Synonym expansion.

// expand returns ty with every synonym replaced by its definition.
func (t *typer) expand(ty lf.Type) lf.Type {
	r, _ := t.expandN(ty, 0)
	return r
}

func (t *typer) expandN(ty lf.Type, depth int) (lf.Type, bool) {
	t.enter()
	defer t.leave()
	t.step()
	switch ty := ty.(type) {
	case lf.TSyn:
		if depth > maxSynDepth {
			t.fail("ETypeSynCycle", "type synonyms nest more than %d deep", maxSynDepth)
		}
		def := t.checkedSynonym(ty.Syn)
		if len(def.Params) != len(ty.Args) {
			t.fail("ETypeSynAppWrongArity", "wrong arity in type synonym application: %s", t.show(ty))
		}
		body := t.expandedBody(ty.Syn, def, depth)
		s := subst{vars: make([]string, len(def.Params)), vals: make([]lf.Type, len(def.Params))}
		for i, p := range def.Params {
			s.vars[i] = p.Name
			s.vals[i], _ = t.expandN(ty.Args[i], depth)
		}
		return t.substitute(body, s), true
	case lf.TApp:
		f, cf := t.expandN(ty.Fun, depth)
		a, ca := t.expandN(ty.Arg, depth)
		if cf || ca {
			t.built()
			return lf.TApp{Fun: f, Arg: a}, true
		}
	case lf.TStruct:
		if fs, changed := mapFields(ty.Fields, func(ft lf.Type) (lf.Type, bool) { return t.expandN(ft, depth) }); changed {
			t.built()
			return lf.TStruct{Fields: fs}, true
		}
	case lf.TForall:
		b, c := t.expandN(ty.Body, depth)
		if c {
			t.built()
			return lf.TForall{Var: ty.Var, Body: b}, true
		}
	}
	return ty, false
}

// expandedBody is a synonym's body with its own synonyms expanded, kept per
// checker.
func (t *typer) expandedBody(ref lf.TypeSynName, def *lf.TypeSyn, depth int) lf.Type {
	s := t.syns[defKey{ref.Package, joinName(ref.Module), joinName(ref.Name)}]
	if s.expanded == nil {
		s.expanded, _ = t.expandN(def.Type, depth+1)
	}
	return s.expanded
}

// Equality up to renaming of bound variables.

// binders is the variables bound by the foralls around a type, innermost
// first.
type binders struct {
	name string
	next *binders
}

func (b *binders) index(name string) int {
	for i := 0; b != nil; i, b = i+1, b.next {
		if b.name == name {
			return i
		}
	}
	return -1
}

// typeEqual is Canton's alphaEquiv: equal as written, or once every
// synonym is expanded.
func (t *typer) typeEqual(a, b lf.Type) bool {
	if t.alphaEq(a, b, nil, nil) {
		return true
	}
	if !lf.HasSynonym(a) && !lf.HasSynonym(b) {
		return false
	}
	return t.alphaEq(t.expand(a), t.expand(b), nil, nil)
}

func (t *typer) alphaEq(a, b lf.Type, ea, eb *binders) bool {
	t.enter()
	defer t.leave()
	t.step()
	if ea == nil && eb == nil && lf.NodeOf(a) == lf.NodeOf(b) {
		// The same decoded type, with no binders to tell its variables
		// apart: equal, without walking a shared type as a tree.
		return true
	}
	switch x := a.(type) {
	case lf.TVar:
		y, ok := b.(lf.TVar)
		if !ok {
			return false
		}
		i, j := ea.index(x.Name), eb.index(y.Name)
		return i == j && (i >= 0 || x.Name == y.Name)
	case lf.TCon:
		y, ok := b.(lf.TCon)
		return ok && x.Con.Equal(y.Con)
	case lf.TBuiltin:
		y, ok := b.(lf.TBuiltin)
		return ok && x.Builtin == y.Builtin
	case lf.TNat:
		y, ok := b.(lf.TNat)
		return ok && x.N == y.N
	case lf.TApp:
		y, ok := b.(lf.TApp)
		return ok && t.alphaEq(x.Fun, y.Fun, ea, eb) && t.alphaEq(x.Arg, y.Arg, ea, eb)
	case lf.TSyn:
		y, ok := b.(lf.TSyn)
		if !ok || !x.Syn.Equal(y.Syn) || len(x.Args) != len(y.Args) {
			return false
		}
		for i := range x.Args {
			if !t.alphaEq(x.Args[i], y.Args[i], ea, eb) {
				return false
			}
		}
		return true
	case lf.TStruct:
		// Canton's structs are sorted by field name: the order of the
		// fields does not matter.
		y, ok := b.(lf.TStruct)
		if !ok || len(x.Fields) != len(y.Fields) {
			return false
		}
		for i, f := range x.Fields {
			g := y.Fields[i]
			if g.Name != f.Name {
				found := false
				for _, h := range y.Fields {
					if h.Name == f.Name {
						g, found = h, true
						break
					}
				}
				if !found {
					return false
				}
			}
			if !t.alphaEq(f.Type, g.Type, ea, eb) {
				return false
			}
		}
		return true
	case lf.TForall:
		y, ok := b.(lf.TForall)
		return ok && kindEqual(x.Var.Kind, y.Var.Kind) &&
			t.alphaEq(x.Body, y.Body, &binders{x.Var.Name, ea}, &binders{y.Var.Name, eb})
	}
	return false
}

// show renders a type for an error message, bounded: a hostile type may be
// exponentially large once printed.
func (t *typer) show(ty lf.Type) string {
	n := 0
	var count func(lf.Type) bool
	count = func(ty lf.Type) bool {
		n++
		if n > 200 {
			return false
		}
		switch ty := ty.(type) {
		case lf.TApp:
			return count(ty.Fun) && count(ty.Arg)
		case lf.TSyn:
			for _, a := range ty.Args {
				if !count(a) {
					return false
				}
			}
		case lf.TStruct:
			for _, f := range ty.Fields {
				if !count(f.Type) {
					return false
				}
			}
		case lf.TForall:
			return count(ty.Body)
		}
		return true
	}
	if !count(ty) {
		return "(a type of more than 200 nodes)"
	}
	return ty.String()
}
