package ledgerapi

import (
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The paged cases of UpdateServiceStreamsIT.scala (TXPaged*), on a node of
// their own: several prune it, which the Scala suite runs with
// runConcurrently = false.
func TestUpdateServiceStreamsITPaged(t *testing.T) {
	p := startParticipant(t, node.Config{})
	le := ledgerapi.TransactionShapeLedgerEffects
	create := func(t *testing.T, party string) string {
		t.Helper()
		return p.create(t, party, dummy, map[string]any{"operator": party})
	}
	// pageRequest is a GetUpdatesPageRequest of party's Dummy transactions
	// with ledger effects, pages of 2; begin and end when not nil.
	pageRequest := func(party string, begin, end *int64, descending bool) map[string]any {
		body := map[string]any{"maxPageSize": 2, "descendingOrder": descending, "updateFormat": map[string]any{
			"includeTransactions": map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{dummy}, nil, false), "transactionShape": le}}}
		if begin != nil {
			body["beginOffsetExclusive"] = *begin
		}
		if end != nil {
			body["endOffsetInclusive"] = *end
		}
		return body
	}
	page := func(t *testing.T, req map[string]any, token string) ledgerapi.JsGetUpdatesPageResponse {
		t.Helper()
		body := map[string]any{}
		for k, v := range req {
			body[k] = v
		}
		if token != "" {
			body["pageToken"] = token
		}
		var resp ledgerapi.JsGetUpdatesPageResponse
		p.ok(t, "POST", "/v2/updates/get-updates-page", body, &resp)
		return resp
	}
	pageFails := func(t *testing.T, req map[string]any, token string, f failure) {
		t.Helper()
		body := map[string]any{}
		for k, v := range req {
			body[k] = v
		}
		if token != "" {
			body["pageToken"] = token
		}
		p.mustFail(t, "POST", "/v2/updates/get-updates-page", body, f)
	}
	// contractIDs of a page: each update one transaction of one create.
	ids := func(t *testing.T, pg ledgerapi.JsGetUpdatesPageResponse) []string {
		t.Helper()
		out := []string{}
		for _, u := range pg.Updates {
			tx := u.Update.Transaction
			if tx == nil || len(tx.Events) != 1 || tx.Events[0].Created == nil {
				t.Fatalf("update %+v: want a transaction of one create", u.Update)
			}
			out = append(out, tx.Events[0].Created.ContractID)
		}
		return out
	}
	compare := func(t *testing.T, clue string, pg ledgerapi.JsGetUpdatesPageResponse, want ...string) {
		t.Helper()
		if got := ids(t, pg); !slices.Equal(got, want) {
			t.Errorf("%s, Expected: %v, got %v", clue, want, got)
		}
	}
	// allPages is the test tool's transactionsAllPages.
	allPages := func(t *testing.T, req map[string]any) []string {
		t.Helper()
		var out []string
		token := ""
		for range 100 {
			pg := page(t, req, token)
			out = append(out, ids(t, pg)...)
			if pg.NextPageToken == "" {
				return out
			}
			token = pg.NextPageToken
		}
		t.Fatal("more than 100 pages")
		return nil
	}
	pruned := failure{code: "PARTICIPANT_PRUNED_DATA_ACCESSED", cause: "precedes pruned offset"}

	t.Run("TXPagedFetchDynamicEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		// Scala's rangeStart - 1 is below a Canton ledger end that
		// topology has moved; here another party's create moves it.
		create(t, p.allocate(t, "other"))
		rangeStart := p.ledgerEnd(t)
		dummy1, dummy2 := create(t, party), create(t, party)
		p.create(t, party, "#model-tests:Test:Iou", map[string]any{"issuer": party, "owner": party, "currency": "USD", "amount": "1"})
		endAfterNotDummy := p.ledgerEnd(t)
		begin := rangeStart - 1
		req := pageRequest(party, &begin, nil, false)
		page1 := page(t, req, "")
		if page1.NextPageToken == "" {
			t.Fatalf("Expected page with next page token, got %+v", page1)
		}
		empty := page(t, req, page1.NextPageToken)
		dummy3 := create(t, party)
		page2 := page(t, req, empty.NextPageToken)
		compare(t, "Expected two first updates", page1, dummy1, dummy2)
		if page1.HighestPageOffsetInclusive < ledgerapi.Int64(endAfterNotDummy) {
			t.Errorf("highestPageOffsetInclusive %d range end does not cover not-dummy contract id (%d)", page1.HighestPageOffsetInclusive, endAfterNotDummy)
		}
		if page1.HighestPageOffsetInclusive != page2.LowestPageOffsetExclusive {
			t.Errorf("page2 range (from %d) is not a direct continuation of page1 range (to %d)", page2.LowestPageOffsetExclusive, page1.HighestPageOffsetInclusive)
		}
		if len(empty.Updates) != 0 {
			t.Errorf("Expected empty page, got %+v", empty.Updates)
		}
		if page2.NextPageToken == "" {
			t.Error("Token at the last page should be non-empty")
		}
		compare(t, "Second non-empty page should contain the third dummy", page2, dummy3)
	})

	t.Run("TXPagedFetchDescendingOrderBeyondEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		rangeStart := p.ledgerEnd(t)
		begin, end := rangeStart-1, rangeStart+2
		pageFails(t, pageRequest(party, &begin, &end, true), "", failure{code: "OFFSET_AFTER_LEDGER_END", cause: "is after ledger end"})
	})

	t.Run("TXPagedDynamicStartEndAscending", func(t *testing.T) {
		party := p.allocate(t, "party")
		var contracts []string
		for range 10 {
			contracts = append(contracts, create(t, party))
		}
		req := pageRequest(party, nil, nil, false)
		var got []string
		token := ""
		for i := range 5 {
			pg := page(t, req, token)
			got = append(got, ids(t, pg)...)
			if pg.NextPageToken == "" && i < 4 {
				t.Fatalf("Expected %d more pages, but got no next page token", 4-i)
			}
			token = pg.NextPageToken
		}
		if !slices.Equal(got, contracts) {
			t.Errorf("Expected %v in this order, got %v", contracts, got)
		}
		if token == "" {
			t.Error("Continuation token from the last page should contain page token, but the token was missing")
		}
	})

	t.Run("TXPagedDynamicStartEndDescending", func(t *testing.T) {
		party := p.allocate(t, "party")
		var contracts []string
		for range 10 {
			contracts = append(contracts, create(t, party))
		}
		slices.Reverse(contracts)
		if got := allPages(t, pageRequest(party, nil, nil, true)); !slices.Equal(got, contracts) {
			t.Errorf("Expected %v in this order, got %v", contracts, got)
		}
	})

	t.Run("TXPagedDynamicPruningStartEndDescending", func(t *testing.T) {
		party := p.allocate(t, "party")
		create(t, party)
		pruningOffset := p.ledgerEnd(t)
		create(t, party)
		create(t, party)
		req := pageRequest(party, nil, nil, true)
		first := page(t, req, "")
		p.prune(t, pruningOffset)
		second := page(t, req, first.NextPageToken)
		if len(second.Updates) != 0 {
			t.Errorf("The second page of dynamic bound response should updates should be empty due to pruning, but is %+v", second.Updates)
		}
		if int64(second.LowestPageOffsetExclusive) != pruningOffset {
			t.Errorf("The second page should end at pruning bound %d, but was %d instead", pruningOffset, second.LowestPageOffsetExclusive)
		}
	})

	t.Run("TXPagedDynamicPruningInJustAfterThePageDescending", func(t *testing.T) {
		party := p.allocate(t, "party")
		create(t, party)
		pruningOffset := p.ledgerEnd(t)
		dummy2 := create(t, party)
		create(t, party)
		create(t, party)
		req := pageRequest(party, nil, nil, true)
		first := page(t, req, "")
		p.prune(t, pruningOffset)
		second := page(t, req, first.NextPageToken)
		compare(t, "Second page should contain only one element due to pruning", second, dummy2)
		if second.NextPageToken != "" {
			t.Error("The second page should not have a next page token as the contents after it are pruned")
		}
		if int64(second.LowestPageOffsetExclusive) != pruningOffset {
			t.Errorf("The second page should end at pruning bound %d, but was %d instead", pruningOffset, second.LowestPageOffsetExclusive)
		}
	})

	t.Run("TXPagedDynamicPruningStartEndInPageBoundaryDescending", func(t *testing.T) {
		party := p.allocate(t, "party")
		create(t, party)
		pruningOffset := p.ledgerEnd(t)
		dummy2, dummy3, dummy4, dummy5 := create(t, party), create(t, party), create(t, party), create(t, party)
		req := pageRequest(party, nil, nil, true)
		first := page(t, req, "")
		p.prune(t, pruningOffset)
		second := page(t, req, first.NextPageToken)
		compare(t, "First page contain two elements", first, dummy5, dummy4)
		compare(t, "Second page should contain two elements", second, dummy3, dummy2)
		if second.NextPageToken != "" {
			t.Error("The second page should not have a next page token as the contents after it are pruned")
		}
		if int64(second.LowestPageOffsetExclusive) != pruningOffset {
			t.Errorf("The second page should end at pruning bound %d, but was %d instead", pruningOffset, second.LowestPageOffsetExclusive)
		}
	})

	t.Run("TXPagedDynamicStartAscendingPruning", func(t *testing.T) {
		party := p.allocate(t, "party")
		create(t, party)
		pruningOffset := p.ledgerEnd(t)
		dummy2, dummy3 := create(t, party), create(t, party)
		last := p.ledgerEnd(t)
		req := pageRequest(party, nil, &last, false)
		p.prune(t, pruningOffset)
		first := page(t, req, "")
		compare(t, "First page contains two elements", first, dummy2, dummy3)
		if first.NextPageToken != "" {
			t.Error("There should not be a next page")
		}
		if int64(first.LowestPageOffsetExclusive) != pruningOffset {
			t.Errorf("The first page should start at pruning bound %d, but was %d instead", pruningOffset, first.LowestPageOffsetExclusive)
		}
	})

	t.Run("TXPagedAscendingPruningCatchesUp", func(t *testing.T) {
		party := p.allocate(t, "party")
		dummy1, dummy2 := create(t, party), create(t, party)
		create(t, party)
		pruningOffset := p.ledgerEnd(t)
		create(t, party)
		req := pageRequest(party, nil, nil, false)
		first := page(t, req, "")
		p.prune(t, pruningOffset)
		pageFails(t, req, first.NextPageToken, pruned)
		compare(t, "First page contains two elements", first, dummy1, dummy2)
	})

	t.Run("TXPagedAscendingPruningBehindEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		create(t, party)
		create(t, party)
		end := p.ledgerEnd(t)
		create(t, party)
		create(t, party)
		pruningOffset := p.ledgerEnd(t)
		create(t, party)
		req := pageRequest(party, &begin, &end, false)
		p.prune(t, pruningOffset)
		pageFails(t, req, "", pruned)
	})
}
