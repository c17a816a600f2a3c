package interp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// Ledger gives the interpreter the contracts a command reads.
type Ledger interface {
	// LookupContract returns the active contract with id, or nil when the
	// ledger knows no active contract with that id visible to the
	// submitters. The contract's parties are sorted and distinct.
	LookupContract(ctx context.Context, id value.ContractID) (*tx.Contract, error)
}

// contractInfo is what the template says of a contract: Canton's
// ContractInfo (signatories and observers as sorted sets).
type contractInfo struct {
	tmpl         *resolve.Template
	arg          value.Value
	signatories  []string
	observers    []string
	stakeholders []string
}

// exerciseCtx is an exercise being interpreted.
type exerciseCtx struct {
	id          tx.NodeID
	node        *tx.Exercise
	seed        tx.Hash
	nextChild   int
	authorizers []string
}

// updateState is the transaction under construction (Canton's
// PartialTransaction) and the contracts the command has seen.
type updateState struct {
	ledger          Ledger
	ctx             context.Context
	committers      []string
	preparationTime value.Timestamp
	ledgerTime      value.Timestamp
	txSeed          *tx.Hash
	rootSeeds       []tx.Hash

	nodes     []tx.Node
	seeds     []tx.NodeSeed
	roots     []tx.NodeID
	nextRoot  int
	exercises []*exerciseCtx

	local     map[value.ContractID]*contractInfo
	global    map[value.ContractID]*contractInfo
	consumed  map[value.ContractID]tx.NodeID
	disclosed map[value.ContractID]*tx.Contract
	inputs    []*tx.Contract
	inputSet  map[value.ContractID]bool

	dependsOnTime bool
	minTime       value.Timestamp
	maxTime       value.Timestamp

	whereStack []where
}

// where is a create, exercise or fetch being interpreted, for errors.
type where struct {
	action string
	tmpl   *resolve.Template
	choice *resolve.Choice
}

func (w where) template() string {
	if w.tmpl == nil {
		return ""
	}
	return w.tmpl.ID.String()
}

func (w where) choiceName() string {
	if w.choice == nil {
		return ""
	}
	return w.choice.Name
}

func (w where) location() *lf.Location {
	if w.choice != nil && w.choice.Location != nil {
		return w.choice.Location
	}
	if w.tmpl != nil {
		return w.tmpl.Location
	}
	return nil
}

func (u *updateState) where() where {
	if len(u.whereStack) == 0 {
		return where{}
	}
	return u.whereStack[len(u.whereStack)-1]
}

// exerciseWhere returns the innermost choice being exercised.
func (u *updateState) exerciseWhere() (where, bool) {
	for i := len(u.whereStack) - 1; i >= 0; i-- {
		if u.whereStack[i].action == "exercise" {
			return u.whereStack[i], true
		}
	}
	return where{}, false
}

func (u *updateState) pushWhere(action string, t *resolve.Template, c *resolve.Choice) {
	u.whereStack = append(u.whereStack, where{action: action, tmpl: t, choice: c})
}

func (u *updateState) popWhere() { u.whereStack = u.whereStack[:len(u.whereStack)-1] }

// authorizers returns the parties whose authority the current context
// has: the committers at the root, signatories and controllers in a choice.
func (u *updateState) authorizers() []string {
	if n := len(u.exercises); n > 0 {
		return u.exercises[n-1].authorizers
	}
	return u.committers
}

// nextSeed returns the seed of the next action child of the current
// context.
func (u *updateState) nextSeed() (tx.Hash, error) {
	if n := len(u.exercises); n > 0 {
		e := u.exercises[n-1]
		return tx.DeriveNodeSeed(e.seed, e.nextChild), nil
	}
	switch {
	case u.txSeed != nil:
		return tx.DeriveNodeSeed(*u.txSeed, u.nextRoot), nil
	case u.nextRoot < len(u.rootSeeds):
		return u.rootSeeds[u.nextRoot], nil
	}
	return tx.Hash{}, fmt.Errorf("no seed for root node %d", u.nextRoot)
}

// addChild records node id as the next action child of the current
// context.
func (u *updateState) addChild(id tx.NodeID) {
	if n := len(u.exercises); n > 0 {
		e := u.exercises[n-1]
		e.node.Children = append(e.node.Children, id)
		e.nextChild++
		return
	}
	u.roots = append(u.roots, id)
	u.nextRoot++
}

