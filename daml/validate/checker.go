package validate

import (
	"context"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
)

// Options bound the work of a check.
type Options struct {
	// MaxSteps bounds the type-checking steps (an expression, a type node
	// visited, compared, substituted or expanded) of one package; 0 means
	// DefaultMaxSteps.
	MaxSteps int
	// MaxTypeNodes bounds the type nodes substitution and synonym
	// expansion build for one package (memory); 0 means
	// DefaultMaxTypeNodes.
	MaxTypeNodes int
}

// Defaults of Options: about 20 times what the largest real package
// (splice-amulet 0.1.14: 455,000 steps, 63,000 type nodes) takes. A type
// node is about 50 bytes, so a package's types stay under 100 MB; a step
// is about 25 ns, so a check stays under a quarter of a second.
const (
	DefaultMaxSteps     = 10_000_000
	DefaultMaxTypeNodes = 2_000_000
)

// maxSynDepth bounds the nesting of synonym expansions; synonyms cannot be
// cyclic once Recursion has run, this is a second line.
const maxSynDepth = 500

// Error is a reason a package is refused, in Canton's words.
type Error struct {
	// Kind is the name of Canton's error class: ETypeMismatch,
	// ETypeSynCycle, EExpectedSerializableType, ...
	Kind string
	// Context is where: "template pkg:Mod:T", "Mod:12:3" (a location), or "".
	Context string
	// Reason is the error's own text.
	Reason string
}

func (e *Error) Error() string {
	if e.Context == "" {
		return "validation error: " + e.Reason
	}
	return "validation error in " + e.Context + ": " + e.Reason
}

// Lookup returns a package by id, nil when unknown.
type Lookup func(lf.PackageID) *lf.Package

// Checker checks packages against one set of packages; it keeps what it
// learnt about synonyms between calls. It is not safe for concurrent use.
type Checker struct {
	lookup Lookup
	opts   Options

	modules   map[modKey]*lf.Module
	syns      map[defKey]*synState
	dataKinds map[*lf.DataType]lf.Kind
	steps     int
	nodes     int
}

// Steps returns the steps and the type nodes built of the checker's last
// Check.
func (c *Checker) Steps() (steps, typeNodes int) { return c.steps, c.nodes }

type modKey struct {
	pkg lf.PackageID
	mod string
}

type defKey struct {
	pkg       lf.PackageID
	mod, name string
}

// NewChecker returns a checker that finds packages with lookup.
func NewChecker(lookup Lookup, opts Options) *Checker {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.MaxTypeNodes <= 0 {
		opts.MaxTypeNodes = DefaultMaxTypeNodes
	}
	return &Checker{lookup: lookup, opts: opts, modules: map[modKey]*lf.Module{}, syns: map[defKey]*synState{},
		dataKinds: map[*lf.DataType]lf.Kind{}}
}

// Package checks pkg, whose dependencies lookup finds (and pkg itself).
func Package(ctx context.Context, pkg *lf.Package, lookup Lookup, opts Options) error {
	return NewChecker(lookup, opts).Check(ctx, pkg)
}

// Check checks one package.
func (c *Checker) Check(ctx context.Context, pkg *lf.Package) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	t := &typer{Checker: c, pkg: pkg, version: pkg.LanguageVersion, cancel: ctx, budget: c.opts.MaxSteps, nodeBudget: c.opts.MaxTypeNodes}
	defer func() {
		c.steps, c.nodes = c.opts.MaxSteps-t.budget, c.opts.MaxTypeNodes-t.nodeBudget
		if r := recover(); r != nil {
			c.forgetUnfinished()
			if e, ok := r.(*Error); ok {
				err = e
				return
			}
			// A bug of the checker must not take the node down: the
			// package is refused with what went wrong.
			err = &Error{Kind: "EInternal", Context: t.where(), Reason: fmt.Sprint("internal error of the type checker: ", r)}
		}
	}()
	if pkg.LanguageVersion.Major != 2 {
		t.fail("EUnsupportedVersion", "language version %s is not supported", pkg.LanguageVersion)
	}
	t.checkCollisions()
	t.checkDependencyVersions()
	for _, m := range pkg.Modules {
		t.checkModule(m)
	}
	t.checkModuleCycles()
	for _, m := range pkg.Modules {
		t.checkSerializability(m)
	}
	return nil
}

