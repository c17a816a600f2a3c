package archive

import (
	"bytes"
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/internal/pbwire"
)

// This file decodes interned strings and dotted names, identifiers,
// references to packages, modules and definitions, and locations.

// str returns interned string i.
func (d *decoder) str(i int32) (string, error) {
	if i < 0 || int(i) >= len(d.strings) {
		return "", fmt.Errorf("interned string index %d out of range (table has %d)", i, len(d.strings))
	}
	return d.strings[i], nil
}

// name returns interned string i, which must be an identifier:
// [A-Za-z_$][A-Za-z0-9_$]*, at most 1000 characters.
func (d *decoder) name(i int32) (string, error) {
	s, err := d.str(i)
	if err != nil {
		return "", err
	}
	switch d.nameOK[i] {
	case nameValid:
		return s, nil
	case nameInvalid:
		return "", fmt.Errorf("interned string %d (%q) is not an identifier", i, s)
	}
	if !isIdentifier(s) {
		d.nameOK[i] = nameInvalid
		return "", fmt.Errorf("interned string %d (%q) is not an identifier", i, s)
	}
	d.nameOK[i] = nameValid
	return s, nil
}

const (
	nameUnchecked = iota
	nameValid
	nameInvalid
)

func isIdentifier(s string) bool {
	if s == "" || len(s) > 1000 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isPackageID reports whether s can be a package id: 1 to 64 characters of
// [A-Za-z0-9_ -].
func isPackageID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ' ') {
			return false
		}
	}
	return true
}

// dotted returns interned dotted name i.
func (d *decoder) dotted(i int32) (lf.DottedName, error) {
	if i < 0 || int(i) >= len(d.dottedNames) {
		return nil, fmt.Errorf("interned dotted name index %d out of range (table has %d)", i, len(d.dottedNames))
	}
	return d.dottedNames[i], nil
}

// decodeDottedNames decodes the InternedDottedName table: each entry a
// list of interned identifiers.
func (d *decoder) decodeDottedNames(entries [][]byte) error {
	d.dottedNames = slices.Grow(d.sc.dotted[:0], len(entries))[:len(entries)]
	d.sc.dotted = d.dottedNames
	var segs []int32
	for i, b := range entries {
		segs = segs[:0]
		for len(b) > 0 {
			f, rest, err := nextField(b)
			if err != nil {
				return fmt.Errorf("interned dotted name %d: %w", i, err)
			}
			b = rest
			if f.Num != 1 {
				return fmt.Errorf("interned dotted name %d: %w", i, unknownField("InternedDottedName", f))
			}
			if segs, err = f.Int32s(segs); err != nil {
				return fmt.Errorf("interned dotted name %d: %w", i, err)
			}
		}
		if len(segs) == 0 {
			return fmt.Errorf("interned dotted name %d has no segments", i)
		}
		name := lf.DottedName(d.slabs.segments.many(len(segs)))
		for j, s := range segs {
			seg, err := d.name(s)
			if err != nil {
				return fmt.Errorf("interned dotted name %d: %w", i, err)
			}
			name[j] = seg
		}
		d.dottedNames[i] = name
	}
	return nil
}

// packageRef decodes a SelfOrImportedPackageId: the package itself, an
// interned package-id string (LF 2.1, and stable packages later), or an
// index in the package-import table (LF 2.2+).
func (d *decoder) packageRef(b []byte) (lf.PackageID, error) {
	var (
		id  lf.PackageID
		set bool
	)
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return "", err
		}
		b = rest
		var i int32
		switch f.Num {
		case 1:
			_, err = f.Delimited()
			id, set = d.pkgID, true
		case 3:
			if i, err = f.Int32(); err != nil {
				break
			}
			var s string
			if s, err = d.str(i); err != nil {
				break
			}
			if !d.depsByString[i] { // first use of this string as a package id
				if !isPackageID(s) {
					err = fmt.Errorf("interned string %d (%q) is not a package id", i, s)
					break
				}
				// 2.dev is exempt: archives of earlier dev compilers (such
				// as DamlDefinitionsServiceMain.dar) name every package
				// this way.
				if d.version.AtLeast(2, 2) && !d.version.IsDev() && !stablePackages[s] {
					err = fmt.Errorf("package %s is referred to by interned string, which Daml-LF %s allows only for stable packages; others go through the import table", s, d.version)
					break
				}
				d.depsByString[i] = true
			}
			id, set = lf.PackageID(s), true
		case 4:
			if i, err = f.Int32(); err != nil {
				break
			}
			if !d.importsDeclared {
				err = fmt.Errorf("package import index %d, but the package has no import table", i)
				break
			}
			if i < 0 || int(i) >= len(d.imports) {
				err = fmt.Errorf("package import index %d out of range (table has %d)", i, len(d.imports))
				break
			}
			id, set = d.imports[i], true
			d.depsByImport[i] = true
		default:
			err = unknownField("SelfOrImportedPackageId", f)
		}
		if err != nil {
			return "", err
		}
	}
	if !set {
		return "", fmt.Errorf("package reference has no package")
	}
	return id, nil
}

