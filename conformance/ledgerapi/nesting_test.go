package ledgerapi

import (
	"fmt"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/node"
)

// nestingModel is the test tool's DeeplyNestedValue.daml (ledger-common-dars
// semantic/): the recursive Nat, a Contract holding one and a Handler whose
// choices build, take apart and store them.
func nestingModel() *lb.Package {
	pkg := lb.New("deeply-nested-value-tests", "1.0.0", "DeeplyNestedValue")
	nat := lb.TCon("Nat")
	pkg.Variant("Nat", lb.F("Z", lb.TUnit), lb.F("S", nat))
	lam := func(body lb.Expr, params ...lb.Field) lb.Expr { return lb.Lam(params, body) }
	// construct x acc = if x <= 0 then acc else construct (x-1) (S acc)
	pkg.Value("construct", lb.TArrows(lb.TInt64, nat, nat), lam(
		lb.Case(lb.App(lb.TyApp(lb.Builtin(lb.LessEq), lb.TInt64), lb.Var("x"), lb.Int(0)),
			lb.TrueAlt(lb.Var("acc")),
			lb.FalseAlt(lb.App(lb.Val("construct"), lb.App(lb.Builtin(lb.SubInt64), lb.Var("x"), lb.Int(1)), lb.Variant("Nat", "S", lb.Var("acc"))))),
		lb.F("x", lb.TInt64), lb.F("acc", nat)))
	pkg.Value("toNat", lb.TArrow(lb.TInt64, nat), lam(lb.App(lb.Val("construct"), lb.Var("x"), lb.Variant("Nat", "Z", lb.Unit)), lb.F("x", lb.TInt64)))
	// destruct Z acc = acc; destruct (S n) acc = destruct n (acc + 1)
	pkg.Value("destruct", lb.TArrows(nat, lb.TInt64, lb.TInt64), lam(
		lb.Case(lb.Var("n"),
			lb.VariantAlt("Nat", "Z", "_z", lb.Var("acc")),
			lb.VariantAlt("Nat", "S", "m", lb.App(lb.Val("destruct"), lb.Var("m"), lb.App(lb.Builtin(lb.AddInt64), lb.Var("acc"), lb.Int(1))))),
		lb.F("n", nat), lb.F("acc", lb.TInt64)))
	pkg.Value("toInt", lb.TArrow(nat, lb.TInt64), lam(lb.App(lb.Val("destruct"), lb.Var("x"), lb.Int(0)), lb.F("x", nat)))
	toNat := func(i lb.Expr) lb.Expr { return lb.App(lb.Val("toNat"), i) }

	pkg.Record("Archive")
	pkg.Record("Contract", lb.F("party", lb.TParty), lb.F("i", lb.TInt64), lb.F("n", nat))
	cSigs := parties(field("Contract", "party"))
	pkg.Template(lb.Template{Name: "Contract", Param: "this", Signatories: cSigs, Choices: []lb.Choice{lb.Archive("Archive", cSigs)}})

	pkg.Record("Handler", lb.F("party", lb.TParty))
	party := field("Handler", "party")
	hSigs := parties(party)
	pkg.Record("Construct", lb.F("i", lb.TInt64))
	pkg.Record("Destruct", lb.F("n", nat))
	pkg.Record("ConstructThenDestruct", lb.F("i", lb.TInt64))
	pkg.Record("Create", lb.F("i", lb.TInt64))
	pkg.Record("Fetch", lb.F("cid", lb.TContractID(lb.TCon("Contract"))))
	pkg.Template(lb.Template{Name: "Handler", Param: "this", Signatories: hSigs, Choices: []lb.Choice{
		lb.Archive("Archive", hSigs),
		choice("Construct", false, hSigs, nat, lb.Pure(nat, toNat(argField("Construct", "i")))),
		choice("Destruct", false, hSigs, lb.TInt64, lb.Pure(lb.TInt64, lb.App(lb.Val("toInt"), argField("Destruct", "n")))),
		choice("ConstructThenDestruct", false, hSigs, lb.TInt64, lb.Exercise("Handler", "Destruct", lb.Var("self"),
			lb.Record("Destruct", lb.FE("n", toNat(argField("ConstructThenDestruct", "i")))))),
		choice("Create", false, hSigs, lb.TContractID(lb.TCon("Contract")), lb.Create("Contract", lb.Record("Contract",
			lb.FE("party", party), lb.FE("i", argField("Create", "i")), lb.FE("n", toNat(argField("Create", "i")))))),
		choice("Fetch", false, hSigs, lb.TCon("Contract"), lb.Fetch("Contract", argField("Fetch", "cid"))),
	}})
	return pkg
}