func (u *updateState) nodeID() tx.NodeID { return tx.NodeID(len(u.nodes)) }

// update runs an update operation; the last argument is the token.
func (m *Machine) update(op resolve.Op, args []value.Value) {
	if m.upd == nil {
		m.fail(m.newError(errInternal, "an update was run outside of a command"))
		return
	}
	switch o := op.(type) {
	case *resolve.Create:
		t, err := o.Template.Get()
		if err != nil {
			m.fail(m.newError(errInternal, err.Error()))
			return
		}
		m.create(t, args[0])
	case *resolve.Exercise:
		t, err := o.Template.Get()
		if err != nil {
			m.fail(m.newError(errInternal, err.Error()))
			return
		}
		c := t.Choice(o.Choice)
		if c == nil {
			m.fail(m.newError(errInternal, fmt.Sprintf("template %s has no choice %s", t.ID, o.Choice)))
			return
		}
		m.exercise(t, c, args[0].(value.ContractID), args[1])
	case *resolve.Fetch:
		t, err := o.Template.Get()
		if err != nil {
			m.fail(m.newError(errInternal, err.Error()))
			return
		}
		m.fetch(t, args[0].(value.ContractID))
	case *resolve.GetTime:
		u := m.upd
		u.dependsOnTime = true
		u.minTime, u.maxTime = u.ledgerTime, u.ledgerTime
		m.val = u.ledgerTime
	case *resolve.LedgerTimeLT:
		u := m.upd
		u.dependsOnTime = true
		t := args[0].(value.Timestamp)
		if u.ledgerTime < t {
			u.maxTime = min(u.maxTime, t-1)
			m.val = value.Bool(true)
		} else {
			u.minTime = max(u.minTime, t)
			m.val = value.Bool(false)
		}
	}
}

// contractInfo evaluates the template's ensure, signatories and observers
// on a contract argument, then calls k. A precondition that is False fails
// with TEMPLATE_PRECONDITION_VIOLATED; one that throws (as damlc compiles
// ensure clauses) fails with the exception.
func (m *Machine) contractInfo(t *resolve.Template, arg value.Value, k func(m *Machine, info *contractInfo)) {
	info := &contractInfo{tmpl: t, arg: arg}
	args := []value.Value{arg}
	m.then(func(m *Machine, v value.Value) {
		if v != value.Bool(true) {
			m.fail(m.newError(errPrecondition, fmt.Sprintf("%sUpdate failed due to precondition violation when creating %s with %s",
				interpretationError, prettyTypeCon(t.ID.PackageID, t.ID.QualifiedName()), arg)))
			return
		}
		m.then(func(m *Machine, v value.Value) {
			sigs, ok := m.parties(v, "signatories")
			if !ok {
				return
			}
			info.signatories = sigs
			m.then(func(m *Machine, v value.Value) {
				obs, ok := m.parties(v, "observers")
				if !ok {
					return
				}
				info.observers = obs
				info.stakeholders = union(sigs, obs)
				k(m, info)
			})
			m.enter(t.Observers, nil, args)
		})
		m.enter(t.Signatories, nil, args)
	})
	m.enter(t.Precond, nil, args)
}

// parties reads a list of parties (or one party) into a sorted set.
func (m *Machine) parties(v value.Value, what string) ([]string, bool) {
	var out []string
	switch x := v.(type) {
	case value.Party:
		return []string{string(x)}, true
	case *value.List:
		out = make([]string, 0, x.Len())
		for p := range x.All() {
			s, ok := p.(value.Party)
			if !ok {
				m.fail(m.newError(errInternal, fmt.Sprintf("non-party value in %s: %s", what, p)))
				return nil, false
			}
			out = append(out, string(s))
		}
	default:
		m.fail(m.newError(errInternal, fmt.Sprintf("%s are not a list of parties: %s", what, v)))
		return nil, false
	}
	return sortedSet(out), true
}

