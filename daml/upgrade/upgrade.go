// Package upgrade checks that a Daml-LF package is a valid upgrade of an
// earlier version of the same package name, with the rules of Canton's
// upgrade type checker (daml-lf/validation Upgrading.scala) that concern a
// package's serializable interface, and orders package versions.
//
// What Check verifies, for a package past and its successor present:
//
//   - present's Daml-LF version is not older than past's;
//   - every module, template, choice and serializable data type of past is in
//     present;
//   - a record keeps its fields, in order and with the same types, and may
//     only add fields of Optional type at its end; a variant or enum keeps
//     its constructors in order (a variant's with the same argument types)
//     and may only add constructors at its end; a data type keeps its
//     variety (record, variant, enum), its number of type parameters and its
//     serializability;
//   - a template keeps its key type (no key added or removed); a choice keeps
//     its return type (its argument is checked as a data type);
//   - past's interfaces and exceptions are not redefined by present
//     (Canton forbids upgrading them).
//
// Types are compared modulo upgrades: a type constructor of one package
// equals the same module and name in a package of the same package name.
//
// What it does not verify (Canton does): the types of interface instances
// and views, the origin of records when a type moved between packages, the
// versions of dependencies (a dependency of present older than past's), and
// the checks of type-class instances. A package Canton refuses for those
// reasons is accepted here.
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

// Check reports why present cannot upgrade past (nil when it can).
func Check(past, present *lf.Package, name NameOf) error {
	return CheckContext(context.Background(), past, present, name)
}

// CheckContext is Check that stops when ctx ends, with ctx's error.
//
// Types are compared once per pair of type nodes: two versions of a
// package whose types share parts (an interned type naming the one before
// it twice, forty times over) compare in the time of their nodes, not of
// their 2^40 leaves.
func CheckContext(ctx context.Context, past, present *lf.Package, name NameOf) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c := checker{past: past, present: present, name: name, ctx: ctx, equal: map[[2]lf.TypeNode]bool{}}
	err := c.check()
	if c.err != nil {
		return c.err
	}
	return err
}

type checker struct {
	past, present *lf.Package
	name          NameOf

	ctx   context.Context
	err   error                   // ctx's error, once seen
	steps int                     // type comparisons since ctx was last looked at
	equal map[[2]lf.TypeNode]bool // typeEqual's answers by pair of nodes
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
	if c.present.LanguageVersion.Major == c.past.LanguageVersion.Major && c.present.LanguageVersion.Minor < c.past.LanguageVersion.Minor {
		return fail("The upgraded package uses an older LF version (%s < %s)", c.present.LanguageVersion, c.past.LanguageVersion)
	}
	for _, pm := range c.past.Modules {
		nm := c.present.Module(pm.Name.String())
		if nm == nil {
			if moduleHasSerializable(pm) {
				return fail("Module %s appears in package that is being upgraded, but does not appear in the upgrading package.", pm.Name)
			}
			continue
		}
		if err := c.module(pm, nm); err != nil {
			return err
		}
	}
	return nil
}

func moduleHasSerializable(m *lf.Module) bool {
	if len(m.Templates) > 0 {
		return true
	}
	for _, d := range m.DataTypes {
		if d.Serializable {
			return true
		}
	}
	return false
}

func (c *checker) module(pm, nm *lf.Module) error {
	for _, i := range pm.Interfaces {
		if nm.Interface(i.Name.String()) != nil {
			return fail("Tried to upgrade interface %s, but interfaces cannot be upgraded. They should be removed in any upgrading package.", i.Name)
		}
	}
	for _, x := range pm.Exceptions {
		if nm.Exception(x.Name.String()) != nil {
			return fail("Tried to upgrade exception %s, but exceptions cannot be upgraded. They should be removed in any upgrading package.", x.Name)
		}
	}
	for _, pt := range pm.Templates {
		nt := nm.Template(pt.Name.String())
		if nt == nil {
			return fail("Template %s appears in package that is being upgraded, but does not appear in the upgrading package.", pt.Name)
		}
		if err := c.template(pm, pt, nt); err != nil {
			return err
		}
	}
	for _, pd := range pm.DataTypes {
		if !pd.Serializable || pd.Kind == lf.DataInterface {
			continue
		}
		nd := nm.DataType(pd.Name.String())
		if nd == nil {
			return fail("Data type %s appears in package that is being upgraded, but does not appear in the upgrading package.", pd.Name)
		}
		if err := c.dataType(origin(pm, pd), pd, nd); err != nil {
			return err
		}
	}
	return nil
}

func origin(m *lf.Module, d *lf.DataType) string {
	if t := m.Template(d.Name.String()); t != nil {
		return "template " + d.Name.String()
	}
	return "data type " + m.Name.String() + ":" + d.Name.String()
}

func (c *checker) template(pm *lf.Module, pt, nt *lf.Template) error {
	switch {
	case pt.Key != nil && nt.Key == nil:
		return fail("The upgraded template %s cannot remove its key.", pt.Name)
	case pt.Key == nil && nt.Key != nil:
		return fail("The upgraded template %s cannot add a key.", pt.Name)
	case pt.Key != nil && !c.typeEqual(pt.Key.Type, nt.Key.Type):
		return fail("The upgraded template %s cannot change its key type.", pt.Name)
	}
	for _, pc := range pt.Choices {
		nc := nt.Choice(pc.Name)
		if nc == nil {
			return fail("Choice %s appears in package that is being upgraded, but does not appear in the upgrading package.", pc.Name)
		}
		if !c.typeUpgrades(pc.ReturnType, nc.ReturnType) {
			return fail("The upgraded choice %s cannot change its return type.", pc.Name)
		}
	}
	for _, pi := range pt.Implements {
		found := false
		for _, ni := range nt.Implements {
			if c.conEqual(pi.Interface, ni.Interface) {
				found = true
			}
		}
		if !found {
			return fail("Implementation of interface %s by template %s appears in package that is being upgraded, but does not appear in this package.", pi.Interface, pt.Name)
		}
	}
	return nil
}

