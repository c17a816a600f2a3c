package ledgerapi

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// InterfaceIT.scala. The test tool's T (a template implementing the
// interface I, both with a MyArchive choice returning their names) is the
// test token's TokenRules: its own choice is Archive, the interface's
// (TransferFactory) TransferFactory_PublicFetch, which returns the
// factory's view. ExerciseInterfaceByTemplateFail and
// ExerciseInterfaceByRequiringFail are GrpcOnly in the test tool.
func TestInterfaceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))

	exercised := func(t *testing.T, tx ledgerapi.Transaction) []ledgerapi.ExercisedEvent {
		t.Helper()
		var out []ledgerapi.ExercisedEvent
		for _, ev := range tx.Events {
			if ev.Exercised != nil {
				out = append(out, *ev.Exercised)
			}
		}
		if len(out) != 1 {
			t.Fatalf("1 successful exercise: %d", len(out))
		}
		return out
	}

	t.Run("ExerciseTemplateSuccess", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, testTokenRules, map[string]any{"admin": party})
		ev := exercised(t, p.exercise(t, party, testTokenRules, cid, "Archive", nil))[0]
		if ev.InterfaceID != nil {
			t.Errorf("interfaceId %q set on a template's choice", *ev.InterfaceID)
		}
		if !strings.HasSuffix(ev.TemplateID, ":Splice.Testing.Tokens.TestTokenV1:TokenRules") {
			t.Errorf("templateId %s", ev.TemplateID)
		}
	})

	t.Run("ExerciseInterfaceSuccess", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, testTokenRules, map[string]any{"admin": party})
		ev := exercised(t, p.exercise(t, party, transferFactory, cid, "TransferFactory_PublicFetch",
			map[string]any{"expectedAdmin": party, "actor": party}))[0]
		if ev.InterfaceID == nil || !strings.HasSuffix(*ev.InterfaceID, ":Splice.Api.Token.TransferInstructionV1:TransferFactory") {
			t.Errorf("interfaceId %v, want the TransferFactory interface", ev.InterfaceID)
		}
		if !strings.Contains(string(ev.ExerciseResult), party) {
			t.Errorf("result %s is not the factory's view (admin %s)", ev.ExerciseResult, party)
		}
	})
}
