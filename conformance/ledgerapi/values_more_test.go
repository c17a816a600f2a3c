package ledgerapi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// CommandServiceIT.scala's CSBadNumericValues on the built DecimalRounding.
func TestCommandServiceITNumeric(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	t.Run("CSBadNumericValues", func(t *testing.T) {
		party := p.allocate(t, "party")
		for _, c := range []struct{ number, cause string }{
			{"0.00000000005", "Cannot represent"},
			{"10000000000000000000000000000.0000000000", "Out-of-bounds (Numeric 10)"},
			{"-10000000000000000000000000000.0000000000", "Out-of-bounds (Numeric 10)"},
		} {
			p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
				createCmd(builtTemplate("DecimalRounding"), map[string]any{"party": party, "number": c.number})),
				failure{code: "COMMAND_PREPROCESSING_FAILED", cause: c.cause, definite: true})
		}
	})
}

// ValueLimitsIT.scala: a create acting and reading as 50 parties with
// long ids (on the generic model's DummyWithAnnotation).
func TestValueLimitsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	t.Run("VLLargeSubmittersNumberCreateContract", func(t *testing.T) {
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		parties := make([]string, 50)
		for i := range parties {
			var b strings.Builder
			for range 100 {
				b.WriteByte(letters[rand.N(len(letters))])
			}
			var resp ledgerapi.AllocatePartyResponse
			p.ok(t, "POST", "/v2/parties", map[string]any{"partyIdHint": "deduplicationRandomParty_" + itoa(i+1) + "_" + b.String()}, &resp)
			parties[i] = resp.PartyDetails.Party
		}
		body := p.jsCommands(parties, createCmd("#model-tests:Test:DummyWithAnnotation", map[string]any{"operator": parties[0], "annotation": "First submission"}))
		body["readAs"] = parties
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{"commands": body,
			"transactionFormat": map[string]any{"eventFormat": ledgerapi.EventFormatOf(parties, nil, nil, false),
				"transactionShape": ledgerapi.TransactionShapeACSDelta}}, nil)
		if n := len(p.activeContracts(t, parties[0])); n != 1 {
			t.Errorf("Single create contract expected: %d", n)
		}
	})
}
