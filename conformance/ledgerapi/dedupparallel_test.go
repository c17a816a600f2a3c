package ledgerapi

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// CommandDeduplicationParallelIT.scala: ten submissions of one command at
// once (the Scala's 3 s deduplication duration): one accepted, the others
// ALREADY_EXISTS or ABORTED (in flight), one contract.
func TestCommandDeduplicationParallelIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	dedup := map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": 3}}}

	// statusOf is the gRPC status code of one submission: of the refused
	// request, or of its completion.
	statusOf := func(t *testing.T, c dedupClient, sync bool) (int, string) {
		comp, e, err := c.submit(sync, p.next("sub"), nil)
		switch {
		case err != nil:
			return -1, err.Error()
		case e != nil && e.GRPCCodeValue != nil:
			return *e.GRPCCodeValue, e.Error()
		case e != nil:
			return -1, e.Error()
		}
		return int(comp.Status.Code), comp.Status.Message
	}
	run := func(t *testing.T, annotation string, service func() bool) {
		party := p.allocate(t, "party")
		c := dedupClient{p: p, t: t, party: party, cmdID: p.next("cmd"), dedup: dedup,
			create: createCmd("#model-tests:Test:DummyWithAnnotation", map[string]any{"operator": party, "annotation": annotation})}
		codes := make([]int, 10)
		texts := make([]string, 10)
		var wg sync.WaitGroup
		for i := range codes {
			sync := service()
			wg.Go(func() { codes[i], texts[i] = statusOf(t, c, sync) })
		}
		wg.Wait()
		ok, dup := 0, 0
		for _, code := range codes {
			switch code {
			case 0:
				ok++
			case 6, 10: // ALREADY_EXISTS, ABORTED
				dup++
			}
		}
		if ok != 1 || dup != 9 {
			t.Errorf("Expected 9 duplicate responses and one accepted, got codes %v: %q", codes, texts)
		}
		if n := len(p.activeContracts(t, party)); n != 1 {
			t.Errorf("%d active contracts, want 1", n)
		}
	}

	t.Run("DeduplicateParallelSubmissionsUsingCommandSubmissionService", func(t *testing.T) {
		run(t, "Duplicate Using CommandSubmissionService", func() bool { return false })
	})
	t.Run("DeduplicateParallelSubmissionsUsingCommandService", func(t *testing.T) {
		run(t, "Duplicate using CommandService", func() bool { return true })
	})
	t.Run("DeduplicateParallelSubmissionsUsingMixedCommandServiceAndCommandSubmissionService", func(t *testing.T) {
		run(t, "Duplicate using CommandService", func() bool { return rand.N(2) == 0 })
	})
}
