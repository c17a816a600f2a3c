package archive

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledger-cli/ledger/daml/lf"
)

// decoder holds the state of decoding one Daml-LF 2 package: its interning
// tables, resolved as far as they can be ahead of the modules, and where in
// the package it is.
type decoder struct {
	pkgID    lf.PackageID
	version  lf.LanguageVersion
	maxDepth int
	depth    int

	strings     []string
	nameOK      []uint8    // per interned string: nameUnchecked, nameValid, nameInvalid
	vars        []*lf.EVar // per interned string: the variable of that name, once used
	dottedNames []lf.DottedName
	kinds       []lf.Kind
	types       []lf.Type

	// exprs are the interned expressions, undecoded. Each is decoded when
	// first referred to within a definition and then shared by the
	// definition's later references: exprCache[i] holds it while
	// exprGen[i] == gen, and gen changes with each definition, because a
	// decoded expression's locations name the definition.
	exprs     [][]byte
	exprCache []lf.Expr
	exprGen   []uint32
	gen       uint32
	// exprLimit is the number of interned expressions the expression being
	// decoded may refer to: all of them from a definition, only those
	// before it from an interned expression.
	exprLimit int

	imports         []lf.PackageID
	importsDeclared bool
	depsByString    []bool // interned strings used as package ids
	depsByImport    []bool // import-table entries used

	module     lf.ModuleName
	definition string

	// lastLocModule is the module reference of the last location decoded.
	lastLocModule struct {
		raw    []byte
		pkg    lf.PackageID
		module lf.ModuleName
	}

	slabs struct {
		vals       slab[lf.EVal]
		apps       slab[lf.EApp]
		locs       slab[lf.ELocation]
		abss       slab[lf.EAbs]
		tyApps     slab[lf.ETyApp]
		recProjs   slab[lf.ERecProj]
		exprs      slab[lf.Expr]
		types      slab[lf.Type]
		binders    slab[lf.Binder]
		fieldExprs slab[lf.FieldExpr]
	}
}

// rawPackage is the Package message split into its fields, undecoded.
type rawPackage struct {
	modules, strings, dottedNames, types, kinds, exprs [][]byte
	metadata                                           []byte
	hasMetadata                                        bool
	noImportsReason                                    string
	hasNoImportsReason                                 bool
	imports                                            []byte
	hasImports                                         bool
}

func splitPackage(b []byte) (*rawPackage, error) {
	var (
		p   rawPackage
		err error
		n   [8]int
	)
	countFields(b, n[:])
	p.modules, p.strings, p.dottedNames = make([][]byte, 0, n[1]), make([][]byte, 0, n[2]), make([][]byte, 0, n[3])
	p.types, p.kinds, p.exprs = make([][]byte, 0, n[5]), make([][]byte, 0, n[6]), make([][]byte, 0, n[7])
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		if m, err = f.bytes(); err != nil {
			return nil, err
		}
		switch f.num {
		case 1:
			p.modules = append(p.modules, m)
		case 2:
			p.strings = append(p.strings, m)
		case 3:
			p.dottedNames = append(p.dottedNames, m)
		case 4:
			p.metadata, p.hasMetadata = m, true
		case 5:
			p.types = append(p.types, m)
		case 6:
			p.kinds = append(p.kinds, m)
		case 7:
			p.exprs = append(p.exprs, m)
		case 8:
			if p.noImportsReason, err = f.str(); err != nil {
				return nil, err
			}
			p.hasNoImportsReason, p.hasImports = true, false
		case 9:
			p.imports, p.hasImports = m, true
			p.hasNoImportsReason = false
		default:
			return nil, unknownField("Package", f)
		}
	}
	return &p, nil
}