// create is 'create @T arg'.
func (m *Machine) create(t *resolve.Template, arg value.Value) {
	u := m.upd
	u.pushWhere("create", t, nil)
	m.contractInfo(t, arg, func(m *Machine, info *contractInfo) {
		if err := m.serializable(arg); err != nil {
			m.fail(err)
			return
		}
		seed, err := u.nextSeed()
		if err != nil {
			m.fail(m.newError(errInternal, err.Error()))
			return
		}
		cid := tx.ContractIDV1(seed, u.preparationTime, info.stakeholders)
		id := u.nodeID()
		u.nodes = append(u.nodes, &tx.Create{
			ContractID:   cid,
			PackageName:  t.PackageName,
			TemplateID:   t.ID,
			Argument:     arg,
			Signatories:  info.signatories,
			Stakeholders: info.stakeholders,
			Version:      nodeVersion(t),
		})
		u.seeds = append(u.seeds, tx.NodeSeed{Node: id, Seed: seed})
		u.addChild(id)
		auth := u.authorizers()
		if !subset(info.signatories, auth) {
			m.fail(m.authError(fmt.Sprintf("node %s (%s) requires authorizers %s, but only %s were given",
				nodeIDText(id), t.ID, strings.Join(info.signatories, ","), strings.Join(auth, ","))))
			return
		}
		if len(info.signatories) == 0 {
			m.fail(m.authError(fmt.Sprintf("node %s (%s) has no signatories", nodeIDText(id), t.ID)))
			return
		}
		if u.local[cid] != nil || u.global[cid] != nil || u.inputSet[cid] {
			m.fail(m.newError(errInternal, "contract id "+string(cid)+" is not fresh"))
			return
		}
		if u.local == nil {
			u.local = map[value.ContractID]*contractInfo{}
		}
		u.local[cid] = info
		u.popWhere()
		m.val = cid
	})
}

// fetchContract finds the contract cid of template t, checks it is active
// and of the right template, computes its contract info, then calls k.
func (m *Machine) fetchContract(t *resolve.Template, cid value.ContractID, k func(m *Machine, info *contractInfo)) {
	u := m.upd
	if info := u.local[cid]; info != nil {
		if !m.active(cid, info.tmpl) || !m.sameTemplate(cid, t, info.tmpl.ID) {
			return
		}
		k(m, info)
		return
	}
	if info := u.global[cid]; info != nil {
		if !m.active(cid, info.tmpl) || !m.sameTemplate(cid, t, info.tmpl.ID) {
			return
		}
		k(m, info)
		return
	}
	c := u.disclosed[cid]
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
	if !u.inputSet[cid] {
		if u.inputSet == nil {
			u.inputSet = map[value.ContractID]bool{}
		}
		u.inputSet[cid] = true
		u.inputs = append(u.inputs, c)
	}
	if !m.active(cid, t) || !m.sameTemplate(cid, t, c.TemplateID) {
		return
	}
	if c.TemplateID.PackageID != t.ID.PackageID {
		m.fail(m.newError(errUnsupported, fmt.Sprintf("Interpretation error: contract %s is of template %s; using it as %s (a package upgrade) is not supported by this interpreter yet",
			cid, c.TemplateID, t.ID)))
		return
	}
	m.contractInfo(t, c.Argument, func(m *Machine, info *contractInfo) {
		if c.Signatories != nil && (!equalSets(info.signatories, c.Signatories) || !equalSets(info.stakeholders, sortedSet(c.Stakeholders))) {
			m.fail(m.newError(errUpgradeValidation, fmt.Sprintf("%sValidation fails when trying to upgrade the contract %s from %s to %s\n"+
				"Verify that neither the signatories, nor the observers, nor the contract key, nor the key's maintainers, nor the package name have changed\n"+
				"original package name is %s\noriginal signatories are %s\noriginal observers are %s\n"+
				"target package name is %s\nrecomputed signatories are %s\nrecomputed observers are %s",
				interpretationError, cid, prettyTypeCon(c.TemplateID.PackageID, c.TemplateID.QualifiedName()),
				prettyTypeCon(t.ID.PackageID, t.ID.QualifiedName()),
				c.PackageName, prettyParties(c.Signatories), prettyParties(difference(sortedSet(c.Stakeholders), c.Signatories)),
				t.PackageName, prettyParties(info.signatories), prettyParties(difference(info.stakeholders, info.signatories)))))
			return
		}
		if u.global == nil {
			u.global = map[value.ContractID]*contractInfo{}
		}
		u.global[cid] = info
		k(m, info)
	})
}

// active fails with CONTRACT_NOT_ACTIVE when the transaction consumed cid.
func (m *Machine) active(cid value.ContractID, t *resolve.Template) bool {
	by, ok := m.upd.consumed[cid]
	if !ok {
		return true
	}
	m.fail(m.newError(errContractNotActive, fmt.Sprintf("%sUpdate failed due to fetch of an inactive contract %s (%s).\nThe contract had been consumed in sub-transaction #%s:",
		interpretationError, cid, prettyTypeCon(t.ID.PackageID, t.ID.QualifiedName()), nodeIDText(by))))
	return false
}

