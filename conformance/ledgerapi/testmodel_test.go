package ledgerapi

import (
	lb "github.com/ledger-cli/ledger/internal/lfbuild"
)

// testModel is the part of the test tool's model Test.daml (ledger-common-dars
// model/) whose Daml code the suites read back: Dummy's WrapWithAddress,
// ParameterShowcase's Choice1, NothingArgument, Witnesses; and
// DamlValues.daml's WithTextMap (semantic/) and TrailingNones.daml, in the same module for
// brevity. Its package name differs from "model-tests", which the other
// suites use as the generic model's never-uploaded package.
func testModel() *lb.Package {
	pkg := lb.New("model-tests-built", "1.0.0", "Test")
	pkg.Record("Archive")
	simple := func(name, signatory string, fields []lb.Field, observers lb.Expr, choices ...lb.Choice) {
		pkg.Record(name, fields...)
		sigs := parties(field(name, signatory))
		pkg.Template(lb.Template{Name: name, Param: "this", Signatories: sigs, Observers: observers,
			Choices: append([]lb.Choice{lb.Archive("Archive", sigs)}, choices...)})
	}
	// copyWith is `this with {changes}` on template tpl's record of fields.
	copyWith := func(tpl string, fields []lb.Field, changes map[string]lb.Expr) lb.Expr {
		var fes []lb.FieldExpr
		for _, f := range fields {
			v, ok := changes[f.Name]
			if !ok {
				v = field(tpl, f.Name)
			}
			fes = append(fes, lb.FE(f.Name, v))
		}
		return lb.Record(tpl, fes...)
	}
	unit := lb.Pure(lb.TUnit, lb.Unit)

	address := []lb.Field{lb.F("street", lb.TText), lb.F("city", lb.TText), lb.F("state", lb.TText), lb.F("zip", lb.TText)}
	pkg.Record("Address", address...)
	simple("AddressWrapper", "operator", []lb.Field{lb.F("operator", lb.TParty), lb.F("address", lb.TCon("Address"))}, lb.Expr{})
	pkg.Record("WrapWithAddress", lb.F("address", lb.TCon("Address")))
	pkg.Record("DummyChoice1")
	pkg.Record("DummyNonConsuming")
	pkg.Record("Clone")
	pkg.Record("PublicChoice", lb.F("anyParty", lb.TParty))
	dummyOf := func(operator lb.Expr) lb.Expr { return lb.Record("Dummy", lb.FE("operator", operator)) }
	tDummy := lb.TContractID(lb.TCon("Dummy"))
	simple("Dummy", "operator", []lb.Field{lb.F("operator", lb.TParty)}, lb.Expr{},
		choice("DummyChoice1", true, parties(field("Dummy", "operator")), lb.TUnit, unit),
		choice("DummyNonConsuming", false, parties(field("Dummy", "operator")), lb.TUnit, unit),
		choice("Clone", false, parties(field("Dummy", "operator")), tDummy, lb.Create("Dummy", dummyOf(field("Dummy", "operator")))),
		choice("PublicChoice", true, parties(argField("PublicChoice", "anyParty")), lb.TUnit, unit),
		choice("WrapWithAddress", true, parties(field("Dummy", "operator")), lb.TContractID(lb.TCon("AddressWrapper")),
			lb.Create("AddressWrapper", lb.Record("AddressWrapper", lb.FE("operator", field("Dummy", "operator")), lb.FE("address", argField("WrapWithAddress", "address"))))))

	// DummyWithParam and DummyFactory.
	simple("DummyWithParam", "operator", []lb.Field{lb.F("operator", lb.TParty)}, lb.Expr{})
	pkg.Record("DummyFactoryCall")
	pkg.Record("DummyFactoryCallWithExercise")
	op := field("DummyFactory", "operator")
	tParam := lb.TContractID(lb.TCon("DummyWithParam"))
	createParam := lb.Create("DummyWithParam", lb.Record("DummyWithParam", lb.FE("operator", op)))
	simple("DummyFactory", "operator", []lb.Field{lb.F("operator", lb.TParty)}, lb.Expr{},
		choice("DummyFactoryCall", true, parties(op), lb.TUnit, lb.Do([]lb.Binding{
			{Name: "split", Type: tDummy, Bound: lb.Create("Dummy", dummyOf(op))},
			{Name: "rest", Type: tParam, Bound: createParam}}, unit)),
		choice("DummyFactoryCallWithExercise", true, parties(op), lb.TUnit, lb.Do([]lb.Binding{
			{Name: "dummy1", Type: tDummy, Bound: lb.Create("Dummy", dummyOf(op))},
			{Name: "dummy2", Type: tDummy, Bound: lb.Create("Dummy", dummyOf(op))},
			{Name: "dummy3", Type: tDummy, Bound: lb.Create("Dummy", dummyOf(op))},
			{Name: "rest", Type: tParam, Bound: createParam},
			{Name: "_clone", Type: tDummy, Bound: lb.Exercise("Dummy", "Clone", lb.Var("dummy1"), lb.Record("Clone"))},
			{Name: "_choice1", Type: lb.TUnit, Bound: lb.Exercise("Dummy", "DummyChoice1", lb.Var("dummy2"), lb.Record("DummyChoice1"))},
			{Name: "_nonConsuming", Type: lb.TUnit, Bound: lb.Exercise("Dummy", "DummyNonConsuming", lb.Var("dummy3"), lb.Record("DummyNonConsuming"))},
		}, unit)))

	pkg.Variant("OptionalInteger", lb.F("SomeInteger", lb.TInt64), lb.F("NoInteger", lb.TUnit))
	pkg.Record("NestedOptionalInteger", lb.F("value", lb.TCon("OptionalInteger")))
	showcase := []lb.Field{lb.F("operator", lb.TParty), lb.F("integer", lb.TInt64), lb.F("decimal", lb.TNumeric(10)),
		lb.F("text", lb.TText), lb.F("bool", lb.TBool), lb.F("time", lb.TTimestamp),
		lb.F("nestedOptionalInteger", lb.TCon("NestedOptionalInteger")), lb.F("integerList", lb.TList(lb.TInt64)),
		lb.F("optionalText", lb.TOptional(lb.TText))}
	var choice1 []lb.Field
	changes := map[string]lb.Expr{}
	for _, f := range showcase[1:] {
		name := "new" + string(f.Name[0]-'a'+'A') + f.Name[1:]
		choice1 = append(choice1, lb.F(name, f.Type))
		changes[f.Name] = argField("Choice1", name)
	}
	pkg.Record("Choice1", choice1...)
	simple("ParameterShowcase", "operator", showcase, lb.Expr{},
		choice("Choice1", true, parties(field("ParameterShowcase", "operator")), lb.TContractID(lb.TCon("ParameterShowcase")),
			lb.Create("ParameterShowcase", copyWith("ParameterShowcase", showcase, changes))))

	pkg.Record("Choose")
	simple("NothingArgument", "operator", []lb.Field{lb.F("operator", lb.TParty), lb.F("arg1", lb.TOptional(lb.TText))}, lb.Expr{},
		choice("Choose", true, parties(field("NothingArgument", "operator")), lb.TUnit, unit))

	pkg.Record("WitnessesChoice")
	pkg.Record("WitnessesNonConsumingChoice")
	pkg.Record("WitnessesCreateNewWitnesses")
	actor := parties(field("Witnesses", "p_actor"))
	witnessFields := []lb.Field{lb.F("p_signatory", lb.TParty), lb.F("p_observer", lb.TParty), lb.F("p_actor", lb.TParty)}
	simple("Witnesses", "p_signatory", witnessFields,
		parties(field("Witnesses", "p_observer")),
		choice("WitnessesChoice", true, actor, lb.TUnit, unit),
		choice("WitnessesNonConsumingChoice", false, actor, lb.TUnit, unit),
		choice("WitnessesCreateNewWitnesses", false, actor, lb.TContractID(lb.TCon("Witnesses")),
			lb.Create("Witnesses", copyWith("Witnesses", witnessFields, map[string]lb.Expr{"p_signatory": field("Witnesses", "p_actor")}))))

	// WithTextMap_Expand: let updated = TM.union items newItems in
	// create this with items = updated; return updated. union is
	// left-biased: items' entries are inserted into newItems.
	tMap := lb.TTextMap(lb.TText)
	kv := lb.TStruct(lb.F("key", lb.TText), lb.F("value", lb.TText))
	insert := lb.Lam([]lb.Field{lb.F("acc", tMap), lb.F("kv", kv)}, lb.App(lb.TyApp(lb.Builtin(lb.TextMapInsert), lb.TText),
		lb.StructProj("key", lb.Var("kv")), lb.StructProj("value", lb.Var("kv")), lb.Var("acc")))
	union := lb.App(lb.TyApp(lb.Builtin(lb.Foldl), kv, tMap), insert, argField("WithTextMap_Expand", "newItems"),
		lb.App(lb.TyApp(lb.Builtin(lb.TextMapToList), lb.TText), field("WithTextMap", "items")))
	textMapFields := []lb.Field{lb.F("owner", lb.TParty), lb.F("items", tMap)}
	pkg.Record("WithTextMap_Expand", lb.F("newItems", tMap))
	simple("WithTextMap", "owner", textMapFields, lb.Expr{},
		choice("WithTextMap_Expand", true, parties(field("WithTextMap", "owner")), tMap,
			lb.Let([]lb.Binding{{Name: "updated", Type: tMap, Bound: union}},
				then(lb.TContractID(lb.TCon("WithTextMap")),
					lb.Create("WithTextMap", copyWith("WithTextMap", textMapFields, map[string]lb.Expr{"items": lb.Var("updated")})),
					lb.Pure(tMap, lb.Var("updated"))))))
	// Divulgence1 and Divulgence2: a contract to divulge out of band.
	simple("Divulgence1", "div1Party", []lb.Field{lb.F("div1Party", lb.TParty)}, lb.Expr{})
	tDiv1 := lb.TContractID(lb.TCon("Divulgence1"))
	pkg.Record("Divulgence2Fetch", lb.F("div1ToFetch", tDiv1))
	pkg.Record("Divulgence2Archive", lb.F("div1ToArchive", tDiv1))
	pkg.Record("Divulgence2ImmediateDivulge")
	fetcher := field("Divulgence2", "div2Fetcher")
	simple("Divulgence2", "div2Signatory", []lb.Field{lb.F("div2Signatory", lb.TParty), lb.F("div2Fetcher", lb.TParty)}, parties(fetcher),
		choice("Divulgence2Fetch", false, parties(fetcher), lb.TUnit,
			then(lb.TCon("Divulgence1"), lb.Fetch("Divulgence1", argField("Divulgence2Fetch", "div1ToFetch")), unit)),
		choice("Divulgence2Archive", false, parties(fetcher), lb.TUnit, archiveOf("Divulgence1", argField("Divulgence2Archive", "div1ToArchive"))),
		choice("Divulgence2ImmediateDivulge", false, parties(fetcher), tDiv1, lb.Create("Divulgence1", lb.Record("Divulgence1", lb.FE("div1Party", fetcher)))))

	// BranchingSignatories, and the multi-actor Agreement, AgreementFactory,
	// TriProposal, TriAgreement. Daml's assert throws the standard
	// library's AssertionFailed "Assertion failed"; this package has no
	// standard library, so it throws its own exception of that name and
	// message.
	pkg.Record("AssertionFailed", lb.F("message", lb.TText))
	pkg.Exception("AssertionFailed", lb.Lam([]lb.Field{lb.F("e", lb.TCon("AssertionFailed"))}, lb.Proj("AssertionFailed", "message", lb.Var("e"))))
	assert := func(cond lb.Expr) lb.Expr {
		return lb.Case(cond, lb.TrueAlt(unit), lb.FalseAlt(lb.Throw(lb.TUpdate(lb.TUnit), lb.TCon("AssertionFailed"),
			lb.Record("AssertionFailed", lb.FE("message", lb.Text("Assertion failed"))))))
	}
	and := func(a, b lb.Expr) lb.Expr { return lb.Case(a, lb.TrueAlt(b), lb.FalseAlt(lb.False)) }
	equalParty := func(a, b lb.Expr) lb.Expr { return lb.App(lb.TyApp(lb.Builtin(lb.Equal), lb.TParty), a, b) }

	pkg.Record("BranchingSignatories", lb.F("whichSign", lb.TBool), lb.F("signTrue", lb.TParty), lb.F("signFalse", lb.TParty))
	branching := parties(lb.Case(field("BranchingSignatories", "whichSign"),
		lb.TrueAlt(field("BranchingSignatories", "signTrue")), lb.FalseAlt(field("BranchingSignatories", "signFalse"))))
	pkg.Template(lb.Template{Name: "BranchingSignatories", Param: "this", Signatories: branching, Choices: []lb.Choice{lb.Archive("Archive", branching)}})

	// WithObservers (Ping by the giver) and BranchingControllers (the
	// chosen controller an observer), of the visibility cases.
	pkg.Record("WithObservers", lb.F("giver", lb.TParty), lb.F("observers", lb.TList(lb.TParty)))
	pkg.Record("Ping")
	woGiver := parties(field("WithObservers", "giver"))
	pkg.Template(lb.Template{Name: "WithObservers", Param: "this", Signatories: woGiver, Observers: field("WithObservers", "observers"),
		Choices: []lb.Choice{lb.Archive("Archive", woGiver), choice("Ping", true, woGiver, lb.TUnit, unit)}})
	pkg.Record("BranchingControllers", lb.F("giver", lb.TParty), lb.F("whichCtrl", lb.TBool), lb.F("ctrlTrue", lb.TParty), lb.F("ctrlFalse", lb.TParty))
	pkg.Record("Delete")
	ctrl := parties(lb.Case(field("BranchingControllers", "whichCtrl"),
		lb.TrueAlt(field("BranchingControllers", "ctrlTrue")), lb.FalseAlt(field("BranchingControllers", "ctrlFalse"))))
	bcGiver := parties(field("BranchingControllers", "giver"))
	pkg.Template(lb.Template{Name: "BranchingControllers", Param: "this", Signatories: bcGiver, Observers: ctrl,
		Choices: []lb.Choice{lb.Archive("Archive", bcGiver), choice("Delete", true, ctrl, lb.TUnit, unit)}})

	tri := []lb.Field{lb.F("operator", lb.TParty), lb.F("receiver", lb.TParty), lb.F("giver", lb.TParty)}
	triOf := func(tpl string) lb.Expr {
		return lb.Record("TriAgreement", lb.FE("operator", field(tpl, "operator")), lb.FE("receiver", field(tpl, "receiver")), lb.FE("giver", field(tpl, "giver")))
	}
	pkg.Record("TriAgreement", tri...)
	triSigs := parties(field("TriAgreement", "operator"), field("TriAgreement", "receiver"), field("TriAgreement", "giver"))
	pkg.Template(lb.Template{Name: "TriAgreement", Param: "this", Signatories: triSigs, Choices: []lb.Choice{lb.Archive("Archive", triSigs)}})
	pkg.Record("TriProposalAccept")
	tTriAgreement := lb.TContractID(lb.TCon("TriAgreement"))
	simple("TriProposal", "operator", tri, parties(field("TriProposal", "receiver"), field("TriProposal", "giver")),
		choice("TriProposalAccept", true, parties(field("TriProposal", "receiver"), field("TriProposal", "giver")), tTriAgreement,
			lb.Create("TriAgreement", triOf("TriProposal"))))
	pkg.Record("AcceptTriProposal", lb.F("cid", lb.TContractID(lb.TCon("TriProposal"))))
	agreement := []lb.Field{lb.F("receiver", lb.TParty), lb.F("giver", lb.TParty)}
	giver := parties(field("Agreement", "giver"))
	agreementSigs := parties(field("Agreement", "receiver"), field("Agreement", "giver"))
	cid := argField("AcceptTriProposal", "cid")
	pkg.Record("Agreement", agreement...)
	pkg.Template(lb.Template{Name: "Agreement", Param: "this", Signatories: agreementSigs, Choices: []lb.Choice{
		lb.Archive("Archive", agreementSigs),
		choice("AcceptTriProposal", true, giver, tTriAgreement, lb.Do([]lb.Binding{
			{Name: "prop", Type: lb.TCon("TriProposal"), Bound: lb.Fetch("TriProposal", cid)},
			{Name: "_assert", Type: lb.TUnit, Bound: assert(and(
				equalParty(lb.Proj("TriProposal", "receiver", lb.Var("prop")), field("Agreement", "receiver")),
				equalParty(lb.Proj("TriProposal", "giver", lb.Var("prop")), field("Agreement", "giver"))))},
		}, lb.Exercise("TriProposal", "TriProposalAccept", cid, lb.Record("TriProposalAccept")))),
	}})
	pkg.Record("AgreementFactoryAccept")
	pkg.Record("CreateAgreement")
	newAgreement := lb.Create("Agreement", lb.Record("Agreement", lb.FE("receiver", field("AgreementFactory", "receiver")), lb.FE("giver", field("AgreementFactory", "giver"))))
	simple("AgreementFactory", "giver", agreement, parties(field("AgreementFactory", "receiver")),
		choice("AgreementFactoryAccept", false, parties(field("AgreementFactory", "receiver")), lb.TContractID(lb.TCon("Agreement")), newAgreement),
		choice("CreateAgreement", false, parties(field("AgreementFactory", "receiver")), lb.TContractID(lb.TCon("Agreement")), newAgreement))

	// CreateAndFetch: its consuming choice creates a copy and fetches it.
	pkg.Record("CreateAndFetch_Run")
	tCreateAndFetch := lb.TContractID(lb.TCon("CreateAndFetch"))
	simple("CreateAndFetch", "p", []lb.Field{lb.F("p", lb.TParty)}, lb.Expr{},
		choice("CreateAndFetch_Run", true, parties(field("CreateAndFetch", "p")), lb.TUnit, lb.Do([]lb.Binding{
			{Name: "cid", Type: tCreateAndFetch, Bound: lb.Create("CreateAndFetch", lb.Record("CreateAndFetch", lb.FE("p", field("CreateAndFetch", "p"))))},
			{Name: "_fetched", Type: lb.TCon("CreateAndFetch"), Bound: lb.Fetch("CreateAndFetch", lb.Var("cid"))}}, unit)))

	// DiscloseCreate: DiscloseCreate_To creates a Dummy of the owner with
	// the disclosee as choice observer, who so witnesses the create.
	pkg.Record("DiscloseCreate_To", lb.F("disclosee", lb.TParty))
	dcOwner := parties(field("DiscloseCreate", "owner"))
	pkg.Record("DiscloseCreate", lb.F("owner", lb.TParty))
	pkg.Template(lb.Template{Name: "DiscloseCreate", Param: "this", Signatories: dcOwner, Choices: []lb.Choice{
		lb.Archive("Archive", dcOwner),
		{Name: "DiscloseCreate_To", Consuming: true, Controllers: dcOwner, Observers: parties(argField("DiscloseCreate_To", "disclosee")),
			ArgName: "arg", ArgType: lb.TCon("DiscloseCreate_To"), ReturnType: lb.TUnit,
			Update: then(tDummy, lb.Create("Dummy", dummyOf(field("DiscloseCreate", "owner"))), unit)},
	}})

	// DummyFlexibleController (DivulgenceTests.daml): any actor may consume it.
	pkg.Record("FlexibleConsume", lb.F("actor", lb.TParty))
	simple("DummyFlexibleController", "holder", []lb.Field{lb.F("holder", lb.TParty)}, lb.Expr{},
		choice("FlexibleConsume", true, parties(argField("FlexibleConsume", "actor")), lb.TUnit, unit))

	// DecimalRounding: a Decimal (Numeric 10) field to round.
	simple("DecimalRounding", "party", []lb.Field{lb.F("party", lb.TParty), lb.F("number", lb.TNumeric(10))}, lb.Expr{})

	// MultiPartyContract: signed by its parties; MPAddSignatories creates
	// it again with more, MPFetchOther fetches another as the actors.
	tParties := lb.TList(lb.TParty)
	mpFields := []lb.Field{lb.F("parties", tParties), lb.F("value", lb.TText)}
	mpParties := field("MultiPartyContract", "parties")
	consParty := lb.Lam([]lb.Field{lb.F("x", lb.TParty), lb.F("acc", tParties)}, lb.Cons(lb.TParty, []lb.Expr{lb.Var("x")}, lb.Var("acc")))
	allParties := lb.App(lb.TyApp(lb.Builtin(lb.Foldr), lb.TParty, tParties), consParty, argField("MPAddSignatories", "newParties"), mpParties)
	tMP := lb.TContractID(lb.TCon("MultiPartyContract"))
	pkg.Record("MPAddSignatories", lb.F("newParties", tParties))
	pkg.Record("MPFetchOther", lb.F("cid", tMP), lb.F("actors", tParties))
	pkg.Record("MultiPartyContract", mpFields...)
	pkg.Template(lb.Template{Name: "MultiPartyContract", Param: "this", Signatories: mpParties, Choices: []lb.Choice{
		lb.Archive("Archive", mpParties),
		choice("MPAddSignatories", true, lb.App(lb.TyApp(lb.Builtin(lb.Foldr), lb.TParty, tParties), consParty, argField("MPAddSignatories", "newParties"), mpParties), tMP,
			lb.Create("MultiPartyContract", copyWith("MultiPartyContract", mpFields, map[string]lb.Expr{"parties": allParties}))),
		choice("MPFetchOther", false, argField("MPFetchOther", "actors"), lb.TUnit,
			then(lb.TCon("MultiPartyContract"), lb.Fetch("MultiPartyContract", argField("MPFetchOther", "cid")), unit)),
	}})

	// TrailingNones.daml and its interface (model/, model_iface/).
	pkg.Record("RecordWithOptional", lb.F("field1", lb.TText), lb.F("field2", lb.TOptional(lb.TText)))
	pkg.Record("TrailingNonesView", lb.F("nonOpt", lb.TText), lb.F("opt", lb.TOptional(lb.TText)))
	pkg.Interface("TrailingNonesIface", "this", lb.TCon("TrailingNonesView"))
	pkg.Record("TrailingNones", lb.F("owner", lb.TParty), lb.F("nonOpt", lb.TText), lb.F("opt", lb.TOptional(lb.TText)))
	pkg.Record("ExerciseChoice", lb.F("nonOptArg", lb.TText), lb.F("optArg", lb.TOptional(lb.TText)))
	owner := parties(field("TrailingNones", "owner"))
	pkg.Template(lb.Template{Name: "TrailingNones", Param: "this", Signatories: owner,
		Implements: []lb.Implementation{{Interface: "TrailingNonesIface", View: lb.Record("TrailingNonesView",
			lb.FE("nonOpt", field("TrailingNones", "nonOpt")), lb.FE("opt", field("TrailingNones", "opt")))}},
		Choices: []lb.Choice{lb.Archive("Archive", owner),
			choice("ExerciseChoice", true, owner, lb.TCon("RecordWithOptional"), lb.Pure(lb.TCon("RecordWithOptional"),
				lb.Record("RecordWithOptional", lb.FE("field1", argField("ExerciseChoice", "nonOptArg")), lb.FE("field2", argField("ExerciseChoice", "optArg")))))}})
	return pkg
}

// builtTemplate is template name of testModel by package name.
func builtTemplate(name string) string { return "#model-tests-built:Test:" + name }
