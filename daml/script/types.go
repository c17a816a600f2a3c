package script

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// typeIndex finds the data types the runner builds answers of: the
// standard library's (Either, tuples, AnyTemplate, …) in whichever package
// of the DAR defines them, daml-script's in the daml-script package.
type typeIndex struct {
	byName map[string]typeDef // "Module:Name"
}

type typeDef struct {
	id  *value.Identifier
	def *lf.DataType
}

// stdTypes are the standard-library types answers use, by module.
var stdTypes = map[string][]string{
	"DA.Types":          {"Either", "Tuple2", "Tuple3"},
	"DA.Internal.Any":   {"AnyTemplate", "AnyChoice", "TemplateTypeRep", "AnyContractKey"},
	"DA.Time.Types":     {"RelTime"},
	"DA.NonEmpty.Types": {"NonEmpty"},
}

func newTypeIndex(pkgs []*lf.Package, script *lf.Package) (*typeIndex, error) {
	ix := &typeIndex{byName: map[string]typeDef{}}
	add := func(p *lf.Package, m *lf.Module, d *lf.DataType) {
		key := m.Name.String() + ":" + d.Name.String()
		if _, ok := ix.byName[key]; ok {
			return
		}
		ix.byName[key] = typeDef{
			id:  &value.Identifier{PackageID: string(p.ID), ModuleName: m.Name.String(), EntityName: d.Name.String()},
			def: d,
		}
	}
	for _, m := range script.Modules {
		for _, d := range m.DataTypes {
			add(script, m, d)
		}
	}
	for _, p := range pkgs {
		for mod, names := range stdTypes {
			m := p.Module(mod)
			if m == nil {
				continue
			}
			for _, n := range names {
				if d := m.DataType(n); d != nil {
					add(p, m, d)
				}
			}
		}
	}
	for mod, names := range stdTypes {
		for _, n := range names {
			if _, ok := ix.byName[mod+":"+n]; !ok {
				return nil, fmt.Errorf("the packages define no data type %s:%s, which Daml Script needs", mod, n)
			}
		}
	}
	return ix, nil
}

func (ix *typeIndex) get(name string) typeDef {
	d, ok := ix.byName[name]
	if !ok {
		// Only the daml-script types of a version without this
		// command reach here; the caller reports the command.
		panic(fmt.Sprintf("daml-script: no data type %s", name))
	}
	return d
}

// record builds a record of the data type name with the fields in the
// order given, which must be the data type's.
func (ix *typeIndex) record(name string, fields ...value.Value) *value.Record {
	d := ix.get(name)
	r := &value.Record{TypeCon: d.id, Fields: make([]value.Field, len(fields))}
	for i, f := range fields {
		label := ""
		if i < len(d.def.Fields) {
			label = d.def.Fields[i].Name
		}
		r.Fields[i] = value.Field{Label: label, Value: f}
	}
	return r
}

// variant builds the constructor con of the variant data type name.
func (ix *typeIndex) variant(name, con string, arg value.Value) *value.Variant {
	d := ix.get(name)
	for i, f := range d.def.Fields {
		if f.Name == con {
			return &value.Variant{TypeCon: d.id, Constructor: con, Rank: i, Value: arg}
		}
	}
	panic(fmt.Sprintf("daml-script: %s has no constructor %s", name, con))
}

func (ix *typeIndex) left(v value.Value) value.Value { return ix.variant("DA.Types:Either", "Left", v) }
func (ix *typeIndex) right(v value.Value) value.Value {
	return ix.variant("DA.Types:Either", "Right", v)
}
func (ix *typeIndex) pair(a, b value.Value) value.Value {
	return ix.record("DA.Types:Tuple2", a, b)
}
func (ix *typeIndex) triple(a, b, c value.Value) value.Value {
	return ix.record("DA.Types:Tuple3", a, b, c)
}

// typeRep is the TemplateTypeRep of a template or interface.
func (ix *typeIndex) typeRep(id *value.Identifier) value.Value {
	return ix.record("DA.Internal.Any:TemplateTypeRep", value.TypeRep{Type: tcon(id)})
}

// anyTemplate wraps a contract argument as AnyTemplate.
func (ix *typeIndex) anyTemplate(id *value.Identifier, arg value.Value) value.Value {
	return ix.record("DA.Internal.Any:AnyTemplate", &value.Any{Type: tcon(id), Value: arg})
}

func tcon(id *value.Identifier) lf.Type {
	return lf.TCon{Con: lf.TypeConName{Package: lf.PackageID(id.PackageID), Module: lf.SplitDotted(id.ModuleName), Name: lf.SplitDotted(id.EntityName)}}
}

// identifierOf reads the template or interface a TemplateTypeRep names.
func identifierOf(v value.Value) (*value.Identifier, error) {
	if r, ok := v.(*value.Record); ok && len(r.Fields) == 1 {
		v = r.Fields[0].Value
	}
	tr, ok := v.(value.TypeRep)
	if !ok {
		return nil, fmt.Errorf("expected a TemplateTypeRep, got %s", v)
	}
	c, ok := tr.Type.(lf.TCon)
	if !ok {
		return nil, fmt.Errorf("expected the type of a template, got %s", tr.Type)
	}
	return value.IdentifierOf(c.Con), nil
}

// unAny reads an AnyTemplate, AnyChoice or AnyContractKey: the Any in its
// first field, as the value and the identifier of its type.
func unAny(v value.Value) (*value.Identifier, value.Value, error) {
	r, ok := v.(*value.Record)
	if !ok || len(r.Fields) == 0 {
		return nil, nil, fmt.Errorf("expected an Any… record, got %s", v)
	}
	a, ok := r.Fields[0].Value.(*value.Any)
	if !ok {
		return nil, nil, fmt.Errorf("expected an Any, got %s", r.Fields[0].Value)
	}
	head, _ := lf.SplitApp(a.Type)
	c, ok := head.(lf.TCon)
	if !ok {
		return nil, a.Value, fmt.Errorf("expected a value of a data type, got type %s", a.Type)
	}
	return value.IdentifierOf(c.Con), a.Value, nil
}

// parties reads a [Party].
func parties(v value.Value) ([]string, error) {
	l, ok := v.(*value.List)
	if !ok && v != nil {
		return nil, fmt.Errorf("expected a list of parties, got %s", v)
	}
	out := make([]string, 0, l.Len())
	for p := range l.All() {
		s, ok := p.(value.Party)
		if !ok {
			return nil, fmt.Errorf("expected a party, got %s", p)
		}
		out = append(out, string(s))
	}
	return out, nil
}

// field reads a record's field by label.
func field(v value.Value, label string) value.Value {
	if r, ok := v.(*value.Record); ok {
		return r.Field(label)
	}
	return nil
}

func text(v value.Value) string { t, _ := v.(value.Text); return string(t) }

// list returns the elements of a list value.
func list(v value.Value) []value.Value {
	l, _ := v.(*value.List)
	out := make([]value.Value, 0, l.Len())
	for x := range l.All() {
		out = append(out, x)
	}
	return out
}
