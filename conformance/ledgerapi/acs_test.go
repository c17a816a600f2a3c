package ledgerapi

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// ActiveContractsServiceIT.scala.
func TestActiveContractsServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	// createDummyContracts: a Dummy, a DummyWithParam and a DummyFactory.
	createDummies := func(t *testing.T, party string) (string, string, string) {
		t.Helper()
		return p.create(t, party, dummy, map[string]any{"operator": party}),
			p.create(t, party, dummyWithParam, map[string]any{"operator": party}),
			p.create(t, party, dummyFactory, map[string]any{"operator": party})
	}
	page := func(t *testing.T, party string, at *int64, size int, token string) ledgerapi.JsGetActiveContractsPageResponse {
		t.Helper()
		body := map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "maxPageSize": size, "pageToken": token}
		if at != nil {
			body["activeAtOffset"] = *at
		}
		var resp ledgerapi.JsGetActiveContractsPageResponse
		p.ok(t, "POST", "/v2/state/active-contracts-page", body, &resp)
		return resp
	}
	pageIDs := func(r ledgerapi.JsGetActiveContractsPageResponse) []string {
		var ids []string
		for _, el := range r.ActiveContracts {
			if ac := el.ContractEntry.ActiveContract; ac != nil {
				ids = append(ids, ac.CreatedEvent.ContractID)
			}
		}
		return ids
	}
	pageRequest := func(party string, size int, token string) map[string]any {
		return map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "maxPageSize": size, "pageToken": token}
	}

	// acsOf reads the ACS at the ledger end under an event format.
	acsOf := func(t *testing.T, ef ledgerapi.EventFormat) []ledgerapi.CreatedEvent {
		t.Helper()
		var els []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"eventFormat": ef, "activeAtOffset": p.ledgerEnd(t)}, &els)
		var out []ledgerapi.CreatedEvent
		for _, el := range els {
			if ac := el.ContractEntry.ActiveContract; ac != nil {
				out = append(out, ac.CreatedEvent)
			}
		}
		return out
	}
	after := func(evs []ledgerapi.CreatedEvent, start int64) []ledgerapi.CreatedEvent {
		var out []ledgerapi.CreatedEvent
		for _, ev := range evs {
			if int64(ev.Offset) > start {
				out = append(out, ev)
			}
		}
		return out
	}
	sameEvents := func(t *testing.T, what string, got, want []ledgerapi.CreatedEvent) {
		t.Helper()
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s are not the same as for the specific party:\n got: %s\nwant: %s", what, g, w)
		}
	}
	archiveAll := func(t *testing.T, party string, cids ...string) {
		t.Helper()
		for i, tmpl := range []string{dummy, dummyWithParam, dummyFactory} {
			p.exercise(t, party, tmpl, cids[i], "Archive", nil)
		}
	}

	t.Run("ACSallContracts", func(t *testing.T) {
		party := p.allocate(t, "party")
		start := p.ledgerEnd(t)
		d, dp, df := createDummies(t, party)
		acs := p.activeContracts(t, party)
		wildcard := after(acsOf(t, ledgerapi.EventFormatOf(nil, nil, nil, false)), start)
		bothFilters := ledgerapi.EventFormatOf([]string{party}, nil, nil, false)
		bothFilters.FiltersForAnyParty = &ledgerapi.Filters{}
		both := after(acsOf(t, bothFilters), start)
		archiveAll(t, party, d, dp, df)
		if len(acs) != 3 {
			t.Fatalf("Expected 3 contracts, but received %d.", len(acs))
		}
		for _, cid := range []string{d, dp, df} {
			if !slices.Contains(contractIDs(acs), cid) {
				t.Errorf("Didn't find contract %s", cid)
			}
		}
		for _, ev := range acs {
			if !ev.ACSDelta {
				t.Errorf("Expected acs_delta to be true for all the created events: %s", ev.ContractID)
			}
			if !slices.Equal(ev.Signatories, []string{party}) || len(ev.Observers) != 0 {
				t.Errorf("contract %s: signatories %v, observers %v", ev.ContractID, ev.Signatories, ev.Observers)
			}
		}
		sameEvents(t, "Active contracts read for any party", wildcard, acs)
		sameEvents(t, "Active contracts with both filters used", both, acs)
	})

	t.Run("ACSfilterContracts", func(t *testing.T) {
		party := p.allocate(t, "party")
		start := p.ledgerEnd(t)
		d, dp, df := createDummies(t, party)
		acs := acsOf(t, ledgerapi.EventFormatOf([]string{party}, []string{dummy}, nil, false))
		wildcard := after(acsOf(t, ledgerapi.EventFormatOf(nil, []string{dummy}, nil, false)), start)
		archiveAll(t, party, d, dp, df)
		if len(acs) != 1 {
			t.Fatalf("Expected 1 contract, but received %d.", len(acs))
		}
		if acs[0].ContractID != d || !strings.HasSuffix(acs[0].TemplateID, ":Test:Dummy") {
			t.Errorf("Received %s of %s, want the Dummy %s", acs[0].ContractID, acs[0].TemplateID, d)
		}
		sameEvents(t, "Active contracts read for any party", wildcard, acs)
	})

	t.Run("ACSEventOffset", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		acs := p.activeContracts(t, party)
		if len(acs) != 1 {
			t.Fatalf("%d active contracts, want 1", len(acs))
		}
		ev := acs[0]
		byOffset := func(shape ledgerapi.TransactionShape) ledgerapi.Transaction {
			var resp struct {
				Transaction ledgerapi.Transaction `json:"transaction"`
			}
			p.ok(t, "POST", "/v2/updates/transaction-by-offset", transactionByOffsetShape(party, int64(ev.Offset), shape), &resp)
			return resp.Transaction
		}
		ad, le := byOffset(ledgerapi.TransactionShapeACSDelta), byOffset(ledgerapi.TransactionShapeLedgerEffects)
		p.exercise(t, party, dummy, cid, "Archive", nil)
		if ad.UpdateID != le.UpdateID {
			t.Errorf("Offset %d did not resolve to the same acs delta transaction (%s) and ledger effects transaction (%s).", ev.Offset, ad.UpdateID, le.UpdateID)
		}
		if ev.Offset != ad.Offset {
			t.Errorf("Active contract's created event %d was not equal to transaction's offset %d.", ev.Offset, ad.Offset)
		}
		for _, tx := range []ledgerapi.Transaction{ad, le} {
			if len(tx.Events) != 1 || tx.Events[0].Created == nil || tx.Events[0].Created.Offset != tx.Offset {
				t.Errorf("Expected only a single created event at the transaction's offset %d: %+v", tx.Offset, tx.Events)
			}
		}
	})

	t.Run("ACSemptyResponse", func(t *testing.T) {
		party := p.allocate(t, "party")
		if acs := p.activeContracts(t, party); len(acs) != 0 {
			t.Errorf("There should be no active contracts, but received %v", acs)
		}
	})

	t.Run("ACSarchivedContracts", func(t *testing.T) {
		party := p.allocate(t, "party")
		d, _, _ := createDummies(t, party)
		before := p.activeContracts(t, party)
		p.exercise(t, party, dummy, d, "DummyChoice1", nil)
		after := p.activeContracts(t, party)
		if len(before) != 3 || !slices.Contains(contractIDs(before), d) {
			t.Errorf("Expected 3 contracts with %s before the exercise, but received %v", d, contractIDs(before))
		}
		if len(after) != 2 || slices.Contains(contractIDs(after), d) {
			t.Errorf("Expected 2 contracts without %s after the exercise, but received %v", d, contractIDs(after))
		}
	})

	t.Run("ACSmultiParty", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		createDummies(t, alice)
		createDummies(t, bob)
		if got := p.activeContracts(t, alice, bob); len(got) != 6 {
			t.Errorf("Expected 6 contracts for both parties, but received %d", len(got))
		}
		if got := p.activeContracts(t, alice); len(got) != 3 {
			t.Errorf("Expected 3 contracts for alice, but received %d", len(got))
		}
	})

	t.Run("ActiveAtOffsetInvalidInput", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/state/active-contracts", acsRequest(-1, party), failure{code: "NEGATIVE_OFFSET"})
	})

	t.Run("ActiveAtOffsetAfterLedgerEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/state/active-contracts", acsRequest(p.ledgerEnd(t)+1, party), failure{code: "OFFSET_AFTER_LEDGER_END"})
	})

	t.Run("ACSMultipleContracts", func(t *testing.T) {
		party := p.allocate(t, "party")
		const numContracts = 50
		var ids []string
		for range numContracts {
			ids = append(ids, p.create(t, party, dummy, map[string]any{"operator": party}))
		}
		if got := p.activeContracts(t, party); len(got) != numContracts {
			t.Errorf("Expected to receive %d active contracts, but received %d.", numContracts, len(got))
		}
		for _, id := range ids {
			p.exercise(t, party, dummy, id, "Archive", nil)
		}
	})

	t.Run("AcsPagination", func(t *testing.T) {
		party := p.allocate(t, "party")
		if empty := page(t, party, nil, 2, ""); len(empty.ActiveContracts) != 0 {
			t.Errorf("Expected no active contracts on an empty ledger, but received %d.", len(empty.ActiveContracts))
		}
		d, dp, df := createDummies(t, party)
		if all := p.activeContracts(t, party); len(all) != 3 {
			t.Errorf("Expected 3 contracts, but received %d.", len(all))
		}
		first := page(t, party, nil, 2, "")
		second := page(t, party, nil, 2, first.NextPageToken)
		single := page(t, party, nil, 3, "")
		end := p.ledgerEnd(t)
		firstAt := page(t, party, &end, 2, "")
		secondAt := page(t, party, &end, 2, firstAt.NextPageToken)
		if got := pageIDs(first); !slices.Equal(got, []string{d, dp}) {
			t.Errorf("First page contract id mismatch: %v", got)
		}
		for _, r := range append(slices.Clone(first.ActiveContracts), second.ActiveContracts...) {
			if r.StreamContinuationToken != "" {
				t.Errorf("Expected empty stream continuation token on pages, got %q", r.StreamContinuationToken)
			}
		}
		if got := pageIDs(second); !slices.Equal(got, []string{df}) || second.NextPageToken != "" {
			t.Errorf("Second page: %v, next page token %q; want [%s] and none", got, second.NextPageToken, df)
		}
		if got := pageIDs(single); len(got) != 3 || single.NextPageToken != "" {
			t.Errorf("Single page: %v, next page token %q", got, single.NextPageToken)
		}
		if got := append(pageIDs(firstAt), pageIDs(secondAt)...); !slices.Equal(got, []string{d, dp, df}) || len(pageIDs(firstAt)) != 2 {
			t.Errorf("Contracts with active at do not match: %v", got)
		}
	})

	t.Run("AcsInvalidPageToken", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party)
		token := base64.StdEncoding.EncodeToString(make([]byte, 55))
		p.mustFail(t, "POST", "/v2/state/active-contracts-page", pageRequest(party, 2, token), failure{code: "INVALID_FIELD",
			cause: "The submitted command has a field with invalid value: Invalid field page_token: Invalid page token for GetActiveContractsPageRequest"})
	})

	t.Run("AcsInvalidMaxPageSize", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party)
		p.mustFail(t, "POST", "/v2/state/active-contracts-page", pageRequest(party, 0, ""), failure{code: "INVALID_ARGUMENT",
			cause: "The submitted request has invalid arguments: Requested page size must be positive, but got 0"})
	})

	t.Run("AcsTooBigMaxPageSize", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party)
		p.mustFail(t, "POST", "/v2/state/active-contracts-page", pageRequest(party, 10000000, ""), failure{code: "INVALID_ARGUMENT",
			cause: "The submitted request has invalid arguments: Requested page size must not exceed 10000, but got 10000000"})
	})

	t.Run("ACSusableOffset", func(t *testing.T) {
		party := p.allocate(t, "party")
		d := p.create(t, party, dummy, map[string]any{"operator": party})
		offset := p.ledgerEnd(t)
		onlyDummy := p.activeContractsAt(t, offset, party)
		dp := p.create(t, party, dummyWithParam, map[string]any{"operator": party})
		txs := p.updates(t, party, offset, nil, ledgerapi.TransactionShapeACSDelta)
		if got := contractIDs(onlyDummy); !slices.Equal(got, []string{d}) {
			t.Errorf("Expected to receive %s in active contracts, but received %v", d, got)
		}
		if len(txs) != 1 || len(txs[0].Transaction.Events) != 1 || txs[0].Transaction.Events[0].Created == nil ||
			txs[0].Transaction.Events[0].Created.ContractID != dp {
			t.Errorf("Expected only the create of %s from offset %d, but received %+v", dp, offset, txs)
		}
	})

	t.Run("ActiveAtOffsetInfluencesAcs", func(t *testing.T) {
		party := p.allocate(t, "party")
		c1 := p.create(t, party, dummy, map[string]any{"operator": party})
		offset1 := p.ledgerEnd(t)
		c2 := p.create(t, party, dummy, map[string]any{"operator": party})
		offset2 := p.ledgerEnd(t)
		if got := contractIDs(p.activeContractsAt(t, offset1, party)); !slices.Equal(got, []string{c1}) {
			t.Errorf("acs1 %v, want [%s]", got, c1)
		}
		got := contractIDs(p.activeContractsAt(t, offset2, party))
		slices.Sort(got)
		want := []string{c1, c2}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("ACS at the second offset %v, want %v", got, want)
		}
	})

	t.Run("AcsContinuation", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party)
		end := p.ledgerEnd(t)
		var all []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", acsRequest(end, party), &all)
		if len(all) != 3 {
			t.Fatalf("Expected 3 contracts, but received %d.", len(all))
		}
		for i, el := range all {
			req := acsRequest(end, party)
			req["streamContinuationToken"] = el.StreamContinuationToken
			var rest []ledgerapi.JsGetActiveContractsResponse
			p.ok(t, "POST", "/v2/state/active-contracts", req, &rest)
			if !slices.Equal(responseKeys(rest), responseKeys(all[i+1:])) {
				t.Errorf("Continuation did not match the original stream at index %d: %v", i, rest)
			}
		}
	})

	t.Run("AcsInvalidContinuationToken", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party)
		end := p.ledgerEnd(t)
		var all []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", acsRequest(end, party), &all)
		req := acsRequest(end, party)
		req["streamContinuationToken"] = all[0].StreamContinuationToken[1:]
		p.mustFail(t, "POST", "/v2/state/active-contracts", req, failure{code: "INVALID_FIELD"})
	})

	// The pruning cases run last: they prune the suite's node.
	t.Run("AcsAtPruningOffsetIsAllowed", func(t *testing.T) {
		party := p.allocate(t, "party")
		c1 := p.create(t, party, dummy, map[string]any{"operator": party})
		anOffset := p.ledgerEnd(t)
		p.create(t, party, dummy, map[string]any{"operator": party})
		p.prune(t, anOffset)
		if got := contractIDs(p.activeContractsAt(t, anOffset, party)); !slices.Equal(got, []string{c1}) {
			t.Errorf("acs valid_at at pruning offset: %v, want [%s]", got, c1)
		}
	})

	t.Run("AcsBeforePruningOffsetIsDisallowed", func(t *testing.T) {
		party := p.allocate(t, "party")
		offset1 := p.ledgerEnd(t)
		p.create(t, party, dummy, map[string]any{"operator": party})
		offset2 := p.ledgerEnd(t)
		p.create(t, party, dummy, map[string]any{"operator": party})
		p.prune(t, offset2)
		p.mustFail(t, "POST", "/v2/state/active-contracts", acsRequest(offset1, party), failure{code: "PARTICIPANT_PRUNED_DATA_ACCESSED"})
	})
}

// prune prunes up to offset as the test tool's pruneCantonSafe does: one
// more transaction first, so the offset is before the ledger end.
func (p *participant) prune(t *testing.T, upTo int64) {
	t.Helper()
	party := p.allocate(t, "pruner")
	p.create(t, party, dummy, map[string]any{"operator": party})
	var resp ledgerapi.PruneResponse
	p.ok(t, "POST", "/admin/prune", map[string]any{"pruneUpTo": upTo}, &resp)
	if int64(resp.PrunedUpTo) < upTo {
		t.Fatalf("pruned up to %d, want %d", resp.PrunedUpTo, upTo)
	}
}

// responseKeys is what identifies each element of an ACS answer: its
// contract id and continuation token.
func responseKeys(els []ledgerapi.JsGetActiveContractsResponse) []string {
	var out []string
	for _, el := range els {
		id := ""
		if ac := el.ContractEntry.ActiveContract; ac != nil {
			id = ac.CreatedEvent.ContractID
		}
		out = append(out, id+"@"+el.StreamContinuationToken)
	}
	return out
}
