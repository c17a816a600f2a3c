package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// checkSeeds re-derives every seed and contract id of a transaction from the
// tree alone: root i has seed HMAC(txSeed, i), child i of an exercise
// HMAC(exercise seed, i) counting every action child (creates, exercises and
// fetches), and a create's contract id comes from its seed.
func checkSeeds(t *testing.T, s *Submission, tr *tx.Transaction) {
	t.Helper()
	txSeed := tx.DeriveTransactionSeed(s.SubmissionSeed, s.ParticipantID, s.PreparationTime)
	want := map[tx.NodeID]tx.Hash{}
	var visit func(id tx.NodeID, seed tx.Hash)
	visit = func(id tx.NodeID, seed tx.Hash) {
		switch n := tr.Nodes[id].(type) {
		case *tx.Create:
			want[id] = seed
			if got := tx.ContractIDV1(seed, s.PreparationTime, n.Stakeholders); got != n.ContractID {
				t.Errorf("node %d: contract id %s, derived %s", id, n.ContractID, got)
			}
		case *tx.Exercise:
			want[id] = seed
			for i, c := range n.Children {
				visit(c, tx.DeriveNodeSeed(seed, i))
			}
		}
	}
	for i, r := range tr.Roots {
		visit(r, tx.DeriveNodeSeed(txSeed, i))
	}
	if len(want) != len(tr.Seeds) {
		t.Errorf("%d seeds, want %d", len(tr.Seeds), len(want))
	}
	for _, ns := range tr.Seeds {
		if want[ns.Node] != ns.Seed {
			t.Errorf("node %d: seed %s, derived %s", ns.Node, ns.Seed, want[ns.Node])
		}
	}
	// Node ids are the pre-order of the tree.
	next := tx.NodeID(0)
	tr.Walk(func(id tx.NodeID, _ tx.Node, _ tx.NodeID) {
		if id != next {
			t.Errorf("node %d visited in position %d: ids are not in pre-order", id, next)
		}
		next++
	})
}

// describe renders a transaction tree on one line per node, indented, for
// comparing with what the .daml source says.
func describe(tr *tx.Transaction) string {
	var b strings.Builder
	depth := map[tx.NodeID]int{}
	tr.Walk(func(id tx.NodeID, n tx.Node, parent tx.NodeID) {
		d := 0
		if parent >= 0 {
			d = depth[parent] + 1
		}
		depth[id] = d
		b.WriteString(strings.Repeat("  ", d))
		switch x := n.(type) {
		case *tx.Create:
			fmt.Fprintf(&b, "create %s", x.TemplateID.EntityName)
			if p, ok := x.Argument.(*value.Record).Field("path").(value.Text); ok {
				fmt.Fprintf(&b, " %q", string(p))
			}
		case *tx.Exercise:
			fmt.Fprintf(&b, "exercise %s %s", x.TemplateID.EntityName, x.Choice)
			if !x.Consuming {
				b.WriteString(" (nonconsuming)")
			}
		case *tx.Fetch:
			fmt.Fprintf(&b, "fetch %s", x.TemplateID.EntityName)
		}
		b.WriteString("\n")
	})
	return b.String()
}

type bongFixture struct {
	e      *Engine
	pkg    lf.PackageID
	ledger *memLedger
	n      int
}

func (f *bongFixture) id(name string) *value.Identifier {
	return ident(f.pkg, "Canton.Internal.Bong", name)
}

// submit interprets, checks seeds and commits.
func (f *bongFixture) submit(t *testing.T, actAs []string, cmd Command) (*Result, map[value.ContractID]value.ContractID) {
	t.Helper()
	s := testSubmission(actAs, cmd)
	f.n++
	s.SubmissionSeed[0] = byte(f.n)
	res, err := f.e.Submit(context.Background(), s, f.ledger)
	if err != nil {
		t.Fatalf("%T: %v", cmd, err)
	}
	checkSeeds(t, s, res.Transaction)
	return res, f.ledger.commit(res.Transaction, value.Timestamp(f.n))
}

