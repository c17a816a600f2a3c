package interp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// StateMode is how the contract state of a transaction treats rollbacks,
// Canton's ContractStateMachine.Mode, chosen by the synchronizer's protocol
// version.
type StateMode int

const (
	// StateNUCK is Canton 3.5's mode (protocol version 35, non-unique
	// contract keys): a try block whose body created or consumed a contract
	// cannot be rolled back; catching its exception fails with
	// DAML_EFFECTFUL_ROLLBACK_ERROR. It is the default.
	StateNUCK StateMode = iota
	// StateNoKey is Canton 3.4's (protocol version 34): catching an
	// exception rolls back what the try block did (contracts it created
	// are inactive afterwards, contracts it consumed are active again).
	StateNoKey
)

// ctxKind sorts the contexts of a transaction under construction.
type ctxKind uint8

const (
	ctxRoot ctxKind = iota
	ctxExercise
	ctxTry
)

// txContext is where the next node goes (Canton's PartialTransaction
// context): the root, an exercise or a try block. A try block is not an
// action: its children take their seeds and indexes from the enclosing
// context, as if the block were not there.
type txContext struct {
	kind   ctxKind
	parent *txContext
	// id is the exercise or rollback node's id.
	id       tx.NodeID
	exercise *tx.Exercise
	// choice is the exercised choice, for the exercise trace.
	choice *resolve.Choice
	// seed is an exercise's node seed, which its children's derive from.
	seed        tx.Hash
	children    []tx.NodeID
	nextChild   int
	authorizers []string
	// A try block's mark in the journal and depth of the where stack when
	// it began.
	mark, whereLen int
}

// effectKind sorts the entries of the journal.
type effectKind uint8

const (
	effectCreated effectKind = iota
	effectConsumed
	effectKeyAdded
)

// effect is an entry of the journal of changes to the contract state,
// which a rollback undoes back to its try block's mark.
type effect struct {
	kind effectKind
	cid  value.ContractID
	node tx.NodeID
	key  tx.Hash
}

// seedFor returns the seed of the next action child of the current
// context: a try block's children are its parent's.
func (u *updateState) nextSeed() (tx.Hash, error) {
	c := u.top
	idx := c.nextChild
	for c.kind == ctxTry {
		c = c.parent
	}
	switch {
	case c.kind == ctxExercise:
		return tx.DeriveNodeSeed(c.seed, idx), nil
	case u.txSeed != nil:
		return tx.DeriveNodeSeed(*u.txSeed, idx), nil
	case idx < len(u.rootSeeds):
		return u.rootSeeds[idx], nil
	}
	return tx.Hash{}, fmt.Errorf("no seed for root node %d", idx)
}

// addChild records node id as the next action child of the current
// context.
func (u *updateState) addChild(id tx.NodeID) {
	c := u.top
	c.children = append(c.children, id)
	c.nextChild++
}

func (u *updateState) nodeID() tx.NodeID { return tx.NodeID(len(u.nodes)) }

// authorizers returns the parties whose authority the current context
// has: the committers at the root, signatories and controllers in a choice.
func (u *updateState) authorizers() []string { return u.top.authorizers }

// inExercise reports whether a choice is being exercised.
func (u *updateState) inExercise() bool {
	for c := u.top; c != nil; c = c.parent {
		if c.kind == ctxExercise {
			return true
		}
	}
	return false
}

// beginExercise opens c, the context of exercise node (id, with seed).
func (u *updateState) beginExercise(c *txContext, id tx.NodeID, node *tx.Exercise, seed tx.Hash, authorizers []string) {
	*c = txContext{kind: ctxExercise, parent: u.top, id: id, exercise: node, seed: seed, authorizers: authorizers}
	u.top = c
}

// endExercise closes the exercise context c, normally or (result nil)
// because an exception is unwinding through it.
func (u *updateState) endExercise(c *txContext, result value.Value) {
	c.exercise.Children = c.children
	c.exercise.Result = result
	u.top = c.parent
	u.addChild(c.id)
}

// beginTry opens a try block. It takes a node id, which becomes the
// rollback node's if the block is rolled back and is otherwise left
// unused (the transaction is renumbered when finished, as Canton's is).
func (u *updateState) beginTry() *txContext {
	id := u.nodeID()
	u.nodes = append(u.nodes, nil)
	u.tries++
	u.openTries++
	c := &txContext{kind: ctxTry, parent: u.top, id: id, nextChild: u.top.nextChild,
		authorizers: u.top.authorizers, mark: len(u.journal), whereLen: len(u.whereStack)}
	u.top = c
	return c
}

