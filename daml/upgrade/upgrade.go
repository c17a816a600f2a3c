// Package upgrade checks that a Daml-LF package is a valid upgrade of an
// earlier version of the same package name, rule by rule as Canton 3.5's
// upgrade type checker (daml-lf/validation Upgrading.scala,
// TypecheckUpgrades), and orders package versions.
//
// What Check verifies, for a package past and its successor present, in
// Canton's order and with Canton's messages:
//
//  1. present's Daml-LF version is not older than past's;
//  2. every module of past is in present;
//  3. in each module: every template of past is in present, with every
//     choice (whose return type is unchanged) and its key (not added, not
//     removed, of the same type); every interface instance of past (a
//     template and the exact interface id) is in present; every
//     serializable data type of past that is not an interface's or an
//     exception's is in present, still serializable, with the same origin
//     (a template, a choice's argument, a variant constructor's record or
//     top level), the same number and kinds of type parameters and the same
//     variety; a record keeps its fields by name and type, adds only
//     Optional ones, and keeps their order; a variant keeps its
//     constructors, their argument types and their order; an enum keeps its
//     constructors and their order.
//
// Interfaces and exceptions that present keeps are not refused: Canton
// builds TriedToUpgradeIface and TriedToUpgradeException for them but does
// not raise them (waiting for a compiler flag), so Canton Coin's real chain,
// which keeps both, upgrades.
//
// Types are compared as Canton's checkType: type variables by the position
// of their binder, a type constructor equals the same module and name in a
// package of the same package name whose version is not older (in the same
// package when either is unknown); synonyms, structs and foralls never
// compare equal.
//
// What it does not verify (Canton does elsewhere): the versions of
// dependencies and the daml-prim/daml-stdlib utility-package rule of the
// participant's PackageUpgradeValidator.
package upgrade

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
)

// Error is the reason a package is not a valid upgrade, in the words of
// Canton's upgrade checker.
type Error struct{ Reason string }

func (e *Error) Error() string { return e.Reason }

func fail(format string, args ...any) error { return &Error{Reason: fmt.Sprintf(format, args...)} }

// NameOf returns the package name of a package id, "" when unknown; Check
// uses it to compare type constructors across package versions.
type NameOf func(lf.PackageID) string

// CompareVersions orders package versions as Canton's PackageVersion does:
// dot-separated non-negative integers compared segment by segment, a
// shorter version first when it is a prefix of the longer.
func CompareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, errx := strconv.ParseUint(as[i], 10, 64)
		y, erry := strconv.ParseUint(bs[i], 10, 64)
		if errx != nil || erry != nil {
			if c := strings.Compare(as[i], bs[i]); c != 0 {
				return c
			}
			continue
		}
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
	switch {
	case len(as) < len(bs):
		return -1
	case len(as) > len(bs):
		return 1
	}
	return 0
}

// SupportsUpgrades reports whether a package takes part in upgrade checks:
// a package that defines no template, interface or serializable data type
// (a utility package) does not.
func SupportsUpgrades(p *lf.Package) bool {
	for _, m := range p.Modules {
		if len(m.Templates) > 0 || len(m.Interfaces) > 0 {
			return true
		}
		for _, d := range m.DataTypes {
			if d.Serializable {
				return true
			}
		}
	}
	return false
}

// Check reports why present cannot upgrade past (nil when it can); name
// gives the package name of other packages. Without their versions the
// version rule of type constructors is not applied; CheckWith applies it.
func Check(past, present *lf.Package, name NameOf) error {
	return CheckContext(context.Background(), past, present, name)
}

// CheckContext is Check that stops when ctx ends, with ctx's error.
func CheckContext(ctx context.Context, past, present *lf.Package, name NameOf) error {
	return CheckWithContext(ctx, past, present, func(id lf.PackageID) *lf.Package {
		if name == nil {
			return nil
		}
		if n := name(id); n != "" {
			return &lf.Package{ID: id, Name: n}
		}
		return nil
	})
}

// CheckWith is Check with every package known by id (for its name and
// version), as Canton's package map.
func CheckWith(past, present *lf.Package, lookup func(lf.PackageID) *lf.Package) error {
	return CheckWithContext(context.Background(), past, present, lookup)
}

