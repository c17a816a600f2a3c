package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceAuthorizationIT.scala: signatories chosen by the
// contract's data, and multi-actor choices: every controller must
// authorize, and an assertion refuses authority beyond what the proposal
// names. The Scala suite puts the giver on a second participant; here all
// parties are on the one node.
func TestTransactionServiceAuthorizationIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	factory, agreement, proposal := builtTemplate("AgreementFactory"), builtTemplate("Agreement"), builtTemplate("TriProposal")

	// agreementOf is the Agreement the receiver accepts from the giver's factory.
	agreementOf := func(t *testing.T, receiver, giver string) string {
		t.Helper()
		f := p.create(t, giver, factory, map[string]any{"receiver": receiver, "giver": giver})
		created := createdEvents(p.exercise(t, receiver, factory, f, "AgreementFactoryAccept", nil))
		if len(created) != 1 {
			t.Fatalf("AgreementFactoryAccept created %d contracts, want one", len(created))
		}
		return created[0].ContractID
	}
	accepted := func(t *testing.T, operator, receiver, giver string) {
		t.Helper()
		a := agreementOf(t, receiver, giver)
		args := map[string]any{"operator": operator, "receiver": receiver, "giver": giver}
		tri := p.create(t, operator, proposal, args)
		created := createdEvents(p.exercise(t, giver, agreement, a, "AcceptTriProposal", map[string]any{"cid": tri}))
		if len(created) != 1 {
			t.Fatalf("AcceptTriProposal created %d contracts, want one", len(created))
		}
		sameJSON(t, "AcceptTriProposal", created[0].CreateArgument, args)
	}

	t.Run("TXRequireAuthorization", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		args := map[string]any{"whichSign": true, "signTrue": alice, "signFalse": bob}
		p.create(t, alice, builtTemplate("BranchingSignatories"), args)
		txs := p.transactionsOf(t, ledgerapi.TransactionShapeACSDelta, alice)
		if len(txs) == 0 || len(txs[0].Events) == 0 || txs[0].Events[0].Created == nil {
			t.Fatalf("alice's transactions %+v: no create first", txs)
		}
		sameJSON(t, "BranchingSignatories", txs[0].Events[0].Created.CreateArgument, args)
	})
	t.Run("TXMultiActorChoiceOkBasic", func(t *testing.T) {
		accepted(t, p.allocate(t, "operator"), p.allocate(t, "receiver"), p.allocate(t, "giver"))
	})
	t.Run("TXMultiActorChoiceOkCoincidingControllers", func(t *testing.T) {
		giver := p.allocate(t, "giver")
		accepted(t, p.allocate(t, "operator"), giver, giver)
	})
	t.Run("TXRejectMultiActorMissingAuth", func(t *testing.T) {
		operator, receiver, giver := p.allocate(t, "operator"), p.allocate(t, "receiver"), p.allocate(t, "giver")
		tri := p.create(t, operator, proposal, map[string]any{"operator": operator, "receiver": receiver, "giver": giver})
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{giver}, exerciseCmd(proposal, tri, "TriProposalAccept", nil)),
			failure{code: "DAML_AUTHORIZATION_ERROR", cause: "requires authorizers", definite: true})
	})
	t.Run("TXRejectMultiActorExcessiveAuth", func(t *testing.T) {
		operator, receiver, giver := p.allocate(t, "operator"), p.allocate(t, "receiver"), p.allocate(t, "giver")
		a := agreementOf(t, receiver, giver)
		tri := p.create(t, operator, proposal, map[string]any{"operator": operator, "receiver": giver, "giver": giver})
		e := p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{giver}, exerciseCmd(agreement, a, "AcceptTriProposal", map[string]any{"cid": tri})),
			failure{code: "DAML_FAILURE", cause: "Assertion failed", definite: true})
		if e.ErrorCategory != 9 {
			t.Errorf("category %d, want 9 (InvalidGivenCurrentSystemStateOther)", e.ErrorCategory)
		}
	})
}