// moduleRef decodes a ModuleId.
func (d *decoder) moduleRef(b []byte) (lf.PackageID, lf.ModuleName, error) {
	var (
		pkg    []byte
		hasPkg bool
		mod    int32
	)
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return "", nil, err
		}
		b = rest
		switch f.Num {
		case 1:
			pkg, err = f.Delimited()
			hasPkg = true
		case 2:
			mod, err = f.Int32()
		default:
			err = unknownField("ModuleId", f)
		}
		if err != nil {
			return "", nil, err
		}
	}
	if !hasPkg {
		return "", nil, fmt.Errorf("module reference has no package")
	}
	id, err := d.packageRef(pkg)
	if err != nil {
		return "", nil, err
	}
	m, err := d.dotted(mod)
	return id, m, err
}

// qualifiedName decodes a TypeConId, TypeSynId or ValueId: a ModuleId
// (field 1) and an interned dotted name (field 2).
func (d *decoder) qualifiedName(b []byte) (lf.QualifiedName, error) {
	if q, ok := d.qualifiedNameFast(b); ok {
		return q, nil
	}
	return d.qualifiedNameGeneral(b)
}

// qualifiedNameGeneral decodes any encoding of a reference.
func (d *decoder) qualifiedNameGeneral(b []byte) (lf.QualifiedName, error) {
	var (
		mod    []byte
		hasMod bool
		name   int32
	)
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return lf.QualifiedName{}, err
		}
		b = rest
		switch f.Num {
		case 1:
			mod, err = f.Delimited()
			hasMod = true
		case 2:
			name, err = f.Int32()
		default:
			err = unknownField("TypeConId", f)
		}
		if err != nil {
			return lf.QualifiedName{}, err
		}
	}
	if !hasMod {
		return lf.QualifiedName{}, fmt.Errorf("reference has no module")
	}
	pkg, m, err := d.moduleRef(mod)
	if err != nil {
		return lf.QualifiedName{}, err
	}
	n, err := d.dotted(name)
	if err != nil {
		return lf.QualifiedName{}, err
	}
	return lf.QualifiedName{Package: pkg, Module: m, Name: n}, nil
}

// location decodes a Location; it is nil when the archive gives no range.
// A location without a module is in the module being decoded.
func (d *decoder) location(b []byte) (*lf.Location, error) {
	loc, ok, err := d.locationValue(b)
	if !ok || err != nil {
		return nil, err
	}
	p := d.slabs.locations.one()
	*p = loc
	return p, nil
}

