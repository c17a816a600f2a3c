package script

import (
	"fmt"
	"slices"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/upgrade"
	"github.com/ledger-cli/ledger/daml/value"
)

// Package names, as Daml's runner resolves them on its IDE ledger
// (IdeLedgerClient: toCommand, calculatePackageMap): a command of a script
// that names its template by package name (explicitPackageId = False) runs
// with the ledger's preferred package of that name — the one the
// submission's package preference names, else the highest vetted version —
// and its results are converted back to the version the script was
// written against.

// preferredPackages is the package each package name resolves to on the
// ledger: preference first, else the highest vetted version of a package
// that supports upgrades. l.mu is held.
func (l *MemoryLedger) preferredPackages(preference []lf.PackageID) map[string]lf.PackageID {
	out := map[string]lf.PackageID{}
	versions := map[string]string{}
	for _, p := range l.pkgs.Env.Packages() {
		if l.unvetted[PackageRef{p.Name, p.Version}] || !upgrade.SupportsUpgrades(p) {
			continue
		}
		if v, ok := versions[p.Name]; !ok || upgrade.CompareVersions(p.Version, v) > 0 {
			versions[p.Name], out[p.Name] = p.Version, p.ID
		}
	}
	for _, id := range preference {
		if p := l.pkgs.Env.Package(id); p != nil && !l.unvetted[PackageRef{p.Name, p.Version}] {
			out[p.Name] = id
		}
	}
	return out
}

// byName returns command c, whose template or interface is named by
// package name, with the preferred package of that name and its arguments
// converted to that package's types. l.mu is held.
func (l *MemoryLedger) byName(c interp.Command, preferred map[string]lf.PackageID) (interp.Command, error) {
	id := commandTemplate(c)
	if id == nil {
		return c, nil
	}
	p := l.pkgs.Env.Package(lf.PackageID(id.PackageID))
	if p == nil || !upgrade.SupportsUpgrades(p) {
		return c, nil
	}
	target, ok := preferred[p.Name]
	if !ok {
		return nil, &SubmitFailure{ID: "PACKAGE_SELECTION_FAILED", Message: fmt.Sprintf(
			"no vetted package named %s for %s: vet one (vetPackages) or name the package exactly (createExactCmd, exerciseExactCmd)", p.Name, id)}
	}
	if string(target) == id.PackageID {
		return c, nil
	}
	to := &value.Identifier{PackageID: string(target), ModuleName: id.ModuleName, EntityName: id.EntityName}
	eng := l.pkgs.Interpreter()
	tp := l.pkgs.Env.Package(target)
	conv := func(what string, t lf.Type, v value.Value) (value.Value, error) {
		if t == nil || v == nil {
			return v, nil
		}
		x, err := eng.Translate(t, v)
		if err != nil {
			return nil, &SubmitFailure{ID: "COMMAND_PREPROCESSING_FAILED", Message: fmt.Sprintf(
				"the %s of a command on %s does not convert to %s-%s (%s): %v", what, id, tp.Name, tp.Version, target, err)}
		}
		return x, nil
	}
	switch x := c.(type) {
	case *interp.CreateCommand:
		arg, err := conv("create argument", tcon(to), x.Argument)
		return &interp.CreateCommand{Template: to, Argument: arg}, err
	case *interp.ExerciseCommand:
		arg, err := conv("choice argument", choiceArgType(tp, to, x.Choice), x.Argument)
		y := *x
		y.Template, y.Argument = to, arg
		return &y, err
	case *interp.CreateAndExerciseCommand:
		carg, err := conv("create argument", tcon(to), x.CreateArgument)
		if err != nil {
			return nil, err
		}
		arg, err := conv("choice argument", choiceArgType(tp, to, x.Choice), x.ChoiceArgument)
		y := *x
		y.Template, y.CreateArgument, y.ChoiceArgument = to, carg, arg
		return &y, err
	case *interp.ExerciseByKeyCommand:
		var keyType lf.Type
		if m := tp.Module(to.ModuleName); m != nil {
			if t := m.Template(to.EntityName); t != nil && t.Key != nil {
				keyType = t.Key.Type
			}
		}
		key, err := conv("contract key", keyType, x.Key)
		if err != nil {
			return nil, err
		}
		arg, err := conv("choice argument", choiceArgType(tp, to, x.Choice), x.Argument)
		y := *x
		y.Template, y.Key, y.Argument = to, key, arg
		return &y, err
	}
	return c, nil
}

// choiceArgType is the argument type of a template's or interface's
// choice in package p, or nil.
func choiceArgType(p *lf.Package, id *value.Identifier, choice string) lf.Type {
	m := p.Module(id.ModuleName)
	if m == nil {
		return nil
	}
	if t := m.Template(id.EntityName); t != nil {
		if c := t.Choice(choice); c != nil {
			return c.ArgBinder.Type
		}
	}
	if i := m.Interface(id.EntityName); i != nil {
		if c := i.Choice(choice); c != nil {
			return c.ArgBinder.Type
		}
	}
	return nil
}

