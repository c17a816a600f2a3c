package tx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/value"
)

// shape renders a transaction as nested nodes: c (create, with its
// contract id), f (fetch), x[…] (exercise), R[…] (rollback); and the
// seeds by node id.
func shape(t *Transaction) string {
	var b strings.Builder
	var walk func(id NodeID)
	walk = func(id NodeID) {
		fmt.Fprintf(&b, "%d:", id)
		switch x := t.Nodes[id].(type) {
		case *Create:
			b.WriteString("c" + string(x.ContractID))
		case *Fetch:
			b.WriteString("f")
		case *Exercise:
			b.WriteString("x[")
			for i, c := range x.Children {
				if i > 0 {
					b.WriteString(" ")
				}
				walk(c)
			}
			b.WriteString("]")
		case *Rollback:
			b.WriteString("R[")
			for i, c := range x.Children {
				if i > 0 {
					b.WriteString(" ")
				}
				walk(c)
			}
			b.WriteString("]")
		}
	}
	for i, r := range t.Roots {
		if i > 0 {
			b.WriteString(" ")
		}
		walk(r)
	}
	b.WriteString(" seeds")
	for _, s := range t.Seeds {
		fmt.Fprintf(&b, " %d=%x", s.Node, s.Seed[0])
	}
	return b.String()
}

// TestNormalizeRollbacks pins the three rules of Canton's
// NormalizeRollbacks and the renumbering.
func TestNormalizeRollbacks(t *testing.T) {
	c := func(name string) Node { return &Create{ContractID: value.ContractID(name)} }
	seed := func(n NodeID, b byte) NodeSeed { return NodeSeed{Node: n, Seed: Hash{b}} }
	for _, tc := range []struct {
		name string
		in   *Transaction
		want string
	}{
		{"empty rollback and unused ids disappear",
			&Transaction{Roots: []NodeID{0, 2}, Nodes: []Node{&Rollback{}, nil, c("a")}, Seeds: []NodeSeed{seed(2, 1)}},
			"0:ca seeds 0=1"},
		{"a rollback of one node",
			&Transaction{Roots: []NodeID{0}, Nodes: []Node{&Rollback{Children: []NodeID{1}}, c("a")}, Seeds: []NodeSeed{seed(1, 1)}},
			"0:R[1:ca] seeds 1=1"},
		{"rule 2: a leading rollback is lifted out",
			&Transaction{Roots: []NodeID{0}, Nodes: []Node{&Rollback{Children: []NodeID{1, 3}}, &Rollback{Children: []NodeID{2}}, c("a"), c("b")},
				Seeds: []NodeSeed{seed(2, 1), seed(3, 2)}},
			"0:R[1:ca] 2:R[3:cb] seeds 1=1 3=2"},
		{"rule 3: a trailing rollback is merged",
			&Transaction{Roots: []NodeID{0}, Nodes: []Node{&Rollback{Children: []NodeID{1, 2}}, c("a"), &Rollback{Children: []NodeID{3, 4}}, c("b"), c("c")}},
			"0:R[1:ca 2:cb 3:cc] seeds"},
		{"nested rollbacks collapse",
			&Transaction{Roots: []NodeID{0}, Nodes: []Node{&Rollback{Children: []NodeID{1}}, &Rollback{Children: []NodeID{2}}, c("a")}},
			"0:R[1:ca] seeds"},
		{"inside an exercise, with a hole",
			&Transaction{Roots: []NodeID{0}, Nodes: []Node{&Exercise{Children: []NodeID{1, 4, 5}}, &Rollback{Children: []NodeID{2}}, c("a"), nil, &Rollback{}, c("b")},
				Seeds: []NodeSeed{seed(0, 9), seed(2, 1)}},
			"0:x[1:R[2:ca] 3:cb] seeds 0=9 2=1"},
	} {
		if got := shape(NormalizeRollbacks(tc.in)); got != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, got, tc.want)
		}
	}
}