// locationValue decodes a Location; ok is false when it has no range.
func (d *decoder) locationValue(b []byte) (loc lf.Location, ok bool, err error) {
	var (
		mod      []byte
		hasMod   bool
		rng      []byte
		hasRange bool
	)
	for len(b) > 0 {
		var (
			f    field
			rest []byte
		)
		if f, rest, err = nextField(b); err != nil {
			return loc, false, fmt.Errorf("location: %w", err)
		}
		b = rest
		switch f.Num {
		case 1:
			mod, err = f.Delimited()
			hasMod = true
		case 2:
			rng, err = f.Delimited()
			hasRange = true
		default:
			err = unknownField("Location", f)
		}
		if err != nil {
			return loc, false, fmt.Errorf("location: %w", err)
		}
	}
	if !hasRange {
		return loc, false, nil
	}
	loc = lf.Location{Package: d.pkgID, Module: d.module, Definition: d.definition}
	if hasMod {
		// Consecutive locations are nearly always in the same module.
		if !bytes.Equal(mod, d.lastLocModule.raw) || d.lastLocModule.raw == nil {
			pkg, m, err := d.moduleRef(mod)
			if err != nil {
				return loc, false, fmt.Errorf("location: %w", err)
			}
			d.lastLocModule.raw, d.lastLocModule.pkg, d.lastLocModule.module = mod, pkg, m
		}
		loc.Package, loc.Module = d.lastLocModule.pkg, d.lastLocModule.module
	}
	var pos [4]int32
	for len(rng) > 0 {
		if num, typ, v, n := pbwire.Header(rng); n > 0 && typ == protowire.VarintType && num <= 4 {
			pos[num-1] = int32(v)
			rng = rng[n:]
			continue
		}
		var (
			f    field
			rest []byte
		)
		if f, rest, err = nextField(rng); err != nil {
			return loc, false, fmt.Errorf("location range: %w", err)
		}
		rng = rest
		if f.Num < 1 || f.Num > 4 {
			return loc, false, fmt.Errorf("location: %w", unknownField("Location.Range", f))
		}
		if pos[f.Num-1], err = f.Int32(); err != nil {
			return loc, false, fmt.Errorf("location range: %w", err)
		}
	}
	loc.Start = lf.Position{Line: pos[0], Col: pos[1]}
	loc.End = lf.Position{Line: pos[2], Col: pos[3]}
	return loc, true, nil
}

// qualifiedNameFast decodes the encoding of a reference that compilers
// write for nearly every one: the module id (a package reference, then the
// module's dotted name) and then the dotted name, each field once and in
// that order, indices of one or two bytes, a package named by an interned
// string already checked, by the import table or as the package itself. It
// reports false for anything else, having changed nothing, and
// qualifiedName's general path decodes it (and reports any error).
func (d *decoder) qualifiedNameFast(b []byte) (lf.QualifiedName, bool) {
	mod, rest, ok := fastMessage(b, 0x0a) // ModuleId, field 1
	if !ok {
		return lf.QualifiedName{}, false
	}
	name, ok := fastIndex(rest, 0x10) // name, field 2
	if !ok || name >= len(d.dottedNames) {
		return lf.QualifiedName{}, false
	}
	pkg, rest, ok := fastMessage(mod, 0x0a) // SelfOrImportedPackageId, field 1
	if !ok {
		return lf.QualifiedName{}, false
	}
	module, ok := fastIndex(rest, 0x10) // module name, field 2
	if !ok || module >= len(d.dottedNames) {
		return lf.QualifiedName{}, false
	}
	var id lf.PackageID
	switch {
	case len(pkg) == 2 && pkg[0] == 0x0a && pkg[1] == 0: // self, an empty message
		id = d.pkgID
	case len(pkg) > 0 && pkg[0] == 0x18: // interned string, field 3
		i, ok := fastIndex(pkg, 0x18)
		if !ok || i >= len(d.strings) || !d.depsByString[i] {
			return lf.QualifiedName{}, false
		}
		id = lf.PackageID(d.strings[i])
	case len(pkg) > 0 && pkg[0] == 0x20: // import, field 4
		i, ok := fastIndex(pkg, 0x20)
		if !ok || i >= len(d.imports) || !d.importsDeclared {
			return lf.QualifiedName{}, false
		}
		id = d.imports[i]
		d.depsByImport[i] = true
	default:
		return lf.QualifiedName{}, false
	}
	return lf.QualifiedName{Package: id, Module: d.dottedNames[module], Name: d.dottedNames[name]}, true
}

// fastMessage splits b into the length-delimited field with the one-byte
// tag and a length below 128 at its start, and the rest.
func fastMessage(b []byte, tag byte) (m, rest []byte, ok bool) {
	if len(b) < 2 || b[0] != tag || b[1] >= 0x80 || len(b)-2 < int(b[1]) {
		return nil, nil, false
	}
	end := 2 + int(b[1])
	return b[2:end], b[end:], true
}

// fastIndex decodes b when it is exactly one varint field with the
// one-byte tag and a value of one or two bytes.
func fastIndex(b []byte, tag byte) (int, bool) {
	switch {
	case len(b) == 2 && b[0] == tag && b[1] < 0x80:
		return int(b[1]), true
	case len(b) == 3 && b[0] == tag && b[1] >= 0x80 && b[2] < 0x80:
		return int(b[1]&0x7f) | int(b[2])<<7, true
	}
	return 0, false
}