// asWritten returns t with the root node of each command (two for a
// create-and-exercise) seen as the version of the package the script
// named, as Daml's runner enriches them with the command's own template
// id: a created contract's argument, an exercise's argument and result
// converted to that version's types. Nodes already of that version, and
// all others, are t's own; t itself is not changed.
func (st *run) asWritten(cmds []interp.Command, t *tx.Transaction) (*tx.Transaction, error) {
	out := *t
	out.Nodes = slices.Clone(t.Nodes)
	roots := t.Roots
	for _, c := range cmds {
		want := commandTemplate(c)
		n := 1
		if _, ok := c.(*interp.CreateAndExerciseCommand); ok {
			n = 2
		}
		for range n {
			if len(roots) == 0 {
				return &out, nil
			}
			id := roots[0]
			roots = roots[1:]
			node, err := st.nodeAs(t.Nodes[id], want)
			if err != nil {
				return nil, err
			}
			out.Nodes[id] = node
		}
	}
	return &out, nil
}

// nodeAs converts a root node of another version of want's package to
// want's version.
func (st *run) nodeAs(node tx.Node, want *value.Identifier) (tx.Node, error) {
	if want == nil {
		return node, nil
	}
	p := st.r.lfPkgs[lf.PackageID(want.PackageID)]
	if p == nil {
		return node, nil
	}
	same := func(id *value.Identifier) bool {
		return id == nil || id.PackageID == want.PackageID || id.ModuleName != want.ModuleName || id.EntityName != want.EntityName
	}
	conv := func(what string, t lf.Type, v value.Value) (value.Value, error) {
		if t == nil || v == nil {
			return v, nil
		}
		x, err := st.r.engine.Translate(t, v)
		if err != nil {
			return nil, &Failure{Kind: "command", Command: "Submit", Message: fmt.Sprintf(
				"the %s of %s does not convert back to %s-%s, the version the script names: %v", what, want, p.Name, p.Version, err)}
		}
		return x, nil
	}
	switch n := node.(type) {
	case *tx.Create:
		if same(n.TemplateID) {
			return node, nil
		}
		arg, err := conv("created contract", tcon(want), n.Argument)
		if err != nil {
			return nil, err
		}
		c := *n
		c.TemplateID, c.Argument = want, arg
		return &c, nil
	case *tx.Exercise:
		if n.InterfaceID != nil || same(n.TemplateID) {
			return node, nil
		}
		var argType, resType lf.Type
		if m := p.Module(want.ModuleName); m != nil {
			if tp := m.Template(want.EntityName); tp != nil {
				if ch := tp.Choice(n.Choice); ch != nil {
					argType, resType = ch.ArgBinder.Type, ch.ReturnType
				}
			}
		}
		arg, err := conv("choice argument", argType, n.ChosenValue)
		if err != nil {
			return nil, err
		}
		res, err := conv("choice result", resType, n.Result)
		if err != nil {
			return nil, err
		}
		e := *n
		e.TemplateID, e.ChosenValue, e.Result = want, arg, res
		return &e, nil
	}
	return node, nil
}

// versionsOf returns id and the templates of the same module and name in
// the other versions of its package (packages of the same name that
// support upgrades).
func (st *run) versionsOf(id *value.Identifier) []*value.Identifier {
	out := []*value.Identifier{id}
	p := st.r.lfPkgs[lf.PackageID(id.PackageID)]
	if p == nil || !upgrade.SupportsUpgrades(p) {
		return out
	}
	for _, q := range st.r.lfPkgs {
		if q.ID == p.ID || q.Name != p.Name || !upgrade.SupportsUpgrades(q) {
			continue
		}
		if m := q.Module(id.ModuleName); m != nil && m.Template(id.EntityName) != nil {
			out = append(out, &value.Identifier{PackageID: string(q.ID), ModuleName: id.ModuleName, EntityName: id.EntityName})
		}
	}
	return out
}

// PreferringLedger is a Ledger that says which package a package name
// resolves to on it (the in-memory ledger: the highest vetted version).
type PreferringLedger interface {
	PreferredPackage(name string) (lf.PackageID, bool)
}

// PreferredPackage returns the package name resolves to on the ledger: its
// highest vetted version.
func (l *MemoryLedger) PreferredPackage(name string) (lf.PackageID, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id, ok := l.preferredPackages(nil)[name]
	return id, ok
}

// upgraded returns a contract as the ledger's preferred version of its
// package sees it, as Daml's runner computes interface views
// (IdeLedgerClient.queryInterface): the template of the same name in that
// version, the argument converted to it. A contract that does not
// convert, or a ledger that does not say, keeps its own.
func (st *run) upgraded(c *tx.Contract) (*value.Identifier, value.Value) {
	pl, ok := st.ledger.(PreferringLedger)
	p := st.r.lfPkgs[lf.PackageID(c.TemplateID.PackageID)]
	if !ok || p == nil || !upgrade.SupportsUpgrades(p) {
		return c.TemplateID, c.Argument
	}
	pref, ok := pl.PreferredPackage(p.Name)
	if !ok || string(pref) == c.TemplateID.PackageID {
		return c.TemplateID, c.Argument
	}
	to := &value.Identifier{PackageID: string(pref), ModuleName: c.TemplateID.ModuleName, EntityName: c.TemplateID.EntityName}
	arg, err := st.r.engine.Translate(tcon(to), c.Argument)
	if err != nil {
		return c.TemplateID, c.Argument
	}
	return to, arg
}
