package ledgerapi

import (
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// CommandDeduplicationIT.scala. The deduplication duration is 1 s instead
// of the Scala 2 s: the assertions hold for any duration.
func TestCommandDeduplicationIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))

	// completionOf waits for the completion of the submission subID of cmd
	// for party after begin.
	completionOf := func(t *testing.T, party, cmd, subID string, begin int64) ledgerapi.Completion {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			var els []ledgerapi.CompletionStreamResponse
			p.ok(t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=100", map[string]any{"userId": p.user, "parties": []string{party}, "beginExclusive": begin}, &els)
			for _, el := range els {
				if c := el.Completion; c != nil && c.CommandID == cmd && c.SubmissionID == subID {
					return *c
				}
			}
		}
		t.Fatalf("no completion of %s (submission %s)", cmd, subID)
		return ledgerapi.Completion{}
	}
	// completionAt is the test tool's findCompletionAtOffset: the first
	// completion of party at or after offset that pred accepts.
	completionAt := func(t *testing.T, party string, offset int64, pred func(ledgerapi.Completion) bool) *ledgerapi.Completion {
		t.Helper()
		var els []ledgerapi.CompletionStreamResponse
		p.ok(t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=100", map[string]any{"userId": p.user, "parties": []string{party}, "beginExclusive": max(offset-1, 0)}, &els)
		for _, el := range els {
			if c := el.Completion; c != nil && pred(*c) {
				return c
			}
		}
		return nil
	}

	t.Run("DeduplicateUsingDurations", func(t *testing.T) {
		const duration = time.Second
		party := p.allocate(t, "party")
		cmdID := p.next("dedup")
		submit := func(subID string) ledgerapi.Completion {
			t.Helper()
			begin := p.ledgerEnd(t)
			body := p.jsCommands([]string{party}, createCmd("#model-tests:Test:DummyWithAnnotation", map[string]any{"operator": party, "annotation": "Duplicate command"}))
			body["commandId"], body["submissionId"] = cmdID, subID
			body["deduplicationPeriod"] = map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": 1}}}
			p.ok(t, "POST", "/v2/commands/async/submit", body, nil)
			return completionOf(t, party, cmdID, subID, begin)
		}
		first := submit("first")
		if !first.Succeeded() {
			t.Fatalf("first submission rejected: %+v", first.Status)
		}
		dup := submit(p.next("second"))
		if dup.Succeeded() || dup.Status.Code != 6 { // ALREADY_EXISTS
			t.Fatalf("resubmission within the period: status %+v, want ALREADY_EXISTS", dup.Status)
		}
		time.Sleep(duration + 100*time.Millisecond)
		again := submit("first")
		if !again.Succeeded() {
			t.Fatalf("The deduplication period expires and the request is accepted: %+v", again.Status)
		}
		if n := len(p.activeContracts(t, party)); n != 2 {
			t.Errorf("%d active contracts, want 2", n)
		}

		// assertDeduplicationDuration on the duplicate: an accepted
		// completion of the command at or after the reported offset,
		// before the duplicate.
		if dup.DeduplicationPeriod.Offset == nil {
			t.Fatalf("No deduplication offset has been reported: %+v", dup.DeduplicationPeriod)
		}
		acc := completionAt(t, party, *dup.DeduplicationPeriod.Offset, func(c ledgerapi.Completion) bool { return c.CommandID == cmdID && c.Succeeded() })
		if acc == nil || acc.Offset >= dup.Offset {
			t.Errorf("no accepted completion of %s since the reported offset %d before the duplicate at %d: %+v", cmdID, *dup.DeduplicationPeriod.Offset, dup.Offset, acc)
		}
		// ... and on the accepted resubmission: a completion of the command
		// at exactly the reported offset, at least the duration earlier.
		if again.DeduplicationPeriod.Offset == nil {
			t.Fatalf("No deduplication offset has been reported: %+v", again.DeduplicationPeriod)
		}
		reported := *again.DeduplicationPeriod.Offset
		at := completionAt(t, party, reported, func(c ledgerapi.Completion) bool { return c.CommandID == cmdID })
		if at == nil || int64(at.Offset) != reported {
			t.Fatalf("No completion with the reported offset %d has been found: %+v", reported, at)
		}
		if d := again.SynchronizerTime.RecordTime.Time.Sub(at.SynchronizerTime.RecordTime.Time); d < duration {
			t.Errorf("The requested deduplication duration %v was greater than the duration between the reported deduplication offset and completion record times (%v).", duration, d)
		}
	})

	t.Run("SimpleDeduplicationBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		cmdID := p.next("dedup")
		submit := func(subID string) ledgerapi.Completion {
			t.Helper()
			begin := p.ledgerEnd(t)
			body := p.jsCommands([]string{party}, createCmd("#model-tests:Test:DummyWithAnnotation", map[string]any{"operator": party, "annotation": "Duplicate command"}))
			body["commandId"], body["submissionId"] = cmdID, subID
			body["deduplicationPeriod"] = map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": 2}}}
			p.ok(t, "POST", "/v2/commands/async/submit", body, nil)
			return completionOf(t, party, cmdID, subID, begin)
		}
		first := submit(p.next("first"))
		if !first.Succeeded() || first.CommandID != cmdID {
			t.Fatalf("first submission: %+v", first)
		}
		if dup := submit(p.next("second")); dup.Succeeded() || dup.Status.Code != 6 { // ALREADY_EXISTS
			t.Errorf("resubmission within the window: status %+v, want ALREADY_EXISTS", dup.Status)
		}
		if n := len(p.activeContracts(t, party)); n != 1 {
			t.Errorf("%d active contracts, want 1", n)
		}
	})

	// The Scala Dummy(bob) submitted by alice fails authorization; the
	// generic model makes the submitter the signatory, so the model is
	// Ping, whose initiator signs.
	t.Run("StopOnSubmissionFailure", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		body := p.jsCommands([]string{alice}, createCmd(pingTemplate, pingArgs(bob, alice)))
		authz := failure{code: "DAML_AUTHORIZATION_ERROR", definite: true}
		p.mustFail(t, "POST", "/v2/commands/async/submit", body, authz)
		body["submissionId"] = p.next("fresh")
		p.mustFail(t, "POST", "/v2/commands/async/submit", body, authz)
	})
}
