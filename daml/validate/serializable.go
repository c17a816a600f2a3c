package validate

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
)

// checkSerializability is Canton's Serializability.checkModule: the types
// that go on the ledger are serializable.
func (t *typer) checkSerializability(m *lf.Module) {
	t.curMod = joinName(m.Name)
	for _, d := range m.DataTypes {
		if !d.Serializable {
			continue
		}
		id := t.qualify(m, d.Name)
		t.at("data type " + id.String())
		s := serial{t: t, requirement: "serializable data type", whole: tCon(id), vars: map[string]bool{}}
		for _, p := range d.Params {
			if _, star := p.Kind.(lf.KStar); !star {
				s.fail("higher-kinded type variable %s : %s", p.Name, p.Kind)
			}
			s.vars[p.Name] = true
		}
		switch d.Kind {
		case lf.DataVariant:
			if len(d.Fields) == 0 {
				s.fail("variant type without constructors")
			}
			for _, f := range d.Fields {
				s.check(f.Type)
			}
		case lf.DataEnum:
			if len(d.EnumCons) == 0 {
				s.fail("variant type without constructors")
			}
		case lf.DataRecord:
			for _, f := range d.Fields {
				s.check(f.Type)
			}
		case lf.DataInterface:
			s.fail("Interface")
		}
	}
	for _, tpl := range m.Templates {
		id := t.qualify(m, tpl.Name)
		t.at("template " + id.String())
		t.serializable("template argument", tCon(id))
		for _, ch := range tpl.Choices {
			t.serializable("choice argument", ch.ArgBinder.Type)
			t.serializable("choice result", ch.ReturnType)
		}
		if tpl.Key != nil {
			t.serializable("contract key", tpl.Key.Type)
		}
	}
	for _, x := range m.Exceptions {
		id := t.qualify(m, x.Name)
		t.at("exception " + id.String())
		t.serializable("exception argument", tCon(id))
	}
	for _, i := range m.Interfaces {
		id := t.qualify(m, i.Name)
		t.at("interface " + id.String())
		for _, ch := range i.Choices {
			t.serializable("choice argument", ch.ArgBinder.Type)
			t.serializable("choice result", ch.ReturnType)
		}
		t.serializable("view", i.View)
	}
}

func (t *typer) serializable(requirement string, ty lf.Type) {
	s := serial{t: t, requirement: requirement, whole: ty}
	s.check(ty)
}

type serial struct {
	t           *typer
	requirement string
	whole       lf.Type
	vars        map[string]bool
	// done holds the type applications found serializable, so a shared
	// node is checked once.
	done map[lf.TypeNode]bool
}

func (s *serial) fail(format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	s.t.fail("EExpectedSerializableType", "expected serializable type:\n * reason: %s\n * found: %s\n * problem: %s",
		reason, s.t.show(s.whole), s.requirement)
}

var unserializableBuiltin = map[lf.BuiltinType]string{
	lf.BuiltinNumeric:         "unapplied Numeric",
	lf.BuiltinList:            "unapplied List",
	lf.BuiltinOptional:        "unapplied Option",
	lf.BuiltinTextMap:         "unapplied TextMap",
	lf.BuiltinGenMap:          "unapplied GenMap",
	lf.BuiltinUpdate:          "Update",
	lf.BuiltinContractID:      "ContractId not applied to a template type",
	lf.BuiltinArrow:           "function type",
	lf.BuiltinAny:             "Any",
	lf.BuiltinTypeRep:         "TypeRep",
	lf.BuiltinRoundingMode:    "RoundingMode",
	lf.BuiltinBigNumeric:      "BigNumeric",
	lf.BuiltinFailureCategory: "FailureCategory",
}

func (s *serial) check(whole lf.Type) {
	s.t.enter()
	defer s.t.leave()
	s.t.step()
	switch ty := whole.(type) {
	case lf.TVar:
		if !s.vars[ty.Name] {
			s.fail("free type variable %s", ty.Name)
		}
	case lf.TNat:
		s.fail("Nat")
	case lf.TSyn:
		s.fail("type synonym %s", ty.Syn.Module.String()+":"+ty.Syn.Name.String())
	case lf.TCon:
		d := s.t.dataType(ty.Con)
		if !d.Serializable {
			s.fail("unserializable data type %s", ty.Con.Module.String()+":"+ty.Con.Name.String())
		}
	case lf.TBuiltin:
		if why, bad := unserializableBuiltin[ty.Builtin]; bad {
			s.fail("%s", why)
		}
	case lf.TApp:
		if _, big := ty.Arg.(lf.TApp); !big {
			s.checkApp(ty) // small: cheaper walked than looked up
			return
		}
		node := lf.NodeOf(whole) // the interface as decoded, not the copy ty
		if s.done[node] {
			return
		}
		s.checkApp(ty)
		if s.done == nil {
			s.done = map[lf.TypeNode]bool{}
		}
		s.done[node] = true
	case lf.TForall:
		s.fail("higher-ranked type")
	case lf.TStruct:
		s.fail("structural record")
	}
}

func (s *serial) checkApp(ty lf.TApp) {
	{
		if h, ok := ty.Fun.(lf.TBuiltin); ok {
			switch h.Builtin {
			case lf.BuiltinContractID:
				return
			case lf.BuiltinNumeric:
				if _, nat := ty.Arg.(lf.TNat); nat {
					return
				}
			case lf.BuiltinList, lf.BuiltinOptional, lf.BuiltinTextMap:
				s.check(ty.Arg)
				return
			}
		}
		if f, ok := ty.Fun.(lf.TApp); ok {
			if h, ok := f.Fun.(lf.TBuiltin); ok && h.Builtin == lf.BuiltinGenMap {
				s.check(f.Arg)
				s.check(ty.Arg)
				return
			}
		}
		s.check(ty.Fun)
		s.check(ty.Arg)
	}
}
