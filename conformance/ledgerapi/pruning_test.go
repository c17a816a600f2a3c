package ledgerapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// ParticipantPruningIT.scala, through `ledger serve`'s pruning endpoint
// (Canton prunes through its admin API, which the JSON API lacks; the
// node's POST /admin/prune {"pruneUpTo": n} stands for it) and the JSON
// API's reads. The ledger is populated with 10 batches instead of 74: the
// Scala count only serves Canton's safe-pruning offsets.
func TestParticipantPruningIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	const batchesToPopulate = 10
	const lastItemToPruneIndex = batchesToPopulate

	// populateLedgerAndGetOffsets: per batch a Dummy, its DummyChoice1 and
	// another Dummy; the offsets of the submitter's transactions since.
	populate := func(t *testing.T, submitter string) []int64 {
		t.Helper()
		start := p.ledgerEnd(t)
		for range batchesToPopulate {
			d := p.create(t, submitter, dummy, map[string]any{"operator": submitter})
			p.exercise(t, submitter, dummy, d, "DummyChoice1", nil)
			p.create(t, submitter, dummy, map[string]any{"operator": submitter})
		}
		var offsets []int64
		for _, u := range p.updates(t, submitter, start, nil, ledgerapi.TransactionShapeLedgerEffects) {
			offsets = append(offsets, int64(u.Transaction.Offset))
		}
		return offsets
	}
	precedes := func(prunedUpTo int64) *regexp.Regexp {
		return regexp.MustCompile(fmt.Sprintf(`(Transactions request from [0-9]* to [0-9]* precedes pruned offset %d)|(Request from [0-9]* precedes pruned offset %d)`, prunedUpTo, prunedUpTo))
	}

	t.Run("PRFailPruneByNoOffset", func(t *testing.T) {
		p.mustFail(t, "POST", "/admin/prune", map[string]any{"pruneUpTo": 0},
			failure{code: "INVALID_ARGUMENT", cause: "prune_up_to not specified or zero"})
	})

	t.Run("PRFailPruneByNegativeOffset", func(t *testing.T) {
		p.mustFail(t, "POST", "/admin/prune", map[string]any{"pruneUpTo": -134134134},
			failure{code: "NON_POSITIVE_OFFSET", cause: "Offset -134134134 in prune_up_to is not a positive integer"})
	})

	t.Run("PRFailPruneByOutOfBoundsOffset", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, dummy, map[string]any{"operator": party})
		p.mustFail(t, "POST", "/admin/prune", map[string]any{"pruneUpTo": p.ledgerEnd(t)},
			failure{code: "OFFSET_OUT_OF_RANGE", cause: "prune_up_to needs to be before ledger end"})
	})

	// Not a Scala case: `ledger serve`'s pruneBefore (ledger prune --keep)
	// stops below the ledger end, where Canton's rule lets it prune.
	t.Run("PruneBeforeNowStopsBelowLedgerEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, dummy, map[string]any{"operator": party})
		end := p.ledgerEnd(t)
		var resp ledgerapi.PruneResponse
		p.ok(t, "POST", "/admin/prune", map[string]any{"pruneBefore": "2100-01-01T00:00:00Z"}, &resp)
		if int64(resp.PrunedUpTo) != end-1 {
			t.Errorf("pruned up to %d, want %d (below the ledger end)", resp.PrunedUpTo, end-1)
		}
	})

	for _, shape := range []struct {
		name  string
		shape ledgerapi.TransactionShape
	}{
		{"PRPruneTxLedgerEffects", ledgerapi.TransactionShapeLedgerEffects},
		{"PRPruneTxAcsDelta", ledgerapi.TransactionShapeACSDelta},
	} {
		t.Run(shape.name, func(t *testing.T) {
			submitter := p.allocate(t, "submitter")
			offsets := populate(t, submitter)
			pruneUpTo := offsets[lastItemToPruneIndex]
			secondToLast := offsets[lastItemToPruneIndex-1]
			firstSurviving := offsets[lastItemToPruneIndex+1]
			p.prune(t, pruneUpTo)

			after := p.updates(t, submitter, pruneUpTo, nil, shape.shape)
			if len(after) == 0 || int64(after[0].Transaction.Offset) != firstSurviving {
				t.Errorf("transactions not pruned at expected offset: first %v, want %d", after, firstSurviving)
			}
			for _, begin := range []int64{secondToLast, 0} {
				e := p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", updatesRequest(submitter, begin, nil, shape.shape),
					failure{code: "PARTICIPANT_PRUNED_DATA_ACCESSED"})
				if !precedes(pruneUpTo).MatchString(e.Cause) {
					t.Errorf("from %d: cause %q does not match %s", begin, e.Cause, precedes(pruneUpTo))
				}
			}
		})
	}

	t.Run("PRPruneByOffset", func(t *testing.T) {
		submitter := p.allocate(t, "submitter")
		offsets := populate(t, submitter)
		pruneUpTo := offsets[lastItemToPruneIndex]
		const transactionsPerBatch = 3
		p.prune(t, pruneUpTo)
		for _, off := range offsets[lastItemToPruneIndex-transactionsPerBatch+1 : lastItemToPruneIndex+1] {
			p.mustFail(t, "POST", "/v2/updates/transaction-by-offset", transactionByOffset(submitter, off),
				failure{code: "UPDATE_NOT_FOUND", cause: "Update not found, or not visible."})
		}
		for _, off := range offsets[lastItemToPruneIndex+1 : lastItemToPruneIndex+transactionsPerBatch+1] {
			p.ok(t, "POST", "/v2/updates/transaction-by-offset", transactionByOffset(submitter, off), nil)
		}
	})

	t.Run("PRPruneQueryEmptyRangeOk", func(t *testing.T) {
		submitter := p.allocate(t, "submitter")
		ledgerEnd := p.ledgerEnd(t)
		offsets := populate(t, submitter)
		inPrunedRange := offsets[lastItemToPruneIndex/2]
		p.prune(t, offsets[lastItemToPruneIndex])
		for _, shape := range []ledgerapi.TransactionShape{ledgerapi.TransactionShapeLedgerEffects, ledgerapi.TransactionShapeACSDelta} {
			for _, at := range []int64{ledgerEnd, inPrunedRange} {
				if got := p.updates(t, submitter, at, &at, shape); len(got) != 0 {
					t.Errorf("%s: empty range at %d: %d updates", shape, at, len(got))
				}
			}
		}
	})

	latestPruned := func(t *testing.T) ledgerapi.GetLatestPrunedOffsetsResponse {
		t.Helper()
		var r ledgerapi.GetLatestPrunedOffsetsResponse
		p.ok(t, "GET", "/v2/state/latest-pruned-offsets", nil, &r)
		return r
	}
	t.Run("PRQueryLatestPrunedOffsets", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		initial := latestPruned(t)
		p.create(t, alice, dummy, map[string]any{"operator": alice})
		first := p.ledgerEnd(t)
		p.create(t, alice, dummy, map[string]any{"operator": alice})
		second := p.ledgerEnd(t)
		p.create(t, alice, dummy, map[string]any{"operator": alice})
		p.prune(t, first)
		afterFirst := latestPruned(t)
		p.prune(t, second)
		afterSecond := latestPruned(t)
		if initial.ParticipantPrunedUpToInclusive >= afterFirst.ParticipantPrunedUpToInclusive {
			t.Errorf("The initial pruning offset (%d) should be different than the latest pruning offset (%d)", initial.ParticipantPrunedUpToInclusive, afterFirst.ParticipantPrunedUpToInclusive)
		}
		if int64(afterFirst.ParticipantPrunedUpToInclusive) != first || int64(afterFirst.AllDivulgedContractsPrunedUpToInclusive) != first {
			t.Errorf("Requested pruning offset matches the queried offset: %+v, want %d", afterFirst, first)
		}
		if afterFirst.AllDivulgedContractsPrunedUpToInclusive >= afterSecond.AllDivulgedContractsPrunedUpToInclusive ||
			afterSecond.AllDivulgedContractsPrunedUpToInclusive != afterSecond.ParticipantPrunedUpToInclusive {
			t.Errorf("Pruning offsets after the second prune %+v (first %+v)", afterSecond, afterFirst)
		}
	})

	// firstCompletionAfter is the offset of the first completion of party
	// after begin, or the error of the read.
	firstCompletionAfter := func(t *testing.T, party string, begin int64) (int64, *ledgerapi.JsCantonError) {
		t.Helper()
		a := p.do(t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=50&limit=1", p.admin,
			map[string]any{"userId": p.user, "parties": []string{party}, "beginExclusive": begin})
		if a.status != 200 {
			e, err := ledgerapi.DecodeError(a.body)
			if err != nil {
				t.Fatalf("completions: %d %s", a.status, a.body)
			}
			return 0, e
		}
		var els []ledgerapi.CompletionStreamResponse
		if err := json.Unmarshal(a.body, &els); err != nil || len(els) == 0 {
			t.Fatalf("completions after %d: %s", begin, a.body)
		}
		return els[0].Offset(), nil
	}
	t.Run("PRPruneCompletions", func(t *testing.T) {
		submitter := p.allocate(t, "submitter")
		start := p.ledgerEnd(t)
		offsets := populate(t, submitter)
		pruneUpTo := offsets[lastItemToPruneIndex]
		before, _ := firstCompletionAfter(t, submitter, start)
		p.prune(t, pruneUpTo)
		after, e := firstCompletionAfter(t, submitter, pruneUpTo)
		if e != nil {
			t.Fatalf("reading completions after the pruned offset: %s", e.Error())
		}
		if before >= pruneUpTo {
			t.Errorf("first completion %d before pruning is not below %d", before, pruneUpTo)
		}
		if after != offsets[lastItemToPruneIndex+1] {
			t.Errorf("first checkpoint offset %d after pruning does not match expected offset %d", after, offsets[lastItemToPruneIndex+1])
		}
		overlaps := regexp.MustCompile(fmt.Sprintf(`Command completions? request from [0-9]* to [0-9]* overlaps with pruned offset %d`, pruneUpTo))
		for _, begin := range []int64{offsets[lastItemToPruneIndex-1], 0} {
			_, e := firstCompletionAfter(t, submitter, begin)
			if e == nil {
				t.Errorf("attempting to read completions from %d before the pruning cut-off succeeded", begin)
				continue
			}
			checkError(t, e, failure{code: "PARTICIPANT_PRUNED_DATA_ACCESSED"})
			if !overlaps.MatchString(e.Cause) {
				t.Errorf("from %d: cause %q does not match %s", begin, e.Cause, overlaps)
			}
		}
	})

	t.Run("PRPruneACS", func(t *testing.T) {
		submitter := p.allocate(t, "submitter")
		offsets := populate(t, submitter)
		before := contractIDs(p.activeContracts(t, submitter))
		p.prune(t, offsets[lastItemToPruneIndex])
		if after := contractIDs(p.activeContracts(t, submitter)); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("Pruning should not alter the set of active contracts: %v, was %v", after, before)
		}
	})

	t.Run("PRPruneByTxId", func(t *testing.T) {
		submitter := p.allocate(t, "submitter")
		start := p.ledgerEnd(t)
		populate(t, submitter)
		var ids []string
		var offsets []int64
		for _, u := range p.updates(t, submitter, start, nil, ledgerapi.TransactionShapeLedgerEffects) {
			ids, offsets = append(ids, u.Transaction.UpdateID), append(offsets, int64(u.Transaction.Offset))
		}
		const transactionsPerBatch = 3
		p.prune(t, offsets[lastItemToPruneIndex])
		byID := func(id string) map[string]any {
			return map[string]any{"updateId": id, "transactionFormat": map[string]any{
				"eventFormat": ledgerapi.EventFormatOf([]string{submitter}, nil, nil, false), "transactionShape": ledgerapi.TransactionShapeACSDelta}}
		}
		for _, id := range ids[lastItemToPruneIndex-transactionsPerBatch+1 : lastItemToPruneIndex+1] {
			p.mustFail(t, "POST", "/v2/updates/transaction-by-id", byID(id), failure{code: "UPDATE_NOT_FOUND", cause: "Update not found, or not visible."})
		}
		for _, id := range ids[lastItemToPruneIndex+1 : lastItemToPruneIndex+transactionsPerBatch+1] {
			p.ok(t, "POST", "/v2/updates/transaction-by-id", byID(id), nil)
		}
	})

	t.Run("PRPruneRepeated", func(t *testing.T) {
		submitter := p.allocate(t, "submitter")
		offsets := populate(t, submitter)
		pruneUpTo := offsets[lastItemToPruneIndex]
		check := func(what string, begin, firstWant int64, n int) {
			t.Helper()
			after := p.updates(t, submitter, begin, nil, ledgerapi.TransactionShapeACSDelta)
			if len(after) == 0 {
				t.Fatalf("%s: no transactions after %d", what, begin)
			}
			if len(after) != n || int64(after[0].Transaction.Offset) != firstWant {
				t.Errorf("%s: %d transactions from %d, want %d from %d", what, len(after), int64(after[0].Transaction.Offset), n, firstWant)
			}
		}
		p.prune(t, pruneUpTo)
		check("after pruning", pruneUpTo, offsets[lastItemToPruneIndex+1], len(offsets)-(lastItemToPruneIndex+1))
		p.prune(t, offsets[lastItemToPruneIndex/2])
		check("after redundant pruning", pruneUpTo, offsets[lastItemToPruneIndex+1], len(offsets)-(lastItemToPruneIndex+1))
		second := offsets[(lastItemToPruneIndex+1)*2-1]
		following := populate(t, submitter)
		p.prune(t, second)
		check("after the second pruning", second, offsets[(lastItemToPruneIndex+1)*2], len(offsets)-2*(lastItemToPruneIndex+1)+len(following))
	})

	t.Run("PRPruneThenExercise", func(t *testing.T) {
		submitter := p.allocate(t, "submitter")
		d := p.create(t, submitter, dummy, map[string]any{"operator": submitter})
		offsets := populate(t, submitter)
		p.prune(t, offsets[lastItemToPruneIndex])
		p.exercise(t, submitter, dummy, d, "DummyChoice1", nil)
	})

	t.Run("PREventsByContractIdPruned", func(t *testing.T) {
		party := p.allocate(t, "party")
		events := func(cid string) int {
			t.Helper()
			a := p.do(t, "POST", "/v2/events/events-by-contract-id", p.admin, map[string]any{"contractId": cid,
				"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, true)})
			if a.status != 200 {
				if strings.Contains(string(a.body), "CONTRACT_EVENTS_NOT_FOUND") {
					return 0
				}
				t.Fatalf("events of %s: %d %s", cid, a.status, a.body)
			}
			var r struct {
				Created  json.RawMessage `json:"created"`
				Archived json.RawMessage `json:"archived"`
			}
			if err := json.Unmarshal(a.body, &r); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, ev := range []json.RawMessage{r.Created, r.Archived} {
				if len(ev) > 0 && string(ev) != "null" {
					n++
				}
			}
			return n
		}
		pruneToCurrentEnd := func() int64 {
			end := p.ledgerEnd(t)
			p.prune(t, end)
			return end
		}
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		end1 := pruneToCurrentEnd()
		events1 := events(cid)
		p.exercise(t, party, dummy, cid, "DummyChoice1", nil)
		events2 := events(cid)
		p.prune(t, end1)
		events3 := events(cid)
		pruneToCurrentEnd()
		events4 := events(cid)
		if events1 != 1 {
			t.Errorf("Expected single create event after prune: %d", events1)
		}
		if events2 != 2 {
			t.Errorf("Expected create and consume event before prune: %d", events2)
		}
		if events3 != 2 {
			t.Errorf("Pruning to a point before create and consume does not remove events: %d", events3)
		}
		if events4 != 0 {
			t.Errorf("Expected no events following prune: %d", events4)
		}
	})
}

// updatesRequest is a GetUpdatesRequest of party's transactions of shape.
func updatesRequest(party string, begin int64, end *int64, shape ledgerapi.TransactionShape) map[string]any {
	body := map[string]any{"beginExclusive": begin, "updateFormat": map[string]any{"includeTransactions": map[string]any{
		"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "transactionShape": shape}}}
	if end != nil {
		body["endInclusive"] = *end
	}
	return body
}

func transactionByOffset(party string, offset int64) map[string]any {
	return map[string]any{"offset": offset, "transactionFormat": map[string]any{
		"eventFormat": ledgerapi.EventFormatOf([]string{party}, nil, nil, false), "transactionShape": ledgerapi.TransactionShapeACSDelta}}
}

// updates lists party's transactions after begin (to end when given).
func (p *participant) updates(t *testing.T, party string, begin int64, end *int64, shape ledgerapi.TransactionShape) []ledgerapi.JsUpdate {
	t.Helper()
	var els []struct {
		Update ledgerapi.JsUpdate `json:"update"`
	}
	p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", updatesRequest(party, begin, end, shape), &els)
	var out []ledgerapi.JsUpdate
	for _, el := range els {
		if el.Update.Transaction != nil {
			out = append(out, el.Update)
		}
	}
	return out
}
