package validate

import (
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
)

// entity is a named thing of a package, as Canton's NamedEntity: modules,
// data types and their fields and constructors, synonyms, interfaces,
// template and interface choices.
type entity struct {
	pretty string
	// For the one allowed collision: a variant constructor V:C against the
	// record V.C of the same module (the constructor's record).
	kind        byte // 'r' record, 'c' variant constructor, other
	module      string
	name        lf.DottedName // the record's, or the variant's
	constructor string
}

// checkCollisions is Canton's Collision.checkPackage: no two entities of
// the package have the same name once upper-cased and fully resolved.
func (t *typer) checkCollisions() {
	seen := map[string][]entity{}
	add := func(resolved []string, e entity) {
		t.step()
		k := strings.ToUpper(strings.Join(resolved, "."))
		for _, o := range seen[k] {
			if !allowedCollision(o, e) && !allowedCollision(e, o) {
				t.fail("ECollision", "collision between %s and %s", o.pretty, e.pretty)
			}
		}
		seen[k] = append(seen[k], e)
	}
	for _, m := range t.pkg.Modules {
		mod := m.Name.String()
		add(m.Name, entity{pretty: "module " + mod})
		in := func(name lf.DottedName, more ...string) []string {
			r := append(append(append([]string{}, m.Name...), name...), more...)
			return r
		}
		for _, d := range m.DataTypes {
			qn := mod + ":" + d.Name.String()
			switch d.Kind {
			case lf.DataRecord:
				add(in(d.Name), entity{pretty: "record " + qn, kind: 'r', module: mod, name: d.Name})
				for _, f := range d.Fields {
					add(in(d.Name, f.Name), entity{pretty: "record field " + qn + ":" + f.Name})
				}
			case lf.DataVariant:
				add(in(d.Name), entity{pretty: "variant " + qn})
				for _, f := range d.Fields {
					add(in(d.Name, f.Name), entity{pretty: "variant constructor " + qn + ":" + f.Name, kind: 'c', module: mod, name: d.Name, constructor: f.Name})
				}
			case lf.DataEnum:
				add(in(d.Name), entity{pretty: "enum " + qn})
				for _, c := range d.EnumCons {
					add(in(d.Name, c), entity{pretty: "variant constructor " + qn + ":" + c})
				}
			case lf.DataInterface:
				add(in(d.Name), entity{pretty: "interface " + qn})
			}
		}
		for _, s := range m.Synonyms {
			add(in(s.Name), entity{pretty: "type synonym " + mod + ":" + s.Name.String()})
		}
		for _, tp := range m.Templates {
			for _, ch := range tp.Choices {
				add(in(tp.Name, ch.Name), entity{pretty: "template choice " + mod + ":" + tp.Name.String() + ":" + ch.Name})
			}
		}
		for _, i := range m.Interfaces {
			for _, ch := range i.Choices {
				add(in(i.Name, ch.Name), entity{pretty: "interface choice " + mod + ":" + i.Name.String() + ":" + ch.Name})
			}
		}
	}
}

// allowedCollision: a variant constructor and the record named after it
// (variant name, then constructor name) in the same module, case
// sensitively.
func allowedCollision(a, b entity) bool {
	if a.kind != 'c' || b.kind != 'r' || a.module != b.module {
		return false
	}
	want := append(append(lf.DottedName{}, a.name...), a.constructor)
	return want.Equal(b.name)
}
