package archive

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/internal/pbwire"
)

// decoder holds the state of decoding one Daml-LF 2 package: its interning
// tables, resolved as far as they can be ahead of the modules, and where in
// the package it is.
type decoder struct {
	pkgID    lf.PackageID
	version  lf.LanguageVersion
	maxDepth int
	depth    int

	// exprCount counts the expressions decoded, which may not exceed
	// exprBudget: interned expressions are decoded anew for each definition
	// that uses them, and a hostile archive could share a deep one among
	// many definitions to make the work quadratic in its size.
	exprCount, exprBudget int
	size                  int // of the Package message, in bytes

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

	module lf.ModuleName
	// definition names the definition whose locations are being decoded
	// ("Ping", "Ping:Respond"); defName and choiceName name the top-level
	// definition and the choice being decoded, for errors.
	definition, defName, choiceName string

	// lastLocModule is the module reference of the last location decoded.
	sc *scratch // the tables above and the split messages are in it

	// lazy, with Options.LazyValues, decodes the values' bodies later.
	lazy *lazyValues

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
		fields     slab[lf.Field]
		typeVars   slab[lf.TypeVar]
		tyAbss     slab[lf.ETyAbs]
		lets       slab[lf.ELet]
		bindings   slab[lf.Binding]
		cases      slab[lf.ECase]
		alts       slab[lf.CaseAlt]
		structCons slab[lf.EStructCon]
		values     slab[lf.Value]
		locations  slab[lf.Location]
		segments   slab[string]
		lazyBodies slab[lazyBody]
	}
}

// enter counts one level of nesting and refuses to go deeper than the
// limit; leave undoes it.
func (d *decoder) enter() error {
	d.depth++
	if d.depth > d.maxDepth {
		return fmt.Errorf("%w: expressions and types nest more than %d deep", ErrTooDeep, d.maxDepth)
	}
	return nil
}

func (d *decoder) leave() { d.depth-- }

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

// splitPackage splits b into p, reusing p's lists.
func splitPackage(b []byte, p *rawPackage) error {
	var (
		err error
		n   [8]int
	)
	countFields(b, n[:])
	*p = rawPackage{
		modules: slices.Grow(p.modules[:0], n[1]), strings: slices.Grow(p.strings[:0], n[2]),
		dottedNames: slices.Grow(p.dottedNames[:0], n[3]), types: slices.Grow(p.types[:0], n[5]),
		kinds: slices.Grow(p.kinds[:0], n[6]), exprs: slices.Grow(p.exprs[:0], n[7]),
	}
	for len(b) > 0 {
		var f field
		if num, typ, v, n := pbwire.Header(b); n > 0 && typ == protowire.BytesType && uint64(len(b)-n) >= v {
			end := n + int(v)
			f, b = field{Num: num, Type: typ, Bytes: b[n:end]}, b[end:]
		} else if f, b, err = nextField(b); err != nil {
			return err
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return err
		}
		switch f.Num {
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
			if p.noImportsReason, err = f.Text(); err != nil {
				return err
			}
			p.hasNoImportsReason, p.hasImports = true, false
		case 9:
			p.imports, p.hasImports = m, true
			p.hasNoImportsReason = false
		default:
			return unknownField("Package", f)
		}
	}
	return nil
}

// scratch holds what a decoder needs only while it decodes a package: the
// split Package message and the interning tables (the strings, names and
// types in them belong to the package; the tables do not). DecodeDar hands
// one to each goroutine for all the dalfs it decodes, so that the tables
// are allocated once per DAR rather than once per package.
type scratch struct {
	raw       rawPackage
	module    rawModule
	strings   []string
	nameOK    []uint8
	vars      []*lf.EVar
	deps      []bool
	dotted    []lf.DottedName
	kinds     []lf.Kind
	types     []lf.Type
	exprCache []lf.Expr
	exprGen   []uint32
}

// release drops every reference the tables hold to the last package
// decoded (and to the dalf it was decoded from), keeping their arrays.
func (sc *scratch) release() {
	clearAll := func(s [][]byte) { clear(s[:cap(s)]) }
	clearAll(sc.raw.modules)
	clearAll(sc.raw.strings)
	clearAll(sc.raw.dottedNames)
	clearAll(sc.raw.types)
	clearAll(sc.raw.kinds)
	clearAll(sc.raw.exprs)
	sc.raw = rawPackage{modules: sc.raw.modules[:0], strings: sc.raw.strings[:0], dottedNames: sc.raw.dottedNames[:0],
		types: sc.raw.types[:0], kinds: sc.raw.kinds[:0], exprs: sc.raw.exprs[:0]}
	m := &sc.module
	for _, s := range [][][]byte{m.synonyms, m.dataTypes, m.values, m.templates, m.exceptions, m.interfaces} {
		clearAll(s)
	}
	m.flags = nil
	clear(sc.strings[:cap(sc.strings)])
	clear(sc.vars[:cap(sc.vars)])
	clear(sc.dotted[:cap(sc.dotted)])
	clear(sc.kinds[:cap(sc.kinds)])
	clear(sc.types[:cap(sc.types)])
	clear(sc.exprCache[:cap(sc.exprCache)])
}

