package ledgerapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The tailing and range cases of UpdateServiceStreamsIT.scala the first
// port left out, on a node of their own (the party-wildcard cases read
// every party's transactions, which Scala runs not concurrently).
// TXServeTailingStreamsTemplateWildcard is GrpcOnly. The IIou interface of
// TXFilterByInterface is the token standard's Holding, its Iou a test
// token.
func TestUpdateServiceStreamsITTailing(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))
	acs, le := ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects
	createDummies := func(t *testing.T, party string, n int) {
		t.Helper()
		for range n {
			p.create(t, party, dummy, map[string]any{"operator": party})
		}
	}
	// tail reads, in the background, the first n transactions of the
	// stream after begin for format (parties nil: any party), open-ended.
	tail := func(t *testing.T, parties []string, begin int64, shape ledgerapi.TransactionShape, n int) <-chan []ledgerapi.Transaction {
		out := make(chan []ledgerapi.Transaction, 1)
		go func() {
			var els []ledgerapi.JsGetUpdatesResponse
			a := p.do(t, "POST", "/v2/updates?stream_idle_timeout_ms=5000&limit="+itoa(n), p.admin, map[string]any{"beginExclusive": begin,
				"updateFormat": map[string]any{"includeTransactions": map[string]any{
					"eventFormat": ledgerapi.EventFormatOf(parties, nil, nil, false), "transactionShape": shape}}})
			_ = json.Unmarshal(a.body, &els)
			var txs []ledgerapi.Transaction
			for _, el := range els {
				if el.Update.Transaction != nil {
					txs = append(txs, *el.Update.Transaction)
				}
			}
			out <- txs
		}()
		time.Sleep(50 * time.Millisecond) // the stream is open before what follows
		return out
	}
	// acsDeltaSet is the test tool's assertAcsDelta(events, true).
	acsDeltaSet := func(t *testing.T, txs []ledgerapi.Transaction) {
		t.Helper()
		for _, tx := range txs {
			for _, ev := range tx.Events {
				if ev.Created != nil && !ev.Created.ACSDelta {
					t.Errorf("The acs_delta field in created events should be set: %s", ev.Created.ContractID)
				}
			}
		}
	}

	t.Run("TXServeUntilCancellation", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party, 14)
		var els []ledgerapi.JsGetUpdatesResponse
		p.ok(t, "POST", "/v2/updates?limit=10&stream_idle_timeout_ms=5000", updatesRequest(party, 0, nil, acs), &els)
		if len(els) != 10 {
			t.Errorf("10 should have been received but %d were instead", len(els))
		}
	})

	t.Run("TXServeTailingStreamSingleParty", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party, 14)
		flats := tail(t, []string{party}, 0, acs, 15)
		createDummies(t, party, 1)
		if txs := <-flats; len(txs) != 15 {
			t.Errorf("15 should have been received but %d were instead", len(txs))
		}
	})

	for _, c := range []struct {
		name  string
		shape ledgerapi.TransactionShape
	}{{"TXServeTailingStreamAcsDeltaPartyWildcard", acs}, {"TXServeTailingStreamLedgerEffectsPartyWildcard", le}} {
		t.Run(c.name, func(t *testing.T) {
			begin := p.ledgerEnd(t)
			party := p.allocate(t, "party")
			createDummies(t, party, 14)
			txs := tail(t, nil, begin, c.shape, 15)
			party2 := p.allocate(t, "party")
			createDummies(t, party2, 1)
			got := <-txs
			if len(got) != 15 {
				t.Errorf("15 should have been received but %d were instead", len(got))
			}
			acsDeltaSet(t, got)
		})
	}

	t.Run("TXFilterByInterface", func(t *testing.T) {
		party := p.allocate(t, "party")
		args := tokenArgs(party, party)
		args["holding"].(map[string]any)["instrumentId"] = map[string]any{"admin": party, "id": "USD"}
		p.create(t, party, testToken, args)
		f := ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{party: filtersOf(nil, [][2]any{{holdingInterface, true}}, false)}, Verbose: true}
		created := createdOf(p.transactionsWith(t, f, acs, 0))
		if len(created) != 1 {
			t.Fatalf("FilterByInterface: %d created events, want 1", len(created))
		}
		if !strings.HasSuffix(created[0].TemplateID, tokenTemplateShort) {
			t.Errorf("FilterByInterface: template %s", created[0].TemplateID)
		}
		instrument, _ := viewOf(t, created[0], holdingSuffix)["instrumentId"].(map[string]any)
		if instrument["id"] != "USD" {
			t.Errorf("FilterByInterface: the view's instrument %v, want USD", instrument)
		}
	})

	t.Run("TXServeStreamLedgerEffectsFromMiddlePoint", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		createDummies(t, party, 15)
		middle := p.ledgerEnd(t)
		createDummies(t, party, 15)
		txs := p.transactionsWith(t, ledgerapi.EventFormatOf([]string{party}, nil, nil, false), le, begin)
		var upToMiddle []ledgerapi.Transaction
		for _, tx := range txs {
			if int64(tx.Offset) <= middle {
				upToMiddle = append(upToMiddle, tx)
			}
		}
		var els []ledgerapi.JsGetUpdatesResponse
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", updatesRequest(party, begin, &middle, le), &els)
		if len(els) != 15 || len(upToMiddle) != 15 {
			t.Errorf("15 should have been received but %d were instead", len(els))
		}
		acsDeltaSet(t, upToMiddle)
	})

	t.Run("TXStreamDummyFilterDummyIouDummy", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party, 1)
		beforeIou := p.ledgerEnd(t)
		p.create(t, party, "#model-tests:Test:Iou", map[string]any{"issuer": party, "owner": party, "currency": "USD", "amount": "1"})
		afterIou := p.ledgerEnd(t)
		createDummies(t, party, 1)
		var els []ledgerapi.JsGetUpdatesResponse
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": beforeIou, "endInclusive": afterIou,
			"descendingOrder": true, "updateFormat": map[string]any{"includeTransactions": map[string]any{
				"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{dummy}, nil, false), "transactionShape": le}}}, &els)
		if len(els) != 0 {
			t.Errorf("Reverse stream with Dummy filter should be empty: %d updates", len(els))
		}
	})
}
