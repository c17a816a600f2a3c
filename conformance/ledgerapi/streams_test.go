package ledgerapi

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// UpdateServiceStreamsIT.scala: bounds, empty ranges, a begin past the
// ledger end, transient contracts and the shapes. The Dummy of the test
// tool is the generic model's here; DummyNonConsuming is named
// nonconsuming, as the model declares it.
func TestUpdateServiceStreamsIT(t *testing.T) {
	p := startParticipant(t, node.Config{NonconsumingChoices: []string{"DummyNonConsuming"}})
	le, ad := ledgerapi.TransactionShapeLedgerEffects, ledgerapi.TransactionShapeACSDelta

	t.Run("TXLedgerEffectsEndToEnd", func(t *testing.T) {
		// On a fresh node the ledger end is 0 (a party allocation is no
		// update here), which end_inclusive may not be; another party's
		// create moves it, as Canton's topology updates do.
		other := p.allocate(t, "other")
		p.create(t, other, dummy, map[string]any{"operator": other})
		party := p.allocate(t, "party")
		end := p.ledgerEnd(t)
		if got := p.updates(t, party, end, &end, le); len(got) != 0 {
			t.Errorf("Received a non-empty stream with %d transactions in it.", len(got))
		}
	})

	t.Run("TXEndToEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, dummy, map[string]any{"operator": party})
		end := p.ledgerEnd(t)
		if got := p.updates(t, party, end, &end, ad); len(got) != 0 {
			t.Errorf("No transactions were expected but %d were read", len(got))
		}
	})

	t.Run("TXAfterEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, dummy, map[string]any{"operator": party})
		beyond := p.ledgerEnd(t) + 1000
		p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", updatesRequest(party, beyond, nil, ad),
			failure{code: "OFFSET_AFTER_LEDGER_END", cause: "is after ledger end"})
	})

	// The stream (as a list, to the ledger end when it was opened)
	// completes while 14 creates commit beside it.
	for _, c := range []struct {
		name  string
		shape ledgerapi.TransactionShape
	}{{"TXCompleteAcsDeltaOnLedgerEnd", ad}, {"TXCompleteLedgerEffectsOnLedgerEnd", le}} {
		t.Run(c.name, func(t *testing.T) {
			party := p.allocate(t, "party")
			begin := p.ledgerEnd(t)
			var wg sync.WaitGroup
			for range 14 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
					if a := p.do(t, "POST", "/v2/commands/submit-and-wait", p.admin, body); a.status != 200 {
						t.Errorf("create: %d %s", a.status, a.body)
					}
				}()
			}
			_ = p.updates(t, party, begin, nil, c.shape)
			wg.Wait()
			end := p.ledgerEnd(t)
			if got := p.updates(t, party, begin, &end, c.shape); len(got) != 14 {
				t.Errorf("%d transactions, want 14", len(got))
			}
		})
	}

	t.Run("TXFilterByTemplate", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		p.transaction(t, []string{party}, createCmd(dummy, map[string]any{"operator": party}),
			createCmd(dummyFactory, map[string]any{"operator": party}))
		end := p.ledgerEnd(t)
		read := func(parties []string) []ledgerapi.CreatedEvent {
			body := map[string]any{"beginExclusive": begin, "endInclusive": end, "updateFormat": map[string]any{"includeTransactions": map[string]any{
				"eventFormat": ledgerapi.EventFormatOf(parties, []string{dummy}, nil, false), "transactionShape": ad}}}
			var els []struct {
				Update ledgerapi.JsUpdate `json:"update"`
			}
			p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", body, &els)
			var out []ledgerapi.CreatedEvent
			for _, el := range els {
				if tx := el.Update.Transaction; tx != nil {
					for _, ev := range tx.Events {
						if ev.Created != nil {
							out = append(out, *ev.Created)
						}
					}
				}
			}
			return out
		}
		byParty, wildcard := read([]string{party}), read(nil)
		if len(byParty) != 1 || !strings.HasSuffix(byParty[0].TemplateID, ":Test:Dummy") {
			t.Fatalf("FilterByTemplate: %d created events %v", len(byParty), byParty)
		}
		if len(wildcard) != 1 || wildcard[0].ContractID != byParty[0].ContractID {
			t.Errorf("FilterByTemplate transactions for party-wildcard should match the specific party: %v", wildcard)
		}
	})

	t.Run("TXTransactionFormat", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		p.create(t, party, dummy, map[string]any{"operator": party})
		end := p.ledgerEnd(t)
		format := ledgerapi.EventFormatOf([]string{party}, nil, nil, false)
		count := func(updateFormat map[string]any) int {
			var els []struct {
				Update ledgerapi.JsUpdate `json:"update"`
			}
			p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50",
				map[string]any{"beginExclusive": begin, "endInclusive": end, "updateFormat": updateFormat}, &els)
			n := 0
			for _, el := range els {
				if el.Update.Transaction != nil {
					n++
				}
			}
			return n
		}
		txs := map[string]any{"eventFormat": format, "transactionShape": le}
		if n := count(map[string]any{"includeTransactions": txs}); n != 1 {
			t.Errorf("1 transactions should have been received from the request for transactions but %d were instead", n)
		}
		if n := count(map[string]any{"includeReassignments": format}); n != 0 {
			t.Errorf("No transactions should have been received from the request for reassignments but %d were instead", n)
		}
		if n := count(map[string]any{"includeTransactions": txs, "includeReassignments": format}); n != 1 {
			t.Errorf("1 transactions should have been received from the request for both but %d were instead", n)
		}
	})

	t.Run("TXLedgerEffectsTransientContract", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		p.transaction(t, []string{owner}, createAndExerciseCmd(dummy, map[string]any{"operator": owner}, "Archive"))
		txs := p.updates(t, owner, 0, nil, le)
		if len(txs) != 1 {
			t.Fatalf("One transaction should be found: %d", len(txs))
		}
		evs := txs[0].Transaction.Events
		if len(evs) == 0 {
			t.Fatal("Expected non empty events in the transaction")
		}
		checkNoACSDelta(t, evs)
	})

	t.Run("TXAcsDeltaTransientContract", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		p.transaction(t, []string{owner}, createAndExerciseCmd(dummy, map[string]any{"operator": owner}, "Archive"))
		if txs := p.updates(t, owner, 0, nil, ad); len(txs) != 0 {
			t.Errorf("Expected no transactions: %d", len(txs))
		}
	})

	t.Run("TXNonConsumingChoiceAcsDeltaFlag", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		cid := p.create(t, owner, dummy, map[string]any{"operator": owner})
		end := p.ledgerEnd(t)
		p.exercise(t, owner, dummy, cid, "DummyNonConsuming", nil)
		txs := p.updates(t, owner, end, nil, le)
		if len(txs) != 1 || len(txs[0].Transaction.Events) != 1 {
			t.Fatalf("Expected one transaction with one non-consuming event: %v", txs)
		}
		checkNoACSDelta(t, txs[0].Transaction.Events)
	})

	// createTen creates ten Dummies one by one and returns their ids.
	createTen := func(t *testing.T, party string) []string {
		var cids []string
		for range 10 {
			cids = append(cids, p.create(t, party, dummy, map[string]any{"operator": party}))
		}
		return cids
	}
	createdIDs := func(t *testing.T, txs []*ledgerapi.Transaction) []string {
		t.Helper()
		var out []string
		for _, tx := range txs {
			if len(tx.Events) != 1 || tx.Events[0].Created == nil {
				t.Fatalf("transaction %s: events %v, want one create", tx.UpdateID, tx.Events)
			}
			out = append(out, tx.Events[0].Created.ContractID)
		}
		return out
	}

	t.Run("TXServeStreamInDescendingOrder", func(t *testing.T) {
		party := p.allocate(t, "party")
		dummies := createTen(t, party)
		// The test tool's getTransactionsRequest bounds the range at the
		// current end, which a descending stream needs.
		end := p.ledgerEnd(t)
		body := updatesRequest(party, 0, &end, le)
		body["descendingOrder"] = true
		var els []struct {
			Update ledgerapi.JsUpdate `json:"update"`
		}
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", body, &els)
		var txs []*ledgerapi.Transaction
		for _, el := range els {
			if el.Update.Transaction != nil {
				txs = append(txs, el.Update.Transaction)
			}
		}
		want := slices.Clone(dummies)
		slices.Reverse(want)
		if got := createdIDs(t, txs); !slices.Equal(got, want) {
			t.Errorf("Expected contract ids in order %v, got %v", want, got)
		}
	})

	t.Run("TXFetchFirstPageAsc", func(t *testing.T) {
		party := p.allocate(t, "party")
		contracts := createTen(t, party)
		var page ledgerapi.JsGetUpdatesPageResponse
		p.ok(t, "POST", "/v2/updates/get-updates-page", map[string]any{"maxPageSize": 5, "updateFormat": map[string]any{
			"includeTransactions": map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "transactionShape": le}}}, &page)
		var txs []*ledgerapi.Transaction
		for _, u := range page.Updates {
			if u.Update.Transaction != nil {
				txs = append(txs, u.Update.Transaction)
			}
		}
		if got := createdIDs(t, txs); !slices.Equal(got, contracts[:5]) {
			t.Errorf("Expected contract ids in order %v, got %v", contracts[:5], got)
		}
	})
}

func createAndExerciseCmd(template string, args map[string]any, choice string) map[string]any {
	return map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": template,
		"createArguments": args, "choice": choice, "choiceArgument": map[string]any{}}}
}

// checkNoACSDelta is the test tool's assertAcsDelta(events, false): no
// event of a transient contract or a nonconsuming exercise changes the
// active contract set.
func checkNoACSDelta(t *testing.T, evs []ledgerapi.Event) {
	t.Helper()
	for _, ev := range evs {
		switch {
		case ev.Created != nil && ev.Created.ACSDelta, ev.Exercised != nil && ev.Exercised.ACSDelta:
			t.Errorf("The acs_delta field in transient events should not be set: %+v", ev)
		}
	}
}
