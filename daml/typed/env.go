package typed

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// Env is a set of packages: the types a value may name. It is immutable and
// safe for concurrent use; a node makes a new Env when its packages change,
// and each Env compiles a type's Plan once.
type Env struct {
	pkgs map[lf.PackageID]*lf.Package

	ids   typeIDs
	mu    sync.Mutex
	cons  map[int]*Plan // compiled data types, by closed type id
	plans sync.Map      // int (closed type id) → *Plan
}

// NewEnv returns the environment of pkgs. A package id given twice keeps the
// last.
func NewEnv(pkgs ...*lf.Package) *Env {
	e := &Env{pkgs: make(map[lf.PackageID]*lf.Package, len(pkgs)), cons: map[int]*Plan{}, ids: typeIDs{byShape: map[string]int{}}}
	for _, p := range pkgs {
		e.pkgs[p.ID] = p
	}
	return e
}

// Package returns the package with id, or nil.
func (e *Env) Package(id lf.PackageID) *lf.Package {
	if e == nil {
		return nil
	}
	return e.pkgs[id]
}

// Packages returns every package of the environment, in no order.
func (e *Env) Packages() []*lf.Package {
	out := make([]*lf.Package, 0, len(e.pkgs))
	for _, p := range e.pkgs {
		out = append(out, p)
	}
	return out
}

// ParseTypeConName reads "pkg:Module.Name:Entity.Name".
func ParseTypeConName(s string) (lf.TypeConName, error) {
	last := strings.LastIndexByte(s, ':')
	if last < 0 {
		return lf.TypeConName{}, fmt.Errorf("%q is not an identifier <package-id>:<Module>:<Entity>", s)
	}
	mid := strings.LastIndexByte(s[:last], ':')
	if mid <= 0 || last == mid+1 || last == len(s)-1 {
		return lf.TypeConName{}, fmt.Errorf("%q is not an identifier <package-id>:<Module>:<Entity>", s)
	}
	return lf.TypeConName{
		Package: lf.PackageID(s[:mid]),
		Module:  lf.DottedName(strings.Split(s[mid+1:last], ".")),
		Name:    lf.DottedName(strings.Split(s[last+1:], ".")),
	}, nil
}

func (e *Env) module(pkg lf.PackageID, mod lf.DottedName) *lf.Module {
	p := e.Package(pkg)
	if p == nil {
		return nil
	}
	return p.Module(mod.String())
}

// DataType returns the data type named n, or nil.
func (e *Env) DataType(n lf.TypeConName) *lf.DataType {
	m := e.module(n.Package, n.Module)
	if m == nil {
		return nil
	}
	return m.DataType(n.Name.String())
}

// Template returns the signature of the template n.
func (e *Env) Template(n lf.TypeConName) (lf.TemplateSignature, bool) {
	p := e.Package(n.Package)
	if p == nil {
		return lf.TemplateSignature{}, false
	}
	return p.Template(n.Module.String(), n.Name.String())
}

// Interface returns the interface n, or nil.
func (e *Env) Interface(n lf.TypeConName) *lf.Interface {
	m := e.module(n.Package, n.Module)
	if m == nil {
		return nil
	}
	return m.Interface(n.Name.String())
}

// Choice finds the choice of a template or an interface: the template's
// own choices (as Canton's JSON codec lists them, without those it inherits
// from interfaces), else the interface's. ok is false when n names neither
// or has no such choice.
func (e *Env) Choice(n lf.TypeConName, choice string) (c lf.ChoiceSignature, ok bool) {
	if t, found := e.Template(n); found {
		return t.Choice(choice)
	}
	if i := e.Interface(n); i != nil {
		if ch := i.Choice(choice); ch != nil {
			return lf.ChoiceSignature{Name: ch.Name, Consuming: ch.Consuming,
				ArgType: ch.ArgBinder.Type, ReturnType: ch.ReturnType, Choice: ch}, true
		}
	}
	return lf.ChoiceSignature{}, false
}

// Plan returns the codec of a closed, serializable type: the JSON encoding
// and decoding of its values, and their protobuf form. It fails when the
// type names a definition the environment lacks or is not serializable
// (functions, Any, interfaces, free type variables).
func (e *Env) Plan(t lf.Type) (*Plan, error) {
	key := e.ids.key(t)
	if p, ok := e.plans.Load(key); ok {
		return p.(*Plan), nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c := compiler{env: e}
	p, err := c.compile(t, nil)
	if err != nil {
		for _, k := range c.added {
			delete(e.cons, k)
		}
		return nil, err
	}
	e.plans.Store(key, p)
	return p, nil
}

// TypeIdentifier returns the value identifier of a type constructor.
func TypeIdentifier(n lf.TypeConName) *value.Identifier { return value.IdentifierOf(n) }

// typeIDs hash-conses types: structurally equal types get one small
// number, the key of compiled plans. A type is numbered from the numbers of
// its parts, each node once, so a type whose nodes share parts (an
// interned type naming the one before it twice, forty times over) costs
// its nodes, not the 2^40 leaves of its text.
type typeIDs struct {
	mu      sync.Mutex
	byShape map[string]int // a node's kind, name and its parts' ids → id
	buf     []byte
}

// key returns the id of t.
func (ids *typeIDs) key(t lf.Type) int { return ids.keyIn(t, map[lf.TypeNode]int{}) }

// keyIn returns the id of t, reusing and extending seen, the ids of nodes
// numbered before.
func (ids *typeIDs) keyIn(t lf.Type, seen map[lf.TypeNode]int) int {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	return ids.of(t, seen)
}

// of numbers t, memoising by node in seen; mu is held.
func (ids *typeIDs) of(t lf.Type, seen map[lf.TypeNode]int) int {
	node := lf.NodeOf(t)
	if id, ok := seen[node]; ok {
		return id
	}
	var parts []int
	var kind byte
	var name string
	switch t := t.(type) {
	case lf.TVar:
		kind, name = 'v', t.Name
	case lf.TNat:
		kind, name = 'n', strconv.Itoa(t.N)
	case lf.TCon:
		kind, name = 'c', t.Con.String()
	case lf.TBuiltin:
		kind, name = 'b', strconv.Itoa(int(t.Builtin))
	case lf.TSyn:
		kind, name = 's', t.Syn.String()
		for _, a := range t.Args {
			parts = append(parts, ids.of(a, seen))
		}
	case lf.TApp:
		kind = 'a'
		parts = []int{ids.of(t.Fun, seen), ids.of(t.Arg, seen)}
	case lf.TStruct:
		kind = 'r'
		var names strings.Builder
		for _, f := range t.Fields {
			names.WriteString(f.Name)
			names.WriteByte(',')
			parts = append(parts, ids.of(f.Type, seen))
		}
		name = names.String()
	case lf.TForall:
		kind, name = 'f', t.Var.Name
		parts = []int{ids.of(t.Body, seen)}
	default:
		kind = '?'
	}
	b := append(ids.buf[:0], kind)
	b = binary.AppendUvarint(b, uint64(len(name)))
	b = append(b, name...)
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(p))
	}
	ids.buf = b
	id, ok := ids.byShape[string(b)]
	if !ok {
		id = len(ids.byShape)
		ids.byShape[string(b)] = id
	}
	seen[node] = id
	return id
}
