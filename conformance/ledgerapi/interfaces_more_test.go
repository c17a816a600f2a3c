package ledgerapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The test token's interfaces and its templates implementing several.
const (
	holdingInterface   = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	instructionIface   = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction"
	allocationRequest  = "#splice-api-token-allocation-request-v1:Splice.Api.Token.AllocationRequestV1:AllocationRequest"
	testTokenAlloc     = "#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenAllocation"
	holdingSuffix      = ":Splice.Api.Token.HoldingV1:Holding"
	instructionSuffix  = ":Splice.Api.Token.TransferInstructionV1:TransferInstruction"
	tokenTemplateShort = ":Splice.Testing.Tokens.TestTokenV1:Token"
)

// filtersOf is a Filters of template and interface filters: interfaces
// maps an interface id to whether its view is included.
func filtersOf(templates []string, interfaces [][2]any, blob bool) ledgerapi.Filters {
	var f ledgerapi.Filters
	for _, t := range templates {
		f.Cumulative = append(f.Cumulative, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
			Template: &ledgerapi.TemplateFilter{TemplateID: t, IncludeCreatedEventBlob: blob}}})
	}
	for _, i := range interfaces {
		f.Cumulative = append(f.Cumulative, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
			Interface: &ledgerapi.InterfaceFilter{InterfaceID: i[0].(string), IncludeInterfaceView: i[1].(bool), IncludeCreatedEventBlob: blob}}})
	}
	return f
}

// transactionsWith reads the transactions after begin up to the ledger end
// under format, of shape.
func (p *participant) transactionsWith(t *testing.T, format ledgerapi.EventFormat, shape ledgerapi.TransactionShape, begin int64) []ledgerapi.Transaction {
	t.Helper()
	var els []struct {
		Update ledgerapi.JsUpdate `json:"update"`
	}
	p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": begin, "endInclusive": p.ledgerEnd(t),
		"updateFormat": map[string]any{"includeTransactions": map[string]any{"eventFormat": format, "transactionShape": shape}}}, &els)
	var out []ledgerapi.Transaction
	for _, el := range els {
		if el.Update.Transaction != nil {
			out = append(out, *el.Update.Transaction)
		}
	}
	return out
}

func createdOf(txs []ledgerapi.Transaction) []ledgerapi.CreatedEvent {
	var out []ledgerapi.CreatedEvent
	for _, tx := range txs {
		for _, ev := range tx.Events {
			if ev.Created != nil {
				out = append(out, *ev.Created)
			}
		}
	}
	return out
}