// sameTemplate fails with WRONGLY_TYPED_CONTRACT when the contract's
// template is not t (by module and name, as Canton compares them).
func (m *Machine) sameTemplate(cid value.ContractID, t *resolve.Template, actual *value.Identifier) bool {
	if actual.ModuleName == t.ID.ModuleName && actual.EntityName == t.ID.EntityName {
		return true
	}
	m.fail(m.newError(errWronglyTyped, fmt.Sprintf("%sUpdate failed due to wrongly typed contract id %s\nExpected contract of type %s but got %s",
		interpretationError, cid, prettyTypeCon(t.ID.PackageID, t.ID.QualifiedName()),
		prettyTypeCon(actual.PackageID, actual.QualifiedName()))))
	return false
}

// exercise is 'exercise @T Choice cid arg'.
func (m *Machine) exercise(t *resolve.Template, c *resolve.Choice, cid value.ContractID, arg value.Value) {
	u := m.upd
	u.pushWhere("exercise", t, c)
	m.fetchContract(t, cid, func(m *Machine, info *contractInfo) {
		both := []value.Value{info.arg, arg}
		m.then(func(m *Machine, v value.Value) {
			controllers, ok := m.parties(v, "controllers")
			if !ok {
				return
			}
			begin := func(m *Machine, observers []string) {
				m.beginExercise(t, c, cid, arg, info, controllers, observers)
			}
			if c.Observers == nil {
				begin(m, nil)
				return
			}
			m.then(func(m *Machine, v value.Value) {
				obs, ok := m.parties(v, "choice observers")
				if ok {
					begin(m, obs)
				}
			})
			m.enter(c.Observers, nil, both)
		})
		m.enter(c.Controllers, nil, both)
	})
}

func (m *Machine) beginExercise(t *resolve.Template, c *resolve.Choice, cid value.ContractID, arg value.Value,
	info *contractInfo, controllers, observers []string) {
	u := m.upd
	if err := m.serializable(arg); err != nil {
		m.fail(err)
		return
	}
	if c.Authorizers != nil {
		m.fail(m.newError(errUnsupported, "Interpretation error: choices with explicit authorizers (Daml-LF 2.dev) are not supported by this interpreter yet"))
		return
	}
	seed, err := u.nextSeed()
	if err != nil {
		m.fail(m.newError(errInternal, err.Error()))
		return
	}
	id := u.nodeID()
	node := &tx.Exercise{
		ContractID:      cid,
		PackageName:     t.PackageName,
		TemplateID:      t.ID,
		Choice:          c.Name,
		Consuming:       c.Consuming,
		ActingParties:   controllers,
		ChosenValue:     arg,
		Signatories:     info.signatories,
		Stakeholders:    info.stakeholders,
		ChoiceObservers: observers,
		Version:         nodeVersion(t),
	}
	auth := u.authorizers()
	if c.Consuming {
		if u.consumed == nil {
			u.consumed = map[value.ContractID]tx.NodeID{}
		}
		u.consumed[cid] = id
	}
	if len(controllers) == 0 {
		m.fail(m.authError(fmt.Sprintf("node %s (%s) has no controllers", nodeIDText(id), t.ID)))
		return
	}
	if !subset(controllers, auth) {
		m.fail(m.authError(fmt.Sprintf("node %s (%s) requires authorizers %s, but only %s were given",
			nodeIDText(id), t.ID, strings.Join(controllers, ","), strings.Join(auth, ","))))
		return
	}
	u.nodes = append(u.nodes, node)
	u.seeds = append(u.seeds, tx.NodeSeed{Node: id, Seed: seed})
	ex := &exerciseCtx{id: id, node: node, seed: seed, authorizers: union(controllers, info.signatories)}
	u.exercises = append(u.exercises, ex)
	m.then(func(m *Machine, result value.Value) {
		if err := m.serializable(result); err != nil {
			m.fail(err)
			return
		}
		node.Result = result
		u.exercises = u.exercises[:len(u.exercises)-1]
		u.addChild(id)
		u.popWhere()
		m.val = result
	})
	m.enter(c.Body, nil, []value.Value{info.arg, cid, arg, token})
}

