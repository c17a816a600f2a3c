package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// WronglyTypedContractIdIT.scala: a Dummy exercised as a DummyWithParam.
// Dummy's Clone is nonconsuming, as in the test tool's model.
func TestWronglyTypedContractIdIT(t *testing.T) {
	p := startParticipant(t, node.Config{NonconsumingChoices: []string{"Clone"}})
	wrong := failure{code: "WRONGLY_TYPED_CONTRACT", cause: "wrongly typed contract id", definite: true}

	t.Run("WTExerciseFails", func(t *testing.T) {
		party := p.allocate(t, "party")
		d := p.create(t, party, dummy, map[string]any{"operator": party})
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			exerciseCmd(dummyWithParam, d, "DummyChoice2", map[string]any{"paramString": "txt"})), wrong)
	})

	t.Run("WTMultipleExerciseFails", func(t *testing.T) {
		party := p.allocate(t, "party")
		d := p.create(t, party, dummy, map[string]any{"operator": party})
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			exerciseCmd(dummy, d, "Clone", nil),
			exerciseCmd(dummyWithParam, d, "DummyChoice2", map[string]any{"paramString": ""})), wrong)
	})
}
