package archive

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
)

// This file decodes the definitions of a module: type synonyms, data types,
// values, exceptions, templates with their keys, choices and interface
// instances, and interfaces.

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
		switch f.Num {
		case 2:
			name, err = f.Int32()
		case 1:
			loc, err = f.Delimited()
			hasLoc = true
		case 3:
			if m, err = f.Delimited(); err == nil {
				var v lf.TypeVar
				v, err = d.typeVarWithKind(m)
				s.Params = append(s.Params, v)
			}
		case 4:
			typ, err = f.Delimited()
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
		switch f.Num {
		case 1:
			loc, err = f.Delimited()
			hasLoc = true
		case 2:
			name, err = f.Int32()
		case 3:
			if m, err = f.Delimited(); err == nil {
				var v lf.TypeVar
				v, err = d.typeVarWithKind(m)
				dt.Params = append(dt.Params, v)
			}
		case 4:
			dt.Serializable, err = f.Bool()
		case 5, 6, 7, 8:
			cons, err = f.Delimited()
			consAt = int(f.Num)
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
			if f.Num != 2 {
				return unknownField("DefDataType.EnumConstructors", f)
			}
			if idx, err = f.Int32s(idx); err != nil {
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
		if f.Num != 1 {
			return unknownField("DefDataType.Fields", f)
		}
		m, err := f.Delimited()
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
	v, body, err := d.valueHead(b)
	if err != nil {
		return nil, err
	}
	if d.lazy != nil {
		lb := d.slabs.lazyBodies.one()
		*lb = lazyBody{l: d.lazy, module: d.module, name: v.Name, typ: v.Type, b: body}
		v.LazyBody = lb.get
	} else if v.Body, err = d.valueBody(v.Type, body); err != nil {
		return nil, err
	}
	p := d.slabs.values.one()
	*p = v
	return p, nil
}

// valueHead decodes a DefValue but for its body: its name, location and
// type, and the body's bytes.
func (d *decoder) valueHead(b []byte) (lf.Value, []byte, error) {
	d.definition, d.defName = "", ""
	var (
		v                        lf.Value
		loc, nameWithType, body  []byte
		hasLoc, hasName, hasBody bool
		err                      error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return lf.Value{}, nil, err
		}
		switch f.Num {
		case 1:
			loc, err = f.Delimited()
			hasLoc = true
		case 2:
			nameWithType, err = f.Delimited()
			hasName = true
		case 3:
			body, err = f.Delimited()
			hasBody = true
		default:
			err = unknownField("DefValue", f)
		}
		if err != nil {
			return lf.Value{}, nil, err
		}
	}
	if !hasName {
		return lf.Value{}, nil, fmt.Errorf("no name")
	}
	var (
		name    int32
		typ     []byte
		hasType bool
	)
	for len(nameWithType) > 0 {
		var f field
		if f, nameWithType, err = nextField(nameWithType); err != nil {
			return lf.Value{}, nil, err
		}
		switch f.Num {
		case 1:
			name, err = f.Int32()
		case 2:
			typ, err = f.Delimited()
			hasType = true
		default:
			err = unknownField("DefValue.NameWithType", f)
		}
		if err != nil {
			return lf.Value{}, nil, err
		}
	}
	if v.Name, err = d.dotted(name); err != nil {
		return lf.Value{}, nil, err
	}
	d.startDefinition(v.Name.String())
	if hasLoc {
		if v.Location, err = d.location(loc); err != nil {
			return lf.Value{}, nil, err
		}
	}
	if !hasType {
		return lf.Value{}, nil, fmt.Errorf("no type")
	}
	if v.Type, err = d.typ(typ); err != nil {
		return lf.Value{}, nil, fmt.Errorf("type: %w", err)
	}
	if !hasBody {
		return lf.Value{}, nil, fmt.Errorf("no body")
	}
	return v, body, nil
}

// valueBody decodes a value's body, of declared type typ.
func (d *decoder) valueBody(typ lf.Type, b []byte) (lf.Expr, error) {
	e, err := d.expr(b, false)
	if err != nil {
		return nil, err
	}
	// Decoding does not type-check; this catches only a literal body of
	// the wrong type, which no compiler emits (illformed.dar has one).
	if t, ok := lf.LiteralType(e); ok && !lf.HasSynonym(typ) && !lf.TypeEqual(t, typ) {
		return nil, fmt.Errorf("declared type %s does not match its body, a literal of type %s", typ, t)
	}
	return e, nil
}

func (d *decoder) exception(b []byte) (*lf.Exception, error) {
	d.definition, d.defName = "", ""
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
		switch f.Num {
		case 1:
			name, err = f.Int32()
		case 2:
			loc, err = f.Delimited()
			hasLoc = true
		case 3:
			msg, err = f.Delimited()
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
	d.definition, d.defName = "", ""
	var (
		r   rawTemplate
		err error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		if f.Num == 1 || f.Num == 2 {
			var i int32
			if i, err = f.Int32(); err != nil {
				return nil, err
			}
			if f.Num == 1 {
				r.name = i
			} else {
				r.param = i
			}
			continue
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
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
	t.Precond = builtinCons[lf.ConTrue]
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
			return nil, fmt.Errorf("choice %d%s: %w", i, nameSuffix(d.choiceName), err)
		}
	}
	d.choiceName = ""
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
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
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
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
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
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
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
		switch f.Num {
		case 1:
			name, err = f.Int32()
		case 2:
			val, err = f.Delimited()
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
		switch f.Num {
		case 2:
			r.name, err = f.Int32()
		case 10:
			r.self, err = f.Int32()
		case 3:
			r.consuming, err = f.Bool()
		case 1:
			r.location, err = f.Delimited()
			r.hasLocation = true
		case 4:
			r.controllers, err = f.Delimited()
			r.hasControllers = true
		case 5:
			r.observers, err = f.Delimited()
			r.hasObservers = true
		case 6:
			r.argBinder, err = f.Delimited()
			r.hasArg = true
		case 8:
			r.retType, err = f.Delimited()
			r.hasRet = true
		case 9:
			r.update, err = f.Delimited()
			r.hasUpdate = true
		case 1001:
			r.authorizers, err = f.Delimited()
			r.hasAuthorizers = true
		default:
			err = unknownField("TemplateChoice", f)
		}
		if err != nil {
			return nil, err
		}
	}
	c := lf.Choice{Consuming: r.consuming}
	d.choiceName = ""
	if c.Name, err = d.name(r.name); err != nil {
		return nil, err
	}
	d.choiceName = c.Name
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
	d.definition, d.defName = "", ""
	var (
		r   rawInterface
		err error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		if f.Num == 2 || f.Num == 4 {
			var i int32
			if i, err = f.Int32(); err != nil {
				return nil, err
			}
			if f.Num == 2 {
				r.name = i
			} else {
				r.param = i
			}
			continue
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
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
			return nil, fmt.Errorf("choice %d%s: %w", j, nameSuffix(d.choiceName), err)
		}
	}
	d.choiceName = ""
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
		switch f.Num {
		case 1:
			if raw, err = f.Delimited(); err == nil {
				m.Location, err = d.location(raw)
			}
		case 2:
			name, err = f.Int32()
		case 3:
			typ, err = f.Delimited()
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
