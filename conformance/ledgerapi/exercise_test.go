package ledgerapi

import (
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceExerciseIT.scala. The test tool's Dummy with
// ConsumeIfTimeIsBetween (an `assert` on the time) is the test token's
// TokenRules here, whose TransferFactory_Transfer `require`s a positive
// amount: both fail an assertion inside the exercised choice, so the
// failure is DAML_FAILURE (Canton's FailureStatus, category 9) with the
// AssertionFailed exception; the message is the model's own, not the
// Scala model's "Assertion failed".
func TestTransactionServiceExerciseIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))

	t.Run("TXRejectOnFailingAssertion", func(t *testing.T) {
		e := p.mustFail(t, "POST", "/v2/commands/submit-and-wait", failingTransfer(t, p),
			failure{code: "DAML_FAILURE", cause: "AssertionFailed", definite: true})
		if e.ErrorCategory != 9 {
			t.Errorf("category %d, want 9 (InvalidGivenCurrentSystemStateOther)", e.ErrorCategory)
		}
	})
}

// failingTransfer is a submission whose choice fails an assertion: the
// test token's TransferFactory_Transfer (by interface, on a disclosed
// TokenRules) of a zero amount, which it `require`s to be positive.
func failingTransfer(t *testing.T, p *participant) map[string]any {
	t.Helper()
	owner, party := p.allocate(t, "admin"), p.allocate(t, "party")
	cid := p.create(t, owner, testTokenRules, map[string]any{"admin": owner})
	now := time.Now().UTC()
	arg := map[string]any{"expectedAdmin": owner, "transfer": map[string]any{
		"sender": party, "receiver": owner, "amount": "0.0",
		"instrumentId":     map[string]any{"admin": owner, "id": "TOK"},
		"requestedAt":      now.Add(-time.Minute).Format(time.RFC3339Nano),
		"executeBefore":    now.Add(time.Hour).Format(time.RFC3339Nano),
		"inputHoldingCids": []any{}, "meta": map[string]any{"values": map[string]any{}}},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}}}
	body := p.jsCommands([]string{party}, exerciseCmd(transferFactory, cid, "TransferFactory_Transfer", arg))
	body["disclosedContracts"] = []any{disclosure(t, p, owner, cid)}
	return body
}
