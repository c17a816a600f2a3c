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
	tmpl *resolve.Template
	arg  value.Value
	// src is the contract as the ledger gave it, nil for a contract the
	// transaction created.
	src          *tx.Contract
	signatories  []string
	observers    []string
	stakeholders []string
	// key is the contract's key, nil when its template has none.
	key *tx.KeyWithMaintainers
}

// updateState is the transaction under construction (Canton's
// PartialTransaction) and the contracts the command has seen (its contract
// state machine).
type updateState struct {
	ledger          Ledger
	ctx             context.Context
	committers      []string
	preparationTime value.Timestamp
	ledgerTime      value.Timestamp
	txSeed          *tx.Hash
	rootSeeds       []tx.Hash
	mode            StateMode
	engine          *Engine
	// preferred overrides the engine's preferred packages by name.
	preferred map[string]lf.PackageID

	nodes []tx.Node
	seeds []tx.NodeSeed
	root  txContext
	top   *txContext
	// tries counts the try blocks begun, openTries those not yet closed.
	tries, openTries int

	// local are the contracts created by the transaction, rolledBack those
	// of them whose creation was rolled back; global the contracts read
	// from the ledger or disclosed; consumed maps a consumed contract to
	// the node that consumed it. journal records the changes a rollback
	// undoes.
	local      map[value.ContractID]*contractInfo
	rolledBack map[value.ContractID]bool
	global     map[value.ContractID]*contractInfo
	consumed   map[value.ContractID]tx.NodeID
	journal    []effect
	keys       keyState

	disclosed map[value.ContractID]*tx.Contract
	// byKey are the contracts the ledger returned for key queries.
	byKey    map[value.ContractID]*tx.Contract
	inputs   []*tx.Contract
	inputSet map[value.ContractID]bool

	dependsOnTime bool
	minTime       value.Timestamp
	maxTime       value.Timestamp

	whereStack []where
	// command is the command being interpreted, for the exercise trace.
	command Command
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
	case *resolve.CreateInterface, *resolve.FetchInterface, *resolve.ExerciseInterface:
		m.interfaceUpdate(op, args)
	case *resolve.FetchByKey, *resolve.ExerciseByKey, *resolve.QueryNByKey, *resolve.LookupByKey:
		m.keyUpdate(op, args)
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

// contractInfo evaluates the template's ensure, signatories, observers and
// key with its maintainers on a contract argument, then calls k. A precondition that is False fails
// with TEMPLATE_PRECONDITION_VIOLATED; one that throws (as damlc compiles
// ensure clauses) fails with the exception.
//
// When catchable is false (a contract read from the ledger, whose info
// Speedy computes under SEPreventCatch), an exception the computation
// throws is not caught: a kPreventCatch marker stays below it, and is taken
// off before k runs.
func (m *Machine) contractInfo(t *resolve.Template, arg value.Value, catchable bool, k func(m *Machine, info *contractInfo)) {
	info := &contractInfo{tmpl: t, arg: arg}
	args := []value.Value{arg}
	if !catchable {
		m.push(preventCatch)
		k0 := k
		k = func(m *Machine, info *contractInfo) {
			m.kont[len(m.kont)-1] = nil
			m.kont = m.kont[:len(m.kont)-1]
			k0(m, info)
		}
	}
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
				if t.Key == nil {
					k(m, info)
					return
				}
				m.then(func(m *Machine, key value.Value) {
					m.then(func(m *Machine, v value.Value) {
						maintainers, ok := m.parties(v, "key maintainers")
						if !ok {
							return
						}
						if info.key, ok = m.globalKey(t, key, maintainers); ok {
							k(m, info)
						}
					})
					m.enter(t.Key.Maintainers, nil, []value.Value{key})
				})
				m.enter(t.Key.Body, nil, args)
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
	m.contractInfo(t, arg, true, func(m *Machine, info *contractInfo) {
		if err := m.serializable(arg); err != nil {
			m.fail(err)
			return
		}
		if info.key != nil && len(info.key.Maintainers) == 0 {
			m.fail(m.newError(errCreateEmptyMaintainers, fmt.Sprintf("%sUpdate failed due to a contract key with an empty set of maintainers when creating %s with %s\nThe computed key is %s",
				interpretationError, prettyID(t.ID), arg, info.key.Key)))
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
			Key:          info.key,
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
		if info.key != nil && !subset(info.key.Maintainers, info.signatories) {
			m.fail(m.authError(fmt.Sprintf("node %s (%s) has maintainers %s which are not a subset of the signatories %s",
				nodeIDText(id), t.ID, strings.Join(info.key.Maintainers, ","), scalaSet("TreeSet", info.signatories))))
			return
		}
		if u.local[cid] != nil || u.global[cid] != nil || u.inputSet[cid] {
			m.fail(m.newError(errInternal, "contract id "+string(cid)+" is not fresh"))
			return
		}
		u.recordCreate(cid, id, info)
		u.popWhere()
		m.val = cid
	})
}

// exercise is 'exercise @T Choice cid arg'.
func (m *Machine) exercise(t *resolve.Template, c *resolve.Choice, cid value.ContractID, arg value.Value) {
	m.upd.pushWhere("exercise", t, c)
	m.withContract(cid, asTemplate(t), func(m *Machine, info *contractInfo) {
		m.runChoice(newExercising(exercising{choice: c, cid: cid, arg: arg, info: info, this: info.arg}))
	})
}

// exercising is an exercise about to begin: the choice, the contract, its
// info and what the choice's code sees as its parameter (the contract
// argument, or for an interface choice the interface value).
type exercising struct {
	choice *resolve.Choice
	cid    value.ContractID
	arg    value.Value
	info   *contractInfo
	this   value.Value
	iface  *value.Identifier
	byKey  bool
	// k is the continuation that will close the exercise, allocated with
	// it (newExercising).
	k *kExercise
}

// newExercising returns e in the continuation that will close its
// exercise: one allocation for both.
func newExercising(e exercising) *exercising {
	k := &kExercise{e: e}
	k.e.k = k
	return &k.e
}

// runChoice evaluates the choice's controllers and observers, where
// exceptions may not be caught, then begins the exercise.
func (m *Machine) runChoice(e *exercising) {
	c := e.choice
	both := []value.Value{e.this, e.arg}
	m.then(func(m *Machine, v value.Value) {
		controllers, ok := m.parties(v, "controllers")
		if !ok {
			return
		}
		if c.Observers == nil {
			m.beginExercise(e, controllers, nil)
			return
		}
		m.then(func(m *Machine, v value.Value) {
			obs, ok := m.parties(v, "choice observers")
			if ok {
				m.beginExercise(e, controllers, obs)
			}
		})
		m.push(preventCatch)
		m.enter(c.Observers, nil, both)
	})
	m.push(preventCatch)
	m.enter(c.Controllers, nil, both)
}

func (m *Machine) beginExercise(e *exercising, controllers, observers []string) {
	u := m.upd
	c, t, info := e.choice, e.info.tmpl, e.info
	if err := m.serializable(e.arg); err != nil {
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
		ContractID:      e.cid,
		PackageName:     t.PackageName,
		TemplateID:      t.ID,
		InterfaceID:     e.iface,
		Choice:          c.Name,
		Consuming:       c.Consuming,
		ActingParties:   controllers,
		ChosenValue:     e.arg,
		Signatories:     info.signatories,
		Stakeholders:    info.stakeholders,
		ChoiceObservers: observers,
		Key:             info.key,
		ByKey:           e.byKey,
		Version:         nodeVersion(t),
	}
	auth := u.authorizers()
	if c.Consuming {
		u.recordConsume(e.cid, id)
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
	k := e.k
	k.fr, k.loc = m.fr, m.loc
	u.beginExercise(&k.ctx, id, node, seed, union(controllers, info.signatories))
	k.ctx.choice = c
	m.push(k)
	m.enter(c.Body, nil, []value.Value{e.this, e.cid, e.arg, token})
}

// kExercise closes an exercise when its choice's update returns (Speedy's
// KCloseExercise); an exception unwinding through it closes the exercise
// without a result.
type kExercise struct {
	ctx txContext
	fr  *frame
	loc *lf.Location
	e   exercising
}

func (k *kExercise) resume(m *Machine, result value.Value) {
	m.fr, m.loc = k.fr, k.loc
	if err := m.serializable(result); err != nil {
		m.fail(err)
		return
	}
	m.upd.endExercise(&k.ctx, result)
	m.upd.popWhere()
	m.val = result
}

func (k *kExercise) where() (*frame, *lf.Location) { return k.fr, k.loc }

// fetch is 'fetch @T cid'.
func (m *Machine) fetch(t *resolve.Template, cid value.ContractID) {
	m.upd.pushWhere("fetch", t, nil)
	m.withContract(cid, asTemplate(t), func(m *Machine, info *contractInfo) {
		if m.insertFetch(cid, info, nil, false) {
			m.upd.popWhere()
			m.val = info.arg
		}
	})
}

// insertFetch records a fetch node of contract cid, fetched through
// interface iface (or nil) or by key, after checking a stakeholder
// authorizes it.
func (m *Machine) insertFetch(cid value.ContractID, info *contractInfo, iface *value.Identifier, byKey bool) bool {
	u := m.upd
	t := info.tmpl
	auth := u.authorizers()
	id := u.nodeID()
	acting := intersection(auth, info.stakeholders)
	u.nodes = append(u.nodes, &tx.Fetch{
		ContractID:    cid,
		PackageName:   t.PackageName,
		TemplateID:    t.ID,
		InterfaceID:   iface,
		ActingParties: acting,
		Signatories:   info.signatories,
		Stakeholders:  info.stakeholders,
		Key:           info.key,
		ByKey:         byKey,
		Version:       nodeVersion(t),
	})
	if len(acting) == 0 {
		m.fail(m.authError(fmt.Sprintf("node %s requires one of the stakeholders %s of the fetched contract to be an authorizer, but authorizers were %s",
			nodeIDText(id), scalaSet("TreeSet", info.stakeholders), scalaSet(u.authorizersKind(), auth))))
		return false
	}
	u.addChild(id)
	return true
}

// authorizersKind is the Scala collection Canton prints the authorizers
// as: the committers are a Set, a choice's authorizers a TreeSet.
func (u *updateState) authorizersKind() string {
	if u.inExercise() {
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
