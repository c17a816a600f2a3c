package engine

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

// Plans finds, and keeps for the values of one transaction, the typed
// codecs (typed.Plan) of create arguments, choice arguments, choice results
// and contract keys by template or interface.
type Plans struct {
	set   *PackageSet
	plans map[planID]*typed.Plan
}

type planKind uint8

const (
	planArgument planKind = iota
	planChoice
	planResult
	planContractKey
)

type planID struct {
	tmpl   string
	kind   planKind
	choice string
}

// NewPlans returns the codecs of set's values.
func NewPlans(set *PackageSet) *Plans { return &Plans{set: set} }

// Argument is the codec of the create argument of template tmpl.
func (c *Plans) Argument(tmpl *value.Identifier) (*typed.Plan, error) {
	return c.plan(tmpl, planArgument, "")
}

// ChoiceArgument is the codec of the argument of a choice of template or
// interface owner.
func (c *Plans) ChoiceArgument(owner *value.Identifier, choice string) (*typed.Plan, error) {
	return c.plan(owner, planChoice, choice)
}

// ChoiceResult is the codec of the result of a choice of template or
// interface owner.
func (c *Plans) ChoiceResult(owner *value.Identifier, choice string) (*typed.Plan, error) {
	return c.plan(owner, planResult, choice)
}

// Key is the codec of the key of template tmpl.
func (c *Plans) Key(tmpl *value.Identifier) (*typed.Plan, error) {
	return c.plan(tmpl, planContractKey, "")
}

func (c *Plans) plan(tmpl *value.Identifier, kind planKind, choice string) (*typed.Plan, error) {
	key := planID{tmpl.String(), kind, choice}
	if plan := c.plans[key]; plan != nil {
		return plan, nil
	}
	if c.set == nil || c.set.Env == nil {
		return nil, fmt.Errorf("no package defines %s: the package set is empty", tmpl)
	}
	con := ConOf(tmpl)
	var typ lf.Type = lf.TCon{Con: con}
	switch sig, found := c.set.Env.Template(con); {
	case kind == planContractKey && (!found || sig.Key == nil):
		return nil, fmt.Errorf("%s has no key", tmpl)
	case kind == planContractKey:
		typ = sig.Key
	case kind == planChoice || kind == planResult:
		sig, ok := c.set.Env.Choice(con, choice)
		if !ok {
			return nil, fmt.Errorf("%s has no choice %s", tmpl, choice)
		}
		typ = sig.ArgType
		if kind == planResult {
			typ = sig.ReturnType
		}
	case !found:
		return nil, fmt.Errorf("no package of the set defines template %s", tmpl)
	}
	plan, err := c.set.Env.Plan(typ)
	if err != nil {
		return nil, fmt.Errorf("the type of %s %s: %w", tmpl, kindText(kind, choice), err)
	}
	if c.plans == nil {
		c.plans = map[planID]*typed.Plan{}
	}
	c.plans[key] = plan
	return plan, nil
}

func kindText(k planKind, choice string) string {
	switch k {
	case planChoice:
		return choice
	case planResult:
		return choice + " result"
	case planContractKey:
		return "key"
	}
	return "argument"
}

// ConOf is the type constructor name of an identifier.
func ConOf(id *value.Identifier) lf.TypeConName {
	return lf.TypeConName{Package: lf.PackageID(id.PackageID), Module: lf.SplitDotted(id.ModuleName), Name: lf.SplitDotted(id.EntityName)}
}
