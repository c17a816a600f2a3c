package resolve

import (
	"fmt"
	"sort"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// scope is the lexical scope of one function being resolved: its
// parameters and the let- and case-bound variables in scope, each in a
// slot; and the variables it captures from enclosing functions.
type scope struct {
	parent   *scope
	vars     []binding // innermost last
	captures []capture
	maxSlots int
}

type binding struct {
	name string
	slot int
}

type capture struct {
	name string
	from Expr // *Local or *Free in the parent scope
}

// bind adds a variable in the next slot and returns the slot. Slots are
// reused by variables of disjoint scopes: a variable's slot is the number
// of variables in scope when it is bound.
func (s *scope) bind(name string) int {
	slot := len(s.vars)
	s.vars = append(s.vars, binding{name: name, slot: slot})
	if len(s.vars) > s.maxSlots {
		s.maxSlots = len(s.vars)
	}
	return slot
}

// unbind drops the n innermost variables.
func (s *scope) unbind(n int) { s.vars = s.vars[:len(s.vars)-n] }

// lookup finds a variable, capturing it from enclosing functions when it is
// not local.
func (s *scope) lookup(name string) (Expr, bool) {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i].name == name {
			return &Local{Slot: s.vars[i].slot, Name: name}, true
		}
	}
	for i, c := range s.captures {
		if c.name == name {
			return &Free{Index: i, Name: name}, true
		}
	}
	if s.parent == nil {
		return nil, false
	}
	from, ok := s.parent.lookup(name)
	if !ok {
		return nil, false
	}
	s.captures = append(s.captures, capture{name: name, from: from})
	return &Free{Index: len(s.captures) - 1, Name: name}, true
}

// resolver resolves the expressions of one top-level definition.
type resolver struct {
	p   *Packages
	def string
	loc *lf.Location
}

// lambda resolves body as the body of a function of params, with no
// enclosing scope.
func (p *Packages) lambda(def string, loc *lf.Location, params []string, body lf.Expr) (lam *Lambda, err error) {
	r := &resolver{p: p, def: def, loc: loc}
	s := &scope{}
	for _, name := range params {
		s.bind(name)
	}
	e, err := r.expr(s, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", def, err)
	}
	return &Lambda{Arity: len(params), Slots: s.maxSlots, Body: e, Def: def, Location: loc}, nil
}

// closure resolves a nested function of params and returns the expression
// that makes it.
func (r *resolver) closure(s *scope, params []string, body lf.Expr) (Expr, error) {
	inner := &scope{parent: s}
	for _, name := range params {
		inner.bind(name)
	}
	e, err := r.expr(inner, body)
	if err != nil {
		return nil, err
	}
	lam := &Lambda{Arity: len(params), Slots: inner.maxSlots, Body: e, Def: r.def, Location: r.loc}
	caps := make([]Expr, len(inner.captures))
	for i, c := range inner.captures {
		caps[i] = c.from
	}
	return &MakeClosure{Lambda: lam, Captures: caps}, nil
}

// strip removes type abstractions, type applications and locations.
func strip(e lf.Expr) lf.Expr {
	for {
		switch x := e.(type) {
		case *lf.ETyAbs:
			e = x.Body
		case *lf.ETyApp:
			e = x.Expr
		case *lf.ELocation:
			e = x.Expr
		default:
			return e
		}
	}
}