// created returns the ledger ids of the contracts of a template a
// transaction created, in node order.
func created(tr *tx.Transaction, ids map[value.ContractID]value.ContractID, entity string) []value.ContractID {
	var out []value.ContractID
	for _, n := range tr.Nodes {
		if c, ok := n.(*tx.Create); ok && c.TemplateID.EntityName == entity {
			out = append(out, ids[c.ContractID])
		}
	}
	return out
}

func TestBongProposalEnsure(t *testing.T) {
	e, pkg := pingEngine(t)
	f := &bongFixture{e: e, pkg: pkg, ledger: newMemLedger()}
	arg := record(f.id("BongProposal"), "id", value.Text("b"), "initiator", value.Party(alice),
		"candidates", parties(bob, bob), "validators", parties(), "responders", parties(carol),
		"maxLevel", value.Int64(2), "timeout", value.Timestamp(0))
	_, err := e.Submit(context.Background(), testSubmission([]string{alice}, &CreateCommand{Template: f.id("BongProposal"), Argument: arg}), f.ledger)
	var ie *Error
	if !errors.As(err, &ie) {
		t.Fatalf("duplicate candidates: %v", err)
	}
	// damlc compiles ensure clauses to throw PreconditionFailed; Canton
	// reports the unhandled exception as a failure status.
	if ie.ID != "DAML_FAILURE" || ie.Metadata["error_id"] != "UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed" ||
		!strings.HasPrefix(ie.Cause, "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed (error category 9): Template precondition violated") ||
		ie.Template != f.id("BongProposal").String() || ie.Location == nil {
		t.Errorf("duplicate candidates: %v", ie)
	}
}