// forgetUnfinished drops what a failed check left half known.
func (c *Checker) forgetUnfinished() {
	for k, s := range c.syns {
		if s.checking {
			delete(c.syns, k)
		}
	}
}

// typer is the state of one package's check.
type typer struct {
	*Checker
	pkg     *lf.Package
	version lf.LanguageVersion
	cancel  context.Context
	budget  int
	// nodeBudget is what is left of Options.MaxTypeNodes.
	nodeBudget int
	// nesting is the depth of the checker's recursion now.
	nesting int

	// ctx is where the check is: a definition reference or a location.
	ctxRef string
	ctxLoc *lf.Location

	// curMod is the module being checked; moduleRefs the other modules of
	// the package each module refers to.
	curMod     string
	moduleRefs map[string]map[string]bool

	// kinds memoises kindOf of type applications (kindKey).
	kinds map[kindKey]lf.Kind
}

func (t *typer) where() string {
	if t.ctxLoc != nil {
		return t.ctxLoc.String()
	}
	return t.ctxRef
}

func (t *typer) fail(kind, format string, args ...any) {
	panic(&Error{Kind: kind, Context: t.where(), Reason: fmt.Sprintf(format, args...)})
}

// step counts one unit of work against the budget.
func (t *typer) step() {
	t.budget--
	if t.budget&0xffff == 0 {
		if t.budget < 0 {
			t.fail("EBudget", "the package needs more than %d type-checking steps (types or expressions that expand exponentially?)", t.opts.MaxSteps)
		}
		if err := t.cancel.Err(); err != nil {
			t.fail("ECancelled", "type checking cancelled: %v", err)
		}
	}
}

// maxNesting bounds the recursion of the checker over one expression or
// type (Go's stack is large but finite, and its overflow is fatal): the
// decoder bounds nesting at 1,000, but substitution and synonym expansion
// make deeper types. The real DARs reach 226.
const maxNesting = 20_000

func (t *typer) enter() {
	t.nesting++
	if t.nesting > maxNesting {
		t.fail("EBudget", "types or expressions nest more than %d deep", maxNesting)
	}
}

func (t *typer) leave() { t.nesting-- }

// built counts a type node built by substitution or expansion.
func (t *typer) built() {
	t.nodeBudget--
	if t.nodeBudget < 0 {
		t.fail("EBudget", "the package's types expand to more than %d nodes (types that expand exponentially?)", t.opts.MaxTypeNodes)
	}
}

// at sets the context to a definition; it returns the previous one.
func (t *typer) at(ref string) (string, *lf.Location) {
	r, l := t.ctxRef, t.ctxLoc
	t.ctxRef, t.ctxLoc = ref, nil
	return r, l
}

func (t *typer) restore(r string, l *lf.Location) { t.ctxRef, t.ctxLoc = r, l }

// Lookups. Each fails with EUnknownDefinition, as Canton's handleLookup.

func (t *typer) module(pkg lf.PackageID, mod lf.ModuleName) *lf.Module {
	k := modKey{pkg, joinName(mod)}
	if pkg == t.pkg.ID {
		t.noteModuleRef(k.mod)
	}
	if m, ok := t.modules[k]; ok {
		if m == nil {
			t.fail("EUnknownDefinition", "unknown module %s:%s", pkg, k.mod)
		}
		return m
	}
	var m *lf.Module
	p := t.pkg
	if pkg != t.pkg.ID {
		p = nil
		if t.lookup != nil {
			p = t.lookup(pkg)
		}
	}
	if p == nil {
		t.modules[k] = nil
		t.fail("EUnknownDefinition", "unknown package %s", pkg)
	}
	m = p.Module(k.mod)
	t.modules[k] = m
	if m == nil {
		t.fail("EUnknownDefinition", "unknown module %s:%s", pkg, k.mod)
	}
	return m
}

func joinName(n lf.DottedName) string {
	if len(n) == 1 {
		return n[0]
	}
	return strings.Join(n, ".")
}