func (r *resolver) exprs(s *scope, es []lf.Expr) ([]Expr, error) {
	out := make([]Expr, len(es))
	for i, e := range es {
		var err error
		if out[i], err = r.expr(s, e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// expr resolves one expression in scope s.
func (r *resolver) expr(s *scope, e lf.Expr) (Expr, error) {
	switch x := e.(type) {
	case *lf.EVar:
		v, ok := s.lookup(x.Name)
		if !ok {
			return nil, fmt.Errorf("unbound variable %s", x.Name)
		}
		return v, nil
	case *lf.EVal:
		d, err := r.p.Value(x.Ref)
		if err != nil {
			return nil, err
		}
		return &TopRef{Def: d}, nil
	case *lf.EBuiltinFun:
		return r.builtin(x.Fun, nil)
	case *lf.EBuiltinCon:
		switch x.Con {
		case lf.ConTrue:
			return &Const{Value: value.Bool(true)}, nil
		case lf.ConFalse:
			return &Const{Value: value.Bool(false)}, nil
		}
		return &Const{Value: value.Unit{}}, nil
	case *lf.EInt64:
		return &Const{Value: value.Int64(x.Value)}, nil
	case *lf.ENumeric:
		n, err := value.ParseNumeric(x.Value)
		if err != nil {
			return nil, err
		}
		if n.Scale() != x.Scale {
			return nil, fmt.Errorf("numeric literal %s does not have scale %d", x.Value, x.Scale)
		}
		return &Const{Value: n}, nil
	case *lf.EText:
		return &Const{Value: value.Text(x.Value)}, nil
	case *lf.ETimestamp:
		return &Const{Value: value.Timestamp(x.Micros)}, nil
	case *lf.EDate:
		return &Const{Value: value.Date(x.Days)}, nil
	case *lf.EFailureCategory:
		// As Speedy does: the category is Canton's error category id.
		id := int64(9)
		if x.Category == lf.InvalidIndependentOfSystemState {
			id = 8
		}
		return &Const{Value: value.Int64(id)}, nil
	case *lf.ERoundingMode:
		return &Unsupported{What: "BigNumeric rounding modes (Daml-LF 2.dev)"}, nil
	case *lf.ERecCon:
		ri, err := r.p.record(x.Type.Con)
		if err != nil {
			return nil, err
		}
		args := make([]Expr, len(ri.labels))
		for _, f := range x.Fields {
			i, ok := ri.index[f.Name]
			if !ok || args[i] != nil {
				return nil, fmt.Errorf("record %s: unknown or repeated field %s", x.Type.Con, f.Name)
			}
			if args[i], err = r.expr(s, f.Expr); err != nil {
				return nil, err
			}
		}
		for i, a := range args {
			if a == nil {
				return nil, fmt.Errorf("record %s: missing field %s", x.Type.Con, ri.labels[i])
			}
		}
		return &Call{Op: &RecCon{TypeCon: ri.id, Labels: ri.labels}, Args: args}, nil
	case *lf.ERecProj:
		ri, err := r.p.record(x.Type.Con)
		if err != nil {
			return nil, err
		}
		i, ok := ri.index[x.Field]
		if !ok {
			return nil, fmt.Errorf("record %s has no field %s", x.Type.Con, x.Field)
		}
		rec, err := r.expr(s, x.Record)
		if err != nil {
			return nil, err
		}
		return &Call{Op: &RecProj{TypeCon: ri.id, Field: x.Field, Index: i}, Args: []Expr{rec}}, nil
	case *lf.ERecUpd:
		ri, err := r.p.record(x.Type.Con)
		if err != nil {
			return nil, err
		}
		i, ok := ri.index[x.Field]
		if !ok {
			return nil, fmt.Errorf("record %s has no field %s", x.Type.Con, x.Field)
		}
		args, err := r.exprs(s, []lf.Expr{x.Record, x.Update})
		if err != nil {
			return nil, err
		}
		return &Call{Op: &RecUpd{TypeCon: ri.id, Field: x.Field, Index: i}, Args: args}, nil
	case *lf.EVariantCon:
		vi, err := r.p.variant(x.Type.Con)
		if err != nil {
			return nil, err
		}
		rank, ok := vi.rank[x.Con]
		if !ok {
			return nil, fmt.Errorf("variant %s has no constructor %s", x.Type.Con, x.Con)
		}
		arg, err := r.expr(s, x.Arg)
		if err != nil {
			return nil, err
		}
		return &Call{Op: &VariantCon{TypeCon: vi.id, Constructor: x.Con, Rank: rank}, Args: []Expr{arg}}, nil
	case *lf.EEnumCon:
		vi, err := r.p.variant(x.Type)
		if err != nil {
			return nil, err
		}
		rank, ok := vi.rank[x.Con]
		if !ok || vi.enum == nil {
			return nil, fmt.Errorf("enum %s has no constructor %s", x.Type, x.Con)
		}
		return &Const{Value: vi.enum[rank]}, nil
	case *lf.EStructCon:
		return r.structCon(s, x)
	case *lf.EStructProj:
		st, err := r.expr(s, x.Struct)
		if err != nil {
			return nil, err
		}
		return &Call{Op: &StructProj{Field: x.Field}, Args: []Expr{st}}, nil
	case *lf.EStructUpd:
		args, err := r.exprs(s, []lf.Expr{x.Struct, x.Update})
		if err != nil {
			return nil, err
		}
		return &Call{Op: &StructUpd{Field: x.Field}, Args: args}, nil
	case *lf.EApp:
		return r.app(s, x)
	case *lf.ETyApp:
		return r.expr(s, x.Expr)
	case *lf.ETyAbs:
		// Types are erased, so the body is evaluated as Speedy does.
		return r.expr(s, x.Body)
	case *lf.EAbs:
		// Nested lambdas merge into one of several parameters, dropping
		// the type abstractions and locations between them.
		params := binderNames(x.Params)
		body := x.Body
		for {
			inner, ok := strip(body).(*lf.EAbs)
			if !ok {
				break
			}
			params = append(params, binderNames(inner.Params)...)
			body = inner.Body
		}
		return r.closure(s, params, body)
	case *lf.ECase:
		return r.caseExpr(s, x)
	case *lf.ELet:
		return r.let(s, x.Bindings, x.Body)
	case *lf.ENil:
		return &Const{Value: (*value.List)(nil)}, nil
	case *lf.ECons:
		args, err := r.exprs(s, append(append([]lf.Expr(nil), x.Front...), x.Tail))
		if err != nil {
			return nil, err
		}
		return &Call{Op: &ConsN{N: len(x.Front)}, Args: args}, nil
	case *lf.ENone:
		return &Const{Value: value.None}, nil
	case *lf.ESome:
		v, err := r.expr(s, x.Value)
		if err != nil {
			return nil, err
		}
		return &Call{Op: &Some{}, Args: []Expr{v}}, nil
	case *lf.EToAny:
		return r.unary(s, &ToAny{Type: x.Type}, x.Expr)
	case *lf.EFromAny:
		return r.unary(s, &FromAny{Type: x.Type}, x.Expr)
	case *lf.ETypeRep:
		return &Const{Value: value.TypeRep{Type: x.Type}}, nil
	case *lf.EToAnyException:
		return r.unary(s, &ToAny{Type: x.Type}, x.Expr)
	case *lf.EFromAnyException:
		return r.unary(s, &FromAny{Type: x.Type}, x.Expr)
	case *lf.EThrow:
		return r.unary(s, &Throw{Type: x.ExceptionType}, x.Exception)
	case *lf.ELocation:
		inner, err := r.expr(s, x.Expr)
		if err != nil {
			return nil, err
		}
		loc := x.Location
		return &Located{Location: &loc, Expr: inner}, nil
	case *lf.EUpdate:
		return r.update(s, x.Update)
	case *lf.EToInterface, *lf.EFromInterface, *lf.EUnsafeFromInterface, *lf.ECallInterface,
		*lf.EToRequiredInterface, *lf.EFromRequiredInterface, *lf.EUnsafeFromRequiredInterface,
		*lf.EInterfaceTemplateTypeRep, *lf.ESignatoryInterface, *lf.EObserverInterface,
		*lf.EViewInterface:
		return &Unsupported{What: "interfaces"}, nil
	case *lf.EChoiceController, *lf.EChoiceObserver:
		return &Unsupported{What: "choice_controller and choice_observer (Daml-LF 2.dev)"}, nil
	case *lf.EExperimental:
		return &Unsupported{What: "experimental primitive " + x.Name}, nil
	case nil:
		return nil, fmt.Errorf("missing expression")
	}
	return nil, fmt.Errorf("unknown expression %T", e)
}

func binderNames(bs []lf.Binder) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Name
	}
	return out
}

func (r *resolver) unary(s *scope, op Op, arg lf.Expr) (Expr, error) {
	a, err := r.expr(s, arg)
	if err != nil {
		return nil, err
	}
	return &Call{Op: op, Args: []Expr{a}}, nil
}

// app flattens a chain of applications (through type applications and
// locations in function position) and saturates builtins.
func (r *resolver) app(s *scope, x *lf.EApp) (Expr, error) {
	var argExprs []lf.Expr
	var fun lf.Expr = x
	for {
		fun = strip(fun)
		a, ok := fun.(*lf.EApp)
		if !ok {
			break
		}
		argExprs = append(append([]lf.Expr(nil), a.Args...), argExprs...)
		fun = a.Fun
	}
	args, err := r.exprs(s, argExprs)
	if err != nil {
		return nil, err
	}
	if b, ok := fun.(*lf.EBuiltinFun); ok {
		return r.builtin(b.Fun, args)
	}
	f, err := r.expr(s, fun)
	if err != nil {
		return nil, err
	}
	return &App{Fun: f, Args: args}, nil
}

// builtin applies builtin f to args: a saturated call when there are
// exactly enough, a partial or over-application otherwise.
func (r *resolver) builtin(f lf.BuiltinFunction, args []Expr) (Expr, error) {
	switch f {
	case lf.BuiltinTextMapEmpty:
		return r.applyTo(&Const{Value: (*value.TextMap)(nil)}, args), nil
	case lf.BuiltinGenMapEmpty:
		return r.applyTo(&Const{Value: (*value.GenMap)(nil)}, args), nil
	case lf.BuiltinCoerceContractID:
		if len(args) >= 1 {
			return r.applyTo(args[0], args[1:]), nil
		}
	}
	op := &Builtin{Fn: f}
	n := op.Arity()
	switch {
	case len(args) == n:
		return &Call{Op: op, Args: args}, nil
	case len(args) > n:
		return &App{Fun: &Call{Op: op, Args: args[:n]}, Args: args[n:]}, nil
	}
	return r.applyTo(&OpRef{Op: op}, args), nil
}

func (r *resolver) applyTo(f Expr, args []Expr) Expr {
	if len(args) == 0 {
		return f
	}
	return &App{Fun: f, Args: args}
}

func (r *resolver) structCon(s *scope, x *lf.EStructCon) (Expr, error) {
	n := len(x.Fields)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return x.Fields[order[i]].Name < x.Fields[order[j]].Name })
	labels := make([]string, n)
	for i, o := range order {
		labels[i] = x.Fields[o].Name
		if i > 0 && labels[i] == labels[i-1] {
			return nil, fmt.Errorf("struct field %s given twice", labels[i])
		}
	}
	args := make([]Expr, n)
	for i, f := range x.Fields {
		var err error
		if args[i], err = r.expr(s, f.Expr); err != nil {
			return nil, err
		}
	}
	return &Call{Op: &StructCon{Labels: labels, Order: order}, Args: args}, nil
}

