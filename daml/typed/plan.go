package typed

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// Kind is the sort of a serializable type a Plan encodes.
type Kind uint8

// The kinds of Plan, one per serializable Daml-LF type.
const (
	KindUnit Kind = iota + 1
	KindBool
	KindInt64
	KindNumeric
	KindText
	KindParty
	KindContractID
	KindTimestamp
	KindDate
	KindOptional
	KindList
	KindTextMap
	KindGenMap
	KindRecord
	KindVariant
	KindEnum
)

// Plan is the compiled codec of one closed serializable type: everything
// the JSON and protobuf codecs need, resolved once (synonyms expanded, type
// parameters instantiated, data types looked up, field and constructor
// indexes built). Plans of recursive types point at themselves.
type Plan struct {
	Kind Kind
	// Type is the type the plan was compiled from, for messages.
	Type lf.Type
	// Scale is the scale of a Numeric.
	Scale int
	// Elem is the element of an Optional, List or TextMap and the value of
	// a GenMap; Key is the key of a GenMap.
	Elem, Key *Plan
	// Nested is set on an Optional whose element is written Optional in
	// the type: Canton's JSON writes such values as arrays ([] for None,
	// [x] for Some x) down to the first element that is not written
	// Optional. An element that is a type variable bound to an Optional
	// does not count, as in Canton's codec.
	Nested bool
	// ID is the type constructor of a Record, Variant or Enum.
	ID *value.Identifier
	// Fields are a Record's fields or a Variant's constructors, in the
	// data type's order; Cons are an Enum's constructors.
	Fields []FieldPlan
	Cons   []string

	index map[string]int // field, variant or enum constructor → position
	enums []value.Value  // an Enum's values, shared by every decoded value
	ready bool           // fields compiled (false while a recursive type compiles)
}

// FieldPlan is a record field or a variant constructor and its plan.
type FieldPlan struct {
	Name string
	Plan *Plan
}

// Index returns the position of a record field, variant constructor or
// enum constructor.
func (p *Plan) Index(name string) (int, bool) {
	i, ok := p.index[name]
	return i, ok
}

// optional reports whether a record field of this plan may be omitted.
func (p *Plan) optional() bool { return p.Kind == KindOptional }

var scalarPlans = map[lf.BuiltinType]*Plan{
	lf.BuiltinUnit:      {Kind: KindUnit, Type: lf.TBuiltin{Builtin: lf.BuiltinUnit}, ready: true},
	lf.BuiltinBool:      {Kind: KindBool, Type: lf.TBuiltin{Builtin: lf.BuiltinBool}, ready: true},
	lf.BuiltinInt64:     {Kind: KindInt64, Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}, ready: true},
	lf.BuiltinText:      {Kind: KindText, Type: lf.TBuiltin{Builtin: lf.BuiltinText}, ready: true},
	lf.BuiltinParty:     {Kind: KindParty, Type: lf.TBuiltin{Builtin: lf.BuiltinParty}, ready: true},
	lf.BuiltinTimestamp: {Kind: KindTimestamp, Type: lf.TBuiltin{Builtin: lf.BuiltinTimestamp}, ready: true},
	lf.BuiltinDate:      {Kind: KindDate, Type: lf.TBuiltin{Builtin: lf.BuiltinDate}, ready: true},
}

// compiler compiles types into plans under Env.mu.
type compiler struct {
	env   *Env
	added []int // data-type keys added to env.cons by this compilation
	depth int
	// memo holds the plan of each type node compiled so far in its scope, and ids
	// the id of each node numbered so far: a type whose nodes share parts
	// compiles in the time of its nodes.
	memo   map[memoKey]*Plan
	ids    map[lf.TypeNode]int
	substs map[unsafe.Pointer]*lf.Substitution // per scope
}

// maxTypeDepth bounds the nesting of a type being compiled, so that a
// malformed package (a synonym that expands into itself) fails instead of
// recursing without end.
const maxTypeDepth = 1000

// compile compiles t, whose type variables are bound by vars to closed types.
func (c *compiler) compile(t lf.Type, vars map[string]lf.Type) (*Plan, error) {
	key := memoKey{lf.NodeOf(t), scopeOf(vars)}
	if p, ok := c.memo[key]; ok {
		return p, nil
	}
	p, err := c.compileNode(t, vars)
	if err != nil {
		return nil, err
	}
	if c.memo == nil {
		c.memo = map[memoKey]*Plan{}
	}
	c.memo[key] = p
	return p, nil
}