// fetch is 'fetch @T cid'.
func (m *Machine) fetch(t *resolve.Template, cid value.ContractID) {
	u := m.upd
	u.pushWhere("fetch", t, nil)
	m.fetchContract(t, cid, func(m *Machine, info *contractInfo) {
		auth := u.authorizers()
		id := u.nodeID()
		acting := intersection(auth, info.stakeholders)
		u.nodes = append(u.nodes, &tx.Fetch{
			ContractID:    cid,
			PackageName:   t.PackageName,
			TemplateID:    t.ID,
			ActingParties: acting,
			Signatories:   info.signatories,
			Stakeholders:  info.stakeholders,
			Version:       nodeVersion(t),
		})
		if len(acting) == 0 {
			m.fail(m.authError(fmt.Sprintf("node %s requires one of the stakeholders %s of the fetched contract to be an authorizer, but authorizers were %s",
				nodeIDText(id), scalaSet("TreeSet", info.stakeholders), scalaSet(u.authorizersKind(), auth))))
			return
		}
		u.addChild(id)
		u.popWhere()
		m.val = info.arg
	})
}

// authorizersKind is the Scala collection Canton prints the authorizers
// as: the committers are a Set, a choice's authorizers a TreeSet.
func (u *updateState) authorizersKind() string {
	if len(u.exercises) > 0 {
		return "TreeSet"
	}
	return "Set"
}

func (m *Machine) authError(msg string) *Error {
	return m.newError(errAuthorization, interpretationError+msg)
}

// nodeVersion is the serialization version of a node of template t: "2"
// for templates with a key, "2.1" otherwise (Canton's
// SerializationVersion.assign).
func nodeVersion(t *resolve.Template) string {
	if t.HasKey {
		return tx.VersionWithKey
	}
	return tx.VersionNoKey
}

func nodeIDText(id tx.NodeID) string { return fmt.Sprintf("NodeId(%d)", id) }

// maxNesting is Canton's Value.MAXIMUM_NESTING.
const maxNesting = 100

// serializable checks what Canton checks when a value enters a
// transaction: nesting at most 100 and text without NUL characters.
func (m *Machine) serializable(v value.Value) *Error {
	type item struct {
		v     value.Value
		depth int
	}
	stack := []item{{v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > maxNesting {
			return m.newError(errValueNesting, fmt.Sprintf("%sValue exceeds maximum nesting value of %d", interpretationError, maxNesting))
		}
		d := it.depth + 1
		switch x := it.v.(type) {
		case value.Text:
			if strings.IndexByte(string(x), 0) >= 0 || !utf8.ValidString(string(x)) {
				return m.newError(errMalformedText, interpretationError+"Text is malformed: Text contains null character")
			}
		case *value.Record:
			for _, f := range x.Fields {
				stack = append(stack, item{f.Value, d})
			}
		case *value.Variant:
			stack = append(stack, item{x.Value, d})
		case value.Optional:
			if x.Value != nil {
				stack = append(stack, item{x.Value, d})
			}
		case *value.List:
			for e := range x.All() {
				stack = append(stack, item{e, d})
			}
		case *value.TextMap:
			for _, e := range x.Entries() {
				if strings.IndexByte(e.Key, 0) >= 0 {
					return m.newError(errMalformedText, interpretationError+"Text is malformed: Text contains null character")
				}
				stack = append(stack, item{e.Value, d})
			}
		case *value.GenMap:
			for _, e := range x.Entries() {
				stack = append(stack, item{e.Key, d}, item{e.Value, d})
			}
		}
	}
	return nil
}

// Sets of parties are sorted string slices.

func sortedSet(ps []string) []string {
	sort.Strings(ps)
	n := 0
	for i, p := range ps {
		if i == 0 || p != ps[n-1] {
			ps[n] = p
			n++
		}
	}
	return ps[:n]
}

func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func intersection(a, b []string) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case b[j] < a[i]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func difference(a, b []string) []string {
	var out []string
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}

func subset(a, b []string) bool { return len(difference(a, b)) == 0 }

func equalSets(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// scalaSet renders a set as Scala's toString does: "TreeSet(a, b)".
func scalaSet(kind string, ps []string) string { return kind + "(" + strings.Join(ps, ", ") + ")" }

// prettyParties renders a set as Canton's prettyParties: "{ 'a', 'b' }".
func prettyParties(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = "'" + p + "'"
	}
	return "{ " + strings.Join(q, ", ") + " }"
}