func decodePackage(id lf.PackageID, v lf.LanguageVersion, b []byte, opts Options) (*lf.Package, error) {
	raw, err := splitPackage(b)
	if err != nil {
		return nil, err
	}
	d := &decoder{pkgID: id, version: v, maxDepth: opts.MaxDepth}
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
	// The interned strings are substrings of one string holding them all:
	// one allocation instead of one per string.
	var (
		all   strings.Builder
		total int
	)
	for i, s := range raw.strings {
		if !utf8.Valid(s) {
			return nil, fmt.Errorf("interned string %d is not valid UTF-8", i)
		}
		total += len(s)
	}
	all.Grow(total)
	for _, s := range raw.strings {
		all.Write(s)
	}
	d.strings = make([]string, len(raw.strings))
	for i, off := 0, 0; i < len(raw.strings); i++ {
		d.strings[i] = all.String()[off : off+len(raw.strings[i])]
		off += len(raw.strings[i])
	}
	d.nameOK = make([]uint8, len(d.strings))
	d.vars = make([]*lf.EVar, len(d.strings))
	d.depsByString = make([]bool, len(d.strings))
	if err := d.decodeDottedNames(raw.dottedNames); err != nil {
		return nil, err
	}
	p := lf.Package{ID: id, LanguageVersion: v}
	if !raw.hasMetadata {
		return nil, fmt.Errorf("no package metadata, which Daml-LF %s requires", v)
	}
	if err := d.metadata(raw.metadata, &p); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	if err := d.decodeImports(raw, &p); err != nil {
		return nil, err
	}
	if err := d.decodeKindTable(raw.kinds); err != nil {
		return nil, err
	}
	if err := d.decodeTypeTable(raw.types); err != nil {
		return nil, err
	}
	if len(raw.exprs) > 0 && !v.AtLeast(2, 2) {
		return nil, fmt.Errorf("interned expressions are not supported by Daml-LF %s", v)
	}
	d.exprs = raw.exprs
	d.exprCache = make([]lf.Expr, len(raw.exprs))
	d.exprGen = make([]uint32, len(raw.exprs))
	d.exprLimit = len(raw.exprs)

	p.Modules = make([]*lf.Module, len(raw.modules))
	for i, mb := range raw.modules {
		m, err := d.decodeModule(mb)
		if err != nil {
			if d.module != nil {
				return nil, fmt.Errorf("module %d (%s): %w", i, d.module, err)
			}
			return nil, fmt.Errorf("module %d: %w", i, err)
		}
		p.Modules[i] = m
	}
	for i, used := range d.depsByString {
		if used && lf.PackageID(d.strings[i]) != id {
			p.DirectDeps = append(p.DirectDeps, lf.PackageID(d.strings[i]))
		}
	}
	for i, used := range d.depsByImport {
		if used && d.imports[i] != id {
			p.DirectDeps = append(p.DirectDeps, d.imports[i])
		}
	}
	slices.Sort(p.DirectDeps)
	p.DirectDeps = slices.Compact(p.DirectDeps)
	return lf.NewPackage(p), nil
}

// metadata decodes PackageMetadata: name, version and the optional package
// this one upgrades.
func (d *decoder) metadata(b []byte, p *lf.Package) error {
	var (
		name, version int32
		upgraded      []byte
		hasUpgraded   bool
		err           error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return err
		}
		switch f.num {
		case 1:
			name, err = f.int32()
		case 2:
			version, err = f.int32()
		case 3:
			upgraded, err = f.bytes()
			hasUpgraded = true
		default:
			err = unknownField("PackageMetadata", f)
		}
		if err != nil {
			return err
		}
	}
	if p.Name, err = d.str(name); err != nil {
		return fmt.Errorf("name: %w", err)
	}
	if !isPackageName(p.Name) {
		return fmt.Errorf("package name %q is not of [A-Za-z0-9_-]+", p.Name)
	}
	if p.Version, err = d.str(version); err != nil {
		return fmt.Errorf("version: %w", err)
	}
	if !isPackageVersion(p.Version) {
		return fmt.Errorf("package version %q is not dot-separated numbers", p.Version)
	}
	if hasUpgraded {
		var i int32
		for len(upgraded) > 0 {
			var f field
			if f, upgraded, err = nextField(upgraded); err != nil {
				return err
			}
			if f.num != 1 {
				return unknownField("UpgradedPackageId", f)
			}
			if i, err = f.int32(); err != nil {
				return err
			}
		}
		s, err := d.str(i)
		if err != nil {
			return fmt.Errorf("upgraded package id: %w", err)
		}
		if !isPackageID(s) {
			return fmt.Errorf("upgraded package id %q is not a package id", s)
		}
		p.UpgradedPackageID = lf.PackageID(s)
	}
	return nil
}

func isPackageName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isPackageVersion reports whether s is non-negative integers, without
// leading zeros, separated by dots.
func isPackageVersion(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" || len(part) > 1 && part[0] == '0' {
			return false
		}
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
		}
	}
	return true
}