// memoKey is a type node in the scope of one binding of its variables.
type memoKey struct {
	node  lf.TypeNode
	scope unsafe.Pointer // the vars map, nil for none
}

// scopeOf identifies a binding of type variables. Each data type or
// synonym compiled makes its own map and never changes it; the memo's key
// keeps the map alive, so its address is not reused while it is a key.
func scopeOf(vars map[string]lf.Type) unsafe.Pointer {
	if len(vars) == 0 {
		return nil
	}
	return reflect.ValueOf(vars).UnsafePointer()
}

// subst is subst memoised per scope for this compilation.
func (c *compiler) subst(t lf.Type, vars map[string]lf.Type) lf.Type {
	if len(vars) == 0 {
		return t
	}
	scope := scopeOf(vars)
	s := c.substs[scope]
	if s == nil {
		if c.substs == nil {
			c.substs = map[unsafe.Pointer]*lf.Substitution{}
		}
		s = lf.NewSubstitution(vars)
		c.substs[scope] = s
	}
	return s.Apply(t)
}

func (c *compiler) compileNode(t lf.Type, vars map[string]lf.Type) (*Plan, error) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxTypeDepth {
		return nil, fmt.Errorf("type nests deeper than %d", maxTypeDepth)
	}
	switch tt := t.(type) {
	case lf.TVar:
		bound, ok := vars[tt.Name]
		if !ok {
			return nil, fmt.Errorf("type variable %s is not bound", tt.Name)
		}
		return c.compile(bound, nil)
	case lf.TSyn:
		return c.synonym(tt, vars)
	case lf.TCon:
		return c.dataType(tt.Con, nil, vars)
	case lf.TBuiltin, lf.TApp:
		head, args := lf.SplitApp(t)
		switch h := head.(type) {
		case lf.TCon:
			return c.dataType(h.Con, args, vars)
		case lf.TBuiltin:
			return c.builtin(t, h.Builtin, args, vars)
		case lf.TVar:
			return nil, fmt.Errorf("type %s applies a type variable, which Daml does not serialize", t)
		}
	}
	return nil, fmt.Errorf("type %s is not serializable", t)
}

func (c *compiler) builtin(t lf.Type, b lf.BuiltinType, args []lf.Type, vars map[string]lf.Type) (*Plan, error) {
	arity := map[lf.BuiltinType]int{lf.BuiltinNumeric: 1, lf.BuiltinContractID: 1,
		lf.BuiltinOptional: 1, lf.BuiltinList: 1, lf.BuiltinTextMap: 1, lf.BuiltinGenMap: 2}
	if p, ok := scalarPlans[b]; ok {
		if len(args) != 0 {
			return nil, fmt.Errorf("type %s applies %s to arguments", t, b)
		}
		return p, nil
	}
	n, ok := arity[b]
	if !ok {
		return nil, fmt.Errorf("type %s is not serializable", t)
	}
	if len(args) != n {
		return nil, fmt.Errorf("type %s applies %s to %d arguments, not %d", t, b, len(args), n)
	}
	closed := c.subst(t, vars)
	switch b {
	case lf.BuiltinNumeric:
		nat, ok := c.subst(args[0], vars).(lf.TNat)
		if !ok || nat.N < 0 || nat.N > value.MaxNumericScale {
			return nil, fmt.Errorf("type %s has no scale 0 to %d", t, value.MaxNumericScale)
		}
		return &Plan{Kind: KindNumeric, Type: closed, Scale: nat.N, ready: true}, nil
	case lf.BuiltinContractID:
		// The template of a contract id does not change its encoding.
		return &Plan{Kind: KindContractID, Type: closed, ready: true}, nil
	case lf.BuiltinOptional:
		elem, err := c.compile(args[0], vars)
		if err != nil {
			return nil, err
		}
		return &Plan{Kind: KindOptional, Type: closed, Elem: elem, Nested: isOptionalType(args[0]), ready: true}, nil
	case lf.BuiltinList, lf.BuiltinTextMap:
		elem, err := c.compile(args[0], vars)
		if err != nil {
			return nil, err
		}
		k := KindList
		if b == lf.BuiltinTextMap {
			k = KindTextMap
		}
		return &Plan{Kind: k, Type: closed, Elem: elem, ready: true}, nil
	}
	key, err := c.compile(args[0], vars)
	if err != nil {
		return nil, err
	}
	elem, err := c.compile(args[1], vars)
	if err != nil {
		return nil, err
	}
	return &Plan{Kind: KindGenMap, Type: closed, Key: key, Elem: elem, ready: true}, nil
}

