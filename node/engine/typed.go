package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/node/generic"
)

// Commands on templates of uploaded packages are typed: the engine's
// command preprocessing (daml/engine/preprocess) reads their arguments by
// the Daml-LF types of the package, as Canton's JSON API reads them, into
// the interpreter's commands (daml.go). What stays here is the node's side:
// saying which model serves a template, and showing and checking the
// untyped values of the generic model's transactions by their types when
// their package was uploaded since.

// logModel says once per template which model serves it.
func (e *Engine) logModel(templateID, packageName string, typed bool) {
	if _, seen := e.logged.LoadOrStore(templateID, true); seen {
		return
	}
	if typed {
		e.cfg.Logger.Info("template served by its package's Daml-LF types", "templateId", templateID, "packageName", packageName, "model", "typed")
		return
	}
	e.cfg.Logger.Info("template served by the generic contract model (its package was never uploaded)", "templateId", templateID, "model", "generic")
}

// typedPlan finds the type of a create argument (choice "") or of a choice
// argument of template tmplID in the uploaded packages; ok is false when
// the package was never uploaded.
func typedPlan(set *PackageSet, tmplID *value.Identifier, choice string) (*typed.Plan, bool, error) {
	if set == nil || tmplID == nil || set.Env.Package(lf.PackageID(tmplID.PackageID)) == nil {
		return nil, false, nil
	}
	con := lf.TypeConName{Package: lf.PackageID(tmplID.PackageID),
		Module: strings.Split(tmplID.ModuleName, "."), Name: strings.Split(tmplID.EntityName, ".")}
	var typ lf.Type = lf.TCon{Con: con}
	if choice != "" {
		c, ok := set.Env.Choice(con, choice)
		if !ok {
			return nil, true, fmt.Errorf("%s has no choice %s", con, choice)
		}
		typ = c.ArgType
	}
	p, err := set.Env.Plan(typ)
	return p, true, err
}

// ArgumentJSON renders a create argument (choice "") or a choice argument
// of template tmplID as the JSON API's events show it: by its type when the
// template's package is in set, else by the generic rule (ValueToJSON).
// Whoever renders stored contracts (active contracts, updates) should use
// it with the node's current PackageSet.
func ArgumentJSON(set *PackageSet, tmplID *value.Identifier, choice string, arg value.Value) (json.RawMessage, error) {
	plan, ok, err := typedPlan(set, tmplID, choice)
	if !ok {
		return generic.ValueToJSON(arg)
	}
	if err != nil {
		return nil, err
	}
	v, err := typeValue(plan, arg)
	if err != nil {
		return nil, err
	}
	return plan.EncodeJSON(v)
}

// typeValue reads an untyped value by plan's type, as the value would be
// read from a prepared transaction or the store.
func typeValue(plan *typed.Plan, arg value.Value) (value.Value, error) {
	pv, err := typed.ToProtoAsIs(arg)
	if err != nil {
		return nil, err
	}
	return plan.FromProto(pv)
}

// canonicalArgument checks a value of a prepared transaction against its
// type and returns it as prepare writes it, so that execute refuses a value
// prepare would not have made. Values of packages never uploaded are
// returned as they are.
func canonicalArgument(set *PackageSet, tmplID *value.Identifier, choice string, arg value.Value) (value.Value, error) {
	plan, ok, err := typedPlan(set, tmplID, choice)
	if !ok {
		return arg, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := typeValue(plan, arg)
	if err != nil {
		return nil, err
	}
	// As prepare writes a typed value (trailing None fields left out),
	// read back untyped: the generic model writes its values as they are.
	pv, err := typed.ToProto(v)
	if err != nil {
		return nil, err
	}
	return typed.FromProtoAsIs(pv)
}
