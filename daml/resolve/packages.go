package resolve

import (
	"fmt"
	"sync"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// Packages is a set of decoded packages and the resolved forms of their
// definitions, built on first use and kept. It is safe for concurrent use.
type Packages struct {
	pkgs map[lf.PackageID]*lf.Package

	mu          sync.Mutex
	values      map[string]*TopDef
	templates   map[string]*TemplateRef
	interfaces  map[string]*InterfaceRef
	exceptions  map[string]*exceptionRef
	identifiers map[string]*value.Identifier
	records     map[string]*recordInfo
	variants    map[string]*variantInfo
}

// NewPackages returns the set of pkgs. A package given twice is kept once.
func NewPackages(pkgs ...*lf.Package) *Packages {
	p := &Packages{
		pkgs:        make(map[lf.PackageID]*lf.Package, len(pkgs)),
		values:      map[string]*TopDef{},
		templates:   map[string]*TemplateRef{},
		interfaces:  map[string]*InterfaceRef{},
		exceptions:  map[string]*exceptionRef{},
		identifiers: map[string]*value.Identifier{},
		records:     map[string]*recordInfo{},
		variants:    map[string]*variantInfo{},
	}
	for _, pkg := range pkgs {
		p.pkgs[pkg.ID] = pkg
	}
	return p
}

// Package returns the package with id, or nil.
func (p *Packages) Package(id lf.PackageID) *lf.Package { return p.pkgs[id] }

// Packages returns every package of the set, in no particular order.
func (p *Packages) Packages() []*lf.Package {
	out := make([]*lf.Package, 0, len(p.pkgs))
	for _, pkg := range p.pkgs {
		out = append(out, pkg)
	}
	return out
}

// module returns the module of a qualified name.
func (p *Packages) module(pkg lf.PackageID, mod string) (*lf.Package, *lf.Module, error) {
	pk := p.pkgs[pkg]
	if pk == nil {
		return nil, nil, fmt.Errorf("package %s is not loaded", pkg)
	}
	m := pk.Module(mod)
	if m == nil {
		return nil, nil, fmt.Errorf("package %s (%s) has no module %s", pkg, pk.Name, mod)
	}
	return pk, m, nil
}

// identifier returns the shared Identifier of a type constructor.
func (p *Packages) identifier(n lf.TypeConName) *value.Identifier {
	key := n.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	if id := p.identifiers[key]; id != nil {
		return id
	}
	id := value.IdentifierOf(n)
	p.identifiers[key] = id
	return id
}

// Identifier returns the shared Identifier of a type constructor, the one
// the values this set's expressions build carry.
func (p *Packages) Identifier(n lf.TypeConName) *value.Identifier { return p.identifier(n) }

// recordInfo is what the resolver needs of a record type.
type recordInfo struct {
	id     *value.Identifier
	labels []string
	index  map[string]int
}

func (p *Packages) record(n lf.TypeConName) (*recordInfo, error) {
	key := n.String()
	p.mu.Lock()
	ri := p.records[key]
	p.mu.Unlock()
	if ri != nil {
		return ri, nil
	}
	_, m, err := p.module(n.Package, n.Module.String())
	if err != nil {
		return nil, err
	}
	d := m.DataType(n.Name.String())
	if d == nil || d.Kind != lf.DataRecord {
		return nil, fmt.Errorf("%s is not a record type", n)
	}
	ri = &recordInfo{id: p.identifier(n), index: make(map[string]int, len(d.Fields))}
	for i, f := range d.Fields {
		ri.labels = append(ri.labels, f.Name)
		ri.index[f.Name] = i
	}
	p.mu.Lock()
	p.records[key] = ri
	p.mu.Unlock()
	return ri, nil
}

// variantInfo is what the resolver needs of a variant or enum type.
type variantInfo struct {
	id   *value.Identifier
	rank map[string]int
	enum []*value.Enum // the enum constants, by rank
}

func (p *Packages) variant(n lf.TypeConName) (*variantInfo, error) {
	key := n.String()
	p.mu.Lock()
	vi := p.variants[key]
	p.mu.Unlock()
	if vi != nil {
		return vi, nil
	}
	_, m, err := p.module(n.Package, n.Module.String())
	if err != nil {
		return nil, err
	}
	d := m.DataType(n.Name.String())
	if d == nil || (d.Kind != lf.DataVariant && d.Kind != lf.DataEnum) {
		return nil, fmt.Errorf("%s is not a variant or enum type", n)
	}
	vi = &variantInfo{id: p.identifier(n), rank: map[string]int{}}
	if d.Kind == lf.DataVariant {
		for i, f := range d.Fields {
			vi.rank[f.Name] = i
		}
	} else {
		for i, c := range d.EnumCons {
			vi.rank[c] = i
			vi.enum = append(vi.enum, &value.Enum{TypeCon: vi.id, Constructor: c, Rank: i})
		}
	}
	p.mu.Lock()
	p.variants[key] = vi
	p.mu.Unlock()
	return vi, nil
}

// Value returns the top-level value name refers to. Its body is resolved
// when first evaluated.
func (p *Packages) Value(n lf.ValueName) (*TopDef, error) {
	key := n.String()
	p.mu.Lock()
	d := p.values[key]
	p.mu.Unlock()
	if d != nil {
		return d, nil
	}
	_, m, err := p.module(n.Package, n.Module.String())
	if err != nil {
		return nil, err
	}
	v := m.Value(n.Name.String())
	if v == nil {
		return nil, fmt.Errorf("no value %s", n)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.values[key]; d != nil {
		return d, nil
	}
	d = &TopDef{Name: n, Location: v.Location, pkgs: p, def: v}
	p.values[key] = d
	return d, nil
}

func (p *Packages) resolveTopBody(d *TopDef) (*Lambda, error) {
	def := d.Name.Module.String() + ":" + d.Name.Name.String()
	body, err := d.def.Expr()
	if err != nil {
		return nil, err
	}
	return p.lambda(def, d.Location, nil, body)
}

// TemplateRef is a template resolved on first use.
type TemplateRef struct {
	Name lf.TypeConName
	pkgs *Packages
	once sync.Once
	t    *Template
	err  error
}

// Get returns the resolved template.
func (r *TemplateRef) Get() (*Template, error) {
	r.once.Do(func() { r.t, r.err = r.pkgs.resolveTemplate(r.Name) })
	return r.t, r.err
}

func (p *Packages) templateRef(n lf.TypeConName) *TemplateRef {
	key := n.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.templates[key]; r != nil {
		return r
	}
	r := &TemplateRef{Name: n, pkgs: p}
	p.templates[key] = r
	return r
}

// Template returns the resolved template n.
func (p *Packages) Template(n lf.TypeConName) (*Template, error) { return p.templateRef(n).Get() }

// TemplateByID returns the resolved template of an identifier.
func (p *Packages) TemplateByID(id *value.Identifier) (*Template, error) {
	n, err := p.typeConName(id)
	if err != nil {
		return nil, err
	}
	return p.Template(n)
}

// typeConName finds the lf name of an identifier in the loaded packages.
func (p *Packages) typeConName(id *value.Identifier) (lf.TypeConName, error) {
	pkg := p.pkgs[lf.PackageID(id.PackageID)]
	if pkg == nil {
		return lf.TypeConName{}, fmt.Errorf("package %s is not loaded", id.PackageID)
	}
	m := pkg.Module(id.ModuleName)
	if m == nil {
		return lf.TypeConName{}, fmt.Errorf("package %s (%s) has no module %s", id.PackageID, pkg.Name, id.ModuleName)
	}
	return lf.TypeConName{Package: pkg.ID, Module: m.Name, Name: lf.SplitDotted(id.EntityName)}, nil
}

func (p *Packages) resolveTemplate(n lf.TypeConName) (*Template, error) {
	pkg, m, err := p.module(n.Package, n.Module.String())
	if err != nil {
		return nil, err
	}
	t := m.Template(n.Name.String())
	if t == nil {
		return nil, fmt.Errorf("%s is not a template", n)
	}
	def := n.Module.String() + ":" + n.Name.String()
	out := &Template{ID: p.identifier(n), Name: n, PackageName: pkg.Name, HasKey: t.Key != nil,
		Location: t.Location, choices: map[string]*Choice{}}
	this := []string{t.Param}
	if out.Precond, err = p.lambda(def+":ensure", t.Location, this, t.Precond); err != nil {
		return nil, fmt.Errorf("template %s: ensure: %w", n, err)
	}
	if out.Signatories, err = p.lambda(def+":signatory", t.Location, this, t.Signatories); err != nil {
		return nil, fmt.Errorf("template %s: signatories: %w", n, err)
	}
	if out.Observers, err = p.lambda(def+":observer", t.Location, this, t.Observers); err != nil {
		return nil, fmt.Errorf("template %s: observers: %w", n, err)
	}
	for _, c := range t.Choices {
		ch, err := p.resolveChoice(def, t.Param, c)
		if err != nil {
			return nil, fmt.Errorf("template %s: choice %s: %w", n, c.Name, err)
		}
		out.choices[c.Name] = ch
	}
	if t.Key != nil {
		k := &Key{Type: t.Key.Type}
		if k.Body, err = p.lambda(def+":key", t.Location, this, t.Key.Body); err != nil {
			return nil, fmt.Errorf("template %s: key: %w", n, err)
		}
		const key = " key"
		body := &lf.EApp{Fun: t.Key.Maintainers, Args: []lf.Expr{&lf.EVar{Name: key}}}
		if k.Maintainers, err = p.lambda(def+":maintainers", t.Location, []string{key}, body); err != nil {
			return nil, fmt.Errorf("template %s: key maintainers: %w", n, err)
		}
		out.Key = k
	}
	if len(t.Implements) > 0 {
		out.implements = make(map[string]*InterfaceInstance, len(t.Implements))
	}
	for _, ii := range t.Implements {
		idef := def + ":" + ii.Interface.Module.String() + ":" + ii.Interface.Name.String()
		inst := &InterfaceInstance{Interface: ii.Interface, methods: make(map[string]*Lambda, len(ii.Methods))}
		if inst.View, err = p.lambda(idef+":view", ii.Location, this, ii.View); err != nil {
			return nil, fmt.Errorf("template %s: interface instance %s: view: %w", n, ii.Interface, err)
		}
		for _, meth := range ii.Methods {
			if inst.methods[meth.Name], err = p.lambda(idef+":"+meth.Name, ii.Location, this, meth.Value); err != nil {
				return nil, fmt.Errorf("template %s: interface instance %s: method %s: %w", n, ii.Interface, meth.Name, err)
			}
		}
		out.implements[ii.Interface.String()] = inst
	}
	return out, nil
}

// InterfaceRef is an interface resolved on first use.
type InterfaceRef struct {
	Name lf.TypeConName
	pkgs *Packages
	once sync.Once
	i    *Interface
	err  error
}

// Get returns the resolved interface.
func (r *InterfaceRef) Get() (*Interface, error) {
	r.once.Do(func() { r.i, r.err = r.pkgs.resolveInterface(r.Name) })
	return r.i, r.err
}

func (p *Packages) interfaceRef(n lf.TypeConName) *InterfaceRef {
	key := n.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.interfaces[key]; r != nil {
		return r
	}
	r := &InterfaceRef{Name: n, pkgs: p}
	p.interfaces[key] = r
	return r
}

// Interface returns the resolved interface n.
func (p *Packages) Interface(n lf.TypeConName) (*Interface, error) { return p.interfaceRef(n).Get() }

// InterfaceRefByID returns the shared reference to the interface id names.
func (p *Packages) InterfaceRefByID(id *value.Identifier) (*InterfaceRef, error) {
	n, err := p.typeConName(id)
	if err != nil {
		return nil, err
	}
	return p.interfaceRef(n), nil
}

func (p *Packages) resolveInterface(n lf.TypeConName) (*Interface, error) {
	_, m, err := p.module(n.Package, n.Module.String())
	if err != nil {
		return nil, err
	}
	i := m.Interface(n.Name.String())
	if i == nil {
		return nil, fmt.Errorf("%s is not an interface", n)
	}
	def := n.Module.String() + ":" + n.Name.String()
	out := &Interface{ID: p.identifier(n), Name: n, Requires: i.Requires, View: i.View, Location: i.Location,
		choices: make(map[string]*Choice, len(i.Choices))}
	for _, c := range i.Choices {
		ch, err := p.resolveChoice(def, i.Param, c)
		if err != nil {
			return nil, fmt.Errorf("interface %s: choice %s: %w", n, c.Name, err)
		}
		out.choices[c.Name] = ch
	}
	return out, nil
}

func (p *Packages) resolveChoice(tmplDef, param string, c *lf.Choice) (*Choice, error) {
	def := tmplDef + ":" + c.Name
	out := &Choice{Name: c.Name, Consuming: c.Consuming, Location: c.Location}
	var err error
	both := []string{param, c.ArgBinder.Name}
	if out.Controllers, err = p.lambda(def+":controller", c.Location, both, c.Controllers); err != nil {
		return nil, err
	}
	if c.Observers != nil {
		if out.Observers, err = p.lambda(def+":observer", c.Location, both, c.Observers); err != nil {
			return nil, err
		}
	}
	if c.Authorizers != nil {
		if out.Authorizers, err = p.lambda(def+":authorizer", c.Location, both, c.Authorizers); err != nil {
			return nil, err
		}
	}
	// The body runs the choice's update on the token: \this self arg token -> update token.
	body := &lf.EApp{Fun: c.Update, Args: []lf.Expr{&lf.EVar{Name: tokenName}}}
	if out.Body, err = p.lambda(def, c.Location, []string{param, c.SelfBinder, c.ArgBinder.Name, tokenName}, body); err != nil {
		return nil, err
	}
	return out, nil
}

// tokenName is the variable of the update token in code the resolver
// writes; no Daml identifier can start with a space.
const tokenName = " token"

type exceptionRef struct {
	once sync.Once
	e    *Exception
	err  error
}

// Exception returns the resolved exception n.
func (p *Packages) Exception(n lf.TypeConName) (*Exception, error) {
	key := n.String()
	p.mu.Lock()
	r := p.exceptions[key]
	if r == nil {
		r = &exceptionRef{}
		p.exceptions[key] = r
	}
	p.mu.Unlock()
	r.once.Do(func() {
		_, m, err := p.module(n.Package, n.Module.String())
		if err != nil {
			r.err = err
			return
		}
		e := m.Exception(n.Name.String())
		if e == nil {
			r.err = fmt.Errorf("%s is not an exception", n)
			return
		}
		msg, err := p.lambda(n.Module.String()+":"+n.Name.String()+":message", e.Location, nil, e.Message)
		if err != nil {
			r.err = err
			return
		}
		r.e = &Exception{ID: p.identifier(n), Message: msg}
	})
	return r.e, r.err
}

// Closed resolves a closed expression (no free variables) into a lambda of
// arity 0, named def in backtraces.
func (p *Packages) Closed(def string, e lf.Expr) (*Lambda, error) {
	return p.lambda(def, nil, nil, e)
}

// TemplateRefByID returns the shared reference to the template id names,
// resolved on first Get.
func (p *Packages) TemplateRefByID(id *value.Identifier) (*TemplateRef, error) {
	n, err := p.typeConName(id)
	if err != nil {
		return nil, err
	}
	return p.templateRef(n), nil
}