// isOptionalType reports whether t is written Optional x.
func isOptionalType(t lf.Type) bool {
	head, args := lf.SplitApp(t)
	b, ok := head.(lf.TBuiltin)
	return ok && b.Builtin == lf.BuiltinOptional && len(args) == 1
}

func (c *compiler) synonym(t lf.TSyn, vars map[string]lf.Type) (*Plan, error) {
	m := c.env.module(t.Syn.Package, t.Syn.Module)
	if m == nil {
		return nil, fmt.Errorf("type synonym %s: package or module not found", t.Syn)
	}
	s := m.Synonym(t.Syn.Name.String())
	if s == nil {
		return nil, fmt.Errorf("type synonym %s not found", t.Syn)
	}
	if len(s.Params) != len(t.Args) {
		return nil, fmt.Errorf("type synonym %s takes %d arguments, not %d", t.Syn, len(s.Params), len(t.Args))
	}
	inner := make(map[string]lf.Type, len(s.Params))
	for i, p := range s.Params {
		inner[p.Name] = c.subst(t.Args[i], vars)
	}
	return c.compile(s.Type, inner)
}

// dataType compiles a data type applied to args (written in the scope of
// vars). The plan is registered before its fields compile, so that a
// recursive type refers to itself.
func (c *compiler) dataType(n lf.TypeConName, args []lf.Type, vars map[string]lf.Type) (*Plan, error) {
	closedArgs := make([]lf.Type, len(args))
	for i, a := range args {
		closedArgs[i] = c.subst(a, vars)
	}
	closed := lf.App(lf.TCon{Con: n}, closedArgs...)
	if c.ids == nil {
		c.ids = map[lf.TypeNode]int{}
	}
	key := c.env.ids.keyIn(closed, c.ids)
	if p, ok := c.env.cons[key]; ok {
		return p, nil
	}
	d := c.env.DataType(n)
	if d == nil {
		if c.env.Package(n.Package) == nil {
			return nil, fmt.Errorf("type %s: package %s is not known", n, n.Package)
		}
		return nil, fmt.Errorf("type %s is not defined in its package", n)
	}
	if len(d.Params) != len(args) {
		return nil, fmt.Errorf("type %s takes %d type arguments, not %d", n, len(d.Params), len(args))
	}
	p := &Plan{Type: closed, ID: value.IdentifierOf(n)}
	switch d.Kind {
	case lf.DataRecord:
		p.Kind = KindRecord
	case lf.DataVariant:
		p.Kind = KindVariant
	case lf.DataEnum:
		p.Kind = KindEnum
	default:
		return nil, fmt.Errorf("type %s is an interface, which is not serializable", n)
	}
	c.env.cons[key] = p
	c.added = append(c.added, key)
	inner := make(map[string]lf.Type, len(d.Params))
	for i, tp := range d.Params {
		inner[tp.Name] = closedArgs[i]
	}
	p.index = make(map[string]int, len(d.Fields)+len(d.EnumCons))
	if p.Kind == KindEnum {
		p.Cons = d.EnumCons
		p.enums = make([]value.Value, len(d.EnumCons))
		for i, con := range d.EnumCons {
			p.index[con] = i
			p.enums[i] = &value.Enum{TypeCon: p.ID, Constructor: con, Rank: i}
		}
		p.ready = true
		return p, nil
	}
	p.Fields = make([]FieldPlan, len(d.Fields))
	for i, f := range d.Fields {
		fp, err := c.compile(f.Type, inner)
		if err != nil {
			return nil, fmt.Errorf("%s of %s: %w", f.Name, n, err)
		}
		p.Fields[i] = FieldPlan{Name: f.Name, Plan: fp}
		p.index[f.Name] = i
	}
	p.ready = true
	return p, nil
}
