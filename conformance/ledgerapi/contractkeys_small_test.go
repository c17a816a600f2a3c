package ledgerapi

import (
	"fmt"
	"strings"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/node"
)

// The v2_3 contract-key suites run on the test tool's keyed models
// (ledger-common-dars keys/), built here as Daml-LF 2.3. A key that Daml
// writes as a tuple is a record of this module with the fields _1 and _2:
// the same JSON and the same value nesting as daml-prim's Tuple2.

// keyPair declares the record name {_1: a, _2: b} and returns its type.
func keyPair(pkg *lb.Package, name string, a, b lb.Type) lb.Type {
	pkg.Record(name, lb.F("_1", a), lb.F("_2", b))
	return lb.TCon(name)
}

// firstMaintainer is `maintainer key._1` over a key of record type pair.
func firstMaintainer(pair string, t lb.Type) lb.Expr {
	return lb.Lam([]lb.Field{lb.F("k", t)}, parties(lb.Proj(pair, "_1", lb.Var("k"))))
}

// lookupByKey is `lookupByKey @tpl key` as Daml-LF 2.3 writes it
// (query_n_by_key 1), its answer dropped: the suites here look at success
// or failure only.
func lookupByKey(tpl string, key lb.Expr) lb.Expr {
	found := lb.TTuple2(lb.TContractID(lb.TCon(tpl)), lb.TCon(tpl))
	return then(lb.TOptional(lb.TList(found)), lb.App(lb.QueryNByKey(tpl), lb.Int(1), key), lb.Pure(lb.TUnit, lb.Unit))
}

// wronglyTypedKeysModel is the part of keys/Test.daml that
// ContractKeysWronglyTypedContractIdIT uses: Delegated (keyed by owner and
// text), Delegation whose FetchDelegated fetches one, and a Dummy.
func wronglyTypedKeysModel() *lb.Package {
	pkg := lb.New("ck-test", "1.0.0", "Test")
	pkg.Record("Archive")
	pkg.Record("Dummy", lb.F("operator", lb.TParty))
	dSigs := parties(field("Dummy", "operator"))
	pkg.Template(lb.Template{Name: "Dummy", Param: "this", Signatories: dSigs, Choices: []lb.Choice{lb.Archive("Archive", dSigs)}})
	tKey := keyPair(pkg, "DelegatedKey", lb.TParty, lb.TText)
	pkg.Record("Delegated", lb.F("owner", lb.TParty), lb.F("k", lb.TText))
	gSigs := parties(field("Delegated", "owner"))
	pkg.Template(lb.Template{Name: "Delegated", Param: "this", Signatories: gSigs, Choices: []lb.Choice{lb.Archive("Archive", gSigs)},
		Key: &lb.Key{Type: tKey, Body: lb.Record("DelegatedKey", lb.FE("_1", field("Delegated", "owner")), lb.FE("_2", field("Delegated", "k"))),
			Maintainers: firstMaintainer("DelegatedKey", tKey)}})
	pkg.Record("Delegation", lb.F("owner", lb.TParty), lb.F("delegate", lb.TParty))
	pkg.Record("FetchDelegated", lb.F("delegated", lb.TContractID(lb.TCon("Delegated"))))
	sigs := parties(field("Delegation", "owner"))
	pkg.Template(lb.Template{Name: "Delegation", Param: "this", Signatories: sigs, Observers: parties(field("Delegation", "delegate")),
		Choices: []lb.Choice{lb.Archive("Archive", sigs),
			choice("FetchDelegated", false, parties(field("Delegation", "delegate")), lb.TCon("Delegated"),
				lb.Fetch("Delegated", argField("FetchDelegated", "delegated")))}})
	return pkg
}

// ContractKeysWronglyTypedContractIdIT.scala: a Dummy fetched as a
// Delegated (a keyed template) fails as wrongly typed.
func TestContractKeysWronglyTypedContractIdIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, wronglyTypedKeysModel()))
	t.Run("WTFetchFails", func(t *testing.T) {
		party := p.allocate(t, "party")
		dummy := p.create(t, party, "#ck-test:Test:Dummy", map[string]any{"operator": party})
		delegation := p.create(t, party, "#ck-test:Test:Delegation", map[string]any{"owner": party, "delegate": party})
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			exerciseCmd("#ck-test:Test:Delegation", delegation, "FetchDelegated", map[string]any{"delegated": dummy})),
			failure{code: "WRONGLY_TYPED_CONTRACT", cause: "wrongly typed contract id", definite: true})
	})
}

