package ledgerapi

import (
	"fmt"
	"strings"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/node"
)

// contractIDModel is the test tool's ContractIdTests.daml (ledger-common-dars
// semantic/): a Contract, and a ContractRef holding the id of one whose
// Change choice takes a new id.
func contractIDModel() *lb.Package {
	pkg := lb.New("contract-id-tests", "1.0.0", "ContractIdTests")
	tCid := lb.TContractID(lb.TCon("Contract"))
	pkg.Record("Archive")
	pkg.Record("Contract", lb.F("party", lb.TParty))
	cSigs := parties(field("Contract", "party"))
	pkg.Template(lb.Template{Name: "Contract", Param: "this", Signatories: cSigs, Choices: []lb.Choice{lb.Archive("Archive", cSigs)}})
	pkg.Record("ContractRef", lb.F("party", lb.TParty), lb.F("ref", tCid))
	pkg.Record("Change", lb.F("newId", tCid))
	rSigs := parties(field("ContractRef", "party"))
	pkg.Template(lb.Template{Name: "ContractRef", Param: "this", Signatories: rSigs, Choices: []lb.Choice{
		lb.Archive("Archive", rSigs),
		choice("Change", true, rSigs, lb.TContractID(lb.TCon("ContractRef")), lb.Create("ContractRef",
			lb.Record("ContractRef", lb.FE("party", field("ContractRef", "party")), lb.FE("ref", argField("Change", "newId"))))),
	}})
	return pkg
}

// ContractIdIT.scala: a V1 contract id without suffix is refused wherever
// a command gives it (COMMAND_PREPROCESSING_FAILED "Illegal Contract ID"),
// a suffixed one is accepted (as an exercise target it names no contract:
// CONTRACT_NOT_FOUND counts as accepted, as in the Scala suite).
func TestContractIdIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, contractIDModel())
	const (
		contract    = "#contract-id-tests:ContractIdTests:Contract"
		contractRef = "#contract-id-tests:ContractIdTests:ContractRef"
	)
	var b strings.Builder
	for i := 0; i <= 32; i++ {
		fmt.Fprintf(&b, "%02x", i)
	}
	nonSuffixedV1Cid := b.String()
	for i := 33; i <= 48; i++ {
		fmt.Fprintf(&b, "%02x", i)
	}
	suffixedV1Cid := b.String()

	for _, c := range []struct {
		result, example string
		accepted        bool
	}{{"RejectNonSuffixedV1Cid", nonSuffixedV1Cid, false}, {"AcceptSuffixedV1Cid", suffixedV1Cid, true}} {
		check := func(t *testing.T, party string, cmd map[string]any) {
			t.Helper()
			p.submitContractID(t, party, cmd, c.example, c.accepted)
		}
		change := func(newID string) map[string]any { return map[string]any{"newId": newID} }
		createAndExercise := func(party, ref, newID string) map[string]any {
			return map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": contractRef,
				"createArguments": map[string]any{"party": party, "ref": ref}, "choice": "Change", "choiceArgument": change(newID)}}
		}
		t.Run(c.result+"CreatePayload", func(t *testing.T) {
			party := p.allocate(t, "party")
			check(t, party, createCmd(contractRef, map[string]any{"party": party, "ref": c.example}))
		})
		t.Run(c.result+"ExerciseTarget", func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			body := p.jsCommands([]string{party}, exerciseCmd(contractRef, c.example, "Change", change(cid)))
			if !c.accepted {
				check(t, party, exerciseCmd(contractRef, c.example, "Change", change(cid)))
				return
			}
			p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body, failure{code: "CONTRACT_NOT_FOUND"})
		})
		t.Run(c.result+"ChoiceArgument", func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			ref := p.create(t, party, contractRef, map[string]any{"party": party, "ref": cid})
			check(t, party, exerciseCmd(contractRef, ref, "Change", change(c.example)))
		})
		t.Run(c.result+"CreateAndExercisePayload", func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			check(t, party, createAndExercise(party, c.example, cid))
		})
		t.Run(c.result+"CreateAndExerciseChoiceArgument", func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			check(t, party, createAndExercise(party, cid, c.example))
		})
	}
}

// submitContractID submits cmd as party, naming the contract id example:
// accepted, or refused with COMMAND_PREPROCESSING_FAILED "Illegal Contract
// ID" (a V1 id without suffix).
func (p *participant) submitContractID(t *testing.T, party string, cmd map[string]any, example string, accepted bool) {
	t.Helper()
	body := p.jsCommands([]string{party}, cmd)
	if !accepted {
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body,
			failure{code: "COMMAND_PREPROCESSING_FAILED", cause: fmt.Sprintf("Illegal Contract ID %q", example), definite: true})
		return
	}
	if a := p.do(t, "POST", "/v2/commands/submit-and-wait", p.admin, body); a.status != 200 {
		t.Errorf("refused: %d %s", a.status, a.body)
	}
}
