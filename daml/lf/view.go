package lf

import "strings"

// The typed view: what a client of a package needs to know to build and read
// its contracts, without the expressions. The JSON codec and the CLI's
// package listing read it.

// TemplateSignature is the typed view of a template: its contract fields
// (the fields of the record of the template's name), its key type, the
// interfaces it implements and its choices.
type TemplateSignature struct {
	Name       TypeConName
	Fields     []Field
	Key        Type // nil when the template has no key
	Implements []TypeConName
	Choices    []ChoiceSignature
	Template   *Template
}

// ChoiceSignature is the typed view of a choice.
type ChoiceSignature struct {
	Name       string
	Consuming  bool
	ArgType    Type
	ReturnType Type
	Choice     *Choice
}

// InterfaceSignature is the typed view of an interface.
type InterfaceSignature struct {
	Name      TypeConName
	View      Type
	Requires  []TypeConName
	Methods   []InterfaceMethod
	Choices   []ChoiceSignature
	Interface *Interface
}

// DataTypeSignature is a data type with its full name.
type DataTypeSignature struct {
	Name TypeConName
	*DataType
}

// ModuleNames returns the package's module names in archive order.
func (p *Package) ModuleNames() []string {
	names := make([]string, len(p.Modules))
	for i, m := range p.Modules {
		names[i] = m.Name.String()
	}
	return names
}

func (p *Package) qualify(m *Module, name DottedName) TypeConName {
	return TypeConName{Package: p.ID, Module: m.Name, Name: name}
}

// DataTypes returns every data type of the package, module by module.
func (p *Package) DataTypes() []DataTypeSignature {
	var out []DataTypeSignature
	for _, m := range p.Modules {
		for _, d := range m.DataTypes {
			out = append(out, DataTypeSignature{Name: p.qualify(m, d.Name), DataType: d})
		}
	}
	return out
}

// Templates returns the signature of every template, module by module.
func (p *Package) Templates() []TemplateSignature {
	var out []TemplateSignature
	for _, m := range p.Modules {
		for _, t := range m.Templates {
			out = append(out, p.templateSignature(m, t))
		}
	}
	return out
}

// Template returns the signature of the template module:name; ok is false
// when the package has none.
func (p *Package) Template(module, name string) (sig TemplateSignature, ok bool) {
	m := p.Module(module)
	if m == nil {
		return sig, false
	}
	t := m.Template(name)
	if t == nil {
		return sig, false
	}
	return p.templateSignature(m, t), true
}

func (p *Package) templateSignature(m *Module, t *Template) TemplateSignature {
	s := TemplateSignature{Name: p.qualify(m, t.Name), Template: t}
	if d := m.DataType(t.Name.String()); d != nil && d.Kind == DataRecord {
		s.Fields = d.Fields
	}
	if t.Key != nil {
		s.Key = t.Key.Type
	}
	for _, i := range t.Implements {
		s.Implements = append(s.Implements, i.Interface)
	}
	s.Choices = choiceSignatures(t.Choices)
	return s
}

func choiceSignatures(cs []*Choice) []ChoiceSignature {
	out := make([]ChoiceSignature, len(cs))
	for i, c := range cs {
		out[i] = ChoiceSignature{Name: c.Name, Consuming: c.Consuming,
			ArgType: c.ArgBinder.Type, ReturnType: c.ReturnType, Choice: c}
	}
	return out
}

// Interfaces returns the signature of every interface, module by module.
func (p *Package) Interfaces() []InterfaceSignature {
	var out []InterfaceSignature
	for _, m := range p.Modules {
		for _, i := range m.Interfaces {
			out = append(out, InterfaceSignature{Name: p.qualify(m, i.Name), View: i.View,
				Requires: i.Requires, Methods: i.Methods, Choices: choiceSignatures(i.Choices),
				Interface: i})
		}
	}
	return out
}

// Choice returns the choice named name, and whether there is one.
func (s TemplateSignature) Choice(name string) (ChoiceSignature, bool) {
	for _, c := range s.Choices {
		if c.Name == name {
			return c, true
		}
	}
	return ChoiceSignature{}, false
}

// String renders the template as Daml declares it:
// "template Ping with id: Text; initiator: Party; responder: Party", with
// "; key K" and "; implements I, J" when it has them.
func (s TemplateSignature) String() string {
	var b strings.Builder
	b.WriteString("template ")
	b.WriteString(s.Name.Name.String())
	writeFields(&b, s.Fields)
	if s.Key != nil {
		b.WriteString("; key ")
		writeType(&b, s.Key, precTop)
	}
	for i, n := range s.Implements {
		if i == 0 {
			b.WriteString("; implements ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(n.Name.String())
	}
	return b.String()
}

// String renders the choice as Daml declares it: "choice Respond : ()", or
// "nonconsuming choice Foo : Int64".
func (c ChoiceSignature) String() string {
	var b strings.Builder
	if !c.Consuming {
		b.WriteString("nonconsuming ")
	}
	b.WriteString("choice ")
	b.WriteString(c.Name)
	b.WriteString(" : ")
	writeType(&b, c.ReturnType, precTop)
	return b.String()
}

// String renders the interface as Daml declares it:
// "interface Holding requires I; viewtype HoldingView".
func (s InterfaceSignature) String() string {
	var b strings.Builder
	b.WriteString("interface ")
	b.WriteString(s.Name.Name.String())
	for i, r := range s.Requires {
		if i == 0 {
			b.WriteString(" requires ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(r.Name.String())
	}
	if s.View != nil {
		b.WriteString("; viewtype ")
		writeType(&b, s.View, precTop)
	}
	return b.String()
}