// CheckWithContext is CheckWith that stops when ctx ends, with ctx's error.
//
// Types are compared once per pair of type nodes (within one data type's
// parameters): two versions of a package whose types share parts (an
// interned type naming the one before it twice, forty times over) compare
// in the time of their nodes, not of their 2^40 leaves.
func CheckWithContext(ctx context.Context, past, present *lf.Package, lookup func(lf.PackageID) *lf.Package) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c := checker{past: past, present: present, lookup: lookup, ctx: ctx}
	err := c.check()
	if c.err != nil {
		return c.err
	}
	return err
}

type checker struct {
	past, present *lf.Package
	lookup        func(lf.PackageID) *lf.Package
	// vars maps a type parameter of the present data type to the one of
	// past at the same position, while a data type is compared.
	vars map[string]string

	ctx   context.Context
	err   error                   // ctx's error, once seen
	steps int                     // type comparisons since ctx was last looked at
	equal map[[2]lf.TypeNode]bool // typeEqual's answers by pair of nodes, for the current vars
}

// stopped reports whether ctx has ended, looking at it every 1024 steps.
func (c *checker) stopped() bool {
	if c.err != nil {
		return true
	}
	if c.steps++; c.steps%1024 == 0 && c.ctx != nil {
		c.err = c.ctx.Err()
	}
	return c.err != nil
}

func (c *checker) check() error {
	if versionLess(c.present.LanguageVersion, c.past.LanguageVersion) {
		return fail("The upgraded package uses an older LF version (%s < %s)", c.present.LanguageVersion, c.past.LanguageVersion)
	}
	for _, pm := range c.past.Modules {
		if c.present.Module(pm.Name.String()) == nil {
			return fail("Module %s appears in package that is being upgraded, but does not appear in the upgrading package.", pm.Name)
		}
	}
	for _, pm := range c.past.Modules {
		if err := c.module(pm, c.present.Module(pm.Name.String())); err != nil {
			return err
		}
	}
	return nil
}

func versionLess(a, b lf.LanguageVersion) bool {
	return a.Major < b.Major || a.Major == b.Major && a.Minor < b.Minor
}

func (c *checker) module(pm, nm *lf.Module) error {
	for _, pt := range pm.Templates {
		if nm.Template(pt.Name.String()) == nil {
			return fail("Template %s appears in package that is being upgraded, but does not appear in the upgrading package.", pt.Name)
		}
	}
	for _, pt := range pm.Templates {
		if err := c.template(pt, nm.Template(pt.Name.String())); err != nil {
			return err
		}
	}
	// Interfaces and exceptions kept by present: Canton's
	// checkContinuedIfaces and checkContinuedExceptions raise nothing.
	for _, pt := range pm.Templates {
		nt := nm.Template(pt.Name.String())
		for _, pi := range pt.Implements {
			found := false
			for _, ni := range nt.Implements {
				if ni.Interface.Equal(pi.Interface) {
					found = true
				}
			}
			if !found {
				return fail("Implementation of interface %s by template %s appears in package that is being upgraded, but does not appear in this package.", pi.Interface, pt.Name)
			}
		}
	}
	for _, pd := range pm.DataTypes {
		if !unowned(pm, pd) || !pd.Serializable {
			continue
		}
		nd := nm.DataType(pd.Name.String())
		if nd == nil || !unowned(nm, nd) {
			return fail("Data type %s appears in package that is being upgraded, but does not appear in the upgrading package.", pd.Name)
		}
	}
	for _, pd := range pm.DataTypes {
		if !unowned(pm, pd) {
			continue
		}
		nd := nm.DataType(pd.Name.String())
		if nd == nil || !unowned(nm, nd) {
			continue
		}
		if err := c.dataType(pm, nm, pd, nd); err != nil {
			return err
		}
	}
	return nil
}

// unowned reports whether a data type is neither an interface's nor an
// exception's (Canton's splitModuleDts).
func unowned(m *lf.Module, d *lf.DataType) bool {
	n := d.Name.String()
	return m.Interface(n) == nil && m.Exception(n) == nil
}

func (c *checker) template(pt, nt *lf.Template) error {
	for _, pc := range pt.Choices {
		if nt.Choice(pc.Name) == nil {
			return fail("Choice %s appears in package that is being upgraded, but does not appear in the upgrading package.", pc.Name)
		}
	}
	for _, pc := range pt.Choices {
		nc := nt.Choice(pc.Name)
		if !c.typeUpgrades(pc.ReturnType, nc.ReturnType) {
			return fail("The upgraded choice %s cannot change its return type.", nc.Name)
		}
	}
	switch {
	case pt.Key != nil && nt.Key == nil:
		return fail("The upgraded template %s cannot remove its key.", pt.Name)
	case pt.Key == nil && nt.Key != nil:
		return fail("The upgraded template %s cannot add a key.", pt.Name)
	case pt.Key != nil && !c.typeEqual(pt.Key.Type, nt.Key.Type):
		return fail("The upgraded template %s cannot change its key type.", pt.Name)
	}
	return nil
}