// viewOf is the successful view of the interface whose id ends in suffix;
// it fails unless there is exactly one.
func viewOf(t *testing.T, ev ledgerapi.CreatedEvent, suffix string) map[string]any {
	t.Helper()
	var found []ledgerapi.InterfaceView
	for _, v := range ev.InterfaceViews {
		if strings.HasSuffix(v.InterfaceID, suffix) {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		t.Fatalf("Only one view of interfaceId=%s must be defined, there are: %+v", suffix, ev.InterfaceViews)
	}
	if found[0].ViewStatus.Code != 0 {
		t.Fatalf("Status must be successful: %+v", found[0].ViewStatus)
	}
	var value map[string]any
	if err := json.Unmarshal(found[0].ViewValue, &value); err != nil {
		t.Fatalf("view value %s: %v", found[0].ViewValue, err)
	}
	return value
}

// The InterfaceSubscriptionsIT compositions the first port left out, on the
// test token (docs/conformance.md): I is Holding, I2 TransferInstruction;
// T1..T3 are Tokens of amounts 1..3 (all implement Holding), T4 a
// TokenRules (implements neither), T5 and T6 TokenTransferOffers
// (implementing both); INoTemplate is the token standard's
// AllocationRequest, which no uploaded template implements.
func TestInterfaceSubscriptionsITCompositions(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))
	p.upload(t, sharedDar(t, "splice-api-token-allocation-request-v1-1.0.0.dar"))
	acs, le := ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects
	byParty := func(fs map[string]ledgerapi.Filters, verbose bool) ledgerapi.EventFormat {
		return ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters](fs), Verbose: verbose}
	}
	iface := func(id string, view bool) [2]any { return [2]any{id, view} }
	setup := func(t *testing.T, party string) (tokens []string, rules string) {
		t.Helper()
		for _, amount := range []string{"1.0", "2.0", "3.0"} {
			args := tokenArgs(party, party)
			args["holding"].(map[string]any)["amount"] = amount
			tokens = append(tokens, p.create(t, party, testToken, args))
		}
		return tokens, p.create(t, party, testTokenRules, map[string]any{"admin": party})
	}
	archive := func(t *testing.T, party string, tokens []string, rules string) {
		t.Helper()
		for _, cid := range tokens {
			p.exercise(t, party, testToken, cid, "Archive", nil)
		}
		p.exercise(t, party, testTokenRules, rules, "Archive", nil)
	}
	// an offer (T5, T6) of sender and admin to receiver.
	offer := func(t *testing.T, sender, receiver string) string {
		t.Helper()
		return p.create(t, sender, testTokenOffer, offerArgs(sender, receiver, sender))
	}
	holdingAmount := func(t *testing.T, ev ledgerapi.CreatedEvent) string {
		t.Helper()
		s, _ := viewOf(t, ev, holdingSuffix)["amount"].(string)
		return s
	}

	t.Run("ISTransactionLedgerEffectsBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		tokens, rules := setup(t, party)
		archive(t, party, tokens, rules)
		read := func(views bool) []ledgerapi.Transaction {
			return p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{party: filtersOf([]string{testToken}, [][2]any{iface(holdingInterface, views)}, false)}, true), le, begin)
		}
		txs := read(true)
		created := createdOf(txs)
		if len(created) != 3 {
			t.Fatalf("3 created transactions found: %d", len(created))
		}
		var implemented [][]string
		for _, tx := range txs {
			for _, ev := range tx.Events {
				if ev.Exercised != nil {
					implemented = append(implemented, ev.Exercised.ImplementedInterfaces)
				}
			}
		}
		// Scala also exercises T2's own choice and I's choice (5 exercises);
		// the stand-in has only the three archives.
		if len(implemented) != 3 {
			t.Fatalf("3 exercised events should be found: %d", len(implemented))
		}
		for i, ev := range created {
			if ev.ContractID != tokens[i] || !strings.HasSuffix(ev.TemplateID, tokenTemplateShort) {
				t.Errorf("Create event %d: %s %s, want %s", i+1, ev.ContractID, ev.TemplateID, tokens[i])
			}
			if got := holdingAmount(t, ev); got != fmt.Sprintf("%d.0000000000", i+1) && got != fmt.Sprintf("%d.0", i+1) {
				t.Errorf("View%d amount %q", i+1, got)
			}
			if len(implemented[i]) != 1 || !strings.HasSuffix(implemented[i][0], holdingSuffix) {
				t.Errorf("Archive event %d has implemented_interfaces %v, want Holding", i+1, implemented[i])
			}
		}
		txs = read(false)
		for _, ev := range createdOf(txs) {
			if len(ev.InterfaceViews) != 0 {
				t.Errorf("no views asked, %s has %v", ev.ContractID, ev.InterfaceViews)
			}
		}
		for _, tx := range txs {
			for _, ev := range tx.Events {
				if ev.Exercised != nil && len(ev.Exercised.ImplementedInterfaces) != 0 {
					t.Errorf("no views asked, exercise on %s has implemented_interfaces %v", ev.Exercised.ContractID, ev.Exercised.ImplementedInterfaces)
				}
			}
		}
	})

	t.Run("ISMultipleWitness", func(t *testing.T) {
		party1, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		c := offer(t, party1, party2)
		merged := p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{
			party1: filtersOf(nil, [][2]any{iface(holdingInterface, true)}, false),
			party2: filtersOf(nil, [][2]any{iface(instructionIface, true)}, false)}, false), acs, begin)
		only1 := p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{
			party1: filtersOf(nil, [][2]any{iface(holdingInterface, true)}, false)}, true), acs, begin)
		p.exercise(t, party1, testTokenOffer, c, "Archive", nil)
		if len(merged) != 1 {
			t.Fatalf("single transaction found: %d", len(merged))
		}
		ev := createdOf(merged)[0]
		if ev.ContractID != c {
			t.Errorf("Create event 1 contract ID %s, want %s", ev.ContractID, c)
		}
		if owner := viewOf(t, ev, holdingSuffix)["owner"]; owner != party1 {
			t.Errorf("Holding view owner %v, want %s", owner, party1)
		}
		viewOf(t, ev, instructionSuffix)
		if len(only1) != 1 {
			t.Fatalf("single transaction found: %d", len(only1))
		}
		ev = createdOf(only1)[0]
		if ev.ContractID != c || len(ev.InterfaceViews) != 1 {
			t.Errorf("party1 alone: %s with %d views, want %s with one", ev.ContractID, len(ev.InterfaceViews), c)
		}
		viewOf(t, ev, holdingSuffix)
	})

	t.Run("ISMultipleViews", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		c := offer(t, party, party)
		p.exercise(t, party, testTokenOffer, c, "Archive", nil)
		txs := p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{
			party: filtersOf(nil, [][2]any{iface(holdingInterface, true), iface(instructionIface, true)}, false)}, true), acs, begin)
		if len(txs) != 2 {
			t.Fatalf("Two transactions found: %d", len(txs))
		}
		created := createdOf(txs[:1])
		if len(created) != 1 || created[0].ContractID != c {
			t.Fatalf("Create event with correct contract ID: %+v", created)
		}
		viewOf(t, created[0], holdingSuffix)
		viewOf(t, created[0], instructionSuffix)
		if len(txs[1].Events) != 1 || txs[1].Events[0].Archived == nil || txs[1].Events[0].Archived.ContractID != c {
			t.Fatalf("Archived event with correct contract ID: %+v", txs[1].Events)
		}
		ii := txs[1].Events[0].Archived.ImplementedInterfaces
		if len(ii) != 2 || !slices.ContainsFunc(ii, func(s string) bool { return strings.HasSuffix(s, holdingSuffix) }) ||
			!slices.ContainsFunc(ii, func(s string) bool { return strings.HasSuffix(s, instructionSuffix) }) {
			t.Errorf("Archive event has both implemented_interfaces: %v", ii)
		}
	})

	t.Run("ISTransactionsIrrelevantTransactions", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		rules := p.create(t, party, testTokenRules, map[string]any{"admin": party})
		txs := p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{
			party: filtersOf(nil, [][2]any{iface(allocationRequest, true)}, false)}, true), acs, begin)
		p.exercise(t, party, testTokenRules, rules, "Archive", nil)
		if len(txs) != 0 {
			t.Errorf("0 transactions should be found: %d", len(txs))
		}
	})

	t.Run("ISTransactionsDuplicateTemplateFilters", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		tokens, rules := setup(t, party)
		txs := p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{
			party: filtersOf([]string{testToken, testToken}, [][2]any{iface(holdingInterface, true)}, false)}, true), acs, begin)
		archive(t, party, tokens, rules)
		created := createdOf(txs)
		if len(created) != 3 {
			t.Fatalf("3 created events: %d", len(created))
		}
		for i, ev := range created {
			if ev.ContractID != tokens[i] || len(ev.CreateArgument) == 0 {
				t.Errorf("Create event %d: %s, args %s", i+1, ev.ContractID, ev.CreateArgument)
			}
			viewOf(t, ev, holdingSuffix)
		}
	})

	t.Run("ISTransactionsNoIncludedView", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		tokens, rules := setup(t, party)
		txs := p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{
			party: filtersOf([]string{testToken}, [][2]any{iface(holdingInterface, false)}, false)}, true), acs, begin)
		archive(t, party, tokens, rules)
		if len(txs) != 3 {
			t.Fatalf("3 transactions found: %d", len(txs))
		}
		views, args := 0, 0
		for _, ev := range createdOf(txs) {
			views += len(ev.InterfaceViews)
			if len(ev.CreateArgument) > 0 && string(ev.CreateArgument) != "null" {
				args++
			}
		}
		if views != 0 {
			t.Errorf("No views have been computed and produced: %d", views)
		}
		if args != 3 {
			t.Errorf("All 3 create arguments must be delivered: %d", args)
		}
		if ev := createdOf(txs)[0]; ev.ContractID != tokens[0] || !strings.HasSuffix(ev.TemplateID, tokenTemplateShort) {
			t.Errorf("Create event 1: %s %s", ev.ContractID, ev.TemplateID)
		}
	})

	t.Run("ISTransactionsEquivalentFilters", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		tokens, rules := setup(t, party)
		all := []string{testToken, testTokenOffer, testTokenAlloc} // every template implementing Holding
		read := func(templates []string, interfaces [][2]any) []ledgerapi.Transaction {
			return p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{party: filtersOf(templates, interfaces, false)}, true), acs, begin)
		}
		txs1 := read(nil, [][2]any{iface(holdingInterface, true)})
		txs2 := read(all, nil)
		txs3 := read(all, [][2]any{iface(holdingInterface, true)})
		archive(t, party, tokens, rules)
		if len(txs1) != 3 {
			t.Fatalf("3 transactions found: %d", len(txs1))
		}
		ids := func(txs []ledgerapi.Transaction) []string {
			var out []string
			for _, tx := range txs {
				out = append(out, tx.UpdateID)
			}
			return out
		}
		if !slices.Equal(ids(txs1), ids(txs2)) {
			t.Errorf("1 and 2 find the same transactions: %v vs %v", ids(txs1), ids(txs2))
		}
		if a, b := comparable(t, txs2, false), comparable(t, txs3, true); !bytes.Equal(a, b) {
			t.Errorf("2 and 3 find the same contract_arguments (but not the same views):\n%s\n%s", a, b)
		}
		if a, b := comparable(t, txs1, false), comparable(t, txs3, false); !bytes.Equal(a, b) {
			t.Errorf("1 and 3 produce the same views:\n%s\n%s", a, b)
		}
	})

	t.Run("ISTransactionsMultipleParties", func(t *testing.T) {
		party1, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		c := offer(t, party1, party2)
		read := func(party string, views bool) []ledgerapi.Transaction {
			return p.transactionsWith(t, byParty(map[string]ledgerapi.Filters{party: filtersOf(nil, [][2]any{iface(holdingInterface, views)}, false)}, true), acs, begin)
		}
		p1With, p1Without := read(party1, true), read(party1, false)
		p2With, p2Without := read(party2, true), read(party2, false)
		p.exercise(t, party1, testTokenOffer, c, "Archive", nil)
		noWitness := func(txs []ledgerapi.Transaction, noViews bool) []byte {
			for i := range txs {
				for j := range txs[i].Events {
					if ev := txs[i].Events[j].Created; ev != nil {
						ev.WitnessParties = nil
						if noViews {
							ev.InterfaceViews = nil
						}
					}
				}
			}
			return comparable(t, txs, false)
		}
		if len(p1With) != 1 {
			t.Fatalf("party1's transactions: %d", len(p1With))
		}
		if a, b := noWitness(p1With, false), noWitness(p2With, false); !bytes.Equal(a, b) {
			t.Errorf("with views, party1 and party2 differ:\n%s\n%s", a, b)
		}
		if a, b := noWitness(p1Without, false), noWitness(p2Without, false); !bytes.Equal(a, b) {
			t.Errorf("without views, party1 and party2 differ:\n%s\n%s", a, b)
		}
		if a, b := noWitness(p1With, true), noWitness(p2Without, false); !bytes.Equal(a, b) {
			t.Errorf("party1's with views less the views differ from party2's without:\n%s\n%s", a, b)
		}
	})

	t.Run("ISTransactionsSubscribeBeforeTemplateCreated", func(t *testing.T) {
		// A node of its own: only the interface's package is there when
		// the stream starts; the implementing template comes after.
		q := startParticipant(t, node.Config{})
		q.upload(t, sharedDar(t, "splice-api-token-holding-v1-1.0.0.dar"))
		party := q.allocate(t, "party")
		begin := q.ledgerEnd(t)
		type result struct {
			els []ledgerapi.JsGetUpdatesResponse
			a   answer
		}
		done := make(chan result, 1)
		go func() {
			a := q.do(t, "POST", "/v2/updates?limit=1&stream_idle_timeout_ms=5000", q.admin, map[string]any{"beginExclusive": begin,
				"updateFormat": map[string]any{"includeTransactions": map[string]any{
					"eventFormat":      byParty(map[string]ledgerapi.Filters{party: filtersOf(nil, [][2]any{iface(holdingInterface, true)}, false)}, true),
					"transactionShape": acs}}})
			var els []ledgerapi.JsGetUpdatesResponse
			_ = json.Unmarshal(a.body, &els)
			done <- result{els, a}
		}()
		time.Sleep(100 * time.Millisecond)
		select {
		case r := <-done:
			t.Fatalf("the stream ended before the template was created: %d %s", r.a.status, r.a.body)
		default:
		}
		q.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))
		args := tokenArgs(party, party)
		args["holding"].(map[string]any)["amount"] = "21.0"
		cid := q.create(t, party, testToken, args)
		r := <-done
		if r.a.status != 200 || len(r.els) != 1 || r.els[0].Update.Transaction == nil {
			t.Fatalf("transaction should be found: %d %s", r.a.status, r.a.body)
		}
		created := createdOf([]ledgerapi.Transaction{*r.els[0].Update.Transaction})
		if len(created) != 1 || created[0].ContractID != cid || len(created[0].InterfaceViews) != 1 {
			t.Fatalf("Create event has a view: %+v", created)
		}
		if got := holdingAmount(t, created[0]); !strings.HasPrefix(got, "21.0") {
			t.Errorf("View amount %q, want 21.0", got)
		}
	})
}

// comparable is the JSON of transactions with what the Scala comparison
// leaves out (command ids, paid traffic) cleared, and the views too when
// noViews.
func comparable(t *testing.T, txs []ledgerapi.Transaction, noViews bool) []byte {
	t.Helper()
	out := make([]ledgerapi.Transaction, len(txs))
	for i, tx := range txs {
		tx.CommandID, tx.PaidTrafficCost = "", 0
		evs := make([]ledgerapi.Event, len(tx.Events))
		for j, ev := range tx.Events {
			if ev.Created != nil {
				c := *ev.Created
				if noViews {
					c.InterfaceViews = nil
				}
				ev.Created = &c
			}
			evs[j] = ev
		}
		tx.Events = evs
		out[i] = tx
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
