package interp

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// target chooses the template a contract is used as, given the template
// it was created with: the template the code names when it fetches or
// exercises by template (tmpl), the contract's own template (or the
// preferred version of its package) when it goes through an interface
// (iface).
type target struct {
	tmpl  *resolve.Template
	iface *resolve.Interface
}

// asTemplate is the target of a fetch or exercise by template.
func asTemplate(t *resolve.Template) target { return target{tmpl: t} }

// asInterface is the target of a fetch or exercise through interface i.
func asInterface(i *resolve.Interface) target { return target{iface: i} }

// pick returns the template to use a contract of template src as, or nil
// after failing the machine when it cannot be used so: a template must
// have src's module and name (Canton compares qualified names; the package
// may differ by an upgrade), an interface must be implemented.
func (tg target) pick(m *Machine, cid value.ContractID, src *value.Identifier) *resolve.Template {
	if t := tg.tmpl; t != nil {
		if src.ModuleName == t.ID.ModuleName && src.EntityName == t.ID.EntityName {
			return t
		}
		m.fail(m.newError(errWronglyTyped, fmt.Sprintf("%sUpdate failed due to wrongly typed contract id %s\nExpected contract of type %s but got %s",
			interpretationError, cid, prettyID(t.ID), prettyID(src))))
		return nil
	}
	t := m.contractTemplate(src)
	if t == nil {
		return nil
	}
	if t.Implements(tg.iface.Name) == nil {
		m.fail(m.newError(errDoesNotImplement, fmt.Sprintf("%sUpdate failed due to contract %s not implementing an interface\n"+
			"Expected contract to implement interface %s but contract has type %s",
			interpretationError, cid, prettyID(tg.iface.ID), prettyID(t.ID))))
		return nil
	}
	return t
}

// withContract finds contract cid — created by this transaction, already
// read, disclosed or on the ledger (then recorded as an input) —, checks
// it is active, chooses the template to use it as, computes its contract
// info with that template and calls k. A contract read from the ledger has
// its info recomputed and compared with what the ledger stored, as Canton
// does for every input contract; the computation may not throw an
// exception a handler catches.
func (m *Machine) withContract(cid value.ContractID, target target, k func(m *Machine, info *contractInfo)) {
	u := m.upd
	if info := u.local[cid]; info != nil {
		m.useKnown(cid, info, target, k)
		return
	}
	if info := u.global[cid]; info != nil {
		m.useKnown(cid, info, target, k)
		return
	}
	c := u.disclosed[cid]
	if c == nil {
		c = u.byKey[cid]
	}
	if c == nil && u.ledger != nil {
		var err error
		c, err = u.ledger.LookupContract(u.ctx, cid)
		if err != nil {
			m.fail(m.newError(errInternal, fmt.Sprintf("looking up contract %s: %v", cid, err)))
			return
		}
	}
	if c == nil {
		m.fail(m.newError(errContractNotFound, "Contract could not be found with id "+string(cid)))
		return
	}
	if !m.noteInput(c) || !m.active(cid, c.TemplateID) {
		return
	}
	t := target.pick(m, cid, c.TemplateID)
	if t == nil {
		return
	}
	m.readContract(cid, c, t, true, k)
}

// noteInput records a contract read from outside the transaction as one
// of its inputs, the first time.
func (m *Machine) noteInput(c *tx.Contract) bool {
	u := m.upd
	if u.inputSet[c.ID] {
		return true
	}
	if u.inputSet == nil {
		u.inputSet = map[value.ContractID]bool{}
	}
	u.inputSet[c.ID] = true
	u.inputs = append(u.inputs, c)
	return m.readByID(c)
}

