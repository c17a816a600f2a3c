package interp

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// An interface value is a template's payload with the template's type, a
// *value.Any whose type is the template's constructor (Speedy's
// SAnyContract): to_interface wraps, from_interface unwraps, and the
// interface's methods, view and choices dispatch on the type.

// interfaceValue returns the template and payload an interface value
// holds.
func (m *Machine) interfaceValue(v value.Value) (*resolve.Template, *value.Any, bool) {
	a, ok := v.(*value.Any)
	if ok {
		if tc, isCon := a.Type.(lf.TCon); isCon {
			t, err := m.pkgs.Template(tc.Con)
			if err == nil {
				return t, a, true
			}
			m.fail(m.newError(errInternal, err.Error()))
			return nil, nil, false
		}
	}
	m.fail(m.newError(errInternal, fmt.Sprintf("expected an interface value, got %s", v)))
	return nil, nil, false
}

func toInterface(t *resolve.Template, arg value.Value) *value.Any {
	return &value.Any{Type: lf.TCon{Con: t.Name}, Value: arg}
}

// instance returns the instance of interface iface of the template of an
// interface value; the interface's type guarantees one exists.
func (m *Machine) instance(t *resolve.Template, iface lf.TypeConName) *resolve.InterfaceInstance {
	ii := t.Implements(iface)
	if ii == nil {
		m.fail(m.newError(errInternal, fmt.Sprintf("template %s does not implement interface %s", t.ID, iface)))
	}
	return ii
}

// interfaceAndTemplate returns what interfaceValue does and the template
// ref names.
func (m *Machine) interfaceAndTemplate(v value.Value, ref *resolve.TemplateRef) (*resolve.Template, *value.Any, *resolve.Template, bool) {
	t, a, ok := m.interfaceValue(v)
	if !ok {
		return nil, nil, nil, false
	}
	dst, err := ref.Get()
	if err != nil {
		m.fail(m.newError(errInternal, err.Error()))
		return nil, nil, nil, false
	}
	return t, a, dst, true
}

// interfaceOp runs the pure interface operations.
func (m *Machine) interfaceOp(op resolve.Op, args []value.Value) {
	switch o := op.(type) {
	case *resolve.FromInterface:
		if t, a, dst, ok := m.interfaceAndTemplate(args[0], o.Template); ok {
			m.fromInterface(t, a, dst)
		}
	case *resolve.UnsafeFromInterface:
		t, a, dst, ok := m.interfaceAndTemplate(args[1], o.Template)
		if !ok {
			return
		}
		if t != dst {
			m.fail(m.newError(errWronglyTyped, fmt.Sprintf("%sUpdate failed due to wrongly typed contract id %s\nExpected contract of type %s but got %s",
				interpretationError, args[0], prettyID(dst.ID), prettyID(t.ID))))
			return
		}
		m.val = a.Value
	case *resolve.CallInterface:
		t, a, ok := m.interfaceValue(args[0])
		if !ok {
			return
		}
		if ii := m.instance(t, o.Interface); ii != nil {
			if meth := ii.Method(o.Method); meth != nil {
				m.enter(meth, nil, []value.Value{a.Value})
				return
			}
			m.fail(m.newError(errInternal, fmt.Sprintf("interface instance %s for %s has no method %s", o.Interface, t.ID, o.Method)))
		}
	case *resolve.FromRequiredInterface:
		t, _, ok := m.interfaceValue(args[0])
		if ok {
			m.val = optional(args[0], t.Implements(o.Requiring) != nil)
		}
	case *resolve.UnsafeFromRequiredInterface:
		t, _, ok := m.interfaceValue(args[1])
		if !ok {
			return
		}
		if t.Implements(o.Requiring) == nil {
			m.fail(m.newError(errDoesNotImplementRequiring, fmt.Sprintf("%sUpdate failed due to contract %s not implementing the requiring interface\n"+
				"Expected contract to implement interface %s requirring the interface %s but contract has type %s",
				interpretationError, args[0], prettyName(o.Requiring), prettyName(o.Required), prettyID(t.ID))))
			return
		}
		m.val = args[1]
	case *resolve.InterfaceTemplateTypeRep:
		if _, a, ok := m.interfaceValue(args[0]); ok {
			m.val = value.TypeRep{Type: a.Type}
		}
	case *resolve.SignatoryInterface, *resolve.ObserverInterface:
		t, a, ok := m.interfaceValue(args[0])
		if !ok {
			return
		}
		f := t.Signatories
		if _, obs := o.(*resolve.ObserverInterface); obs {
			f = t.Observers
		}
		m.enter(f, nil, []value.Value{a.Value})
	case *resolve.ViewInterface:
		t, a, ok := m.interfaceValue(args[0])
		if !ok {
			return
		}
		if ii := m.instance(t, o.Interface); ii != nil {
			m.view(ii, a.Value)
		}
	case *resolve.ChoiceController:
		m.choiceController(o, args)
	}
}

