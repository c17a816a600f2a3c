package interp

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// targetFunc chooses the template a contract is used as, given the
// template it was created with: the template the code names when it
// fetches or exercises by template, the contract's own template (or the
// preferred version of its package) when it goes through an interface. It
// returns nil after failing the machine when the contract cannot be used
// so.
type targetFunc func(m *Machine, cid value.ContractID, src *value.Identifier) *resolve.Template

// asTemplate is the target of a fetch or exercise by template: t, if the
// contract's template has the same module and name (Canton compares
// qualified names; the package may differ by an upgrade).
func asTemplate(t *resolve.Template) targetFunc {
	return func(m *Machine, cid value.ContractID, src *value.Identifier) *resolve.Template {
		if src.ModuleName == t.ID.ModuleName && src.EntityName == t.ID.EntityName {
			return t
		}
		m.fail(m.newError(errWronglyTyped, fmt.Sprintf("%sUpdate failed due to wrongly typed contract id %s\nExpected contract of type %s but got %s",
			interpretationError, cid, prettyID(t.ID), prettyID(src))))
		return nil
	}
}

// withContract finds contract cid — created by this transaction, already
// read, disclosed or on the ledger (then recorded as an input) —, checks
// it is active, chooses the template to use it as, computes its contract
// info with that template and calls k. A contract read from the ledger has
// its info recomputed and compared with what the ledger stored, as Canton
// does for every input contract; the computation may not throw an
// exception a handler catches.
func (m *Machine) withContract(cid value.ContractID, target targetFunc, k func(m *Machine, info *contractInfo)) {
	u := m.upd
	if info := u.local[cid]; info != nil {
		if !m.active(cid, info.tmpl.ID) {
			return
		}
		t := target(m, cid, info.tmpl.ID)
		if t == nil {
			return
		}
		if t == info.tmpl {
			k(m, info)
			return
		}
		m.upgradeContract(cid, info.tmpl.ID, info.tmpl.PackageName, t, info.arg, info.signatories, info.stakeholders, info.key, k)
		return
	}
	if info := u.global[cid]; info != nil {
		if !m.active(cid, info.tmpl.ID) {
			return
		}
		t := target(m, cid, info.src.TemplateID)
		if t == nil {
			return
		}
		if t == info.tmpl {
			k(m, info)
			return
		}
		m.readContract(cid, info.src, t, k)
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
	t := target(m, cid, c.TemplateID)
	if t == nil {
		return
	}
	m.readContract(cid, c, t, k)
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

// readContract computes the info of ledger contract c used as template t,
// checks it against what the ledger stored, caches it and calls k.
func (m *Machine) readContract(cid value.ContractID, c *tx.Contract, t *resolve.Template, k func(m *Machine, info *contractInfo)) {
	u := m.upd
	m.upgradeContract(cid, c.TemplateID, c.PackageName, t, c.Argument, c.Signatories, c.Stakeholders, c.Key, func(m *Machine, info *contractInfo) {
		info.src = c
		if u.global == nil {
			u.global = map[value.ContractID]*contractInfo{}
		}
		u.global[cid] = info
		k(m, info)
	})
}

// upgradeContract computes the contract info of a contract of template src
// (package srcName) used as template t, its argument converted to t's
// type when the packages differ, and checks that signatories and
// stakeholders are what they were (when known: signatories nil skips the
// check) as Canton's checkContractUpgradable does.
func (m *Machine) upgradeContract(cid value.ContractID, src *value.Identifier, srcName string, t *resolve.Template,
	arg value.Value, signatories, stakeholders []string, key *tx.KeyWithMaintainers, k func(m *Machine, info *contractInfo)) {
	if src.PackageID != t.ID.PackageID {
		var ok bool
		if arg, ok = m.importArg(cid, src, t, arg); !ok {
			return
		}
	}
	m.uncatchableInfo(t, arg, func(m *Machine, info *contractInfo) {
		if signatories != nil && (!equalSets(info.signatories, signatories) || !equalSets(info.stakeholders, stakeholders) ||
			srcName != t.PackageName || !sameKey(key, info.key)) {
			m.fail(m.newError(errUpgradeValidation, fmt.Sprintf("%sValidation fails when trying to upgrade the contract %s from %s to %s\n"+
				"Verify that neither the signatories, nor the observers, nor the contract key, nor the key's maintainers, nor the package name have changed\n"+
				"original package name is %s\noriginal signatories are %s\noriginal observers are %s\n"+
				"target package name is %s\nrecomputed signatories are %s\nrecomputed observers are %s",
				interpretationError, cid, prettyID(src), prettyID(t.ID),
				srcName, prettyParties(signatories), prettyParties(difference(stakeholders, signatories)),
				t.PackageName, prettyParties(info.signatories), prettyParties(difference(info.stakeholders, info.signatories)))))
			return
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