// TestBong drives the Bong workflow: proposals accepted by each candidate
// end in an Explode, which explodes into a tree of Explode, Merge and
// Collapse contracts that merge back into a Bong.
func TestBong(t *testing.T) {
	e, pkg := pingEngine(t)
	f := &bongFixture{e: e, pkg: pkg, ledger: newMemLedger()}
	const maxLevel = 3
	validators := []string{bob, carol}
	arg := record(f.id("BongProposal"), "id", value.Text("b"), "initiator", value.Party(alice),
		"candidates", parties(validators...), "validators", parties(), "responders", parties(alice),
		"maxLevel", value.Int64(maxLevel), "timeout", value.Timestamp(0))
	res, ids := f.submit(t, []string{alice}, &CreateCommand{Template: f.id("BongProposal"), Argument: arg})
	proposal := created(res.Transaction, ids, "BongProposal")[0]

	// Alice is no candidate: Accept's assert fails.
	_, err := e.Submit(context.Background(), testSubmission([]string{alice}, &ExerciseCommand{Template: f.id("BongProposal"), ContractID: proposal,
		Choice: "Accept", Argument: record(f.id("Accept"), "validator", value.Party(alice))}), f.ledger)
	ie := wantError(t, err, "DAML_FAILURE", "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.AssertionFailed:AssertionFailed (error category 9): Assertion failed")
	// This DAR's choice code carries no locations; the last one evaluated
	// is the standard library's throw, and the backtrace names the choice's
	// code.
	if ie.Choice != "Accept" || ie.Location == nil || !strings.Contains(ie.Error(), "Canton.Internal.Bong:$$$$sc_BongProposal_7") {
		t.Errorf("assert context: %v", ie)
	}

	// Bob accepts: a new proposal with Bob moved to the validators.
	res, ids = f.submit(t, []string{bob}, &ExerciseCommand{Template: f.id("BongProposal"), ContractID: proposal, Choice: "Accept",
		Argument: record(f.id("Accept"), "validator", value.Party(bob))})
	if got := describe(res.Transaction); got != "exercise BongProposal Accept\n  create BongProposal\n" {
		t.Errorf("Accept by bob:\n%s", got)
	}
	proposal = created(res.Transaction, ids, "BongProposal")[0]
	ex := res.Transaction.Nodes[0].(*tx.Exercise)
	if v, ok := ex.Result.(*value.Variant); !ok || v.Constructor != "Left" {
		t.Errorf("Accept result %v", ex.Result)
	}
	// Carol accepts too: everybody agreed, the bong explodes.
	res, ids = f.submit(t, []string{carol}, &ExerciseCommand{Template: f.id("BongProposal"), ContractID: proposal, Choice: "Accept",
		Argument: record(f.id("Accept"), "validator", value.Party(carol))})
	if got := describe(res.Transaction); got != "exercise BongProposal Accept\n  create Explode \"\"\n" {
		t.Errorf("Accept by carol:\n%s", got)
	}
	explode := created(res.Transaction, ids, "Explode")[0]
	c := res.Transaction.Nodes[1].(*tx.Create)
	if strings.Join(c.Signatories, ",") != strings.Join(sorted(alice, bob, carol), ",") {
		t.Errorf("Explode signatories %v", c.Signatories)
	}

	// Explode level by level; the winner is the responder.
	winner := record(f.id("ProcessExplode"), "winner", value.Party(alice))
	type merge struct {
		cid  value.ContractID
		path string
	}
	var merges []merge
	collapses := map[string][]value.ContractID{}
	queue := []value.ContractID{explode}
	for len(queue) > 0 {
		cid := queue[0]
		queue = queue[1:]
		res, ids = f.submit(t, []string{alice}, &ExerciseCommand{Template: f.id("Explode"), ContractID: cid, Choice: "ProcessExplode", Argument: winner})
		mc := res.Transaction.Nodes[1].(*tx.Create)
		path := string(mc.Argument.(*value.Record).Field("path").(value.Text))
		merges = append(merges, merge{ids[mc.ContractID], path})
		next := "Explode"
		if len(path)+1 >= maxLevel {
			next = "Collapse"
		}
		want := fmt.Sprintf("exercise Explode ProcessExplode\n  create Merge %q\n  create %s %q\n  create %s %q\n", path, next, childPath(path, next, "L"), next, childPath(path, next, "R"))
		if got := describe(res.Transaction); got != want {
			t.Errorf("ProcessExplode at %q:\n%s\nwant\n%s", path, got, want)
		}
		queue = append(queue, created(res.Transaction, ids, "Explode")...)
		collapses[path] = append(collapses[path], created(res.Transaction, ids, "Collapse")...)
	}
	if len(merges) != 1<<maxLevel-1 {
		t.Fatalf("%d merges, want %d", len(merges), 1<<maxLevel-1)
	}
	// Merge bottom-up: each merge consumes the two collapses of its path and
	// makes one for its parent, until the root merge makes the Bong.
	for i := len(merges) - 1; i >= 0; i-- {
		m := merges[i]
		cs := collapses[m.path]
		if len(cs) != 2 {
			t.Fatalf("path %q has %d collapses", m.path, len(cs))
		}
		res, ids = f.submit(t, []string{alice}, &ExerciseCommand{Template: f.id("Merge"), ContractID: m.cid, Choice: "ProcessMerge",
			Argument: record(f.id("ProcessMerge"), "winner", value.Party(alice), "leftId", cs[0], "rightId", cs[1])})
		last := "create Collapse " + fmt.Sprintf("%q", parentPath(m.path))
		if m.path == "" {
			last = "create Bong"
		}
		want := "exercise Merge ProcessMerge\n  fetch Collapse\n  fetch Collapse\n  exercise Collapse ProcessCollapse\n  exercise Collapse ProcessCollapse\n  " + last + "\n"
		if got := describe(res.Transaction); got != want {
			t.Errorf("ProcessMerge at %q:\n%s\nwant\n%s", m.path, got, want)
		}
		p := parentPath(m.path)
		collapses[p] = append(collapses[p], created(res.Transaction, ids, "Collapse")...)
		if m.path == "" && len(created(res.Transaction, ids, "Bong")) != 1 {
			t.Error("no Bong")
		}
	}
}

func childPath(path, next, side string) string {
	if next == "Collapse" {
		return path
	}
	return path + side
}

func parentPath(path string) string {
	if path == "" {
		return ""
	}
	return path[:len(path)-1]
}