// decodeImports decodes the package-import table (LF 2.2+), or the reason
// the archive gives for having none.
func (d *decoder) decodeImports(raw *rawPackage, p *lf.Package) error {
	if (raw.hasImports || raw.hasNoImportsReason) && !d.version.AtLeast(2, 2) {
		return fmt.Errorf("package imports are not supported by Daml-LF %s", d.version)
	}
	p.NoImportsReason = raw.noImportsReason
	if !raw.hasImports {
		return nil
	}
	b := raw.imports
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return fmt.Errorf("package imports: %w", err)
		}
		b = rest
		if f.num != 1 {
			return fmt.Errorf("package imports: %w", unknownField("PackageImports", f))
		}
		s, err := f.str()
		if err != nil {
			return fmt.Errorf("package imports: %w", err)
		}
		if !isPackageID(s) {
			return fmt.Errorf("package import %d: %q is not a package id", len(d.imports), s)
		}
		d.imports = append(d.imports, lf.PackageID(s))
	}
	d.importsDeclared = true
	d.depsByImport = make([]bool, len(d.imports))
	p.Imports, p.ImportsDeclared = d.imports, true
	return nil
}

// rawModule is the Module message split into its fields.
type rawModule struct {
	name                                                           int32
	flags                                                          []byte
	synonyms, dataTypes, values, templates, exceptions, interfaces [][]byte
}

func (d *decoder) decodeModule(b []byte) (*lf.Module, error) {
	d.module = nil
	var (
		r   rawModule
		err error
		n   [9]int
	)
	countFields(b, n[:])
	r.synonyms, r.dataTypes, r.values = make([][]byte, 0, n[3]), make([][]byte, 0, n[4]), make([][]byte, 0, n[5])
	r.templates, r.exceptions, r.interfaces = make([][]byte, 0, n[6]), make([][]byte, 0, n[7]), make([][]byte, 0, n[8])
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		if f.num == 1 {
			if r.name, err = f.int32(); err != nil {
				return nil, err
			}
			continue
		}
		var m []byte
		if m, err = f.bytes(); err != nil {
			return nil, err
		}
		switch f.num {
		case 2:
			r.flags = m
		case 3:
			r.synonyms = append(r.synonyms, m)
		case 4:
			r.dataTypes = append(r.dataTypes, m)
		case 5:
			r.values = append(r.values, m)
		case 6:
			r.templates = append(r.templates, m)
		case 7:
			r.exceptions = append(r.exceptions, m)
		case 8:
			r.interfaces = append(r.interfaces, m)
		default:
			return nil, unknownField("Module", f)
		}
	}
	name, err := d.dotted(r.name)
	if err != nil {
		return nil, fmt.Errorf("name: %w", err)
	}
	d.module = name
	if err := checkFeatureFlags(r.flags); err != nil {
		return nil, err
	}
	m := lf.Module{Name: name}
	m.Synonyms = make([]*lf.TypeSyn, len(r.synonyms))
	for i, b := range r.synonyms {
		if m.Synonyms[i], err = d.typeSynDef(b); err != nil {
			return nil, fmt.Errorf("type synonym %d: %w", i, err)
		}
	}
	m.DataTypes = make([]*lf.DataType, len(r.dataTypes))
	for i, b := range r.dataTypes {
		if m.DataTypes[i], err = d.dataType(b); err != nil {
			return nil, fmt.Errorf("data type %d: %w", i, err)
		}
	}
	m.Values = make([]*lf.Value, len(r.values))
	for i, b := range r.values {
		if m.Values[i], err = d.value(b); err != nil {
			return nil, fmt.Errorf("value %d%s: %w", i, d.definitionSuffix(), err)
		}
	}
	m.Templates = make([]*lf.Template, len(r.templates))
	for i, b := range r.templates {
		if m.Templates[i], err = d.template(b); err != nil {
			return nil, fmt.Errorf("template %d%s: %w", i, d.definitionSuffix(), err)
		}
	}
	m.Exceptions = make([]*lf.Exception, len(r.exceptions))
	for i, b := range r.exceptions {
		if m.Exceptions[i], err = d.exception(b); err != nil {
			return nil, fmt.Errorf("exception %d%s: %w", i, d.definitionSuffix(), err)
		}
	}
	m.Interfaces = make([]*lf.Interface, len(r.interfaces))
	for i, b := range r.interfaces {
		if m.Interfaces[i], err = d.iface(b); err != nil {
			return nil, fmt.Errorf("interface %d%s: %w", i, d.definitionSuffix(), err)
		}
	}
	mod, dup := lf.NewModule(m)
	if dup != "" {
		return nil, fmt.Errorf("%s is defined twice", dup)
	}
	return mod, nil
}

