package validate

import (
	"sort"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
)

func (t *typer) qualify(m *lf.Module, name lf.DottedName) lf.TypeConName {
	return lf.TypeConName{Package: t.pkg.ID, Module: m.Name, Name: name}
}

func (t *typer) checkParams(params []lf.TypeVar) *tvars {
	var tv *tvars
	seen := make(map[string]bool, len(params))
	for _, p := range params {
		t.checkKind(p.Kind)
		tv = tv.with(p.Name, p.Kind)
	}
	for _, p := range params {
		if seen[p.Name] {
			t.fail("EDuplicateTypeParam", "duplicate type parameter: %s", p.Name)
		}
		seen[p.Name] = true
	}
	return tv
}

// checkModule is Canton's Typing.checkModule.
func (t *typer) checkModule(m *lf.Module) {
	t.curMod = joinName(m.Name)
	for _, d := range m.DataTypes {
		id := t.qualify(m, d.Name)
		t.at("data type " + id.String())
		tv := t.checkParams(d.Params)
		switch d.Kind {
		case lf.DataRecord:
			t.checkFields(d.Fields, tv)
		case lf.DataVariant:
			seen := make(map[string]bool, len(d.Fields))
			for _, f := range d.Fields {
				if seen[f.Name] {
					t.fail("EDuplicateVariantCon", "duplicate variant constructor: %s", f.Name)
				}
				seen[f.Name] = true
			}
			for _, f := range d.Fields {
				t.checkType(f.Type, kStar, tv)
			}
		case lf.DataEnum:
			if len(d.Params) > 0 {
				t.fail("EIllegalHigherEnumType", "illegal higher order enum type")
			}
			seen := make(map[string]bool, len(d.EnumCons))
			for _, c := range d.EnumCons {
				if seen[c] {
					t.fail("EDuplicateEnumCon", "duplicate enum constructor: %s", c)
				}
				seen[c] = true
			}
		case lf.DataInterface:
			if len(d.Params) > 0 {
				t.fail("EIllegalHigherInterfaceType", "illegal higher interface type")
			}
			t.iface(id)
		}
	}
	for _, s := range m.Synonyms {
		t.checkedSynonym(t.qualify(m, s.Name))
	}
	for _, v := range m.Values {
		t.at("value " + t.qualify(m, v.Name).String())
		t.checkType(v.Type, kStar, nil)
		body, err := v.Expr()
		if err != nil {
			t.fail("EMalformedBody", "%v", err)
		}
		t.checkExpr(body, v.Type, env{})
	}
	for _, tpl := range m.Templates {
		id := t.qualify(m, tpl.Name)
		t.at("template " + id.String())
		d := m.DataType(joinName(tpl.Name))
		if d == nil || d.Kind != lf.DataRecord || len(d.Params) > 0 {
			t.fail("EExpectedTemplatableType", "expected monomorphic record type in template definition, but found: %s", id)
		}
		t.checkTemplate(id, tpl)
	}
	for _, x := range m.Exceptions {
		id := t.qualify(m, x.Name)
		t.at("exception " + id.String())
		d := m.DataType(joinName(x.Name))
		if d == nil || d.Kind != lf.DataRecord || len(d.Params) > 0 {
			t.fail("EExpectedExceptionableType", "expected monomorphic record type in exception definition, but found: %s", id)
		}
		t.checkExpr(x.Message, tArrow(tCon(id), tText), env{})
	}
	for _, i := range m.Interfaces {
		id := t.qualify(m, i.Name)
		t.at("interface " + id.String())
		t.checkInterface(id, i)
	}
}

func (t *typer) checkTemplate(id lf.TypeConName, tpl *lf.Template) {
	en := env{}.withVar(tpl.Param, tCon(id))
	t.checkExpr(tpl.Precond, tBool, en)
	t.checkExpr(tpl.Signatories, tParties, en)
	t.checkExpr(tpl.Observers, tParties, en)
	for _, ch := range tpl.Choices {
		t.checkChoice(id, "template", ch, en)
	}
	for _, ii := range tpl.Implements {
		t.checkInterfaceInstance(id, tpl.Param, ii)
	}
	if k := tpl.Key; k != nil {
		t.at("template " + id.String())
		t.checkType(k.Type, kStar, nil)
		t.checkExpr(k.Body, k.Type, en)
		t.checkExpr(k.Maintainers, tArrow(k.Type, tParties), env{})
	}
}

func (t *typer) checkChoice(owner lf.TypeConName, ownerSort string, ch *lf.Choice, en env) {
	t.at("choice " + ch.Name + " in " + ownerSort + " " + owner.String())
	pt := ch.ArgBinder.Type
	t.checkType(pt, kStar, nil)
	t.checkType(ch.ReturnType, kStar, nil)
	withArg := en.withVar(ch.ArgBinder.Name, pt)
	t.checkExpr(ch.Controllers, tParties, withArg)
	if ch.Observers != nil {
		t.checkExpr(ch.Observers, tParties, withArg)
	}
	if ch.Authorizers != nil {
		t.checkExpr(ch.Authorizers, tParties, withArg)
	}
	body := en.withVar(ch.SelfBinder, tContractID(tCon(owner))).withVar(ch.ArgBinder.Name, pt)
	t.checkExpr(ch.Update, tUpdate(ch.ReturnType), body)
}