// contractIDKeysModel is keys/ContractIdTests.daml: contractIDModel with
// ContractRef keyed by its party.
func contractIDKeysModel() *lb.Package {
	pkg := lb.New("ck-contract-id-tests", "1.0.0", "ContractIdTests")
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
	}, Key: &lb.Key{Type: lb.TParty, Body: field("ContractRef", "party"),
		Maintainers: lb.Lam([]lb.Field{lb.F("k", lb.TParty)}, parties(lb.Var("k")))}})
	return pkg
}

// ContractKeysContractIdIT.scala: ContractIdIT on the keyed ContractRef,
// plus an exercise by key whose choice argument is the id under test. A
// non-suffixed V1 id is refused in preprocessing ("Illegal Contract ID"),
// a suffixed one accepted (as an exercise target it names no contract:
// CONTRACT_NOT_FOUND counts as accepted, as in the Scala suite).
func TestContractKeysContractIdIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, contractIDKeysModel()))
	const (
		contract    = "#ck-contract-id-tests:ContractIdTests:Contract"
		contractRef = "#ck-contract-id-tests:ContractIdTests:ContractRef"
		// ContractKeysContractIdIT.suffixedV1Cid
		suffixedV1Cid = "00bb20b46000000000000000000000000000000000000000000000000000000000ca11122023967e650dce35adf1dd5deb7e7bdf00aa5c677c9091a23520faa49cb2cda76a"
	)
	var b strings.Builder
	for i := 0; i <= 32; i++ {
		fmt.Fprintf(&b, "%02x", i)
	}
	nonSuffixedV1Cid := b.String()

	for _, c := range []struct {
		result, example string
		accepted        bool
	}{{"RejectNonSuffixedV1", nonSuffixedV1Cid, false}, {"AcceptSuffixedV1", suffixedV1Cid, true}} {
		check := func(t *testing.T, party string, cmd map[string]any) {
			t.Helper()
			p.submitContractID(t, party, cmd, c.example, c.accepted)
		}
		change := func(newID string) map[string]any { return map[string]any{"newId": newID} }
		createAndExercise := func(party, ref, newID string) map[string]any {
			return map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": contractRef,
				"createArguments": map[string]any{"party": party, "ref": ref}, "choice": "Change", "choiceArgument": change(newID)}}
		}
		name := func(what string) string { return c.result + "CKCid" + what }
		t.Run(name("CreatePayload"), func(t *testing.T) {
			party := p.allocate(t, "party")
			check(t, party, createCmd(contractRef, map[string]any{"party": party, "ref": c.example}))
		})
		t.Run(name("ExerciseTarget"), func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			cmd := exerciseCmd(contractRef, c.example, "Change", change(cid))
			if !c.accepted {
				check(t, party, cmd)
				return
			}
			p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, cmd), failure{code: "CONTRACT_NOT_FOUND"})
		})
		t.Run(name("ChoiceArgument"), func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			ref := p.create(t, party, contractRef, map[string]any{"party": party, "ref": cid})
			check(t, party, exerciseCmd(contractRef, ref, "Change", change(c.example)))
		})
		t.Run(name("CreateAndExercisePayload"), func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			check(t, party, createAndExercise(party, c.example, cid))
		})
		t.Run(name("CreateAndExerciseChoiceArgument"), func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			check(t, party, createAndExercise(party, cid, c.example))
		})
		t.Run(name("ExerciseByKey"), func(t *testing.T) {
			party := p.allocate(t, "party")
			cid := p.create(t, party, contract, map[string]any{"party": party})
			p.create(t, party, contractRef, map[string]any{"party": party, "ref": cid})
			check(t, party, map[string]any{"ExerciseByKeyCommand": map[string]any{"templateId": contractRef,
				"contractKey": party, "choice": "Change", "choiceArgument": change(c.example)}})
		})
	}
}