// origin is where a record comes from, as Canton's dataTypeOrigin: a
// template, the argument of a choice, the record of a variant constructor,
// or the top level. unified leaves out the package of a variant
// constructor's type, which may differ between versions.
func origin(m *lf.Module, name lf.DottedName) (text, unified string) {
	n := name.String()
	if m.Template(n) != nil {
		s := "template " + n
		return s, s
	}
	// A choice's argument record is named by the template's namespace
	// (its name but the last segment) and the choice's name.
	prefix, last := lf.DottedName(name[:len(name)-1]), name[len(name)-1]
	for _, t := range m.Templates {
		if t.Name[:len(t.Name)-1].Equal(prefix) && t.Choice(last) != nil {
			s := "input type of choice " + last + " on template " + t.Name.String()
			return s, s
		}
	}
	if len(prefix) > 0 {
		if v := m.DataType(prefix.String()); v != nil && v.Kind == lf.DataVariant {
			for _, f := range v.Fields {
				if f.Name != last {
					continue
				}
				head, _ := lf.SplitApp(f.Type)
				if tc, ok := head.(lf.TCon); ok {
					s := "variant constructor " + tc.Con.Name.String() + " from variant " + prefix.String()
					return s, s + " " + tc.Con.Module.String()
				}
			}
		}
	}
	s := "data type " + n
	return s, s
}

func (c *checker) dataType(pm, nm *lf.Module, pd, nd *lf.DataType) error {
	pastOrigin, pastUnified := origin(pm, pd.Name)
	org, unified := origin(nm, nd.Name)
	switch {
	case !pd.Serializable:
		return nil
	case !nd.Serializable:
		return fail("The upgraded %s was serializable and is now unserializable. Datatypes cannot change their serializability via upgrades.", org)
	case unified != pastUnified:
		return fail("The record %s has changed origin from %s to %s", pd.Name, pastOrigin, org)
	case len(pd.Params) != len(nd.Params):
		return fail("The upgraded %s has changed the number of type variables it has.", org)
	}
	c.vars = make(map[string]string, len(pd.Params))
	for i, p := range pd.Params {
		if p.Kind.String() != nd.Params[i].Kind.String() {
			return fail("The upgraded %s has changed the kind of one of its type variables.", org)
		}
		c.vars[nd.Params[i].Name] = p.Name
	}
	// The memo holds for one binding of the parameters.
	c.equal = nil
	defer func() { c.vars, c.equal = nil, nil }()
	if pd.Kind != nd.Kind {
		return fail("The upgraded data type %s has changed from a %s to a %s. Datatypes cannot change variety via upgrades.", pd.Name, pd.Kind, nd.Kind)
	}
	switch pd.Kind {
	case lf.DataRecord:
		return c.record(org, pd.Fields, nd.Fields)
	case lf.DataVariant:
		for _, f := range pd.Fields {
			if !hasField(nd.Fields, f.Name) {
				return fail("The upgraded %s has removed an existing variant.", org)
			}
		}
		for _, f := range pd.Fields {
			if !c.typeEqual(f.Type, fieldType(nd.Fields, f.Name)) {
				return fail("The upgraded %s has changed the type of a variant.", org)
			}
		}
		for i, f := range pd.Fields {
			if i < len(nd.Fields) && nd.Fields[i].Name != f.Name {
				return fail("The upgraded %s has changed the order of its variants - any new variant must be added at the end of the variant.", org)
			}
		}
	case lf.DataEnum:
		for _, con := range pd.EnumCons {
			found := false
			for _, n := range nd.EnumCons {
				if n == con {
					found = true
				}
			}
			if !found {
				return fail("The upgraded %s has removed an existing variant.", org)
			}
		}
		for i, con := range pd.EnumCons {
			if i < len(nd.EnumCons) && nd.EnumCons[i] != con {
				return fail("The upgraded %s has changed the order of its variants - any new variant must be added at the end of the enum.", org)
			}
		}
	}
	return nil
}

