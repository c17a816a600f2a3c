package lf

// Package is a decoded Daml-LF package.
type Package struct {
	ID              PackageID
	LanguageVersion LanguageVersion
	// Name and Version come from the package metadata (LF 2 requires it).
	Name    string
	Version string
	// UpgradedPackageID is the package this one declares it upgrades, or "".
	UpgradedPackageID PackageID
	// Imports is the package-import table of LF 2.2+, in archive order;
	// references to other packages index it. ImportsDeclared tells whether
	// the archive carried the table; when it did not, NoImportsReason is the
	// reason it gave, if any.
	Imports         []PackageID
	ImportsDeclared bool
	NoImportsReason string
	// DirectDeps is every other package a definition of this one refers to,
	// sorted.
	DirectDeps []PackageID
	Modules    []*Module

	modules map[string]*Module
}

// NewPackage returns p with its module index built; the decoder calls it
// once all modules are in place.
func NewPackage(p Package) *Package {
	p.modules = make(map[string]*Module, len(p.Modules))
	for _, m := range p.Modules {
		p.modules[m.Name.String()] = m
	}
	return &p
}

// Module returns the module with the given dotted name, or nil.
func (p *Package) Module(name string) *Module { return p.modules[name] }

// Module is one module of a package. Each list is in archive order.
type Module struct {
	Name       ModuleName
	Synonyms   []*TypeSyn
	DataTypes  []*DataType
	Values     []*Value
	Templates  []*Template
	Exceptions []*Exception
	Interfaces []*Interface

	synonyms   map[string]*TypeSyn
	dataTypes  map[string]*DataType
	values     map[string]*Value
	templates  map[string]*Template
	exceptions map[string]*Exception
	interfaces map[string]*Interface
}

// NewModule returns m with its name indexes built. It reports the first
// name defined twice among the module's definitions of one sort.
func NewModule(m Module) (*Module, string) {
	dup := ""
	m.synonyms = index(m.Synonyms, func(d *TypeSyn) DottedName { return d.Name }, &dup)
	m.dataTypes = index(m.DataTypes, func(d *DataType) DottedName { return d.Name }, &dup)
	m.values = index(m.Values, func(d *Value) DottedName { return d.Name }, &dup)
	m.templates = index(m.Templates, func(d *Template) DottedName { return d.Name }, &dup)
	m.exceptions = index(m.Exceptions, func(d *Exception) DottedName { return d.Name }, &dup)
	m.interfaces = index(m.Interfaces, func(d *Interface) DottedName { return d.Name }, &dup)
	return &m, dup
}

func index[T any](defs []T, name func(T) DottedName, dup *string) map[string]T {
	if len(defs) == 0 {
		return nil
	}
	m := make(map[string]T, len(defs))
	for _, d := range defs {
		n := name(d).String()
		if _, ok := m[n]; ok && *dup == "" {
			*dup = n
		}
		m[n] = d
	}
	return m
}

// Synonym returns the type synonym named name, or nil.
func (m *Module) Synonym(name string) *TypeSyn { return m.synonyms[name] }

// DataType returns the data type named name, or nil.
func (m *Module) DataType(name string) *DataType { return m.dataTypes[name] }

// Value returns the value named name, or nil.
func (m *Module) Value(name string) *Value { return m.values[name] }

// Template returns the template named name, or nil.
func (m *Module) Template(name string) *Template { return m.templates[name] }

// Exception returns the exception named name, or nil.
func (m *Module) Exception(name string) *Exception { return m.exceptions[name] }

// Interface returns the interface named name, or nil.
func (m *Module) Interface(name string) *Interface { return m.interfaces[name] }

// TypeSyn is a type synonym definition.
type TypeSyn struct {
	Name     DottedName
	Params   []TypeVar
	Type     Type
	Location *Location
}

// DataKind tells which sort of data type a DataType is.
type DataKind int

// The sorts of data type.
const (
	DataRecord DataKind = iota
	DataVariant
	DataEnum
	// DataInterface marks the data type standing for an interface; the
	// interface itself is the module's Interface of the same name.
	DataInterface
)