func (t *typer) dataType(con lf.TypeConName) *lf.DataType {
	d := t.module(con.Package, con.Module).DataType(joinName(con.Name))
	if d == nil {
		t.fail("EUnknownDefinition", "unknown data type %s", con)
	}
	return d
}

func (t *typer) template(con lf.TypeConName) *lf.Template {
	d := t.module(con.Package, con.Module).Template(joinName(con.Name))
	if d == nil {
		t.fail("EUnknownDefinition", "unknown template %s", con)
	}
	return d
}

func (t *typer) iface(con lf.TypeConName) *lf.Interface {
	d := t.module(con.Package, con.Module).Interface(joinName(con.Name))
	if d == nil {
		t.fail("EUnknownDefinition", "unknown interface %s", con)
	}
	return d
}

func (t *typer) exception(con lf.TypeConName) *lf.Exception {
	d := t.module(con.Package, con.Module).Exception(joinName(con.Name))
	if d == nil {
		t.fail("EUnknownDefinition", "unknown exception %s", con)
	}
	return d
}

func (t *typer) value(ref lf.ValueName) *lf.Value {
	d := t.module(ref.Package, ref.Module).Value(joinName(ref.Name))
	if d == nil {
		t.fail("EUnknownDefinition", "unknown value %s", ref)
	}
	return d
}

func (t *typer) synonym(ref lf.TypeSynName) *lf.TypeSyn {
	d := t.module(ref.Package, ref.Module).Synonym(joinName(ref.Name))
	if d == nil {
		t.fail("EUnknownDefinition", "unknown type synonym %s", ref)
	}
	return d
}

func (t *typer) templateChoice(con lf.TypeConName, name string) *lf.Choice {
	ch := t.template(con).Choice(name)
	if ch == nil {
		t.fail("EUnknownDefinition", "unknown choice %s in template %s", name, con)
	}
	return ch
}

func (t *typer) interfaceChoice(con lf.TypeConName, name string) *lf.Choice {
	ch := t.iface(con).Choice(name)
	if ch == nil {
		t.fail("EUnknownDefinition", "unknown choice %s in interface %s", name, con)
	}
	return ch
}

func (t *typer) templateKey(con lf.TypeConName) *lf.TemplateKey {
	k := t.template(con).Key
	if k == nil {
		t.fail("EUnknownDefinition", "unknown template without contract key %s.", con)
	}
	return k
}

// hasInstance reports whether template tpl implements interface iface.
func (t *typer) hasInstance(iface, tpl lf.TypeConName) bool {
	m := t.module(tpl.Package, tpl.Module)
	tp := m.Template(joinName(tpl.Name))
	if tp == nil {
		return false
	}
	for _, ii := range tp.Implements {
		if ii.Interface.Equal(iface) {
			return true
		}
	}
	return false
}

func (t *typer) interfaceInstance(iface, tpl lf.TypeConName) {
	t.iface(iface)
	if !t.hasInstance(iface, tpl) {
		t.fail("EUnknownDefinition", "unknown interface instance %s for %s", iface, tpl)
	}
}

// PackageError is the validation error of one package of a set.
type PackageError struct {
	ID            lf.PackageID
	Name, Version string
	Err           error
}

func (e *PackageError) Error() string {
	return fmt.Sprintf("package %s (%s v%s): %v", e.ID, e.Name, e.Version, e.Err)
}

func (e *PackageError) Unwrap() error { return e.Err }

// Packages checks pkgs in order, each against pkgs and the packages known
// finds (nil: none), as Canton checks the new packages of an upload; the
// first refusal is a *PackageError wrapping an *Error.
func Packages(ctx context.Context, pkgs []*lf.Package, known Lookup, opts Options) error {
	in := make(map[lf.PackageID]*lf.Package, len(pkgs))
	for _, p := range pkgs {
		in[p.ID] = p
	}
	c := NewChecker(func(id lf.PackageID) *lf.Package {
		if p := in[id]; p != nil {
			return p
		}
		if known != nil {
			return known(id)
		}
		return nil
	}, opts)
	for _, p := range pkgs {
		if err := c.Check(ctx, p); err != nil {
			return &PackageError{ID: p.ID, Name: p.Name, Version: p.Version, Err: err}
		}
	}
	return nil
}