func (t *typer) checkInterfaceInstance(tplID lf.TypeConName, param string, ii *lf.InterfaceInstance) {
	t.at("interface instance " + ii.Interface.String() + " for " + tplID.String())
	i := t.iface(ii.Interface)
	en := env{}.withVar(param, tCon(tplID))
	for _, r := range i.Requires {
		if !t.hasInstance(r, tplID) {
			t.fail("EMissingRequiredInterfaceInstance", "Missing required interface instance %s for %s, required by interface %s", r, tplID, ii.Interface)
		}
	}
	for _, m := range i.Methods {
		found := false
		for _, im := range ii.Methods {
			if im.Name == m.Name {
				found = true
				break
			}
		}
		if !found {
			t.fail("EMissingMethodInInterfaceInstance", "Interface instance lacks an implementation for method '%s'.", m.Name)
		}
	}
	for _, im := range ii.Methods {
		var want lf.Type
		for _, m := range i.Methods {
			if m.Name == im.Name {
				want = m.Type
			}
		}
		if want == nil {
			t.fail("EUnknownMethodInInterfaceInstance", "Tried to implement method %s but interface %s does not have a method with that name.", im.Name, ii.Interface)
		}
		if got := t.typeOf(im.Value, en); !t.typeEqual(got, want) {
			t.fail("EMethodTypeMismatch", "Implementation of method %s on interface %s should return %s but instead returns %s", im.Name, ii.Interface, t.show(want), t.show(got))
		}
	}
	if ii.View == nil {
		t.fail("EViewTypeMismatch", "the instance of interface %s for template %s has no view", ii.Interface, tplID)
	}
	if got := t.typeOf(ii.View, en); !t.typeEqual(got, i.View) {
		t.fail("EViewTypeMismatch", "Tried to implement a view of type %s on interface %s for template %s, but the definition of interface %s requires a view of type %s",
			t.show(got), ii.Interface, tplID, ii.Interface, t.show(i.View))
	}
}

func (t *typer) checkInterface(id lf.TypeConName, i *lf.Interface) {
	for _, r := range i.Requires {
		if r.Equal(id) {
			t.fail("ECircularInterfaceRequires", "Circular interface requirement is not allowed: interface %s requires itself.", id)
		}
	}
	for _, r := range i.Requires {
		for _, rr := range t.iface(r).Requires {
			found := false
			for _, x := range i.Requires {
				if x.Equal(rr) {
					found = true
				}
			}
			if !found {
				t.fail("ENotClosedInterfaceRequires", "Interface %s is missing requirements %s required by %s", id, rr, r)
			}
		}
	}
	for _, m := range i.Methods {
		t.checkType(m.Type, kStar, nil)
	}
	en := env{}.withVar(i.Param, tCon(id))
	for _, ch := range i.Choices {
		t.checkChoice(id, "interface", ch, en)
	}
	t.at("interface " + id.String())
	switch v := i.View.(type) {
	case lf.TCon:
		d := t.dataType(v.Con)
		if len(d.Params) > 0 {
			t.fail("EViewTypeHasVars", "expected monomorphic record type in view type, but found a type constructor with type variables: %s", t.show(v))
		}
		if d.Kind != lf.DataRecord {
			t.fail("EViewTypeConNotRecord", "expected monomorphic record type in view type, but found a %s type instead: %s", d.Kind, t.show(v))
		}
	case lf.TApp:
		t.fail("EViewTypeHasVars", "expected monomorphic record type in view type, but found a type constructor with type variables: %s", t.show(v))
	default:
		t.fail("EViewTypeHeadNotCon", "expected monomorphic record type in view type, but found %s", t.show(i.View))
	}
}

// Dependencies and modules.

func (t *typer) checkDependencyVersions() {
	for _, dep := range t.pkg.DirectDeps {
		if dep == t.pkg.ID {
			continue
		}
		var d *lf.Package
		if t.lookup != nil {
			d = t.lookup(dep)
		}
		if d == nil {
			t.fail("EUnknownDefinition", "unknown package %s", dep)
		}
		if versionLess(t.pkg.LanguageVersion, d.LanguageVersion) {
			t.fail("EModuleVersionDependencies", "package %s using version %s depends on package %s using newer version %s",
				t.pkg.ID, t.pkg.LanguageVersion, dep, d.LanguageVersion)
		}
	}
}

func versionLess(a, b lf.LanguageVersion) bool {
	return a.Major < b.Major || a.Major == b.Major && a.Minor < b.Minor
}

// noteModuleRef records that the module being checked refers to module mod
// of its own package.
func (t *typer) noteModuleRef(mod string) {
	if mod == t.curMod || t.curMod == "" {
		return
	}
	if t.moduleRefs == nil {
		t.moduleRefs = map[string]map[string]bool{}
	}
	refs := t.moduleRefs[t.curMod]
	if refs == nil {
		refs = map[string]bool{}
		t.moduleRefs[t.curMod] = refs
	}
	refs[mod] = true
}

// checkModuleCycles refuses a cycle among the modules of the package, found
// from the references the typing met (every definition a module names is
// looked up while it is typed).
func (t *typer) checkModuleCycles() {
	const (
		unvisited = iota
		visiting
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(m string)
	visit = func(m string) {
		t.step()
		switch state[m] {
		case visiting:
			i := len(stack) - 1
			for i > 0 && stack[i] != m {
				i--
			}
			cycle := append(append([]string{}, stack[i:]...), m)
			t.fail("EImportCycle", "cycle in module dependency %s", strings.Join(cycle, " -> "))
		case done:
			return
		}
		state[m] = visiting
		stack = append(stack, m)
		refs := make([]string, 0, len(t.moduleRefs[m]))
		for r := range t.moduleRefs[m] {
			refs = append(refs, r)
		}
		sort.Strings(refs)
		for _, r := range refs {
			visit(r)
		}
		stack = stack[:len(stack)-1]
		state[m] = done
	}
	mods := make([]string, 0, len(t.moduleRefs))
	for m := range t.moduleRefs {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		visit(m)
	}
}