func (k DataKind) String() string {
	switch k {
	case DataRecord:
		return "record"
	case DataVariant:
		return "variant"
	case DataEnum:
		return "enum"
	case DataInterface:
		return "interface"
	}
	return "DataKind(?)"
}

// DataType is a data type definition. Fields are the record's fields or the
// variant's constructors (each with its argument type), in order; EnumCons
// are the enum's constructors. A template's argument type is the record of
// the template's name.
type DataType struct {
	Name         DottedName
	Params       []TypeVar
	Serializable bool
	Kind         DataKind
	Fields       []Field
	EnumCons     []string
	Location     *Location
}

// Value is a top-level value definition.
type Value struct {
	Name DottedName
	Type Type
	// Body is the value's expression; read it with Expr, since in a
	// package decoded with lazy values (archive.Options.LazyValues) it is
	// nil and LazyBody decodes it.
	Body     Expr
	Location *Location
	// LazyBody, when Body is nil, decodes the body on first call and
	// returns the same expression or error on each later one; it is safe
	// for concurrent use.
	LazyBody func() (Expr, error)
}

// Expr returns the value's body, decoding it first when it was decoded
// lazily. The error is a body that does not decode.
func (v *Value) Expr() (Expr, error) {
	if v.Body == nil && v.LazyBody != nil {
		return v.LazyBody()
	}
	return v.Body, nil
}

// Template is a contract template. Its argument type is the record data type
// of the same name; Param is bound to the argument in Precond, Signatories,
// Observers, the key and the choices.
type Template struct {
	Name DottedName
	// Param names the contract argument ("this").
	Param string
	// Precond is the ensure clause, of type Bool; EBuiltinCon True when the
	// archive has none.
	Precond     Expr
	Signatories Expr
	Observers   Expr
	Choices     []*Choice
	Key         *TemplateKey
	Implements  []*InterfaceInstance
	Location    *Location
}

// Choice returns the template's choice named name, or nil.
func (t *Template) Choice(name string) *Choice { return findChoice(t.Choices, name) }

func findChoice(cs []*Choice, name string) *Choice {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TemplateKey is a template's contract key (2.3+ and 2.dev).
type TemplateKey struct {
	Type Type
	// Body computes the key from the template parameter.
	Body Expr
	// Maintainers is a function from the key to [Party].
	Maintainers Expr
}

// Choice is a template or interface choice.
type Choice struct {
	Name      string
	Consuming bool
	// Controllers and Observers have type [Party], with the template
	// parameter and ArgBinder in scope.
	Controllers Expr
	Observers   Expr
	// Authorizers is nil unless the archive (2.dev) gives them.
	Authorizers Expr
	// SelfBinder names the contract id of the exercised contract.
	SelfBinder string
	ArgBinder  Binder
	ReturnType Type
	// Update has type Update ReturnType.
	Update   Expr
	Location *Location
}

// InterfaceInstance is a template's implementation of an interface.
type InterfaceInstance struct {
	Interface TypeConName
	Methods   []InterfaceInstanceMethod
	View      Expr
	Location  *Location
}

// InterfaceInstanceMethod is one method body of an interface instance.
type InterfaceInstanceMethod struct {
	Name  string
	Value Expr
}

// Interface is an interface definition.
type Interface struct {
	Name DottedName
	// Param names the interface value in the choices.
	Param    string
	Requires []TypeConName
	Methods  []InterfaceMethod
	Choices  []*Choice
	View     Type
	Location *Location
}

// Choice returns the interface's choice named name, or nil.
func (i *Interface) Choice(name string) *Choice { return findChoice(i.Choices, name) }

// InterfaceMethod is a method declaration of an interface.
type InterfaceMethod struct {
	Name     string
	Type     Type
	Location *Location
}

// Exception is an exception definition; its payload is the record data type
// of the same name.
type Exception struct {
	Name DottedName
	// Message is a function from the exception payload to Text.
	Message  Expr
	Location *Location
}