// zeroed returns s resized to n zero elements, in s's array when it is
// large enough.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func decodePackage(id lf.PackageID, v lf.LanguageVersion, b []byte, opts Options, sc *scratch) (*lf.Package, error) {
	raw := &sc.raw
	if err := splitPackage(b, raw); err != nil {
		return nil, err
	}
	// Real packages decode to at most 0.1 expressions per byte.
	d := &decoder{pkgID: id, version: v, maxDepth: opts.MaxDepth, size: len(b), exprBudget: 4*len(b) + 1<<16, sc: sc}
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth
	}
	if opts.LazyValues {
		d.lazy = new(lazyValues)
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
	d.strings = slices.Grow(sc.strings[:0], len(raw.strings))[:len(raw.strings)]
	for i, off := 0, 0; i < len(raw.strings); i++ {
		d.strings[i] = all.String()[off : off+len(raw.strings[i])]
		off += len(raw.strings[i])
	}
	d.nameOK = zeroed(sc.nameOK, len(d.strings))
	d.vars = zeroed(sc.vars, len(d.strings))
	d.depsByString = zeroed(sc.deps, len(d.strings))
	sc.strings, sc.nameOK, sc.vars, sc.deps = d.strings, d.nameOK, d.vars, d.depsByString
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
	d.exprCache = zeroed(sc.exprCache, len(raw.exprs))
	d.exprGen = zeroed(sc.exprGen, len(raw.exprs))
	sc.exprCache, sc.exprGen = d.exprCache, d.exprGen
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
	if d.lazy != nil {
		p.DirectDeps = append(p.DirectDeps, d.mayReferTo()...)
		d.lazy.keep(d)
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
		switch f.Num {
		case 1:
			name, err = f.Int32()
		case 2:
			version, err = f.Int32()
		case 3:
			upgraded, err = f.Delimited()
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
			if f.Num != 1 {
				return unknownField("UpgradedPackageId", f)
			}
			if i, err = f.Int32(); err != nil {
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
		if f.Num != 1 {
			return fmt.Errorf("package imports: %w", unknownField("PackageImports", f))
		}
		s, err := f.Text()
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
	// The lists of the previous module are reused: they are needed only
	// while the module is decoded.
	var n [9]int
	countFields(b, n[:])
	r := &d.sc.module
	*r = rawModule{
		synonyms: slices.Grow(r.synonyms[:0], n[3]), dataTypes: slices.Grow(r.dataTypes[:0], n[4]),
		values: slices.Grow(r.values[:0], n[5]), templates: slices.Grow(r.templates[:0], n[6]),
		exceptions: slices.Grow(r.exceptions[:0], n[7]), interfaces: slices.Grow(r.interfaces[:0], n[8]),
	}
	var err error
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		if f.Num == 1 {
			if r.name, err = f.Int32(); err != nil {
				return nil, err
			}
			continue
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
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
			return nil, fmt.Errorf("value %d%s: %w", i, nameSuffix(d.defName), err)
		}
	}
	m.Templates = make([]*lf.Template, len(r.templates))
	for i, b := range r.templates {
		if m.Templates[i], err = d.template(b); err != nil {
			return nil, fmt.Errorf("template %d%s: %w", i, nameSuffix(d.defName), err)
		}
	}
	m.Exceptions = make([]*lf.Exception, len(r.exceptions))
	for i, b := range r.exceptions {
		if m.Exceptions[i], err = d.exception(b); err != nil {
			return nil, fmt.Errorf("exception %d%s: %w", i, nameSuffix(d.defName), err)
		}
	}
	m.Interfaces = make([]*lf.Interface, len(r.interfaces))
	for i, b := range r.interfaces {
		if m.Interfaces[i], err = d.iface(b); err != nil {
			return nil, fmt.Errorf("interface %d%s: %w", i, nameSuffix(d.defName), err)
		}
	}
	mod, dup := lf.NewModule(m)
	if dup != "" {
		return nil, fmt.Errorf("%s is defined twice", dup)
	}
	return mod, nil
}

// nameSuffix is " (name)" for errors, or "" when the name is not known.
func nameSuffix(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

// startDefinition records the definition whose expressions follow: it names
// their locations and starts a fresh cache of interned expressions.
func (d *decoder) startDefinition(name string) {
	d.definition = name
	if d.choiceName == "" {
		d.defName = name
	}
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
		if f.Num < 1 || f.Num > 3 {
			return fmt.Errorf("feature flags: %w", unknownField("FeatureFlags", f))
		}
		if set[f.Num], err = f.Bool(); err != nil {
			return fmt.Errorf("feature flags: %w", err)
		}
	}
	if !set[1] || !set[2] || !set[3] {
		return fmt.Errorf("deprecated feature flags: forbidPartyLiterals, dontDivulgeContractIdsInCreateArguments and dontDiscloseNonConsumingChoicesToObservers must all be set")
	}
	return nil
}
