package script

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// queryParties reads a query's parties.
func queryParties(name string, p value.Value) ([]string, error) {
	ps, err := parties(field(p, "parties"))
	if err == nil && len(ps) == 0 {
		err = fmt.Errorf("no parties given")
	}
	if err != nil {
		return nil, &Failure{Kind: "command", Command: name, Message: "query: " + err.Error()}
	}
	return ps, nil
}

// queryACS answers [(ContractId (), AnyTemplate)]: the active contracts of a
// template visible to the parties.
func (st *run) queryACS(p value.Value) (value.Value, error) {
	ps, err := queryParties("QueryACS", p)
	if err != nil {
		return nil, err
	}
	tmpl, err := identifierOf(field(p, "tplId"))
	if err != nil {
		return nil, st.commandError("QueryACS", err)
	}
	cs, err := st.ledger.ActiveContracts(st.ctx, ps, []*value.Identifier{tmpl})
	if err != nil {
		return nil, st.commandError("QueryACS", err)
	}
	ix := st.r.types
	out := make([]value.Value, 0, len(cs))
	for _, c := range cs {
		out = append(out, ix.pair(c.ID, ix.anyTemplate(tmpl, c.Argument)))
	}
	return value.NewList(out...), nil
}

// findContract returns the active contract cid visible to parties, of the
// given templates (nil: any), or nil.
func (st *run) findContract(name string, ps []string, templates []*value.Identifier, cid value.ContractID) (*tx.Contract, error) {
	cs, err := st.ledger.ActiveContracts(st.ctx, ps, templates)
	if err != nil {
		return nil, st.commandError(name, err)
	}
	for _, c := range cs {
		if c.ID == cid {
			return c, nil
		}
	}
	return nil, nil
}

// queryContractID answers Optional (AnyTemplate, TemplateTypeRep, Text).
func (st *run) queryContractID(p value.Value) (value.Value, error) {
	ps, err := queryParties("QueryContractId", p)
	if err != nil {
		return nil, err
	}
	tmpl, err := identifierOf(field(p, "tplId"))
	if err != nil {
		return nil, st.commandError("QueryContractId", err)
	}
	cid, _ := field(p, "cid").(value.ContractID)
	// As Daml's runner: the contract of any version of the template's
	// package, its argument converted to the version the script names.
	c, err := st.findContract("QueryContractId", ps, st.versionsOf(tmpl), cid)
	if err != nil || c == nil {
		return value.Optional{}, err
	}
	arg := c.Argument
	if *c.TemplateID != *tmpl {
		if arg, err = st.r.engine.Translate(tcon(tmpl), c.Argument); err != nil {
			return nil, &Failure{Kind: "command", Command: "QueryContractId", Message: fmt.Sprintf(
				"contract %s of %s does not convert to %s, the version the script names: %v", c.ID, c.TemplateID, tmpl, err)}
		}
	}
	ix := st.r.types
	blob := ""
	if b, ok := st.ledger.(BlobLedger); ok {
		blob = b.ContractBlob(c.ID)
	}
	return value.Optional{Value: ix.triple(ix.anyTemplate(tmpl, arg), ix.typeRep(c.TemplateID), value.Text(blob))}, nil
}

// implementers returns the templates of the runner's packages that
// implement iface.
func (st *run) implementers(iface *value.Identifier) []*value.Identifier {
	name := lf.TypeConName{Package: lf.PackageID(iface.PackageID), Module: lf.SplitDotted(iface.ModuleName), Name: lf.SplitDotted(iface.EntityName)}
	var out []*value.Identifier
	for _, p := range st.r.pkgs.Packages() {
		for _, m := range p.Modules {
			for _, t := range m.Templates {
				tn := lf.TypeConName{Package: p.ID, Module: m.Name, Name: t.Name}
				rt, err := st.r.pkgs.Template(tn)
				if err == nil && rt.Implements(name) != nil {
					out = append(out, value.IdentifierOf(tn))
				}
			}
		}
	}
	return out
}