// view computes the view of a contract argument through an interface
// instance; the view must be serializable, as Speedy's SBViewInterface
// checks.
func (m *Machine) view(ii *resolve.InterfaceInstance, arg value.Value) {
	m.then(func(m *Machine, v value.Value) {
		if err := m.serializable(v); err != nil {
			m.fail(err)
			return
		}
		m.val = v
	})
	m.enter(ii.View, nil, []value.Value{arg})
}

// fromInterface is from_interface: the payload when the value holds
// template dst, or another version of it (converted), else None.
func (m *Machine) fromInterface(t *resolve.Template, a *value.Any, dst *resolve.Template) {
	switch {
	case t == dst:
		m.val = value.Some(a.Value)
	case t.ID.ModuleName == dst.ID.ModuleName && t.ID.EntityName == dst.ID.EntityName && t.PackageName == dst.PackageName:
		arg, ok := m.importArg("", t.ID, dst, a.Value)
		if ok {
			m.val = value.Some(arg)
		}
	default:
		m.val = value.None
	}
}

// choiceController is choice_controller and choice_observer (2.dev).
func (m *Machine) choiceController(o *resolve.ChoiceController, args []value.Value) {
	var c *resolve.Choice
	if t, err := m.pkgs.Template(o.Template); err == nil {
		c = t.Choice(o.Choice)
	} else if i, err := m.pkgs.Interface(o.Template); err == nil {
		c = i.Choice(o.Choice)
	}
	if c == nil {
		m.fail(m.newError(errInternal, fmt.Sprintf("%s has no choice %s", o.Template, o.Choice)))
		return
	}
	f := c.Controllers
	if o.Observers {
		if c.Observers == nil {
			m.val = (*value.List)(nil)
			return
		}
		f = c.Observers
	}
	m.enter(f, nil, args)
}

// prettyName renders a type constructor as Canton's messages do.
func prettyName(n lf.TypeConName) string { return prettyTypeCon(string(n.Package), qualified(n)) }

// interfaceUpdate runs the interface updates; the last argument is the
// token.
func (m *Machine) interfaceUpdate(op resolve.Op, args []value.Value) {
	switch o := op.(type) {
	case *resolve.CreateInterface:
		if t, a, ok := m.interfaceValue(args[0]); ok {
			m.create(t, a.Value)
		}
	case *resolve.FetchInterface:
		i, err := o.Interface.Get()
		if err != nil {
			m.fail(m.newError(errInternal, err.Error()))
			return
		}
		m.fetchInterface(i, args[0].(value.ContractID))
	case *resolve.ExerciseInterface:
		i, err := o.Interface.Get()
		if err != nil {
			m.fail(m.newError(errInternal, err.Error()))
			return
		}
		c := i.Choice(o.Choice)
		if c == nil {
			m.fail(m.newError(errInternal, fmt.Sprintf("interface %s has no choice %s", i.ID, o.Choice)))
			return
		}
		var guard value.Value
		if o.Guarded {
			guard, args = args[0], args[1:]
		}
		m.exerciseInterface(i, c, args[0].(value.ContractID), args[1], guard)
	}
}

// fetchInterface is 'fetch_interface @I cid': a fetch node naming the
// interface, and the contract as an interface value.
func (m *Machine) fetchInterface(i *resolve.Interface, cid value.ContractID) {
	u := m.upd
	u.pushWhere("fetch", nil, nil)
	m.withContract(cid, asInterface(i), func(m *Machine, info *contractInfo) {
		u.whereStack[len(u.whereStack)-1].tmpl = info.tmpl
		if m.insertFetch(cid, info, i.ID, false) {
			u.popWhere()
			m.val = toInterface(info.tmpl, info.arg)
		}
	})
}

// exerciseInterface is 'exercise_interface @I Choice cid arg' with an
// optional guard on the interface value (2.dev; commands have none): the
// exercise node names the contract's template and the interface.
func (m *Machine) exerciseInterface(i *resolve.Interface, c *resolve.Choice, cid value.ContractID, arg, guard value.Value) {
	u := m.upd
	u.pushWhere("exercise", nil, c)
	m.withContract(cid, asInterface(i), func(m *Machine, info *contractInfo) {
		u.whereStack[len(u.whereStack)-1].tmpl = info.tmpl
		e := newExercising(exercising{choice: c, cid: cid, arg: arg, info: info, this: toInterface(info.tmpl, info.arg), iface: i.ID})
		if guard == nil {
			m.runChoice(e)
			return
		}
		m.push(&kGuard{e: e, iface: i.ID})
		m.apply(guard, []value.Value{e.this})
	})
}

// kGuard checks a choice guard's verdict (Speedy's KCheckChoiceGuard). A
// guard that is False, or throws, ends the interpretation.
type kGuard struct {
	e     *exercising
	iface *value.Identifier
}

func (k *kGuard) resume(m *Machine, v value.Value) {
	if v != value.Bool(true) {
		m.fail(k.failed(m))
		return
	}
	m.runChoice(k.e)
}

func (k *kGuard) failed(m *Machine) *Error {
	return m.newError(errDev, fmt.Sprintf("%sChoice guard failed for %s contract %s when exercising choice %s by interface %s",
		interpretationError, prettyID(k.e.info.tmpl.ID), k.e.cid, k.e.choice.Name, prettyID(k.iface)))
}
