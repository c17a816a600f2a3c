package validate

import (
	"github.com/ledger-cli/ledger/daml/lf"
)

// vars is the term variables in scope, innermost first.
type vars struct {
	name string
	typ  lf.Type
	next *vars
}

// env is the scope of an expression.
type env struct {
	tv *tvars
	ev *vars
}

func (e env) withVar(name string, ty lf.Type) env {
	if name == "" {
		return e
	}
	return env{tv: e.tv, ev: &vars{name: name, typ: ty, next: e.ev}}
}

func (e env) withTypeVar(name string, k lf.Kind) env {
	return env{tv: e.tv.with(name, k), ev: e.ev}
}

func (t *typer) lookupVar(en env, name string) lf.Type {
	for v := en.ev; v != nil; v = v.next {
		if v.name == name {
			return v.typ
		}
	}
	t.fail("EUnknownExprVar", "unknown expr variable: %s", name)
	return nil
}

// checkExpr checks that e has type want; it returns e's own type.
func (t *typer) checkExpr(e lf.Expr, want lf.Type, en env) lf.Type {
	got := t.typeOf(e, en)
	if !t.typeEqual(got, want) {
		if p, ok := unlocate(e).(*lf.ERecProj); ok {
			t.fail("EFieldTypeMismatch", "Tried to use field %s with type %s on value of type %s, but that field has type %s",
				p.Field, t.show(got), t.show(p.Type.Type()), t.show(want))
		}
		t.typeMismatch(got, want)
	}
	return got
}

func (t *typer) typeMismatch(found, expected lf.Type) {
	t.fail("ETypeMismatch", "type mismatch:\n * expected type: %s\n * found type: %s", t.show(expected), t.show(found))
}

func unlocate(e lf.Expr) lf.Expr {
	for {
		l, ok := e.(*lf.ELocation)
		if !ok {
			return e
		}
		e = l.Expr
	}
}

// Type shapes, looked for as written and then with synonyms expanded.

func (t *typer) toFunction(ty lf.Type) (lf.Type, lf.Type) {
	if a, r, ok := matchArrow(ty); ok {
		return a, r
	}
	if a, r, ok := matchArrow(t.expand(ty)); ok {
		return a, r
	}
	t.fail("EExpectedFunctionType", "expected function type, but found: %s", t.show(ty))
	return nil, nil
}

func (t *typer) toForall(ty lf.Type) lf.TForall {
	if f, ok := ty.(lf.TForall); ok {
		return f
	}
	if f, ok := t.expand(ty).(lf.TForall); ok {
		return f
	}
	t.fail("EExpectedUniversalType", "expected universal type, but found: %s", t.show(ty))
	return lf.TForall{}
}

func (t *typer) toStruct(ty lf.Type) lf.TStruct {
	if s, ok := ty.(lf.TStruct); ok {
		return s
	}
	if s, ok := t.expand(ty).(lf.TStruct); ok {
		return s
	}
	t.fail("EExpectedStructType", "expected struct type, but found: %s", t.show(ty))
	return lf.TStruct{}
}

func (t *typer) toUpdate(ty lf.Type) lf.Type {
	if _, ok := matchBuiltin1(ty, lf.BuiltinUpdate); ok {
		return ty
	}
	x := t.expand(ty)
	if _, ok := matchBuiltin1(x, lf.BuiltinUpdate); ok {
		return x
	}
	t.fail("EExpectedUpdateType", "expected update type, but found: %s", t.show(ty))
	return nil
}

// typeConApp checks a data type applied to arguments and returns its
// definition and the substitution of its parameters.
func (t *typer) typeConApp(app lf.TypeConApp, en env) (*lf.DataType, subst) {
	d := t.dataType(app.Con)
	if len(d.Params) != len(app.Args) {
		t.fail("ETypeConAppWrongArity", "wrong arity in typecon application: %s", t.show(app.Type()))
	}
	s := subst{vars: make([]string, len(d.Params)), vals: app.Args}
	for i, p := range d.Params {
		t.checkType(app.Args[i], p.Kind, en.tv)
		s.vars[i] = p.Name
	}
	return d, s
}

