package dalfedit

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Fields of the definitions (FORMAT.md).
const (
	modSynonyms  = 3
	modDataTypes = 4
	modValues    = 5
	modTemplates = 6

	defName           = 2 // DefTypeSyn, DefDataType
	valueNameWithType = 2 // DefValue: { 1: name, 2: type }

	tplTycon      = 1
	tplChoices    = 6
	tplImplements = 10

	choiceName   = 2
	choiceReturn = 8
)

// Builtin type tags.
const (
	BuiltinUnit  = 0
	BuiltinInt64 = 2
)

// findDef returns the index in m of the definition (field num) whose name
// field (a dotted name index) reads name.
func (p *Package) findDef(m Msg, num, nameField protowire.Number, name string) (int, Msg, error) {
	for _, i := range m.All(num) {
		d, err := Parse(m[i].Val)
		if err != nil {
			return 0, nil, err
		}
		if p.DottedNameOf(int(d.Varint(nameField))) == name {
			return i, d, nil
		}
	}
	return 0, nil, fmt.Errorf("no definition %s", name)
}

// editTemplate lets f change template tpl of module mod.
func (p *Package) editTemplate(mod, tpl string, f func(t Msg) (Msg, error)) error {
	m, err := p.Module(mod)
	if err != nil {
		return err
	}
	i, t, err := p.findDef(m.Msg, modTemplates, tplTycon, tpl)
	if err != nil {
		return err
	}
	if t, err = f(t); err != nil {
		return err
	}
	m.Msg[i].Val = t.Bytes()
	p.SetModule(m)
	return nil
}

// SetChoiceReturnType declares a template choice's return type to be t,
// leaving its body as it is.
func (p *Package) SetChoiceReturnType(mod, tpl, choice string, t Msg) error {
	ti := p.AddType(t)
	return p.editTemplate(mod, tpl, func(tm Msg) (Msg, error) {
		for _, i := range tm.All(tplChoices) {
			c := MustParse(tm[i].Val)
			if p.StringOf(int(c.Varint(choiceName))) != choice {
				continue
			}
			r := c.First(choiceReturn)
			if r < 0 {
				return nil, fmt.Errorf("choice %s has no return type", choice)
			}
			c[r].Val = TypeRef(ti).Bytes()
			tm[i].Val = c.Bytes()
			return tm, nil
		}
		return nil, fmt.Errorf("template %s has no choice %s", tpl, choice)
	})
}

// AddSynonymCycle adds synonyms a = b and b = a to module mod.
func (p *Package) AddSynonymCycle(mod, a, b string) error {
	m, err := p.Module(mod)
	if err != nil {
		return err
	}
	modName := p.DottedName(mod)
	synType := func(name string) Msg {
		pkgID := Msg{Bytes(1, nil)} // self
		moduleID := Msg{Bytes(1, pkgID.Bytes()), Varint(2, uint64(modName))}
		synID := Msg{Bytes(1, moduleID.Bytes()), Varint(2, uint64(p.DottedName(name)))}
		return Msg{Bytes(7, Msg{Bytes(1, synID.Bytes())}.Bytes())}
	}
	ta, tb := p.AddType(synType(a)), p.AddType(synType(b))
	defA := Msg{Varint(defName, uint64(p.DottedName(a))), Bytes(4, TypeRef(tb).Bytes())}
	defB := Msg{Varint(defName, uint64(p.DottedName(b))), Bytes(4, TypeRef(ta).Bytes())}
	m, _ = p.Module(mod)
	m.Msg = append(m.Msg, Bytes(modSynonyms, defA.Bytes()), Bytes(modSynonyms, defB.Bytes()))
	p.SetModule(m)
	return nil
}

// SetSerializable sets the serializable flag of data type name.
func (p *Package) SetSerializable(mod, name string, v bool) error {
	m, err := p.Module(mod)
	if err != nil {
		return err
	}
	i, d, err := p.findDef(m.Msg, modDataTypes, defName, name)
	if err != nil {
		return err
	}
	flag := uint64(0)
	if v {
		flag = 1
	}
	if j := d.First(4); j >= 0 {
		d[j] = Varint(4, flag)
	} else {
		d = append(d, Varint(4, flag))
	}
	m.Msg[i].Val = d.Bytes()
	p.SetModule(m)
	return nil
}

// DropInstanceMethod removes the first method of the first interface
// instance of template tpl.
func (p *Package) DropInstanceMethod(mod, tpl string) error {
	return p.editTemplate(mod, tpl, func(tm Msg) (Msg, error) {
		is := tm.All(tplImplements)
		if len(is) == 0 {
			return nil, fmt.Errorf("template %s implements no interface", tpl)
		}
		impl := MustParse(tm[is[0]].Val)
		bi := impl.First(2)
		if bi < 0 {
			return nil, fmt.Errorf("template %s: instance without body", tpl)
		}
		body := MustParse(impl[bi].Val)
		ms := body.All(1)
		if len(ms) == 0 {
			return nil, fmt.Errorf("template %s: instance without methods", tpl)
		}
		body = append(body[:ms[0]], body[ms[0]+1:]...)
		impl[bi].Val = body.Bytes()
		tm[is[0]].Val = impl.Bytes()
		return tm, nil
	})
}

// Fields of PackageMetadata (FORMAT.md): interned string indexes.
const (
	pkgMetadata     = 4
	metadataVersion = 2
)

// SetVersion gives the package another version: the same code under a new
// package id, a valid upgrade of the original when version is higher.
func (p *Package) SetVersion(version string) error {
	str := p.String(version) // first: interning it moves the fields after the table
	i := p.Msg.First(pkgMetadata)
	if i < 0 {
		return fmt.Errorf("the package has no metadata")
	}
	md, err := Parse(p.Msg[i].Val)
	if err != nil {
		return fmt.Errorf("package metadata: %w", err)
	}
	v := md.First(metadataVersion)
	if v < 0 {
		return fmt.Errorf("the package metadata has no version")
	}
	md[v] = Varint(metadataVersion, uint64(str))
	p.Msg[i].Val = md.Bytes()
	return nil
}

// DropChoice removes a choice from a template: still a valid package, but
// not a valid upgrade of one that has the choice.
func (p *Package) DropChoice(mod, tpl, choice string) error {
	return p.editTemplate(mod, tpl, func(tm Msg) (Msg, error) {
		for _, i := range tm.All(tplChoices) {
			if p.StringOf(int(MustParse(tm[i].Val).Varint(choiceName))) == choice {
				return append(tm[:i:i], tm[i+1:]...), nil
			}
		}
		return nil, fmt.Errorf("template %s has no choice %s", tpl, choice)
	})
}

// DropValue removes a top-level value (a definition nothing else may use).
func (p *Package) DropValue(mod, name string) error {
	m, err := p.Module(mod)
	if err != nil {
		return err
	}
	for _, i := range m.Msg.All(modValues) {
		d := MustParse(m.Msg[i].Val)
		nt := d.First(valueNameWithType)
		if nt < 0 {
			continue
		}
		if p.DottedNameOf(int(MustParse(d[nt].Val).Varint(1))) == name {
			m.Msg = append(m.Msg[:i:i], m.Msg[i+1:]...)
			p.SetModule(m)
			return nil
		}
	}
	return fmt.Errorf("no value %s in module %s", name, mod)
}