// useKnown uses a contract the transaction created or already read, whose
// info is known for one template: reused when the target is that
// template, recomputed for another version.
func (m *Machine) useKnown(cid value.ContractID, info *contractInfo, target target, k func(m *Machine, info *contractInfo)) {
	src := info.tmpl.ID
	if info.src != nil {
		src = info.src.TemplateID
	}
	if !m.active(cid, info.tmpl.ID) {
		return
	}
	t := target.pick(m, cid, src)
	switch {
	case t == nil:
	case t == info.tmpl:
		k(m, info)
	case info.src != nil:
		m.readContract(cid, info.src, t, true, k)
	default:
		c := &tx.Contract{ID: cid, PackageName: info.tmpl.PackageName, TemplateID: info.tmpl.ID, Argument: info.arg,
			Signatories: info.signatories, Stakeholders: info.stakeholders, Key: info.key}
		m.readContract(cid, c, t, false, k)
	}
}

// readContract computes the info of contract c used as template t — its
// argument converted to t's type when the packages differ —, checks that
// signatories, stakeholders, key and package name are what they were (when
// known: Signatories nil skips the check) as Canton's
// checkContractUpgradable does, caches it (when c was read from outside the
// transaction: cache) and calls k.
func (m *Machine) readContract(cid value.ContractID, c *tx.Contract, t *resolve.Template, cache bool, k func(m *Machine, info *contractInfo)) {
	arg := c.Argument
	if c.TemplateID.PackageID != t.ID.PackageID {
		var ok bool
		if arg, ok = m.importArg(cid, c.TemplateID, t, arg); !ok {
			return
		}
	}
	m.contractInfo(t, arg, false, func(m *Machine, info *contractInfo) {
		if c.Signatories != nil && (!equalSets(info.signatories, c.Signatories) || !equalSets(info.stakeholders, c.Stakeholders) ||
			c.PackageName != t.PackageName || !sameKey(c.Key, info.key)) {
			m.fail(m.newError(errUpgradeValidation, fmt.Sprintf("%sValidation fails when trying to upgrade the contract %s from %s to %s\n"+
				"Verify that neither the signatories, nor the observers, nor the contract key, nor the key's maintainers, nor the package name have changed\n"+
				"original package name is %s\noriginal signatories are %s\noriginal observers are %s\n"+
				"target package name is %s\nrecomputed signatories are %s\nrecomputed observers are %s",
				interpretationError, cid, prettyID(c.TemplateID), prettyID(t.ID),
				c.PackageName, prettyParties(c.Signatories), prettyParties(difference(c.Stakeholders, c.Signatories)),
				t.PackageName, prettyParties(info.signatories), prettyParties(difference(info.stakeholders, info.signatories)))))
			return
		}
		if cache {
			info.src = c
			if m.upd.global == nil {
				m.upd.global = map[value.ContractID]*contractInfo{}
			}
			m.upd.global[cid] = info
		}
		k(m, info)
	})
}

// sameKey reports whether a recomputed key is the one the ledger stored:
// same hash (hence value) and maintainers. A ledger that stores no key
// for a keyed template is not checked.
func sameKey(stored, recomputed *tx.KeyWithMaintainers) bool {
	if stored == nil {
		return true
	}
	return recomputed != nil && stored.Hash == recomputed.Hash && equalSets(stored.Maintainers, recomputed.Maintainers)
}

// active fails with CONTRACT_NOT_ACTIVE when the transaction consumed cid
// and with CONTRACT_NOT_FOUND when it created cid in a try block that was
// rolled back (Speedy's ensureContractActive).
func (m *Machine) active(cid value.ContractID, tmpl *value.Identifier) bool {
	u := m.upd
	if by, ok := u.consumed[cid]; ok {
		m.fail(m.newError(errContractNotActive, fmt.Sprintf("%sUpdate failed due to fetch of an inactive contract %s (%s).\nThe contract had been consumed in sub-transaction #%s:",
			interpretationError, cid, prettyID(tmpl), nodeIDText(by))))
		return false
	}
	if u.rolledBack[cid] {
		m.fail(m.newError(errContractNotFound, interpretationError+"Update failed due to a unknown contract "+string(cid)))
		return false
	}
	return true
}