// candidates returns the templates whose contracts a query of iface may
// return: those implementing it and their other versions (a contract of a
// version that does not implement it is seen through the ledger's
// preferred version, which may).
func (st *run) candidates(iface *value.Identifier) []*value.Identifier {
	var out []*value.Identifier
	seen := map[value.Identifier]bool{}
	for _, t := range st.implementers(iface) {
		for _, v := range st.versionsOf(t) {
			if !seen[*v] {
				seen[*v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// view computes a contract's interface view, or None when it fails (as
// Daml's runner answers a contract whose view fails); ok is false when the
// contract, as the ledger's preferred version of its package sees it
// (upgraded, as Daml's runner does), does not implement iface.
func (st *run) view(c *tx.Contract, iface *value.Identifier) (view value.Optional, ok bool) {
	tmpl, arg := st.upgraded(c)
	rt, err := st.r.pkgs.Template(typeConOf(tmpl))
	if err != nil || rt.Implements(typeConOf(iface)) == nil {
		return value.Optional{}, false
	}
	v, err := st.r.engine.InterfaceView(st.ctx, tmpl, arg, iface, st.limits)
	if err != nil {
		return value.Optional{}, true
	}
	return value.Optional{Value: v}, true
}

func typeConOf(id *value.Identifier) lf.TypeConName {
	return lf.TypeConName{Package: lf.PackageID(id.PackageID), Module: lf.SplitDotted(id.ModuleName), Name: lf.SplitDotted(id.EntityName)}
}

// queryInterface answers [(ContractId i, Optional v)].
func (st *run) queryInterface(p value.Value) (value.Value, error) {
	ps, err := queryParties("QueryInterface", p)
	if err != nil {
		return nil, err
	}
	iface, err := identifierOf(field(p, "interfaceId"))
	if err != nil {
		return nil, st.commandError("QueryInterface", err)
	}
	tmpls := st.candidates(iface)
	if len(tmpls) == 0 {
		return value.NewList(), nil
	}
	cs, err := st.ledger.ActiveContracts(st.ctx, ps, tmpls)
	if err != nil {
		return nil, st.commandError("QueryInterface", err)
	}
	out := make([]value.Value, 0, len(cs))
	for _, c := range cs {
		if v, ok := st.view(c, iface); ok {
			out = append(out, st.r.types.pair(c.ID, v))
		}
	}
	return value.NewList(out...), nil
}

// queryInterfaceContractID answers Optional v.
func (st *run) queryInterfaceContractID(p value.Value) (value.Value, error) {
	ps, err := queryParties("QueryInterfaceContractId", p)
	if err != nil {
		return nil, err
	}
	iface, err := identifierOf(field(p, "interfaceId"))
	if err != nil {
		return nil, st.commandError("QueryInterfaceContractId", err)
	}
	tmpls := st.candidates(iface)
	if len(tmpls) == 0 {
		return value.Optional{}, nil
	}
	cid, _ := field(p, "cid").(value.ContractID)
	c, err := st.findContract("QueryInterfaceContractId", ps, tmpls, cid)
	if err != nil || c == nil {
		return value.Optional{}, err
	}
	v, _ := st.view(c, iface)
	return v, nil
}

// queryContractKey answers Optional (ContractId (), AnyTemplate): the
// first active contract with the key.
func (st *run) queryContractKey(p value.Value) (value.Value, error) {
	ps, err := queryParties("QueryContractKey", p)
	if err != nil {
		return nil, err
	}
	tmpl, err := identifierOf(field(p, "tplId"))
	if err != nil {
		return nil, st.commandError("QueryContractKey", err)
	}
	_, key, _ := unAny(field(p, "key"))
	cs, err := st.ledger.ActiveContracts(st.ctx, ps, []*value.Identifier{tmpl})
	if err != nil {
		return nil, st.commandError("QueryContractKey", err)
	}
	for _, c := range cs {
		if c.Key == nil {
			continue
		}
		if eq, err := value.Equal(c.Key.Key, key); err == nil && eq {
			ix := st.r.types
			return value.Optional{Value: ix.pair(c.ID, ix.anyTemplate(tmpl, c.Argument))}, nil
		}
	}
	return value.Optional{}, nil
}