func (c *checker) dataType(origin string, pd, nd *lf.DataType) error {
	if !nd.Serializable {
		return fail("The upgraded %s was serializable and is now unserializable. Datatypes cannot change their serializability via upgrades.", origin)
	}
	if len(pd.Params) != len(nd.Params) {
		return fail("The upgraded %s has changed the number of type variables it has.", origin)
	}
	if pd.Kind != nd.Kind {
		return fail("The upgraded data type %s has changed from a %s to a %s. Datatypes cannot change variety via upgrades.", pd.Name, pd.Kind, nd.Kind)
	}
	switch pd.Kind {
	case lf.DataRecord:
		if len(nd.Fields) < len(pd.Fields) {
			return fail("The upgraded %s is missing some of its original fields.", origin)
		}
		for i, f := range pd.Fields {
			if nd.Fields[i].Name != f.Name {
				if hasField(nd.Fields, f.Name) {
					return fail("The upgraded %s has changed the order of its fields - any new fields must be added at the end of the record.", origin)
				}
				return fail("The upgraded %s is missing some of its original fields.", origin)
			}
			if !c.typeEqual(f.Type, nd.Fields[i].Type) {
				return fail("The upgraded %s has changed the types of some of its original fields.", origin)
			}
		}
		for _, f := range nd.Fields[len(pd.Fields):] {
			if !isOptional(f.Type) {
				return fail("The upgraded %s has added new fields, but those fields are not Optional.", origin)
			}
		}
	case lf.DataVariant:
		if len(nd.Fields) < len(pd.Fields) {
			return fail("The upgraded %s has removed an existing variant.", origin)
		}
		for i, f := range pd.Fields {
			if nd.Fields[i].Name != f.Name {
				if hasField(nd.Fields, f.Name) {
					return fail("The upgraded %s has changed the order of its variants - any new variant must be added at the end of the variant.", origin)
				}
				return fail("The upgraded %s has removed an existing variant.", origin)
			}
			if !c.typeEqual(f.Type, nd.Fields[i].Type) {
				return fail("The upgraded %s has changed the type of a variant.", origin)
			}
		}
	case lf.DataEnum:
		if len(nd.EnumCons) < len(pd.EnumCons) {
			return fail("The upgraded %s has removed an existing variant.", origin)
		}
		for i, con := range pd.EnumCons {
			if nd.EnumCons[i] != con {
				return fail("The upgraded %s has changed the order of its variants - any new variant must be added at the end of the enum.", origin)
			}
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

func isOptional(t lf.Type) bool {
	head, args := lf.SplitApp(t)
	b, ok := head.(lf.TBuiltin)
	return ok && b.Builtin == lf.BuiltinOptional && len(args) == 1
}

// typeUpgrades reports whether a choice's return type may change from past
// to present: equal modulo upgrades.
func (c *checker) typeUpgrades(past, present lf.Type) bool { return c.typeEqual(past, present) }

// conEqual compares type constructors modulo upgrades: the same module and
// name, in the same package or in packages of the same name.
func (c *checker) conEqual(a, b lf.TypeConName) bool {
	if !a.Module.Equal(b.Module) || !a.Name.Equal(b.Name) {
		return false
	}
	if a.Package == b.Package {
		return true
	}
	na, nb := c.pkgName(a.Package), c.pkgName(b.Package)
	return na != "" && na == nb
}

func (c *checker) pkgName(id lf.PackageID) string {
	switch id {
	case c.past.ID:
		return c.past.Name
	case c.present.ID:
		return c.present.Name
	}
	if c.name != nil {
		return c.name(id)
	}
	return ""
}

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
		return ok && x.Name == y.Name
	case lf.TNat:
		y, ok := b.(lf.TNat)
		return ok && x.N == y.N
	case lf.TBuiltin:
		y, ok := b.(lf.TBuiltin)
		return ok && x.Builtin == y.Builtin
	case lf.TCon:
		y, ok := b.(lf.TCon)
		return ok && c.conEqual(x.Con, y.Con)
	case lf.TSyn:
		y, ok := b.(lf.TSyn)
		if !ok || !c.conEqual(x.Syn, y.Syn) || len(x.Args) != len(y.Args) {
			return false
		}
		for i := range x.Args {
			if !c.typeEqual(x.Args[i], y.Args[i]) {
				return false
			}
		}
		return true
	case lf.TApp:
		y, ok := b.(lf.TApp)
		return ok && c.typeEqual(x.Fun, y.Fun) && c.typeEqual(x.Arg, y.Arg)
	case lf.TStruct:
		y, ok := b.(lf.TStruct)
		if !ok || len(x.Fields) != len(y.Fields) {
			return false
		}
		for i := range x.Fields {
			if x.Fields[i].Name != y.Fields[i].Name || !c.typeEqual(x.Fields[i].Type, y.Fields[i].Type) {
				return false
			}
		}
		return true
	case lf.TForall:
		y, ok := b.(lf.TForall)
		return ok && x.Var.Name == y.Var.Name && c.typeEqual(x.Body, y.Body)
	}
	return false
}
