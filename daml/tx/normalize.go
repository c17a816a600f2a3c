package tx

// NormalizeRollbacks returns the transaction with its rollback nodes in the
// normal form Canton's engine gives every transaction it returns
// (Speedy's NormalizeRollbacks), its nodes renumbered in pre-order from 0
// and its seeds renumbered with them. The rules, applied bottom-up:
//
//  1. ROLL [] disappears;
//  2. ROLL [ROLL [xs…], ys…] becomes ROLL [xs…], ROLL [ys…];
//  3. ROLL [xs…, ROLL [ys…]] becomes ROLL [xs…, ys…]
//
// (so ROLL [ROLL [xs…]] is ROLL [xs…]). The nodes themselves are not
// copied except exercises, whose children change; Nodes may hold nil
// entries (ids the interpreter allocated to try blocks that ended
// normally), which no node refers to and which disappear.
func NormalizeRollbacks(t *Transaction) *Transaction {
	n := &normalizer{t: t, seeds: make(map[NodeID]Hash, len(t.Seeds))}
	for _, s := range t.Seeds {
		n.seeds[s.Node] = s.Seed
	}
	var roots []norm
	for _, r := range t.Roots {
		roots = append(roots, n.normNode(r)...)
	}
	out := &Transaction{Version: t.Version, Nodes: make([]Node, 0, len(t.Nodes))}
	n.out = out
	for _, r := range roots {
		out.Roots = append(out.Roots, n.emit(r))
	}
	return out
}

// norm is a node in normal form: an action node of the original
// transaction (id, and for an exercise its children) or a rollback of
// kids whose first and last are not rollbacks.
type norm struct {
	roll bool
	id   NodeID
	kids []norm
}

type normalizer struct {
	t     *Transaction
	seeds map[NodeID]Hash
	out   *Transaction
}

func (n *normalizer) normNodes(ids []NodeID) []norm {
	var out []norm
	for _, id := range ids {
		out = append(out, n.normNode(id)...)
	}
	return out
}

func (n *normalizer) normNode(id NodeID) []norm {
	switch x := n.t.Nodes[id].(type) {
	case *Rollback:
		return makeRoll(n.normNodes(x.Children))
	case *Exercise:
		return []norm{{id: id, kids: n.normNodes(x.Children)}}
	}
	return []norm{{id: id}}
}

// makeRoll applies the rules to a rollback of ns, each already normal.
func makeRoll(ns []norm) []norm {
	switch {
	case len(ns) == 0:
		return nil // rule 1
	case len(ns) == 1 && ns[0].roll:
		return ns
	case len(ns) == 1:
		return []norm{{roll: true, kids: ns}}
	case ns[0].roll: // rule 2
		return append([]norm{ns[0]}, makeRoll(ns[1:])...)
	case ns[len(ns)-1].roll: // rule 3
		last := ns[len(ns)-1]
		kids := append(append([]norm(nil), ns[:len(ns)-1]...), last.kids...)
		return []norm{{roll: true, kids: kids}}
	}
	return []norm{{roll: true, kids: ns}}
}

// emit appends the node in pre-order and returns its new id.
func (n *normalizer) emit(x norm) NodeID {
	me := NodeID(len(n.out.Nodes))
	n.out.Nodes = append(n.out.Nodes, nil)
	if x.roll {
		r := &Rollback{Children: make([]NodeID, 0, len(x.kids))}
		for _, k := range x.kids {
			r.Children = append(r.Children, n.emit(k))
		}
		n.out.Nodes[me] = r
		return me
	}
	node := n.t.Nodes[x.id]
	if s, ok := n.seeds[x.id]; ok {
		n.out.Seeds = append(n.out.Seeds, NodeSeed{Node: me, Seed: s})
	}
	if ex, ok := node.(*Exercise); ok {
		c := *ex
		c.Children = make([]NodeID, 0, len(x.kids))
		for _, k := range x.kids {
			c.Children = append(c.Children, n.emit(k))
		}
		node = &c
	}
	n.out.Nodes[me] = node
	return me
}
