package ledgerapi

import (
	"encoding/json"
	"sort"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceCorrectnessIT.scala, the cases one participant
// expresses. The test tool's AgreementFactory is Ping (the submitter's,
// the listener an observer); its Dummy is the generic model's.
func TestTransactionServiceCorrectnessIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))
	ad, le := ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects

	t.Run("TXExposesPaidTrafficCost", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		p.create(t, alice, pingTemplate, pingArgs(alice, bob))
		aliceView, bobView := p.transactionsOf(t, ad, alice), p.transactionsOf(t, ad, bob)
		if len(aliceView) == 0 || aliceView[0].PaidTrafficCost <= 0 {
			t.Errorf("Submitting node for a submitting party should have a positive paid traffic cost: %+v", aliceView)
		}
		if len(bobView) == 0 || bobView[0].PaidTrafficCost != 0 {
			t.Errorf("Submitting node for a non submitting party should have an unset paid traffic cost: %+v", bobView)
		}
	})

	for _, s := range []struct {
		name  string
		shape ledgerapi.TransactionShape
	}{{"TXTransactionByIdLedgerEffectsSameAsTransactionStream", le}, {"TXTransactionByIdAcsDeltaSameAsTransactionStream", ad}} {
		t.Run(s.name, func(t *testing.T) {
			submitter, listener := p.allocate(t, "submitter"), p.allocate(t, "listener")
			p.create(t, submitter, pingTemplate, pingArgs(submitter, listener))
			stream := p.transactionsOf(t, s.shape, listener, submitter)
			if len(stream) == 0 {
				t.Fatal("no transactions")
			}
			for _, tx := range stream {
				var resp struct {
					Transaction ledgerapi.Transaction `json:"transaction"`
				}
				p.ok(t, "POST", "/v2/updates/transaction-by-id", map[string]any{"updateId": tx.UpdateID, "transactionFormat": map[string]any{
					"eventFormat": ledgerapi.EventFormatOf([]string{listener, submitter}, nil, nil, false), "transactionShape": s.shape}}, &resp)
				got, _ := json.Marshal(resp.Transaction)
				want, _ := json.Marshal(tx)
				if string(got) != string(want) {
					t.Errorf("The events fetched by identifier did not match the ones on the transaction stream\n got: %s\nwant: %s", got, want)
				}
			}
		})
	}

	// inOrder is the test tool's checkTransactionsOrder: every contract
	// created once and archived once, after its creation, and record
	// times increasing.
	inOrder := func(t *testing.T, txs []ledgerapi.Transaction, contracts int) {
		t.Helper()
		created, archived := map[string]int{}, map[string]int{}
		i := 0
		for _, tx := range txs {
			for _, ev := range tx.Events {
				switch {
				case ev.Created != nil:
					if _, dup := created[ev.Created.ContractID]; dup {
						t.Errorf("duplicate create of %s", ev.Created.ContractID)
					}
					created[ev.Created.ContractID] = i
				case ev.Archived != nil:
					if _, dup := archived[ev.Archived.ContractID]; dup {
						t.Errorf("duplicate archive of %s", ev.Archived.ContractID)
					}
					archived[ev.Archived.ContractID] = i
				}
				i++
			}
		}
		if len(created) != contracts || len(archived) != contracts {
			t.Fatalf("either the number of archive events (%d) or the number of create events (%d) doesn't match the expected number of %d", len(archived), len(created), contracts)
		}
		for cid, c := range created {
			a, ok := archived[cid]
			if !ok || c >= a {
				t.Errorf("the creation of %s did not appear in the stream before its archival", cid)
			}
		}
		times := make([]int64, len(txs))
		for i, tx := range txs {
			times[i] = tx.RecordTime.UnixNano()
		}
		if !sort.SliceIsSorted(times, func(i, j int) bool { return times[i] < times[j] }) {
			t.Error("record time of subsequent transactions was not increasing")
		}
	}
	createAndChoose := func(t *testing.T, parties func(n int) string, contracts int) {
		var wg sync.WaitGroup
		for n := range contracts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				party := parties(n)
				var resp struct {
					Transaction ledgerapi.Transaction `json:"transaction"`
				}
				body := map[string]any{"commands": p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))}
				if a := p.do(t, "POST", "/v2/commands/submit-and-wait-for-transaction", p.admin, body); a.status != 200 || json.Unmarshal(a.body, &resp) != nil ||
					len(resp.Transaction.Events) != 1 || resp.Transaction.Events[0].Created == nil {
					t.Errorf("create: %d %s", a.status, a.body)
					return
				}
				cid := resp.Transaction.Events[0].Created.ContractID
				if a := p.do(t, "POST", "/v2/commands/submit-and-wait", p.admin, p.jsCommands([]string{party}, exerciseCmd(dummy, cid, "DummyChoice1", nil))); a.status != 200 {
					t.Errorf("exercise: %d %s", a.status, a.body)
				}
			}()
		}
		wg.Wait()
	}

	t.Run("TXSingleSubscriptionInOrder", func(t *testing.T) {
		party := p.allocate(t, "party")
		createAndChoose(t, func(int) string { return party }, 50)
		inOrder(t, p.transactionsOf(t, ad, party), 50)
	})

	t.Run("TXMultiSubscriptionInOrder", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		createAndChoose(t, func(n int) string {
			if n%2 == 0 {
				return alice
			}
			return bob
		}, 50)
		inOrder(t, p.transactionsOf(t, ad, alice, bob), 50)
	})
}