// natJSON is toNat(i) as a JSON value: i constructors S around a Z.
func natJSON(i int) any {
	var v any = map[string]any{"tag": "Z", "value": map[string]any{}}
	for range i {
		v = map[string]any{"tag": "S", "value": v}
	}
	return v
}

// DeeplyNestedValueIT.scala: values nested up to Daml's limit of 100 are
// accepted, deeper ones refused: in a command with COMMAND_PREPROCESSING_FAILED,
// built by Daml code with VALUE_NESTING. Nat.Z(()) has nesting 1, a
// choice argument or a contract wraps its value in one more record, as the
// Scala suite counts.
func TestDeeplyNestedValueIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, nestingModel())
	const (
		contract = "#deeply-nested-value-tests:DeeplyNestedValue:Contract"
		handler  = "#deeply-nested-value-tests:DeeplyNestedValue:Handler"
	)
	for _, nesting := range []int{46, 100, 101, 110, 200} {
		accepted := nesting <= 100
		result := "Reject"
		if accepted {
			result = "Accept"
		}
		n := nesting - 1
		nChoiceArgument, nContract := n-1, n-1
		check := func(t *testing.T, actAs string, code string, cmd map[string]any) {
			t.Helper()
			body := p.jsCommands([]string{actAs}, cmd)
			if accepted {
				p.ok(t, "POST", "/v2/commands/submit-and-wait", body, nil)
				return
			}
			p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body, failure{code: code, definite: true})
		}
		const preprocessing, valueNesting = "COMMAND_PREPROCESSING_FAILED", "VALUE_NESTING"
		contractArgs := func(party string) map[string]any {
			return map[string]any{"party": party, "i": nContract, "n": natJSON(nContract)}
		}
		name := func(what string) string { return fmt.Sprintf("%s%s%d", result, what, nesting) }
		t.Run(name("CreateCommand"), func(t *testing.T) {
			party := p.allocate(t, "party")
			check(t, party, preprocessing, createCmd(contract, contractArgs(party)))
		})
		t.Run(name("ExerciseCommand"), func(t *testing.T) {
			party := p.allocate(t, "party")
			h := p.create(t, party, handler, map[string]any{"party": party})
			check(t, party, preprocessing, exerciseCmd(handler, h, "Destruct", map[string]any{"n": natJSON(nChoiceArgument)}))
		})
		t.Run(name("CreateArgumentInCreateAndExerciseCommand"), func(t *testing.T) {
			party := p.allocate(t, "party")
			check(t, party, preprocessing, map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": contract,
				"createArguments": contractArgs(party), "choice": "Archive", "choiceArgument": map[string]any{}}})
		})
		t.Run(name("ChoiceArgumentInCreateAndExerciseCommand"), func(t *testing.T) {
			party := p.allocate(t, "party")
			check(t, party, preprocessing, map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": handler,
				"createArguments": map[string]any{"party": party}, "choice": "Destruct", "choiceArgument": map[string]any{"n": natJSON(nChoiceArgument)}}})
		})
		for _, c := range []struct {
			what, choice string
			i            int
		}{
			{"ExerciseArgument", "ConstructThenDestruct", nChoiceArgument},
			{"ExerciseOutput", "Construct", n},
			{"CreateArgument", "Create", nContract},
		} {
			t.Run(name(c.what), func(t *testing.T) {
				party := p.allocate(t, "party")
				h := p.create(t, party, handler, map[string]any{"party": party})
				check(t, party, valueNesting, exerciseCmd(handler, h, c.choice, map[string]any{"i": c.i}))
			})
		}
	}
}
