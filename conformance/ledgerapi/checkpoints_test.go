package ledgerapi

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
)

// The test tool waits for maxOffsetCheckpointEmissionDelay, which Canton's
// test configuration makes short; here the node's checkpoint delay is
// short and the emission delay the test waits for is a few of it.
const (
	checkpointDelay  = 50 * time.Millisecond
	checkpointWithin = 300 * time.Millisecond // the Scala `within` (1 s) of reading a tailing stream
	emissionDelay    = 4 * checkpointDelay
)

// element is the test tool's ElementOrCheckpoint: an update or completion
// at offset, or a checkpoint.
type element struct {
	offset     int64
	checkpoint bool
}

// tailUpdates reads party's tailing update stream (no end) after begin, of
// shape, as a list: until it is idle for idle, or limit elements.
func (p *participant) tailUpdates(t *testing.T, party string, begin int64, shape ledgerapi.TransactionShape, idle time.Duration, limit int) []element {
	t.Helper()
	var els []ledgerapi.JsGetUpdatesResponse
	q := fmt.Sprintf("/v2/updates?stream_idle_timeout_ms=%d", idle.Milliseconds())
	if limit > 0 {
		q += fmt.Sprintf("&limit=%d", limit)
	}
	p.ok(t, "POST", q, updatesRequest(party, begin, nil, shape), &els)
	out := make([]element, 0, len(els))
	for _, el := range els {
		switch u := el.Update; {
		case u.OffsetCheckpoint != nil:
			out = append(out, element{offset: int64(u.OffsetCheckpoint.Offset), checkpoint: true})
		case u.Transaction != nil:
			out = append(out, element{offset: int64(u.Transaction.Offset)})
		default:
			out = append(out, element{offset: u.Offset()})
		}
	}
	return out
}

// tailCompletions reads party's completion stream after begin as a list.
func (p *participant) tailCompletions(t *testing.T, party string, begin int64, idle time.Duration, limit int) []element {
	t.Helper()
	var els []ledgerapi.CompletionStreamResponse
	q := fmt.Sprintf("/v2/commands/completions?stream_idle_timeout_ms=%d", idle.Milliseconds())
	if limit > 0 {
		q += fmt.Sprintf("&limit=%d", limit)
	}
	p.ok(t, "POST", q, map[string]any{"userId": p.user, "parties": []string{party}, "beginExclusive": begin}, &els)
	out := make([]element, 0, len(els))
	for _, el := range els {
		switch {
		case el.OffsetCheckpoint != nil:
			out = append(out, element{offset: int64(el.OffsetCheckpoint.Offset), checkpoint: true})
		case el.Completion != nil:
			out = append(out, element{offset: int64(el.Completion.Offset)})
		}
	}
	return out
}

// count is the number of elements and of checkpoints.
func count(els []element) (elements, checkpoints int) {
	for _, e := range els {
		if e.checkpoint {
			checkpoints++
		} else {
			elements++
		}
	}
	return elements, checkpoints
}

// assertInOrder is the test tool's assertUpdatesInOrder: elements at
// increasing offsets, a checkpoint never below the last offset.
func assertInOrder(t *testing.T, els []element) {
	t.Helper()
	last := int64(0)
	for _, e := range els {
		switch {
		case e.checkpoint && e.offset < last:
			t.Errorf("checkpoint with offset %d should have been greater or equal to last offset %d", e.offset, last)
		case !e.checkpoint && e.offset <= last:
			t.Errorf("element with offset %d should have been greater than last offset %d", e.offset, last)
		}
		last = e.offset
	}
}

// assertCheckpointsFrom: every checkpoint at or after begin.
func assertCheckpointsFrom(t *testing.T, els []element, begin int64) {
	t.Helper()
	for _, e := range els {
		if e.checkpoint && e.offset < begin {
			t.Errorf("The checkpoint offset %d should be greater than or equal to the startExclusive offset %d", e.offset, begin)
		}
	}
}

