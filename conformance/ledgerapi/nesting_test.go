package ledgerapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// nested is a JSON value of Daml nesting n (a scalar is 0, each list
// around it adds one): n lists around an int.
func nested(n int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", n) + "1" + strings.Repeat("]", n))
}

// DeeplyNestedValueIT.scala: values nested up to Daml's limit of 100 are
// accepted, deeper ones refused with COMMAND_PREPROCESSING_FAILED. The
// test tool's Nat (Z () | S Nat) in a Contract or a choice argument is a
// record here whose field holds lists nested to the same depth, on the
// generic model: the record is level 0, its deepest scalar at level
// `nesting`, as Canton's ValueTranslator counts.
func TestDeeplyNestedValueIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	for _, nesting := range []int{46, 100, 101, 110, 200} {
		accepted := nesting <= 100
		result := "Reject"
		if accepted {
			result = "Accept"
		}
		check := func(t *testing.T, actAs string, cmd map[string]any) {
			t.Helper()
			body := p.jsCommands([]string{actAs}, cmd)
			if accepted {
				p.ok(t, "POST", "/v2/commands/submit-and-wait", body, nil)
				return
			}
			p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body, failure{code: "COMMAND_PREPROCESSING_FAILED", definite: true})
		}
		// The payload of a Contract: the record is one level, so the
		// field holds nesting-1.
		contract := func(party string) map[string]any {
			return map[string]any{"party": party, "i": nesting, "n": nested(nesting - 1)}
		}
		t.Run(fmt.Sprintf("%sCreateCommand%d", result, nesting), func(t *testing.T) {
			party := p.allocate(t, "party")
			check(t, party, createCmd("#model-tests:Test:Contract", contract(party)))
		})
		t.Run(fmt.Sprintf("%sExerciseCommand%d", result, nesting), func(t *testing.T) {
			party := p.allocate(t, "party")
			handler := p.create(t, party, "#model-tests:Test:Handler", map[string]any{"party": party})
			check(t, party, exerciseCmd("#model-tests:Test:Handler", handler, "Destruct", map[string]any{"n": nested(nesting - 1)}))
		})
		t.Run(fmt.Sprintf("%sCreateArgumentInCreateAndExerciseCommand%d", result, nesting), func(t *testing.T) {
			party := p.allocate(t, "party")
			check(t, party, map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": "#model-tests:Test:Contract",
				"createArguments": contract(party), "choice": "Archive", "choiceArgument": map[string]any{}}})
		})
		t.Run(fmt.Sprintf("%sChoiceArgumentInCreateAndExerciseCommand%d", result, nesting), func(t *testing.T) {
			party := p.allocate(t, "party")
			check(t, party, map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": "#model-tests:Test:Handler",
				"createArguments": map[string]any{"party": party}, "choice": "Destruct", "choiceArgument": map[string]any{"n": nested(nesting - 1)}}})
		})
	}
}
