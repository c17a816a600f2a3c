package ledgerapi

import (
	"encoding/base64"
	"slices"
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
