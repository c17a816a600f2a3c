package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// invalidSynchronizerID is the test tool's id without a namespace.
const invalidSynchronizerID = "invalidSynchronizerId"

var invalidSynchronizer = failure{code: "INVALID_FIELD", definite: true,
	cause: "Invalid field synchronizer_id: Invalid unique identifier `invalidSynchronizerId` with missing namespace."}

// CommandServiceIT.scala.
func TestCommandServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	t.Run("CSsubmitAndWaitInvalidSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["synchronizerId"] = invalidSynchronizerID
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body, invalidSynchronizer)
	})

	t.Run("CSsubmitAndWaitForTransactionInvalidSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["synchronizerId"] = invalidSynchronizerID
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{"commands": body}, invalidSynchronizer)
	})
}

// CommandSubmissionCompletionIT.scala.
func TestCommandSubmissionCompletionIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	t.Run("CSCSubmitInvalidSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["synchronizerId"] = invalidSynchronizerID
		p.mustFail(t, "POST", "/v2/commands/async/submit", body, invalidSynchronizer)
	})

	t.Run("CSCSubmitUnknownSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["synchronizerId"] = "unknown_" + p.run.Server.Node.Identity().SynchronizerID
		p.mustFail(t, "POST", "/v2/commands/async/submit", body, failure{code: "INVALID_PRESCRIBED_SYNCHRONIZER_ID",
			cause: "Cannot submit transaction to prescribed synchronizer", definite: true})
	})
}
