package ledgerapi

import (
	"testing"

	"github.com/google/uuid"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// CompletionDeduplicationInfoIT.scala, for the command service
// (submit-and-wait) and the command submission service (async submit).
func TestCompletionDeduplicationInfoIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	for _, service := range []struct{ name, path string }{
		{"CommandService", "/v2/commands/submit-and-wait"},
		{"CommandSubmissionService", "/v2/commands/async/submit"},
	} {
		t.Run("CCDIIncludeDedupInfo"+service.name, func(t *testing.T) {
			party := p.allocate(t, "party")
			// singleCompletionAfterOffset
			submit := func(subID string) ledgerapi.Completion {
				t.Helper()
				offset := p.ledgerEnd(t)
				body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
				if subID != "" {
					body["submissionId"] = subID
				}
				p.ok(t, "POST", service.path, body, nil)
				var els []ledgerapi.CompletionStreamResponse
				p.ok(t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=200", map[string]any{"userId": p.user, "parties": []string{party}, "beginExclusive": offset}, &els)
				for _, el := range els {
					if el.Completion != nil {
						return *el.Completion
					}
				}
				t.Fatal("No completion has been produced")
				return ledgerapi.Completion{}
			}
			random := uuid.NewString()
			noDedup := submit("")
			withID := submit(random)
			if !noDedup.Succeeded() || noDedup.UserID != p.user {
				t.Errorf("Wrong user ID in completion, expected: %s, actual: %s (%+v)", p.user, noDedup.UserID, noDedup.Status)
			}
			if service.name == "CommandService" && noDedup.SubmissionID == "" {
				t.Error("Missing or invalid submission ID in completion")
			}
			if noDedup.DeduplicationPeriod.Offset == nil && noDedup.DeduplicationPeriod.Duration == nil {
				t.Error("The deduplication period was not reported")
			}
			if !withID.Succeeded() || withID.SubmissionID != random {
				t.Errorf("Wrong submission ID in completion, expected: %s, actual: %s", random, withID.SubmissionID)
			}
		})
	}
}
