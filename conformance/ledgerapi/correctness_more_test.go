package ledgerapi

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The rest of TransactionServiceCorrectnessIT.scala, on the generic
// model's Dummy (DummyChoice1 archives it). The node-id subset cases key
// events by offset and node id: node ids alone repeat across transactions.
func TestTransactionServiceCorrectnessITMore(t *testing.T) {
	p := startParticipant(t, node.Config{})
	ad, le := ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects

	// between reads the transactions of parties (nil: any party) in
	// (begin, end] (end 0: the ledger end).
	between := func(t *testing.T, shape ledgerapi.TransactionShape, begin, end int64, parties ...string) []ledgerapi.Transaction {
		t.Helper()
		return p.transactionsIn(t, ledgerapi.EventFormatOf(parties, nil, nil, true), shape, begin, end)
	}
	same := func(t *testing.T, what string, a, b any) {
		t.Helper()
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		if string(x) != string(y) {
			t.Errorf("%s:\n%s\n%s", what, x, y)
		}
	}
	dummies := func(t *testing.T, party string, n int) {
		t.Helper()
		for range n {
			p.create(t, party, dummy, map[string]any{"operator": party})
		}
	}
	commandIDs := func(txs []ledgerapi.Transaction) []string {
		var ids []string
		for _, tx := range txs {
			ids = append(ids, tx.CommandID)
		}
		return ids
	}

	t.Run("TXProcessInTwoChunks", func(t *testing.T) {
		party := p.allocate(t, "party")
		dummies(t, party, 5)
		endAfterFirstSection := p.ledgerEnd(t)
		first := between(t, ad, 0, endAfterFirstSection, party)
		dummies(t, party, 5)
		second := between(t, ad, endAfterFirstSection, 0, party)
		full := between(t, ad, 0, 0, party)
		if len(full) != 10 {
			t.Errorf("full sequence of %d transactions, want 10", len(full))
		}
		same(t, "The result of processing items in two chunk should yield the same result as getting the overall stream of transactions",
			append(first, second...), full)
	})

	t.Run("TXParallel", func(t *testing.T) {
		party := p.allocate(t, "party")
		dummies(t, party, 5)
		end := p.ledgerEnd(t)
		results := make([][]ledgerapi.Transaction, 10)
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() {
				var els []struct {
					Update ledgerapi.JsUpdate `json:"update"`
				}
				a := p.do(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", p.admin, map[string]any{"beginExclusive": 0, "endInclusive": end,
					"updateFormat": map[string]any{"includeTransactions": map[string]any{
						"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "transactionShape": ad}}})
				_ = json.Unmarshal(a.body, &els)
				for _, el := range els {
					if el.Update.Transaction != nil {
						results[i] = append(results[i], *el.Update.Transaction)
					}
				}
			})
		}
		wg.Wait()
		if len(results[0]) != 5 {
			t.Errorf("%d transactions, want 5", len(results[0]))
		}
		for i := range results {
			same(t, "All requests are supposed to return the same results", commandIDs(results[0]), commandIDs(results[i]))
			same(t, "All requests are supposed to return the same results", results[0], results[i])
		}
	})

	t.Run("TXSingleMultiSameBasic", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		dummies(t, alice, 1)
		dummies(t, bob, 1)
		joint := append(between(t, ad, 0, 0, alice), between(t, ad, 0, 0, bob)...)
		same(t, "Single- and multi-party subscription yield different results", joint, between(t, ad, 0, 0, alice, bob))
	})

	t.Run("TXSingleMultiSameLedgerEffectsBasic", func(t *testing.T) {
		start := p.ledgerEnd(t)
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		dummies(t, alice, 1)
		dummies(t, bob, 1)
		joint := append(between(t, le, 0, 0, alice), between(t, le, 0, 0, bob)...)
		multi := between(t, le, 0, 0, alice, bob)
		same(t, "Single- and multi-party subscription yield different results", joint, multi)
		same(t, "Multi-party and wildcard subscription yield different results", between(t, le, start, 0), multi)
	})

	// offsets checks that every event of the transaction with an event
	// of kind has the transaction's offset, and that one transaction has one.
	offsets := func(t *testing.T, txs []ledgerapi.Transaction, kind string, has func(ledgerapi.Event) (int64, bool)) {
		t.Helper()
		var with []ledgerapi.Transaction
		for _, tx := range txs {
			for _, ev := range tx.Events {
				if _, ok := has(ev); ok {
					with = append(with, tx)
					break
				}
			}
		}
		if len(with) != 1 {
			t.Fatalf("Only one transaction should contain the %s event: %d", kind, len(with))
		}
		n := 0
		for _, ev := range with[0].Events {
			if off, ok := has(ev); ok {
				n++
				if off != int64(with[0].Offset) {
					t.Errorf("The %s event offset %d should match the transaction offset %d", kind, off, with[0].Offset)
				}
			}
		}
		if n != 1 {
			t.Errorf("Transaction should contain a single %s event: %d", kind, n)
		}
	}
	created := func(ev ledgerapi.Event) (int64, bool) {
		if ev.Created == nil {
			return 0, false
		}
		return int64(ev.Created.Offset), true
	}
	t.Run("TXAcsDeltaTransactionEvents", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		p.exercise(t, party, dummy, cid, "DummyChoice1", nil)
		txs := between(t, ad, 0, 0, party)
		offsets(t, txs, "created", created)
		offsets(t, txs, "archived", func(ev ledgerapi.Event) (int64, bool) {
			if ev.Archived == nil {
				return 0, false
			}
			return int64(ev.Archived.Offset), true
		})
	})
	t.Run("TXTransactionLedgerEffectsEvents", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		p.exercise(t, party, dummy, cid, "DummyChoice1", nil)
		txs := between(t, le, 0, 0, party)
		offsets(t, txs, "create", created)
		offsets(t, txs, "exercise", func(ev ledgerapi.Event) (int64, bool) {
			if ev.Exercised == nil {
				return 0, false
			}
			return int64(ev.Exercised.Offset), true
		})
	})

	// witnesses maps (offset, node id) to the event's witnesses.
	type eventKey struct {
		offset int64
		node   int32
	}
	witnesses := func(txs []ledgerapi.Transaction) map[eventKey][]string {
		out := map[eventKey][]string{}
		for _, tx := range txs {
			for _, ev := range tx.Events {
				var w []string
				switch {
				case ev.Created != nil:
					w = ev.Created.WitnessParties
				case ev.Archived != nil:
					w = ev.Archived.WitnessParties
				case ev.Exercised != nil:
					w = ev.Exercised.WitnessParties
				}
				out[eventKey{int64(tx.Offset), nodeID(ev)}] = w
			}
		}
		return out
	}
	createAndExercise50 := func(t *testing.T) (acs, effects map[eventKey][]string) {
		party := p.allocate(t, "party")
		for range 50 {
			cid := p.create(t, party, dummy, map[string]any{"operator": party})
			p.exercise(t, party, dummy, cid, "DummyChoice1", nil)
		}
		return witnesses(between(t, ad, 0, 0, party)), witnesses(between(t, le, 0, 0, party))
	}
	t.Run("TXAcsDeltaSubsetOfLedgerEffects", func(t *testing.T) {
		acs, effects := createAndExercise50(t)
		if len(acs) != 100 {
			t.Errorf("%d ACS-delta events, want 100", len(acs))
		}
		for k := range acs {
			if _, ok := effects[k]; !ok {
				t.Errorf("event %+v of the acs delta stream is not in the ledger effects stream", k)
			}
		}
	})
	t.Run("TXAcsDeltaWitnessesSubsetOfLedgerEffects", func(t *testing.T) {
		acs, effects := createAndExercise50(t)
		for k, ws := range acs {
			for _, w := range ws {
				found := false
				for _, x := range effects[k] {
					found = found || x == w
				}
				if !found {
					t.Errorf("event %+v: witness %s of the acs delta stream not among %v", k, w, effects[k])
				}
			}
		}
	})
}