// definitionSuffix names the definition being decoded, for errors.
func (d *decoder) definitionSuffix() string {
	if d.definition == "" {
		return ""
	}
	return " (" + d.definition + ")"
}

// startDefinition records the definition whose expressions follow: it names
// their locations and starts a fresh cache of interned expressions.
func (d *decoder) startDefinition(name string) {
	d.definition = name
	d.gen++
	if d.gen == 0 { // wrapped: forget every cached expression
		clear(d.exprGen)
		d.gen = 1
	}
}

// checkFeatureFlags refuses a module without the three feature flags every
// Daml-LF 2 compiler sets (Canton refuses such packages too).
func checkFeatureFlags(b []byte) error {
	var set [4]bool
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return fmt.Errorf("feature flags: %w", err)
		}
		b = rest
		if f.num < 1 || f.num > 3 {
			return fmt.Errorf("feature flags: %w", unknownField("FeatureFlags", f))
		}
		if set[f.num], err = f.bool(); err != nil {
			return fmt.Errorf("feature flags: %w", err)
		}
	}
	if !set[1] || !set[2] || !set[3] {
		return fmt.Errorf("deprecated feature flags: forbidPartyLiterals, dontDivulgeContractIdsInCreateArguments and dontDiscloseNonConsumingChoicesToObservers must all be set")
	}
	return nil
}