// record is Canton's checkFields: missing fields, then changed types, then
// new fields that are not Optional, then the order.
func (c *checker) record(org string, past, present []lf.Field) error {
	for _, f := range past {
		if !hasField(present, f.Name) {
			return fail("The upgraded %s is missing some of its original fields.", org)
		}
	}
	for _, f := range past {
		if !c.typeEqual(f.Type, fieldType(present, f.Name)) {
			return fail("The upgraded %s has changed the types of some of its original fields.", org)
		}
	}
	for _, f := range present {
		if !hasField(past, f.Name) && !isOptional(f.Type) {
			if strings.HasPrefix(org, "variant constructor ") {
				return fail("The upgraded %s has added a field.", org)
			}
			return fail("The upgraded %s has added new fields, but those fields are not Optional.", org)
		}
	}
	for i, f := range past {
		if i < len(present) && present[i].Name != f.Name {
			return fail("The upgraded %s has changed the order of its fields - any new fields must be added at the end of the record.", org)
		}
	}
	return nil
}

func hasField(fs []lf.Field, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

func fieldType(fs []lf.Field, name string) lf.Type {
	for _, f := range fs {
		if f.Name == name {
			return f.Type
		}
	}
	return nil
}

// isOptional is Canton's fieldTypeOptional: Optional applied, as written.
func isOptional(t lf.Type) bool {
	a, ok := t.(lf.TApp)
	if !ok {
		return false
	}
	b, ok := a.Fun.(lf.TBuiltin)
	return ok && b.Builtin == lf.BuiltinOptional
}

// typeUpgrades reports whether a choice's return type may change from past
// to present: equal modulo upgrades.
func (c *checker) typeUpgrades(past, present lf.Type) bool { return c.typeEqual(past, present) }

// conEqual is Canton's checkIdentifiers: the same module and name, and
// either the same package or, both packages known, packages of the same
// name of which present's is not older.
func (c *checker) conEqual(a, b lf.TypeConName) bool {
	if !a.Module.Equal(b.Module) || !a.Name.Equal(b.Name) {
		return false
	}
	if a.Package == b.Package {
		return true
	}
	pa, pb := c.pkg(a.Package), c.pkg(b.Package)
	if pa == nil || pb == nil || pa.Name != pb.Name {
		return false
	}
	return pa.Version == "" || pb.Version == "" || CompareVersions(pa.Version, pb.Version) <= 0
}

func (c *checker) pkg(id lf.PackageID) *lf.Package {
	switch id {
	case c.past.ID:
		return c.past
	case c.present.ID:
		return c.present
	}
	if c.lookup != nil {
		return c.lookup(id)
	}
	return nil
}

// typeEqual is Canton's checkType: a is past's type, b present's.
func (c *checker) typeEqual(a, b lf.Type) bool {
	if c.stopped() {
		return false
	}
	key := [2]lf.TypeNode{lf.NodeOf(a), lf.NodeOf(b)}
	if eq, ok := c.equal[key]; ok {
		return eq
	}
	eq := c.typeEqualNode(a, b)
	if c.equal == nil {
		c.equal = map[[2]lf.TypeNode]bool{}
	}
	c.equal[key] = eq
	return eq
}

func (c *checker) typeEqualNode(a, b lf.Type) bool {
	switch x := a.(type) {
	case lf.TVar:
		y, ok := b.(lf.TVar)
		if !ok {
			return false
		}
		if p, bound := c.vars[y.Name]; bound {
			return p == x.Name
		}
		_, pastBound := c.pastVar(x.Name)
		return !pastBound && x.Name == y.Name
	case lf.TNat:
		y, ok := b.(lf.TNat)
		return ok && x.N == y.N
	case lf.TBuiltin:
		y, ok := b.(lf.TBuiltin)
		return ok && x.Builtin == y.Builtin
	case lf.TCon:
		y, ok := b.(lf.TCon)
		return ok && c.conEqual(x.Con, y.Con)
	case lf.TApp:
		y, ok := b.(lf.TApp)
		return ok && c.typeEqual(x.Fun, y.Fun) && c.typeEqual(x.Arg, y.Arg)
	}
	// Synonyms, structs and foralls: Canton's checkType has no case for
	// them.
	return false
}

// pastVar reports whether name is a parameter of the past data type being
// compared.
func (c *checker) pastVar(name string) (string, bool) {
	for n, p := range c.vars {
		if p == name {
			return n, true
		}
	}
	return "", false
}