func (r *resolver) let(s *scope, bs []lf.Binding, body lf.Expr) (Expr, error) {
	if len(bs) == 0 {
		return r.expr(s, body)
	}
	bound, err := r.expr(s, bs[0].Bound)
	if err != nil {
		return nil, err
	}
	slot := s.bind(bs[0].Binder.Name)
	rest, err := r.let(s, bs[1:], body)
	s.unbind(1)
	if err != nil {
		return nil, err
	}
	return &Let{Slot: slot, Bound: bound, Body: rest}, nil
}

func (r *resolver) caseExpr(s *scope, x *lf.ECase) (Expr, error) {
	scrut, err := r.expr(s, x.Scrut)
	if err != nil {
		return nil, err
	}
	alts := make([]Alt, len(x.Alts))
	for i, a := range x.Alts {
		alt := Alt{Slot: -1, Slot2: -1}
		bound := 0
		switch p := a.Pattern.(type) {
		case lf.PVariant:
			vi, err := r.p.variant(p.Type)
			if err != nil {
				return nil, err
			}
			rank, ok := vi.rank[p.Con]
			if !ok {
				return nil, fmt.Errorf("variant %s has no constructor %s", p.Type, p.Con)
			}
			alt.Kind, alt.Rank, alt.Con = PatVariant, rank, p.Con
			alt.Slot = s.bind(p.Binder)
			bound = 1
		case lf.PEnum:
			vi, err := r.p.variant(p.Type)
			if err != nil {
				return nil, err
			}
			rank, ok := vi.rank[p.Con]
			if !ok {
				return nil, fmt.Errorf("enum %s has no constructor %s", p.Type, p.Con)
			}
			alt.Kind, alt.Rank, alt.Con = PatEnum, rank, p.Con
		case lf.PBuiltinCon:
			switch p.Con {
			case lf.ConTrue:
				alt.Kind = PatTrue
			case lf.ConFalse:
				alt.Kind = PatFalse
			default:
				alt.Kind = PatUnit
			}
		case lf.PNil:
			alt.Kind = PatNil
		case lf.PCons:
			alt.Kind = PatCons
			alt.Slot = s.bind(p.Head)
			alt.Slot2 = s.bind(p.Tail)
			bound = 2
		case lf.PNone:
			alt.Kind = PatNone
		case lf.PSome:
			alt.Kind = PatSome
			alt.Slot = s.bind(p.Binder)
			bound = 1
		case lf.PDefault:
			alt.Kind = PatDefault
		default:
			return nil, fmt.Errorf("unknown pattern %T", a.Pattern)
		}
		body, err := r.expr(s, a.Body)
		s.unbind(bound)
		if err != nil {
			return nil, err
		}
		alt.Body = body
		alts[i] = alt
	}
	return &Case{Scrut: scrut, Alts: alts}, nil
}