// CheckpointInTailingStreamsIT.scala, on the list form of the streams
// (stream_idle_timeout_ms is the Scala `within`, limit its `take`).
func TestCheckpointInTailingStreamsIT(t *testing.T) {
	p := startParticipantWith(t, node.Config{}, nil, func(c *server.Config) { c.CheckpointDelay = checkpointDelay })
	// The cases mostly wait; they run at once, each in a goroutine of its
	// own (t.Parallel would hold them to GOMAXPROCS at a time).
	var wg sync.WaitGroup
	defer wg.Wait()
	case_ := func(name string, f func(t *testing.T)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(name, f)
		}()
	}
	const transactionsToSubmit = 10
	createDummies := func(t *testing.T, party string, n int) {
		t.Helper()
		for range n {
			p.create(t, party, dummy, map[string]any{"operator": party})
		}
	}

	case_("TXServeTailingStreamCheckpointAtTheEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		createDummies(t, party, transactionsToSubmit)
		time.Sleep(emissionDelay)
		updates := p.tailUpdates(t, party, 0, ledgerapi.TransactionShapeACSDelta, checkpointWithin, 0)
		txs, checkpoints := count(updates)
		if len(updates) <= transactionsToSubmit {
			t.Errorf("More than %d updates should have been received but %d were instead", transactionsToSubmit, len(updates))
		}
		if txs != transactionsToSubmit {
			t.Errorf("%d transactions should have been received but %d were instead", transactionsToSubmit, txs)
		}
		if checkpoints == 0 {
			t.Error("At least one checkpoint should have been received but none were instead")
		}
		assertInOrder(t, updates)
	})

	case_("TXServeTailingStreamCheckpointTimeout", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		createDummies(t, party, transactionsToSubmit)
		updates := p.tailUpdates(t, party2, 0, ledgerapi.TransactionShapeLedgerEffects, 2*emissionDelay, 0)
		txs, checkpoints := count(updates)
		if len(updates) == 0 || txs != 0 || checkpoints == 0 {
			t.Errorf("want only checkpoints, got %d transactions and %d checkpoints", txs, checkpoints)
		}
		assertInOrder(t, updates)
	})

	case_("TXServeTailingStreamCheckpointEmptyAtLedgerEnd", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		createDummies(t, party, 1)
		time.Sleep(emissionDelay)
		createDummies(t, party, 1)
		end := p.ledgerEnd(t)
		updates := p.tailUpdates(t, party2, end, ledgerapi.TransactionShapeLedgerEffects, checkpointWithin, 1)
		txs, checkpoints := count(updates)
		if txs != 0 || checkpoints == 0 {
			t.Errorf("want one checkpoint, got %d transactions and %d checkpoints", txs, checkpoints)
		}
		assertCheckpointsFrom(t, updates, end)
	})

	case_("TXServeTailingStreamCheckpointEmptyImmediatelyAtLedgerEnd", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		createDummies(t, party, 1)
		time.Sleep(2 * emissionDelay)
		end := p.ledgerEnd(t)
		start := time.Now()
		updates := p.tailUpdates(t, party2, end, ledgerapi.TransactionShapeLedgerEffects, 4*emissionDelay, 1)
		took := time.Since(start)
		txs, checkpoints := count(updates)
		if txs != 0 || checkpoints == 0 {
			t.Errorf("want one checkpoint, got %d transactions and %d checkpoints", txs, checkpoints)
		}
		if took >= 2*emissionDelay {
			t.Errorf("Time for the first checkpoint (%s) should not be greater than the maxOffsetCheckpointEmissionDelay (%s).", took, emissionDelay)
		}
		assertCheckpointsFrom(t, updates, end)
	})

	case_("TXServeTailingStreamCheckpointEmpty", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		createDummies(t, party, transactionsToSubmit)
		time.Sleep(emissionDelay)
		updates := p.tailUpdates(t, party2, 0, ledgerapi.TransactionShapeLedgerEffects, checkpointWithin, 0)
		txs, checkpoints := count(updates)
		if len(updates) == 0 || txs != 0 || checkpoints == 0 {
			t.Errorf("want only checkpoints, got %d transactions and %d checkpoints", txs, checkpoints)
		}
		assertInOrder(t, updates)
	})

	case_("CompletionsStreamCheckpointAtTheEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		createDummies(t, party, transactionsToSubmit)
		time.Sleep(2 * emissionDelay)
		responses := p.tailCompletions(t, party, begin, checkpointWithin, 0)
		completions, checkpoints := count(responses)
		if len(responses) <= transactionsToSubmit {
			t.Errorf("More than %d responses should have been received but %d were instead", transactionsToSubmit, len(responses))
		}
		if completions != transactionsToSubmit {
			t.Errorf("%d completions should have been received but %d were instead", transactionsToSubmit, completions)
		}
		if checkpoints == 0 {
			t.Error("At least one checkpoint should have been received but none were instead")
		}
		assertInOrder(t, responses)
	})

	case_("CompletionsStreamCheckpointTimeout", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		createDummies(t, party, transactionsToSubmit)
		responses := p.tailCompletions(t, party2, begin, 2*emissionDelay, 0)
		completions, checkpoints := count(responses)
		if len(responses) == 0 || completions != 0 || checkpoints == 0 {
			t.Errorf("want only checkpoints, got %d completions and %d checkpoints", completions, checkpoints)
		}
		assertInOrder(t, responses)
	})

	case_("CompletionsStreamCheckpointNotBeforeStartExclusiveTimeout", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		createDummies(t, party, 1)
		time.Sleep(emissionDelay)
		createDummies(t, party, 1)
		end := p.ledgerEnd(t)
		responses := p.tailCompletions(t, party2, end, 2*emissionDelay, 0)
		completions, checkpoints := count(responses)
		if completions != 0 || checkpoints == 0 {
			t.Errorf("want only checkpoints, got %d completions and %d checkpoints", completions, checkpoints)
		}
		assertCheckpointsFrom(t, responses, end)
	})

	case_("CompletionsStreamCheckpointEmptyImmediatelyAtLedgerEnd", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		createDummies(t, party, 1)
		time.Sleep(2 * emissionDelay)
		end := p.ledgerEnd(t)
		start := time.Now()
		responses := p.tailCompletions(t, party2, end, 4*emissionDelay, 1)
		took := time.Since(start)
		completions, checkpoints := count(responses)
		if completions != 0 || checkpoints == 0 {
			t.Errorf("want one checkpoint, got %d completions and %d checkpoints", completions, checkpoints)
		}
		if took >= 2*emissionDelay {
			t.Errorf("Time for the first checkpoint (%s) should not be greater than the maxOffsetCheckpointEmissionDelay (%s).", took, emissionDelay)
		}
		assertCheckpointsFrom(t, responses, end)
	})

	case_("CompletionsStreamCheckpointEmpty", func(t *testing.T) {
		party, party2 := p.allocate(t, "party"), p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		createDummies(t, party, transactionsToSubmit)
		time.Sleep(emissionDelay)
		responses := p.tailCompletions(t, party2, begin, checkpointWithin, 0)
		completions, checkpoints := count(responses)
		if len(responses) == 0 || completions != 0 || checkpoints == 0 {
			t.Errorf("want only checkpoints, got %d completions and %d checkpoints", completions, checkpoints)
		}
		assertInOrder(t, responses)
	})
}
