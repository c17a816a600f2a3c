package ledgerapi

import (
	"fmt"
	"regexp"
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
