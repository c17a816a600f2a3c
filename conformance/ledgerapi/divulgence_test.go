package ledgerapi

import (
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// transactionsOf lists every transaction of shape the parties see, from the
// start of the ledger.
func (p *participant) transactionsOf(t *testing.T, shape ledgerapi.TransactionShape, parties ...string) []ledgerapi.Transaction {
	t.Helper()
	return p.transactionsIn(t, ledgerapi.EventFormatOf(parties, nil, nil, false), shape, 0, 0)
}

// nodeID is the node id of an event of a transaction.
func nodeID(ev ledgerapi.Event) int32 {
	switch {
	case ev.Created != nil:
		return int32(ev.Created.NodeID)
	case ev.Exercised != nil:
		return int32(ev.Exercised.NodeID)
	case ev.Archived != nil:
		return int32(ev.Archived.NodeID)
	}
	return -1
}

// rootNodeIDs are the node ids of the events no exercise of tx contains.
func rootNodeIDs(tx ledgerapi.Transaction) []int32 {
	var roots []int32
	for _, ev := range tx.Events {
		id := nodeID(ev)
		inside := false
		for _, o := range tx.Events {
			if x := o.Exercised; x != nil && int32(x.NodeID) < id && id <= int32(x.LastDescendantNodeID) {
				inside = true
			}
		}
		if !inside {
			roots = append(roots, id)
		}
	}
	return roots
}

// DivulgenceIT.scala: a contract divulged to a party (fetched or archived
// in a transaction it sees, or created under an exercise it sees) is in
// that party's ledger effects, never in its ACS delta or its active
// contracts.
func TestDivulgenceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	div1, div2 := builtTemplate("Divulgence1"), builtTemplate("Divulgence2")
	const acsDelta, ledgerEffects = ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects

	// onlyCreate checks tx is the create of cid alone.
	onlyCreate := func(t *testing.T, what string, tx ledgerapi.Transaction, cid string) {
		t.Helper()
		if len(tx.Events) != 1 || tx.Events[0].Created == nil || tx.Events[0].Created.ContractID != cid {
			t.Errorf("%s: events %+v, want only the create of %s", what, tx.Events, cid)
		}
	}
	// exerciseOnDiv2 checks tx is one root, the exercise on d2, and returns it.
	exerciseOnDiv2 := func(t *testing.T, tx ledgerapi.Transaction, d2 string) *ledgerapi.ExercisedEvent {
		t.Helper()
		if roots := rootNodeIDs(tx); len(roots) != 1 {
			t.Errorf("the exercise transaction has roots %v, want one", roots)
		}
		ex := tx.Events[0].Exercised
		if ex == nil || ex.ContractID != d2 {
			t.Fatalf("the first event %+v is not the exercise on Divulgence2 %s", tx.Events[0], d2)
		}
		if ex.LastDescendantNodeID-ex.NodeID != 1 {
			t.Errorf("the exercise's descendants (%d, %d], want exactly one", ex.NodeID, ex.LastDescendantNodeID)
		}
		return ex
	}

	t.Run("DivulgenceTx", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		d1 := p.create(t, alice, div1, map[string]any{"div1Party": alice})
		d2 := p.create(t, bob, div2, map[string]any{"div2Signatory": bob, "div2Fetcher": alice})
		p.exercise(t, alice, div2, d2, "Divulgence2Archive", map[string]any{"div1ToArchive": d1})

		bobTxs := p.transactionsOf(t, acsDelta, bob)
		if len(bobTxs) != 1 {
			t.Fatalf("bob sees %d ACS-delta transactions, want exactly one", len(bobTxs))
		}
		onlyCreate(t, "bob's ACS delta", bobTxs[0], d2)

		bobEffects := p.transactionsOf(t, ledgerEffects, bob)
		if len(bobEffects) != 2 {
			t.Fatalf("bob sees %d ledger-effects transactions, want two", len(bobEffects))
		}
		if roots := rootNodeIDs(bobEffects[0]); len(roots) != 1 {
			t.Errorf("the create of Divulgence2 has roots %v, want one", roots)
		}
		onlyCreate(t, "bob's first ledger effects", bobEffects[0], d2)
		ex := exerciseOnDiv2(t, bobEffects[1], d2)
		var inner *ledgerapi.ExercisedEvent
		for _, ev := range bobEffects[1].Events {
			if nodeID(ev) == int32(ex.LastDescendantNodeID) {
				inner = ev.Exercised
			}
		}
		if inner == nil || inner.ContractID != d1 || inner.LastDescendantNodeID != inner.NodeID {
			t.Errorf("the last descendant %+v is not the childless exercise on Divulgence1 %s", inner, d1)
		}

		both := p.transactionsOf(t, acsDelta, alice, bob)
		if len(both) != 3 {
			t.Fatalf("alice and bob see %d ACS-delta transactions, want three", len(both))
		}
		onlyCreate(t, "the first for both", both[0], d1)
		if w := both[0].Events[0].Created.WitnessParties; !slices.Equal(w, []string{alice}) {
			t.Errorf("the create of Divulgence1 is witnessed by %v, want only alice", w)
		}
	})

	t.Run("ImmediateDivulgenceTx", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		d2 := p.create(t, bob, div2, map[string]any{"div2Signatory": bob, "div2Fetcher": alice})
		p.exercise(t, alice, div2, d2, "Divulgence2ImmediateDivulge", nil)

		bobTxs := p.transactionsOf(t, acsDelta, bob)
		if len(bobTxs) != 1 {
			t.Fatalf("bob sees %d ACS-delta transactions, want exactly one", len(bobTxs))
		}
		onlyCreate(t, "bob's ACS delta", bobTxs[0], d2)

		bobEffects := p.transactionsOf(t, ledgerEffects, bob)
		if len(bobEffects) != 2 {
			t.Fatalf("bob sees %d ledger-effects transactions, want two", len(bobEffects))
		}
		onlyCreate(t, "bob's first ledger effects", bobEffects[0], d2)
		tx := bobEffects[1]
		if len(tx.Events) != 2 {
			t.Errorf("the exercise transaction has %d events, want the exercise and the create", len(tx.Events))
		}
		exerciseOnDiv2(t, tx, d2)
		for _, ev := range tx.Events {
			if (ev.Created != nil && ev.Created.ACSDelta) || (ev.Exercised != nil && ev.Exercised.ACSDelta) {
				t.Errorf("event %d has acsDelta set: a non-consuming exercise and an immediately divulged create have none", nodeID(ev))
			}
		}
	})

	t.Run("DivulgenceAcs", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		d1 := p.create(t, alice, div1, map[string]any{"div1Party": alice})
		d2 := p.create(t, bob, div2, map[string]any{"div2Signatory": bob, "div2Fetcher": alice})
		p.exercise(t, alice, div2, d2, "Divulgence2Fetch", map[string]any{"div1ToFetch": d1})

		bobOnly := p.activeContracts(t, bob)
		if len(bobOnly) != 1 || bobOnly[0].ContractID != d2 {
			t.Fatalf("bob's active contracts %v, want only Divulgence2 %s", contractIDs(bobOnly), d2)
		}
		if w := bobOnly[0].WitnessParties; !slices.Equal(w, []string{bob}) {
			t.Errorf("witnesses for bob alone %v, want only bob", w)
		}
		forBoth := p.activeContracts(t, alice, bob)
		got, want := contractIDs(forBoth), []string{d1, d2}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("active contracts for both %v, want %v", got, want)
		}
		for _, c := range forBoth {
			w, wantW := slices.Clone(c.WitnessParties), []string{alice}
			if c.ContractID == d2 {
				wantW = []string{alice, bob}
			}
			slices.Sort(w)
			slices.Sort(wantW)
			if !slices.Equal(w, wantW) {
				t.Errorf("witnesses of %s: %v, want %v", c.ContractID, w, wantW)
			}
		}
	})
}