// nestingKeysModel is keys/DeeplyNestedValue.daml: nestingModel's Nat,
// ContractWithKey keyed by (party, toNat i), and a Handler that creates,
// fetches and looks up by that key.
func nestingKeysModel() *lb.Package {
	pkg := lb.New("ck-deeply-nested-value-tests", "1.0.0", "DeeplyNestedValue")
	nat := lb.TCon("Nat")
	pkg.Variant("Nat", lb.F("Z", lb.TUnit), lb.F("S", nat))
	// Daml-LF 2.3 lambdas take exactly one parameter: curried.
	lam := func(body lb.Expr, params ...lb.Field) lb.Expr {
		for i := len(params) - 1; i >= 0; i-- {
			body = lb.Lam(params[i:i+1], body)
		}
		return body
	}
	pkg.Value("construct", lb.TArrows(lb.TInt64, nat, nat), lam(
		lb.Case(lb.App(lb.TyApp(lb.Builtin(lb.LessEq), lb.TInt64), lb.Var("x"), lb.Int(0)),
			lb.TrueAlt(lb.Var("acc")),
			lb.FalseAlt(lb.App(lb.Val("construct"), lb.App(lb.Builtin(lb.SubInt64), lb.Var("x"), lb.Int(1)), lb.Variant("Nat", "S", lb.Var("acc"))))),
		lb.F("x", lb.TInt64), lb.F("acc", nat)))
	pkg.Value("toNat", lb.TArrow(lb.TInt64, nat), lam(lb.App(lb.Val("construct"), lb.Var("x"), lb.Variant("Nat", "Z", lb.Unit)), lb.F("x", lb.TInt64)))
	key := func(party, i lb.Expr) lb.Expr {
		return lb.Record("NatKey", lb.FE("_1", party), lb.FE("_2", lb.App(lb.Val("toNat"), i)))
	}

	pkg.Record("Archive")
	tKey := keyPair(pkg, "NatKey", lb.TParty, nat)
	const cwk = "ContractWithKey"
	pkg.Record(cwk, lb.F("party", lb.TParty), lb.F("i", lb.TInt64))
	cSigs := parties(field(cwk, "party"))
	pkg.Template(lb.Template{Name: cwk, Param: "this", Signatories: cSigs, Choices: []lb.Choice{lb.Archive("Archive", cSigs)},
		Key: &lb.Key{Type: tKey, Body: key(field(cwk, "party"), field(cwk, "i")), Maintainers: firstMaintainer("NatKey", tKey)}})

	pkg.Record("Handler", lb.F("party", lb.TParty))
	party := field("Handler", "party")
	hSigs := parties(party)
	tCwk := lb.TCon(cwk)
	for _, c := range []string{"CreateKey", "FetchByKey", "LookupByKey"} {
		pkg.Record(c, lb.F("i", lb.TInt64))
	}
	pkg.Template(lb.Template{Name: "Handler", Param: "this", Signatories: hSigs, Choices: []lb.Choice{
		lb.Archive("Archive", hSigs),
		choice("CreateKey", false, hSigs, lb.TContractID(tCwk), lb.Create(cwk, lb.Record(cwk,
			lb.FE("party", party), lb.FE("i", argField("CreateKey", "i"))))),
		choice("FetchByKey", false, hSigs, lb.TUnit, then(lb.TTuple2(lb.TContractID(tCwk), tCwk),
			lb.App(lb.FetchByKey(cwk), key(party, argField("FetchByKey", "i"))), lb.Pure(lb.TUnit, lb.Unit))),
		choice("LookupByKey", false, hSigs, lb.TUnit, lookupByKey(cwk, key(party, argField("LookupByKey", "i")))),
	}})
	return pkg
}

// ContractKeysDeeplyNestedValueIT.scala: keys nested up to Daml's limit
// of 100 are created, fetched and looked up; deeper ones are refused with
// VALUE_NESTING, on create and on a lookup that finds nothing. The key of
// a ContractWithKey wraps toNat i (nesting i+1) in one more record.
func TestContractKeysDeeplyNestedValueIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, nestingKeysModel()))
	const handler = "#ck-deeply-nested-value-tests:DeeplyNestedValue:Handler"
	for _, nesting := range []int{46, 100, 101, 110, 200} {
		accepted := nesting <= 100
		result := "Reject"
		if accepted {
			result = "Accept"
		}
		nKey := nesting - 2
		run := func(what string, setup []string, choice string) {
			t.Run(fmt.Sprintf("%s%s%d", result, what, nesting), func(t *testing.T) {
				party := p.allocate(t, "party")
				h := p.create(t, party, handler, map[string]any{"party": party})
				for _, c := range setup {
					p.exercise(t, party, handler, h, c, map[string]any{"i": nKey})
				}
				body := p.jsCommands([]string{party}, exerciseCmd(handler, h, choice, map[string]any{"i": nKey}))
				if accepted {
					p.ok(t, "POST", "/v2/commands/submit-and-wait", body, nil)
					return
				}
				p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body, failure{code: "VALUE_NESTING", definite: true})
			})
		}
		run("ContractKey", nil, "CreateKey")
		if accepted {
			run("FetchByKey", []string{"CreateKey"}, "FetchByKey")
		}
		run("FailingLookupByKey", nil, "LookupByKey")
		if accepted {
			run("SuccessfulLookupByKey", []string{"CreateKey"}, "LookupByKey")
		}
	}
}
