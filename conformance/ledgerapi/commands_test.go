package ledgerapi

import (
	"regexp"
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

// The typed cases of CommandServiceIT: the test tool's Dummy is Ping here,
// a template of an uploaded package, so its arguments are read by type.
func TestCommandServiceITTyped(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))

	t.Run("CSRefuseBadParameter", func(t *testing.T) {
		party := p.allocate(t, "party")
		e := p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, createCmd(pingTemplate,
			map[string]any{"INVALID_PARAM": "ping", "initiator": party, "responder": party})),
			failure{code: "COMMAND_PREPROCESSING_FAILED", definite: true})
		// Either problem may be found first.
		if re := regexp.MustCompile("Found non-optional extra field|Missing non-optional field"); !re.MatchString(e.Cause) {
			t.Errorf("cause %q does not match %s", e.Cause, re)
		}
	})

	t.Run("CSBadCreateAndExercise", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": pingTemplate,
				"createArguments": map[string]any{}, "choice": "Respond", "choiceArgument": map[string]any{}}}),
			failure{code: "COMMAND_PREPROCESSING_FAILED", cause: "Missing non-optional field", definite: true})
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
