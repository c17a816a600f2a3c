package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// MultiPartySubmissionIT.scala: the test tool's MultiPartyContract (every
// listed party a signatory) is splice-test-token-v1's Token here, whose
// signatories are the holding's owner and its instrument's admin.
func TestMultiPartySubmissionIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))

	t.Run("MPSCreateSuccess", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{alice, bob}, createCmd(testToken, tokenArgs(alice, bob))), nil)
	})

	t.Run("MPSCreateInsufficientAuthorization", func(t *testing.T) {
		// Token has two signatories where the Scala contract has three:
		// submitting as one of them leaves the other's authority missing.
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{alice}, createCmd(testToken, tokenArgs(alice, bob))),
			failure{code: "DAML_AUTHORIZATION_ERROR", definite: true})
	})
}