func (t *typer) record(app lf.TypeConApp, en env) (*lf.DataType, subst) {
	d, s := t.typeConApp(app, en)
	if d.Kind != lf.DataRecord {
		t.fail("EExpectedRecordType", "expected record type: * found: %s", t.show(app.Type()))
	}
	return d, s
}

func fieldType(fs []lf.Field, name string) (lf.Type, bool) {
	for _, f := range fs {
		if f.Name == name {
			return f.Type, true
		}
	}
	return nil, false
}

func (t *typer) recordField(d *lf.DataType, s subst, field string, rec lf.Type) lf.Type {
	ft, ok := fieldType(d.Fields, field)
	if !ok {
		t.fail("EUnknownField", "Tried to access nonexistent field %s on value of type %s", field, t.show(rec))
	}
	return t.substitute(ft, s)
}

// typeOf returns the type of e in en.
func (t *typer) typeOf(e lf.Expr, en env) lf.Type {
	t.enter()
	defer t.leave()
	t.step()
	switch e := e.(type) {
	case *lf.ELocation:
		r, l := t.ctxRef, t.ctxLoc
		t.ctxLoc = &e.Location
		ty := t.typeOf(e.Expr, en)
		t.restore(r, l)
		return ty
	case *lf.EVar:
		return t.lookupVar(en, e.Name)
	case *lf.EVal:
		return t.value(e.Ref).Type
	case *lf.EBuiltinFun:
		ty, ok := builtinFunctionTypes[e.Fun]
		if !ok {
			t.fail("EUnknownDefinition", "unknown builtin function %s", e.Fun)
		}
		return ty
	case *lf.EBuiltinCon:
		if e.Con == lf.ConUnit {
			return tUnit
		}
		return tBool
	case *lf.EInt64:
		return tInt64
	case *lf.ENumeric:
		return tNumeric(lf.TNat{N: e.Scale})
	case *lf.EText:
		return tText
	case *lf.ETimestamp:
		return tTimestamp
	case *lf.EDate:
		return tDate
	case *lf.ERoundingMode:
		return tRoundingMode
	case *lf.EFailureCategory:
		return tFailureCategory
	case *lf.ERecCon:
		d, s := t.record(e.Type, en)
		if len(d.Fields) != len(e.Fields) {
			t.fail("EFieldMismatch", "field mismatch: * expected: %s * record expression: %d fields", t.show(e.Type.Type()), len(e.Fields))
		}
		for i, f := range e.Fields {
			if d.Fields[i].Name != f.Name {
				t.fail("EFieldMismatch", "field mismatch: * expected: %s * record expression: field %s", t.show(e.Type.Type()), f.Name)
			}
		}
		for i, f := range e.Fields {
			t.checkExpr(f.Expr, t.substitute(d.Fields[i].Type, s), en)
		}
		return e.Type.Type()
	case *lf.ERecProj:
		d, s := t.record(e.Type, en)
		rec := e.Type.Type()
		ft := t.recordField(d, s, e.Field, rec)
		t.checkExpr(e.Record, rec, en)
		return ft
	case *lf.ERecUpd:
		d, s := t.record(e.Type, en)
		rec := e.Type.Type()
		t.checkExpr(e.Record, rec, en)
		ft := t.recordField(d, s, e.Field, rec)
		if got := t.typeOf(e.Update, en); !t.typeEqual(got, ft) {
			t.fail("EFieldTypeMismatch", "Tried to use field %s with type %s on value of type %s, but that field has type %s",
				e.Field, t.show(got), t.show(rec), t.show(ft))
		}
		return rec
	case *lf.EVariantCon:
		d, s := t.typeConApp(e.Type, en)
		if d.Kind != lf.DataVariant {
			t.fail("EExpectedVariantType", "expected variant type: %s", e.Type.Con)
		}
		ct, ok := fieldType(d.Fields, e.Con)
		if !ok {
			t.fail("EUnknownVariantCon", "unknown variant constructor: %s", e.Con)
		}
		t.checkExpr(e.Arg, t.substitute(ct, s), en)
		return e.Type.Type()
	case *lf.EEnumCon:
		d := t.dataType(e.Type)
		if d.Kind != lf.DataEnum {
			t.fail("EExpectedEnumType", "expected enum type: %s", e.Type)
		}
		if !contains(d.EnumCons, e.Con) {
			t.fail("EUnknownEnumCon", "unknown enum constructor: %s", e.Con)
		}
		return tCon(e.Type)
	case *lf.EStructCon:
		fs := make([]lf.Field, len(e.Fields))
		seen := make(map[string]bool, len(e.Fields))
		for i, f := range e.Fields {
			fs[i] = lf.Field{Name: f.Name, Type: t.typeOf(f.Expr, en)}
		}
		for _, f := range e.Fields {
			if seen[f.Name] {
				t.fail("EDuplicateField", "duplicate field: %s", f.Name)
			}
			seen[f.Name] = true
		}
		return lf.TStruct{Fields: fs}
	case *lf.EStructProj:
		ty := t.typeOf(e.Struct, en)
		ft, ok := fieldType(t.toStruct(ty).Fields, e.Field)
		if !ok {
			t.fail("EUnknownField", "Tried to access nonexistent field %s on value of type %s", e.Field, t.show(ty))
		}
		return ft
	case *lf.EStructUpd:
		ty := t.typeOf(e.Struct, en)
		st := t.toStruct(ty)
		ft, ok := fieldType(st.Fields, e.Field)
		if !ok {
			t.fail("EUnknownField", "Tried to access nonexistent field %s on value of type %s", e.Field, t.show(ty))
		}
		t.checkExpr(e.Update, ft, en)
		return st
	case *lf.EApp:
		ty := t.typeOf(e.Fun, en)
		for _, a := range e.Args {
			param, res := t.toFunction(ty)
			t.checkExpr(a, param, en)
			ty = res
		}
		return ty
	case *lf.ETyApp:
		return t.typeOfTyApp(e, en)
	case *lf.EAbs:
		for _, p := range e.Params {
			t.checkType(p.Type, kStar, en.tv)
			en = en.withVar(p.Name, p.Type)
		}
		ty := t.typeOf(e.Body, en)
		for i := len(e.Params) - 1; i >= 0; i-- {
			ty = tArrow(e.Params[i].Type, ty)
		}
		return ty
	case *lf.ETyAbs:
		for _, p := range e.Params {
			t.checkKind(p.Kind)
			en = en.withTypeVar(p.Name, p.Kind)
		}
		ty := t.typeOf(e.Body, en)
		for i := len(e.Params) - 1; i >= 0; i-- {
			ty = lf.TForall{Var: e.Params[i], Body: ty}
		}
		return ty
	case *lf.ECase:
		return t.typeOfCase(e, en)
	case *lf.ELet:
		for _, b := range e.Bindings {
			t.checkType(b.Binder.Type, kStar, en.tv)
			got := t.checkExpr(b.Bound, b.Binder.Type, en)
			en = en.withVar(b.Binder.Name, got)
		}
		return t.typeOf(e.Body, en)
	case *lf.ENil:
		t.checkType(e.Type, kStar, en.tv)
		return tList(e.Type)
	case *lf.ECons:
		t.checkType(e.Type, kStar, en.tv)
		if len(e.Front) == 0 {
			t.fail("EEmptyConsFront", "empty Cons front")
		}
		for _, x := range e.Front {
			t.checkExpr(x, e.Type, en)
		}
		l := tList(e.Type)
		t.checkExpr(e.Tail, l, en)
		return l
	case *lf.ENone:
		t.checkType(e.Type, kStar, en.tv)
		return tOptional(e.Type)
	case *lf.ESome:
		t.checkType(e.Type, kStar, en.tv)
		t.checkExpr(e.Value, e.Type, en)
		return tOptional(e.Type)
	case *lf.EToAny:
		t.checkAnyType(e.Type, en)
		t.checkExpr(e.Expr, e.Type, en)
		return tAny
	case *lf.EFromAny:
		t.checkAnyType(e.Type, en)
		t.checkExpr(e.Expr, tAny, en)
		return tOptional(e.Type)
	case *lf.ETypeRep:
		t.checkAnyType(e.Type, en)
		return tTypeRep
	case *lf.EThrow:
		t.checkType(e.ReturnType, kStar, en.tv)
		t.checkExceptionType(e.ExceptionType)
		t.checkExpr(e.Exception, e.ExceptionType, en)
		return e.ReturnType
	case *lf.EToAnyException:
		t.checkExceptionType(e.Type)
		t.checkExpr(e.Expr, e.Type, en)
		return tAnyException
	case *lf.EFromAnyException:
		t.checkExceptionType(e.Type)
		t.checkExpr(e.Expr, tAnyException, en)
		return tOptional(e.Type)
	case *lf.EToInterface:
		t.interfaceInstance(e.Interface, e.Template)
		t.checkExpr(e.Expr, tCon(e.Template), en)
		return tCon(e.Interface)
	case *lf.EFromInterface:
		t.interfaceInstance(e.Interface, e.Template)
		t.checkExpr(e.Expr, tCon(e.Interface), en)
		return tOptional(tCon(e.Template))
	case *lf.EUnsafeFromInterface:
		t.interfaceInstance(e.Interface, e.Template)
		t.checkExpr(e.ContractID, tContractID(tCon(e.Interface)), en)
		t.checkExpr(e.Expr, tCon(e.Interface), en)
		return tCon(e.Template)
	case *lf.EToRequiredInterface:
		t.requires(e.Requiring, e.Required)
		t.checkExpr(e.Expr, tCon(e.Requiring), en)
		return tCon(e.Required)
	case *lf.EFromRequiredInterface:
		t.requires(e.Requiring, e.Required)
		t.checkExpr(e.Expr, tCon(e.Required), en)
		return tOptional(tCon(e.Requiring))
	case *lf.EUnsafeFromRequiredInterface:
		t.requires(e.Requiring, e.Required)
		t.checkExpr(e.ContractID, tContractID(tCon(e.Required)), en)
		t.checkExpr(e.Expr, tCon(e.Required), en)
		return tCon(e.Requiring)
	case *lf.ECallInterface:
		i := t.iface(e.Interface)
		var m *lf.InterfaceMethod
		for k := range i.Methods {
			if i.Methods[k].Name == e.Method {
				m = &i.Methods[k]
			}
		}
		if m == nil {
			t.fail("EUnknownDefinition", "unknown method %s in interface %s", e.Method, e.Interface)
		}
		t.checkExpr(e.Expr, tCon(e.Interface), en)
		return m.Type
	case *lf.EInterfaceTemplateTypeRep:
		t.iface(e.Interface)
		t.checkExpr(e.Expr, tCon(e.Interface), en)
		return tTypeRep
	case *lf.ESignatoryInterface:
		t.iface(e.Interface)
		t.checkExpr(e.Expr, tCon(e.Interface), en)
		return tParties
	case *lf.EObserverInterface:
		t.iface(e.Interface)
		t.checkExpr(e.Expr, tCon(e.Interface), en)
		return tParties
	case *lf.EViewInterface:
		i := t.iface(e.Interface)
		t.checkExpr(e.Expr, tCon(e.Interface), en)
		return i.View
	case *lf.EChoiceController:
		return t.typeOfChoiceParties(e.Template, e.Choice, e.Contract, e.ChoiceArg, en)
	case *lf.EChoiceObserver:
		return t.typeOfChoiceParties(e.Template, e.Choice, e.Contract, e.ChoiceArg, en)
	case *lf.EExperimental:
		return e.Type
	case *lf.EUpdate:
		return t.typeOfUpdate(e.Update, en)
	}
	t.fail("EInternal", "unknown expression %T", e)
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (t *typer) requires(requiring, required lf.TypeConName) {
	i := t.iface(requiring)
	for _, r := range i.Requires {
		if r.Equal(required) {
			return
		}
	}
	t.fail("EWrongInterfaceRequirement", "Interface %s does not require %s", requiring, required)
}

func (t *typer) typeOfTyApp(e *lf.ETyApp, en env) lf.Type {
	// Nested applications are checked in one go, as Canton does, so that
	// the body is substituted once.
	var types []lf.Type
	x := lf.Expr(e)
	for {
		a, ok := x.(*lf.ETyApp)
		if !ok {
			break
		}
		types = append(append([]lf.Type{}, a.Types...), types...)
		x = a.Expr
		t.step()
	}
	body := t.typeOf(x, en)
	var s subst
	for _, arg := range types {
		f := t.toForall(body)
		t.checkType(arg, f.Var.Kind, en.tv)
		s.vars = append(s.vars, f.Var.Name)
		s.vals = append(s.vals, arg)
		body = f.Body
	}
	return t.substitute(body, s)
}

func (t *typer) typeOfChoiceParties(con lf.TypeConName, choice string, contract, arg lf.Expr, en env) lf.Type {
	m := t.module(con.Package, con.Module)
	var ch *lf.Choice
	switch {
	case m.Template(joinName(con.Name)) != nil:
		ch = t.templateChoice(con, choice)
	case m.Interface(joinName(con.Name)) != nil:
		ch = t.interfaceChoice(con, choice)
	default:
		t.fail("EUnknownDefinition", "unknown template or interface %s", con)
	}
	t.checkExpr(contract, tCon(con), en)
	t.checkExpr(arg, ch.ArgBinder.Type, en)
	return tParties
}

// checkAnyType: before 2.dev, only a type constructor goes into Any; in
// 2.dev any type without variables, quantifiers or synonyms.
func (t *typer) checkAnyType(ty lf.Type, en env) {
	if t.version.IsDev() {
		t.checkAnyTypeDev(ty, ty)
	} else if _, ok := ty.(lf.TCon); !ok {
		t.fail("EExpectedAnyType", "expected a any type but found: %s", t.show(ty))
	}
	t.checkType(ty, kStar, en.tv)
}

func (t *typer) checkAnyTypeDev(whole, ty lf.Type) {
	t.enter()
	defer t.leave()
	t.step()
	switch ty := ty.(type) {
	case lf.TVar, lf.TForall, lf.TSyn:
		t.fail("EExpectedAnyType", "expected a any type but found: %s", t.show(ty))
	case lf.TApp:
		t.checkAnyTypeDev(whole, ty.Fun)
		t.checkAnyTypeDev(whole, ty.Arg)
	case lf.TStruct:
		for _, f := range ty.Fields {
			t.checkAnyTypeDev(whole, f.Type)
		}
	}
}

func (t *typer) checkExceptionType(ty lf.Type) {
	c, ok := ty.(lf.TCon)
	if !ok {
		t.fail("EExpectedExceptionType", "expected an exception type, but found: %s", t.show(ty))
	}
	t.exception(c.Con)
}

// Case.

// patterns is what a scrutinee's type allows: the number of distinct
// constructors a case must cover, and a pattern's binders and rank.
func (t *typer) typeOfCase(e *lf.ECase, en env) lf.Type {
	scrut := t.typeOf(e.Scrut, en)
	var (
		number int
		intro  func(p lf.Pattern) (env, int) // rank -1: default
	)
	mismatch := func(p lf.Pattern) {
		t.fail("EPatternTypeMismatch", "pattern type mismatch:\n * pattern: %s\n * scrutinee type: %s", patternString(p), t.show(scrut))
	}
	onlyDefault := func(p lf.Pattern) (env, int) {
		if _, ok := p.(lf.PDefault); !ok {
			mismatch(p)
		}
		return en, -1
	}
	number, intro = 1, onlyDefault
	head, args := lf.SplitApp(scrut)
	switch h := head.(type) {
	case lf.TCon:
		d := t.dataType(h.Con)
		switch d.Kind {
		case lf.DataVariant:
			number = len(d.Fields)
			s := subst{vars: make([]string, 0, len(d.Params)), vals: args}
			for _, p := range d.Params {
				s.vars = append(s.vars, p.Name)
			}
			if len(s.vars) != len(s.vals) {
				t.fail("ETypeConAppWrongArity", "wrong arity in typecon application: %s", t.show(scrut))
			}
			intro = func(p lf.Pattern) (env, int) {
				switch p := p.(type) {
				case lf.PVariant:
					if !p.Type.Equal(h.Con) {
						mismatch(p)
					}
					for i, f := range d.Fields {
						if f.Name == p.Con {
							return en.withVar(p.Binder, t.substitute(f.Type, s)), i
						}
					}
					t.fail("EUnknownVariantCon", "unknown variant constructor: %s", p.Con)
				case lf.PDefault:
					return en, -1
				}
				mismatch(p)
				return en, 0
			}
		case lf.DataEnum:
			number = len(d.EnumCons)
			intro = func(p lf.Pattern) (env, int) {
				switch p := p.(type) {
				case lf.PEnum:
					if !p.Type.Equal(h.Con) {
						mismatch(p)
					}
					for i, c := range d.EnumCons {
						if c == p.Con {
							return en, i
						}
					}
					t.fail("EUnknownEnumCon", "unknown enum constructor: %s", p.Con)
				case lf.PDefault:
					return en, -1
				}
				mismatch(p)
				return en, 0
			}
		}
	case lf.TBuiltin:
		switch {
		case h.Builtin == lf.BuiltinUnit && len(args) == 0:
			intro = func(p lf.Pattern) (env, int) {
				switch p := p.(type) {
				case lf.PBuiltinCon:
					if p.Con == lf.ConUnit {
						return en, 0
					}
				case lf.PDefault:
					return en, -1
				}
				mismatch(p)
				return en, 0
			}
		case h.Builtin == lf.BuiltinBool && len(args) == 0:
			number = 2
			intro = func(p lf.Pattern) (env, int) {
				switch p := p.(type) {
				case lf.PBuiltinCon:
					switch p.Con {
					case lf.ConTrue:
						return en, 0
					case lf.ConFalse:
						return en, 1
					}
				case lf.PDefault:
					return en, -1
				}
				mismatch(p)
				return en, 0
			}
		case h.Builtin == lf.BuiltinList && len(args) == 1:
			number = 2
			elem := args[0]
			intro = func(p lf.Pattern) (env, int) {
				switch p := p.(type) {
				case lf.PNil:
					return en, 0
				case lf.PCons:
					if p.Head == p.Tail {
						t.fail("EClashingPatternVariables", "%s is used more than one in pattern", p.Head)
					}
					return en.withVar(p.Head, elem).withVar(p.Tail, scrut), 1
				case lf.PDefault:
					return en, -1
				}
				mismatch(p)
				return en, 0
			}
		case h.Builtin == lf.BuiltinOptional && len(args) == 1:
			number = 2
			elem := args[0]
			intro = func(p lf.Pattern) (env, int) {
				switch p := p.(type) {
				case lf.PNone:
					return en, 0
				case lf.PSome:
					return en.withVar(p.Binder, elem), 1
				case lf.PDefault:
					return en, -1
				}
				mismatch(p)
				return en, 0
			}
		}
	}
	if len(e.Alts) == 0 {
		t.fail("EEmptyCase", "empty case")
	}
	var result lf.Type
	for _, alt := range e.Alts {
		ae, _ := intro(alt.Pattern)
		ty := t.typeOf(alt.Body, ae)
		if result == nil {
			result = ty
		} else if !t.typeEqual(result, ty) {
			t.typeMismatch(ty, result)
		}
	}
	// Exhaustiveness: a default, or every constructor.
	covered := make([]bool, number)
	n := 0
	for _, alt := range e.Alts {
		_, rank := intro(alt.Pattern)
		if rank < 0 {
			return result
		}
		if rank < number && !covered[rank] {
			covered[rank] = true
			n++
		}
	}
	if n < number {
		t.fail("ENonExhaustivePatterns", "non-exhaustive pattern match:\n * missing patterns: %d of %d\n * scrutinee type: %s", number-n, number, t.show(scrut))
	}
	return result
}

func patternString(p lf.Pattern) string {
	switch p := p.(type) {
	case lf.PVariant:
		return p.Type.Name.String() + ":" + p.Con + " " + p.Binder
	case lf.PEnum:
		return p.Type.Name.String() + ":" + p.Con
	case lf.PBuiltinCon:
		return p.Con.String()
	case lf.PNil:
		return "[]"
	case lf.PCons:
		return p.Head + " :: " + p.Tail
	case lf.PNone:
		return "None"
	case lf.PSome:
		return "Some " + p.Binder
	}
	return "_"
}

// Updates.

func (t *typer) typeOfUpdate(u lf.Update, en env) lf.Type {
	t.enter()
	defer t.leave()
	t.step()
	switch u := u.(type) {
	case *lf.UPure:
		t.checkType(u.Type, kStar, en.tv)
		t.checkExpr(u.Expr, u.Type, en)
		return tUpdate(u.Type)
	case *lf.UBlock:
		for _, b := range u.Bindings {
			t.checkType(b.Binder.Type, kStar, en.tv)
			t.checkExpr(b.Bound, tUpdate(b.Binder.Type), en)
			en = en.withVar(b.Binder.Name, b.Binder.Type)
		}
		return t.toUpdate(t.typeOf(u.Body, en))
	case *lf.UCreate:
		t.template(u.Template)
		t.checkExpr(u.Arg, tCon(u.Template), en)
		return tUpdate(tContractID(tCon(u.Template)))
	case *lf.UCreateInterface:
		t.iface(u.Interface)
		t.checkExpr(u.Arg, tCon(u.Interface), en)
		return tUpdate(tContractID(tCon(u.Interface)))
	case *lf.UExercise:
		ch := t.templateChoice(u.Template, u.Choice)
		t.checkExpr(u.ContractID, tContractID(tCon(u.Template)), en)
		t.checkExpr(u.Arg, ch.ArgBinder.Type, en)
		return tUpdate(ch.ReturnType)
	case *lf.UExerciseInterface:
		t.checkExpr(u.ContractID, tContractID(tCon(u.Interface)), en)
		ch := t.interfaceChoice(u.Interface, u.Choice)
		t.checkExpr(u.Arg, ch.ArgBinder.Type, en)
		if u.Guard != nil {
			t.checkExpr(u.Guard, tArrow(tCon(u.Interface), tBool), en)
		}
		return tUpdate(ch.ReturnType)
	case *lf.UExerciseByKey:
		k := t.templateKey(u.Template)
		t.checkExpr(u.Key, k.Type, en)
		ch := t.templateChoice(u.Template, u.Choice)
		t.checkExpr(u.Arg, ch.ArgBinder.Type, en)
		return tUpdate(ch.ReturnType)
	case *lf.UFetch:
		t.template(u.Template)
		t.checkExpr(u.ContractID, tContractID(tCon(u.Template)), en)
		return tUpdate(tCon(u.Template))
	case *lf.UFetchInterface:
		t.iface(u.Interface)
		t.checkExpr(u.ContractID, tContractID(tCon(u.Interface)), en)
		return tUpdate(tCon(u.Interface))
	case *lf.UGetTime:
		return tUpdate(tTimestamp)
	case *lf.ULedgerTimeLT:
		t.checkExpr(u.Time, tTimestamp, en)
		return tUpdate(tBool)
	case *lf.UEmbedExpr:
		t.checkExpr(u.Expr, tUpdate(u.Type), en)
		return tUpdate(u.Type)
	case *lf.UFetchByKey:
		k := t.templateKey(u.Template)
		tpl := tCon(u.Template)
		return tArrow(k.Type, tUpdate(lf.App(tCon(tuple2), tContractID(tpl), tpl)))
	case *lf.UQueryNByKey:
		k := t.templateKey(u.Template)
		tpl := tCon(u.Template)
		return arrows(tInt64, k.Type, tUpdate(tOptional(tList(lf.App(tCon(tuple2), tContractID(tpl), tpl)))))
	case *lf.ULookupByKey:
		k := t.templateKey(u.Template)
		return tArrow(k.Type, tUpdate(tOptional(tContractID(tCon(u.Template)))))
	case *lf.UTryCatch:
		t.checkType(u.ReturnType, kStar, en.tv)
		ut := tUpdate(u.ReturnType)
		t.checkExpr(u.Try, ut, en)
		t.checkExpr(u.Catch, tOptional(ut), en.withVar(u.Var, tAnyException))
		return ut
	}
	t.fail("EInternal", "unknown update %T", u)
	return nil
}
