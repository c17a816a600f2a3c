package tx

import (
	"strconv"

	"github.com/ledger-cli/ledger/daml/value"
)

// NodeID numbers the nodes of a transaction: 0, 1, 2, … in pre-order, the
// order in which interpretation starts them (Canton's NodeId).
type NodeID int

func (n NodeID) String() string { return strconv.Itoa(int(n)) }

// Serialization versions of nodes, as Canton writes them in lf_version:
// "2.1" for nodes without contract key, "2" (serialization version V2) for
// nodes with one.
const (
	VersionNoKey   = "2.1"
	VersionWithKey = "2"
)

// Node is a transaction node: *Create, *Exercise, *Fetch or *Rollback.
type Node interface{ isNode() }

// Create is a create node. Parties are sorted and distinct.
type Create struct {
	ContractID   value.ContractID
	PackageName  string
	TemplateID   *value.Identifier
	Argument     value.Value
	Signatories  []string
	Stakeholders []string
	Version      string
}

// Exercise is an exercise node. Children are in execution order; Result is
// nil when the exercise did not complete.
type Exercise struct {
	ContractID      value.ContractID
	PackageName     string
	TemplateID      *value.Identifier
	InterfaceID     *value.Identifier // nil unless exercised through an interface
	Choice          string
	Consuming       bool
	ActingParties   []string
	ChosenValue     value.Value
	Signatories     []string
	Stakeholders    []string
	ChoiceObservers []string
	// ChoiceAuthorizers is nil unless the choice declares explicit
	// authorizers (Daml-LF 2.dev).
	ChoiceAuthorizers []string
	Children          []NodeID
	Result            value.Value
	Version           string
}

// Fetch is a fetch node.
type Fetch struct {
	ContractID    value.ContractID
	PackageName   string
	TemplateID    *value.Identifier
	InterfaceID   *value.Identifier
	ActingParties []string
	Signatories   []string
	Stakeholders  []string
	Version       string
}

// Rollback is a rollback node: effects of its children were rolled back.
type Rollback struct{ Children []NodeID }

func (*Create) isNode()   {}
func (*Exercise) isNode() {}
func (*Fetch) isNode()    {}
func (*Rollback) isNode() {}

// Transaction is a transaction tree as Canton's engine returns it for a
// submission: nodes by id, roots in order, and the seeds of its create and
// exercise nodes.
type Transaction struct {
	// Version is the transaction's serialization version: the highest
	// version of its nodes.
	Version string
	Roots   []NodeID
	// Nodes holds every node; Nodes[i] has id i.
	Nodes []Node
	// Seeds gives the seed of each create and exercise node, in node order.
	Seeds []NodeSeed
}

// NodeSeed is the seed of a node.
type NodeSeed struct {
	Node NodeID
	Seed Hash
}

// Seed returns the seed of node n.
func (t *Transaction) Seed(n NodeID) (Hash, bool) {
	for _, s := range t.Seeds {
		if s.Node == n {
			return s.Seed, true
		}
	}
	return Hash{}, false
}

// Walk calls f for every node in pre-order (the order of node ids for a
// transaction the interpreter built), with its parent (-1 for roots).
func (t *Transaction) Walk(f func(id NodeID, n Node, parent NodeID)) {
	type item struct{ id, parent NodeID }
	stack := make([]item, 0, len(t.Roots))
	for i := len(t.Roots) - 1; i >= 0; i-- {
		stack = append(stack, item{t.Roots[i], -1})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := t.Nodes[it.id]
		f(it.id, n, it.parent)
		var ch []NodeID
		switch x := n.(type) {
		case *Exercise:
			ch = x.Children
		case *Rollback:
			ch = x.Children
		}
		for i := len(ch) - 1; i >= 0; i-- {
			stack = append(stack, item{ch[i], it.id})
		}
	}
}

// Contract is a contract as the ledger stores it, the input a transaction
// reads: what Canton calls a fat contract instance.
type Contract struct {
	ID           value.ContractID
	PackageName  string
	TemplateID   *value.Identifier
	Argument     value.Value
	Signatories  []string
	Stakeholders []string
	CreatedAt    value.Timestamp
}

// Observers returns the stakeholders that are not signatories.
func (c *Contract) Observers() []string {
	var out []string
	i := 0
	for _, s := range c.Stakeholders {
		for i < len(c.Signatories) && c.Signatories[i] < s {
			i++
		}
		if i < len(c.Signatories) && c.Signatories[i] == s {
			continue
		}
		out = append(out, s)
	}
	return out
}

// TimeBounds are the ledger-time bounds a transaction depends on: its
// get_time and ledger-time comparisons hold for any ledger time within
// [Min, Max]. Nil bounds are unconstrained.
type TimeBounds struct {
	Min, Max *value.Timestamp
}