func (d *decoder) typeSynDef(b []byte) (*lf.TypeSyn, error) {
	var (
		s        lf.TypeSyn
		name     int32
		typ, loc []byte
		hasType  bool
		hasLoc   bool
		err      error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		switch f.num {
		case 2:
			name, err = f.int32()
		case 1:
			loc, err = f.bytes()
			hasLoc = true
		case 3:
			if m, err = f.bytes(); err == nil {
				var v lf.TypeVar
				v, err = d.typeVarWithKind(m)
				s.Params = append(s.Params, v)
			}
		case 4:
			typ, err = f.bytes()
			hasType = true
		default:
			err = unknownField("DefTypeSyn", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.Name, err = d.dotted(name); err != nil {
		return nil, err
	}
	d.definition = s.Name.String()
	if hasLoc {
		if s.Location, err = d.location(loc); err != nil {
			return nil, err
		}
	}
	if !hasType {
		return nil, fmt.Errorf("%s: no type", s.Name)
	}
	if s.Type, err = d.typ(typ); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return &s, nil
}

func (d *decoder) dataType(b []byte) (*lf.DataType, error) {
	var (
		dt        lf.DataType
		name      int32
		cons, loc []byte
		hasLoc    bool
		consAt    = 0
		err       error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		switch f.num {
		case 1:
			loc, err = f.bytes()
			hasLoc = true
		case 2:
			name, err = f.int32()
		case 3:
			if m, err = f.bytes(); err == nil {
				var v lf.TypeVar
				v, err = d.typeVarWithKind(m)
				dt.Params = append(dt.Params, v)
			}
		case 4:
			dt.Serializable, err = f.bool()
		case 5, 6, 7, 8:
			cons, err = f.bytes()
			consAt = int(f.num)
		default:
			err = unknownField("DefDataType", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if dt.Name, err = d.dotted(name); err != nil {
		return nil, err
	}
	d.definition = dt.Name.String()
	if hasLoc {
		if dt.Location, err = d.location(loc); err != nil {
			return nil, err
		}
	}
	if err := d.dataCons(&dt, consAt, cons); err != nil {
		return nil, fmt.Errorf("%s: %w", dt.Name, err)
	}
	return &dt, nil
}

func (d *decoder) dataCons(dt *lf.DataType, consAt int, b []byte) error {
	switch consAt {
	case 0:
		return fmt.Errorf("no constructors: neither record, variant, enum nor interface")
	case 8:
		dt.Kind = lf.DataInterface
		return nil
	case 7:
		dt.Kind = lf.DataEnum
		if len(dt.Params) > 0 {
			return fmt.Errorf("enum has type parameters")
		}
		var idx []int32
		for len(b) > 0 {
			f, rest, err := nextField(b)
			if err != nil {
				return err
			}
			b = rest
			if f.num != 2 {
				return unknownField("DefDataType.EnumConstructors", f)
			}
			if idx, err = f.int32s(idx); err != nil {
				return err
			}
		}
		dt.EnumCons = make([]string, len(idx))
		for i, s := range idx {
			n, err := d.name(s)
			if err != nil {
				return fmt.Errorf("enum constructor %d: %w", i, err)
			}
			dt.EnumCons[i] = n
		}
		return nil
	}
	dt.Kind = lf.DataRecord
	if consAt == 6 {
		dt.Kind = lf.DataVariant
	}
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return err
		}
		b = rest
		if f.num != 1 {
			return unknownField("DefDataType.Fields", f)
		}
		m, err := f.bytes()
		if err != nil {
			return err
		}
		fl, err := d.fieldWithType(m, false)
		if err != nil {
			return fmt.Errorf("field %d: %w", len(dt.Fields), err)
		}
		dt.Fields = append(dt.Fields, fl)
	}
	return nil
}

func (d *decoder) value(b []byte) (*lf.Value, error) {
	d.definition = ""
	var (
		v                        lf.Value
		loc, nameWithType, body  []byte
		hasLoc, hasName, hasBody bool
		err                      error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		switch f.num {
		case 1:
			loc, err = f.bytes()
			hasLoc = true
		case 2:
			nameWithType, err = f.bytes()
			hasName = true
		case 3:
			body, err = f.bytes()
			hasBody = true
		default:
			err = unknownField("DefValue", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasName {
		return nil, fmt.Errorf("no name")
	}
	var (
		name    int32
		typ     []byte
		hasType bool
	)
	for len(nameWithType) > 0 {
		var f field
		if f, nameWithType, err = nextField(nameWithType); err != nil {
			return nil, err
		}
		switch f.num {
		case 1:
			name, err = f.int32()
		case 2:
			typ, err = f.bytes()
			hasType = true
		default:
			err = unknownField("DefValue.NameWithType", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if v.Name, err = d.dotted(name); err != nil {
		return nil, err
	}
	d.startDefinition(v.Name.String())
	if hasLoc {
		if v.Location, err = d.location(loc); err != nil {
			return nil, err
		}
	}
	if !hasType {
		return nil, fmt.Errorf("no type")
	}
	if v.Type, err = d.typ(typ); err != nil {
		return nil, fmt.Errorf("type: %w", err)
	}
	if !hasBody {
		return nil, fmt.Errorf("no body")
	}
	if v.Body, err = d.expr(body, false); err != nil {
		return nil, err
	}
	// Decoding does not type-check; this catches only a literal body of
	// the wrong type, which no compiler emits (illformed.dar has one).
	if t, ok := lf.LiteralType(v.Body); ok && !lf.HasSynonym(v.Type) && !lf.TypeEqual(t, v.Type) {
		return nil, fmt.Errorf("declared type %s does not match its body, a literal of type %s", v.Type, t)
	}
	return &v, nil
}

func (d *decoder) exception(b []byte) (*lf.Exception, error) {
	d.definition = ""
	var (
		e              lf.Exception
		name           int32
		loc, msg       []byte
		hasLoc, hasMsg bool
		err            error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		switch f.num {
		case 1:
			name, err = f.int32()
		case 2:
			loc, err = f.bytes()
			hasLoc = true
		case 3:
			msg, err = f.bytes()
			hasMsg = true
		default:
			err = unknownField("DefException", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if e.Name, err = d.dotted(name); err != nil {
		return nil, err
	}
	d.startDefinition(e.Name.String())
	if hasLoc {
		if e.Location, err = d.location(loc); err != nil {
			return nil, err
		}
	}
	if !hasMsg {
		return nil, fmt.Errorf("no message")
	}
	if e.Message, err = d.expr(msg, false); err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	return &e, nil
}

// rawTemplate is the DefTemplate message split into its fields.
type rawTemplate struct {
	name, param                                                   int32
	precond, signatories, observers, location, key                []byte
	hasPrecond, hasSignatories, hasObservers, hasLocation, hasKey bool
	choices, implements                                           [][]byte
}

func (d *decoder) template(b []byte) (*lf.Template, error) {
	d.definition = ""
	var (
		r   rawTemplate
		err error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		if f.num == 1 || f.num == 2 {
			var i int32
			if i, err = f.int32(); err != nil {
				return nil, err
			}
			if f.num == 1 {
				r.name = i
			} else {
				r.param = i
			}
			continue
		}
		var m []byte
		if m, err = f.bytes(); err != nil {
			return nil, err
		}
		switch f.num {
		case 3:
			r.precond, r.hasPrecond = m, true
		case 4:
			r.signatories, r.hasSignatories = m, true
		case 6:
			r.choices = append(r.choices, m)
		case 7:
			r.observers, r.hasObservers = m, true
		case 8:
			r.location, r.hasLocation = m, true
		case 9:
			r.key, r.hasKey = m, true
		case 10:
			r.implements = append(r.implements, m)
		default:
			return nil, unknownField("DefTemplate", f)
		}
	}
	var t lf.Template
	if t.Name, err = d.dotted(r.name); err != nil {
		return nil, err
	}
	tname := t.Name.String()
	d.startDefinition(tname)
	if t.Param, err = d.name(r.param); err != nil {
		return nil, fmt.Errorf("parameter: %w", err)
	}
	if r.hasLocation {
		if t.Location, err = d.location(r.location); err != nil {
			return nil, err
		}
	}
	t.Precond = &lf.EBuiltinCon{Con: lf.ConTrue}
	if r.hasPrecond {
		if t.Precond, err = d.expr(r.precond, false); err != nil {
			return nil, fmt.Errorf("precondition: %w", err)
		}
	}
	if t.Signatories, err = d.requiredExpr(r.signatories, r.hasSignatories); err != nil {
		return nil, fmt.Errorf("signatories: %w", err)
	}
	if t.Observers, err = d.requiredExpr(r.observers, r.hasObservers); err != nil {
		return nil, fmt.Errorf("observers: %w", err)
	}
	if r.hasKey {
		if !d.version.AtLeast(2, 3) {
			return nil, fmt.Errorf("contract keys are not supported by Daml-LF %s", d.version)
		}
		if t.Key, err = d.templateKey(r.key); err != nil {
			return nil, fmt.Errorf("key: %w", err)
		}
	}
	t.Implements = make([]*lf.InterfaceInstance, len(r.implements))
	for i, b := range r.implements {
		if t.Implements[i], err = d.interfaceInstance(b); err != nil {
			return nil, fmt.Errorf("implements %d: %w", i, err)
		}
	}
	t.Choices = make([]*lf.Choice, len(r.choices))
	for i, b := range r.choices {
		if t.Choices[i], err = d.choice(tname, b); err != nil {
			return nil, fmt.Errorf("choice %d%s: %w", i, d.definitionSuffix(), err)
		}
	}
	d.definition = tname
	return &t, nil
}

func (d *decoder) requiredExpr(b []byte, present bool) (lf.Expr, error) {
	if !present {
		return nil, fmt.Errorf("missing")
	}
	return d.expr(b, false)
}

func (d *decoder) templateKey(b []byte) (*lf.TemplateKey, error) {
	var (
		k                        lf.TemplateKey
		typ, body, maint         []byte
		hasType, hasBody, hasMnt bool
		err                      error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		if m, err = f.bytes(); err != nil {
			return nil, err
		}
		switch f.num {
		case 1:
			typ, hasType = m, true
		case 4:
			body, hasBody = m, true
		case 3:
			maint, hasMnt = m, true
		default:
			return nil, unknownField("DefTemplate.DefKey", f)
		}
	}
	if !hasType {
		return nil, fmt.Errorf("no type")
	}
	if k.Type, err = d.typ(typ); err != nil {
		return nil, fmt.Errorf("type: %w", err)
	}
	if k.Body, err = d.requiredExpr(body, hasBody); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	if k.Maintainers, err = d.requiredExpr(maint, hasMnt); err != nil {
		return nil, fmt.Errorf("maintainers: %w", err)
	}
	return &k, nil
}

func (d *decoder) interfaceInstance(b []byte) (*lf.InterfaceInstance, error) {
	var (
		ii                lf.InterfaceInstance
		iface, body, loc  []byte
		hasIface, hasBody bool
		hasLoc            bool
		err               error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		if m, err = f.bytes(); err != nil {
			return nil, err
		}
		switch f.num {
		case 1:
			iface, hasIface = m, true
		case 2:
			body, hasBody = m, true
		case 3:
			loc, hasLoc = m, true
		default:
			return nil, unknownField("DefTemplate.Implements", f)
		}
	}
	if !hasIface {
		return nil, fmt.Errorf("no interface")
	}
	if ii.Interface, err = d.qualifiedName(iface); err != nil {
		return nil, fmt.Errorf("interface: %w", err)
	}
	if hasLoc {
		if ii.Location, err = d.location(loc); err != nil {
			return nil, err
		}
	}
	if !hasBody {
		return nil, fmt.Errorf("%s: no body", ii.Interface.Name)
	}
	var (
		view    []byte
		hasView bool
	)
	for len(body) > 0 {
		var f field
		if f, body, err = nextField(body); err != nil {
			return nil, err
		}
		var m []byte
		if m, err = f.bytes(); err != nil {
			return nil, err
		}
		switch f.num {
		case 1:
			var im lf.InterfaceInstanceMethod
			if im, err = d.interfaceInstanceMethod(m); err != nil {
				return nil, fmt.Errorf("%s: method %d: %w", ii.Interface.Name, len(ii.Methods), err)
			}
			ii.Methods = append(ii.Methods, im)
		case 2:
			view, hasView = m, true
		default:
			return nil, unknownField("InterfaceInstanceBody", f)
		}
	}
	if ii.View, err = d.requiredExpr(view, hasView); err != nil {
		return nil, fmt.Errorf("%s: view: %w", ii.Interface.Name, err)
	}
	return &ii, nil
}

func (d *decoder) interfaceInstanceMethod(b []byte) (lf.InterfaceInstanceMethod, error) {
	var (
		name     int32
		val      []byte
		hasValue bool
		err      error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return lf.InterfaceInstanceMethod{}, err
		}
		switch f.num {
		case 1:
			name, err = f.int32()
		case 2:
			val, err = f.bytes()
			hasValue = true
		default:
			err = unknownField("InterfaceInstanceMethod", f)
		}
		if err != nil {
			return lf.InterfaceInstanceMethod{}, err
		}
	}
	n, err := d.name(name)
	if err != nil {
		return lf.InterfaceInstanceMethod{}, err
	}
	e, err := d.requiredExpr(val, hasValue)
	if err != nil {
		return lf.InterfaceInstanceMethod{}, fmt.Errorf("%s: %w", n, err)
	}
	return lf.InterfaceInstanceMethod{Name: n, Value: e}, nil
}

// rawChoice is the TemplateChoice message split into its fields.
type rawChoice struct {
	name, self                                  int32
	consuming                                   bool
	location, controllers, observers, argBinder []byte
	retType, update, authorizers                []byte
	hasLocation, hasControllers, hasObservers   bool
	hasArg, hasRet, hasUpdate, hasAuthorizers   bool
}

// choice decodes a TemplateChoice of template or interface owner.
func (d *decoder) choice(owner string, b []byte) (*lf.Choice, error) {
	var (
		r   rawChoice
		err error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		switch f.num {
		case 2:
			r.name, err = f.int32()
		case 10:
			r.self, err = f.int32()
		case 3:
			r.consuming, err = f.bool()
		case 1:
			r.location, err = f.bytes()
			r.hasLocation = true
		case 4:
			r.controllers, err = f.bytes()
			r.hasControllers = true
		case 5:
			r.observers, err = f.bytes()
			r.hasObservers = true
		case 6:
			r.argBinder, err = f.bytes()
			r.hasArg = true
		case 8:
			r.retType, err = f.bytes()
			r.hasRet = true
		case 9:
			r.update, err = f.bytes()
			r.hasUpdate = true
		case 1001:
			r.authorizers, err = f.bytes()
			r.hasAuthorizers = true
		default:
			err = unknownField("TemplateChoice", f)
		}
		if err != nil {
			return nil, err
		}
	}
	c := lf.Choice{Consuming: r.consuming}
	if c.Name, err = d.name(r.name); err != nil {
		return nil, err
	}
	d.startDefinition(owner + ":" + c.Name)
	if c.SelfBinder, err = d.name(r.self); err != nil {
		return nil, fmt.Errorf("self binder: %w", err)
	}
	if r.hasLocation {
		if c.Location, err = d.location(r.location); err != nil {
			return nil, err
		}
	}
	if !r.hasArg {
		return nil, fmt.Errorf("no argument binder")
	}
	if c.ArgBinder, err = d.binder(r.argBinder); err != nil {
		return nil, fmt.Errorf("argument binder: %w", err)
	}
	if !r.hasRet {
		return nil, fmt.Errorf("no return type")
	}
	if c.ReturnType, err = d.typ(r.retType); err != nil {
		return nil, fmt.Errorf("return type: %w", err)
	}
	if c.Controllers, err = d.requiredExpr(r.controllers, r.hasControllers); err != nil {
		return nil, fmt.Errorf("controllers: %w", err)
	}
	if c.Observers, err = d.requiredExpr(r.observers, r.hasObservers); err != nil {
		return nil, fmt.Errorf("observers: %w", err)
	}
	if r.hasAuthorizers {
		if c.Authorizers, err = d.expr(r.authorizers, false); err != nil {
			return nil, fmt.Errorf("authorizers: %w", err)
		}
	}
	if c.Update, err = d.requiredExpr(r.update, r.hasUpdate); err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	return &c, nil
}

// rawInterface is the DefInterface message split into its fields.
type rawInterface struct {
	name, param          int32
	location, view       []byte
	hasLocation, hasView bool
	methods, choices     [][]byte
	requires             [][]byte
}

func (d *decoder) iface(b []byte) (*lf.Interface, error) {
	d.definition = ""
	var (
		r   rawInterface
		err error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		if f.num == 2 || f.num == 4 {
			var i int32
			if i, err = f.int32(); err != nil {
				return nil, err
			}
			if f.num == 2 {
				r.name = i
			} else {
				r.param = i
			}
			continue
		}
		var m []byte
		if m, err = f.bytes(); err != nil {
			return nil, err
		}
		switch f.num {
		case 1:
			r.location, r.hasLocation = m, true
		case 3:
			r.methods = append(r.methods, m)
		case 5:
			r.choices = append(r.choices, m)
		case 6:
			r.view, r.hasView = m, true
		case 7:
			r.requires = append(r.requires, m)
		default:
			return nil, unknownField("DefInterface", f)
		}
	}
	var i lf.Interface
	if i.Name, err = d.dotted(r.name); err != nil {
		return nil, err
	}
	iname := i.Name.String()
	d.startDefinition(iname)
	if i.Param, err = d.name(r.param); err != nil {
		return nil, fmt.Errorf("parameter: %w", err)
	}
	if r.hasLocation {
		if i.Location, err = d.location(r.location); err != nil {
			return nil, err
		}
	}
	if !r.hasView {
		return nil, fmt.Errorf("no view type")
	}
	if i.View, err = d.typ(r.view); err != nil {
		return nil, fmt.Errorf("view type: %w", err)
	}
	for j, b := range r.requires {
		q, err := d.qualifiedName(b)
		if err != nil {
			return nil, fmt.Errorf("requires %d: %w", j, err)
		}
		i.Requires = append(i.Requires, q)
	}
	for j, b := range r.methods {
		m, err := d.interfaceMethod(b)
		if err != nil {
			return nil, fmt.Errorf("method %d: %w", j, err)
		}
		i.Methods = append(i.Methods, m)
	}
	i.Choices = make([]*lf.Choice, len(r.choices))
	for j, b := range r.choices {
		if i.Choices[j], err = d.choice(iname, b); err != nil {
			return nil, fmt.Errorf("choice %d%s: %w", j, d.definitionSuffix(), err)
		}
	}
	d.definition = iname
	return &i, nil
}

func (d *decoder) interfaceMethod(b []byte) (lf.InterfaceMethod, error) {
	var (
		m       lf.InterfaceMethod
		name    int32
		typ     []byte
		hasType bool
		err     error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return m, err
		}
		var raw []byte
		switch f.num {
		case 1:
			if raw, err = f.bytes(); err == nil {
				m.Location, err = d.location(raw)
			}
		case 2:
			name, err = f.int32()
		case 3:
			typ, err = f.bytes()
			hasType = true
		default:
			err = unknownField("InterfaceMethod", f)
		}
		if err != nil {
			return m, err
		}
	}
	if m.Name, err = d.name(name); err != nil {
		return m, err
	}
	if !hasType {
		return m, fmt.Errorf("%s: no type", m.Name)
	}
	if m.Type, err = d.typ(typ); err != nil {
		return m, fmt.Errorf("%s: %w", m.Name, err)
	}
	return m, nil
}