// endTry closes a try block whose body completed: its children become
// its parent's.
func (u *updateState) endTry(c *txContext) {
	p := c.parent
	p.children = append(p.children, c.children...)
	p.nextChild = c.nextChild
	u.top = p
	u.openTries--
}

// rollbackTry closes a try block whose body threw an exception that its
// handler catches: its children go under a rollback node, and what the
// body did to the contract state is undone (StateNoKey) or, if it did
// anything, refused (StateNUCK), which is an error the handler cannot
// catch.
func (u *updateState) rollbackTry(m *Machine, c *txContext) bool {
	undo := u.journal[c.mark:]
	if u.mode == StateNUCK {
		if msg := u.effectfulNodes(undo); msg != "" {
			m.fail(m.newError(errEffectfulRollback, interpretationError+"Tried to rollback side-effectful node(s): "+msg))
			return false
		}
	}
	for i := len(undo) - 1; i >= 0; i-- {
		e := undo[i]
		switch e.kind {
		case effectCreated:
			if u.rolledBack == nil {
				u.rolledBack = map[value.ContractID]bool{}
			}
			u.rolledBack[e.cid] = true
		case effectConsumed:
			delete(u.consumed, e.cid)
		case effectKeyAdded:
			u.keys.undoLocal(e.key)
		}
	}
	u.journal = u.journal[:c.mark]
	u.nodes[c.id] = &tx.Rollback{Children: c.children}
	p := c.parent
	p.children = append(p.children, c.id)
	p.nextChild = c.nextChild
	u.top = p
	u.openTries--
	return true
}

// effectfulNodes describes the creates and consuming exercises of a
// journal, as Canton's EffectfulRollback error does; "" when there are
// none.
func (u *updateState) effectfulNodes(effects []effect) string {
	var ids []int
	for _, e := range effects {
		if e.kind == effectCreated || e.kind == effectConsumed {
			ids = append(ids, int(e.node))
		}
	}
	sort.Ints(ids)
	var parts []string
	for _, id := range ids {
		switch n := u.nodes[id].(type) {
		case *tx.Create:
			parts = append(parts, fmt.Sprintf("Create of %s ( %s )", prettyID(n.TemplateID), n.ContractID))
		case *tx.Exercise:
			what := "exercise"
			if n.ByKey {
				what = "exercise by key"
			}
			parts = append(parts, fmt.Sprintf("Consuming %s of %s on %s ( %s )", what, n.Choice, prettyID(n.TemplateID), n.ContractID))
		}
	}
	return strings.Join(parts, ", \n")
}

func prettyID(id *value.Identifier) string { return prettyTypeCon(id.PackageID, id.QualifiedName()) }

// log records an effect in the journal; outside try blocks nothing can
// be rolled back and nothing is recorded.
func (u *updateState) log(e effect) {
	if u.openTries > 0 {
		u.journal = append(u.journal, e)
	}
}

// recordCreate records a contract the transaction created.
func (u *updateState) recordCreate(cid value.ContractID, id tx.NodeID, info *contractInfo) {
	if u.local == nil {
		u.local = map[value.ContractID]*contractInfo{}
	}
	u.local[cid] = info
	u.log(effect{kind: effectCreated, cid: cid, node: id})
	if info.key != nil {
		u.keys.addLocal(info.key.Hash, cid)
		u.log(effect{kind: effectKeyAdded, key: info.key.Hash})
	}
}

// recordConsume records that node id consumed cid.
func (u *updateState) recordConsume(cid value.ContractID, id tx.NodeID) {
	if u.consumed == nil {
		u.consumed = map[value.ContractID]tx.NodeID{}
	}
	u.consumed[cid] = id
	u.log(effect{kind: effectConsumed, cid: cid, node: id})
}

// finish returns the transaction built, normalized as Canton's engine
// returns it.
func (u *updateState) finish() *tx.Transaction {
	t := &tx.Transaction{Version: txVersion(u.nodes), Roots: u.root.children, Nodes: u.nodes, Seeds: u.seeds}
	if u.tries > 0 {
		t = tx.NormalizeRollbacks(t)
	}
	return t
}
