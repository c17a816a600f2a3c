package ledgerapi

import (
	"encoding/json"
	"strings"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// keysModel is the part of the test tool's keys/Test.daml that
// ContractKeysIT uses, as Daml-LF 2.3: TextKey, Delegated and Delegation,
// LocalKeyVisibilityOperations, WithKey and WithKeyCreatorAlternative, and
// an unkeyed CallablePayout (of the test tool's model, for CKNoContractKey).
// The (Party, Text) keys are the record TextPair (see keyPair).
func keysModel() *lb.Package {
	pkg := lb.New("ck-keys-tests", "1.0.0", "Test")
	unit := lb.Pure(lb.TUnit, lb.Unit)
	noArgs := func(names ...string) {
		for _, n := range names {
			pkg.Record(n)
		}
	}
	noArgs("Archive", "TextKeyChoice", "Recreate", "LocalLookup", "LocalFetch", "WithKeyCreatorAlternative_DiscloseCreate")
	tPair := keyPair(pkg, "TextPair", lb.TParty, lb.TText)
	pair := func(p, k lb.Expr) lb.Expr { return lb.Record("TextPair", lb.FE("_1", p), lb.FE("_2", k)) }
	byPair := func(body lb.Expr) *lb.Key {
		return &lb.Key{Type: tPair, Body: body, Maintainers: firstMaintainer("TextPair", tPair)}
	}
	byParty := func(body lb.Expr) *lb.Key {
		return &lb.Key{Type: lb.TParty, Body: body, Maintainers: lb.Lam([]lb.Field{lb.F("k", lb.TParty)}, parties(lb.Var("k")))}
	}
	fetchByKey := func(tpl string, key lb.Expr) lb.Expr {
		return then(lb.TTuple2(lb.TContractID(lb.TCon(tpl)), lb.TCon(tpl)), lb.App(lb.FetchByKey(tpl), key), unit)
	}

	pkg.Record("CallablePayout", lb.F("giver", lb.TParty), lb.F("receiver", lb.TParty))
	cpSigs := parties(field("CallablePayout", "giver"))
	pkg.Template(lb.Template{Name: "CallablePayout", Param: "this", Signatories: cpSigs,
		Observers: parties(field("CallablePayout", "receiver")), Choices: []lb.Choice{lb.Archive("Archive", cpSigs)}})

	pkg.Record("TextKey", lb.F("tkParty", lb.TParty), lb.F("tkKey", lb.TText), lb.F("tkDisclosedTo", lb.TList(lb.TParty)))
	tkSigs := parties(field("TextKey", "tkParty"))
	pkg.Template(lb.Template{Name: "TextKey", Param: "this", Signatories: tkSigs, Observers: field("TextKey", "tkDisclosedTo"),
		Choices: []lb.Choice{lb.Archive("Archive", tkSigs), choice("TextKeyChoice", true, tkSigs, lb.TUnit, unit)},
		Key:     byPair(pair(field("TextKey", "tkParty"), field("TextKey", "tkKey")))})

	pkg.Record("Delegated", lb.F("owner", lb.TParty), lb.F("k", lb.TText))
	pkg.Record("CreateAnotherAndArchive", lb.F("k2", lb.TText))
	owner := field("Delegated", "owner")
	dSigs := parties(owner)
	tDelegated := lb.TContractID(lb.TCon("Delegated"))
	pkg.Template(lb.Template{Name: "Delegated", Param: "this", Signatories: dSigs, Choices: []lb.Choice{
		lb.Archive("Archive", dSigs),
		choice("Recreate", true, dSigs, lb.TUnit, then(tDelegated, lb.Create("Delegated", lb.Var("this")), unit)),
		choice("CreateAnotherAndArchive", false, dSigs, lb.TUnit, lb.Do([]lb.Binding{{Name: "cid", Type: tDelegated,
			Bound: lb.Create("Delegated", lb.Record("Delegated", lb.FE("owner", owner), lb.FE("k", argField("CreateAnotherAndArchive", "k2"))))}},
			archiveOf("Delegated", lb.Var("cid")))),
	}, Key: byPair(pair(owner, field("Delegated", "k")))})

	pkg.Record("Delegation", lb.F("owner", lb.TParty), lb.F("delegate", lb.TParty))
	pkg.Record("FetchByKeyDelegated", lb.F("p", lb.TParty), lb.F("k", lb.TText))
	gSigs, delegate := parties(field("Delegation", "owner")), parties(field("Delegation", "delegate"))
	pkg.Template(lb.Template{Name: "Delegation", Param: "this", Signatories: gSigs, Observers: delegate, Choices: []lb.Choice{
		lb.Archive("Archive", gSigs),
		choice("FetchByKeyDelegated", false, delegate, lb.TUnit,
			fetchByKey("Delegated", pair(argField("FetchByKeyDelegated", "p"), argField("FetchByKeyDelegated", "k")))),
	}})

	// LocalLookup: cid <- create (TextKey sig "" []); Some _ <- lookupByKey
	// (sig, ""); archive cid. LocalFetch fetches by key instead.
	const lkv = "LocalKeyVisibilityOperations"
	pkg.Record(lkv, lb.F("sig", lb.TParty), lb.F("obs", lb.TParty))
	sig := field(lkv, "sig")
	lSigs, obs := parties(sig), parties(field(lkv, "obs"))
	tTextKey := lb.TContractID(lb.TCon("TextKey"))
	local := func(between lb.Expr) lb.Expr {
		return lb.Do([]lb.Binding{
			{Name: "cid", Type: tTextKey, Bound: lb.Create("TextKey", lb.Record("TextKey", lb.FE("tkParty", sig), lb.FE("tkKey", lb.Text("")), lb.FE("tkDisclosedTo", lb.Nil(lb.TParty))))},
			{Name: "_between", Type: lb.TUnit, Bound: between}},
			archiveOf("TextKey", lb.Var("cid")))
	}
	tFound := lb.TTuple2(tTextKey, lb.TCon("TextKey"))
	notFound := lb.App(lb.TyApp(lb.Builtin(lb.Error), lb.TUpdate(lb.TUnit)), lb.Text("Pattern match failure: lookupByKey found nothing"))
	lookupSome := lb.Do([]lb.Binding{{Name: "r", Type: lb.TOptional(lb.TList(tFound)), Bound: lb.App(lb.QueryNByKey("TextKey"), lb.Int(1), pair(sig, lb.Text("")))}},
		lb.Case(lb.Var("r"), lb.NoneAlt(notFound), lb.SomeAlt("l", lb.Case(lb.Var("l"), lb.NilAlt(notFound), lb.ConsAlt("_h", "_t", unit)))))
	pkg.Template(lb.Template{Name: lkv, Param: "this", Signatories: lSigs, Observers: obs, Choices: []lb.Choice{
		lb.Archive("Archive", lSigs),
		choice("LocalLookup", false, obs, lb.TUnit, local(lookupSome)),
		choice("LocalFetch", false, obs, lb.TUnit, local(fetchByKey("TextKey", pair(sig, lb.Text(""))))),
	}})

	pkg.Record("WithKey", lb.F("p", lb.TParty))
	pkg.Record("WithKey_NoOp", lb.F("divulgee", lb.TParty))
	wSigs := parties(field("WithKey", "p"))
	pkg.Template(lb.Template{Name: "WithKey", Param: "this", Signatories: wSigs, Choices: []lb.Choice{
		lb.Archive("Archive", wSigs),
		choice("WithKey_NoOp", false, parties(argField("WithKey_NoOp", "divulgee")), lb.TUnit, unit),
	}, Key: byParty(field("WithKey", "p"))})

	const wkca = "WithKeyCreatorAlternative"
	pkg.Record(wkca, lb.F("p1", lb.TParty), lb.F("p2", lb.TParty))
	aSigs, p2 := parties(field(wkca, "p1")), parties(field(wkca, "p2"))
	pkg.Template(lb.Template{Name: wkca, Param: "this", Signatories: aSigs, Observers: p2, Choices: []lb.Choice{
		lb.Archive("Archive", aSigs),
		choice(wkca+"_DiscloseCreate", false, p2, lb.TContractID(lb.TCon("WithKey")),
			lb.Create("WithKey", lb.Record("WithKey", lb.FE("p", field(wkca, "p1"))))),
	}})
	keysModelMore(pkg, tPair, fetchByKey)
	return pkg
}

// keysModelMore adds the templates of the other v2_3 suites to keysModel:
// TextKeyOperations, MultiPartyContract, Proposal and Asset, and the
// AssertionFailed exception their assertMsg throws.
func keysModelMore(pkg *lb.Package, tPair lb.Type, fetchByKey func(tpl string, key lb.Expr) lb.Expr) {
	unit := lb.Pure(lb.TUnit, lb.Unit)
	tAssert := lb.TCon("AssertionFailed")
	pkg.Record("AssertionFailed", lb.F("message", lb.TText))
	pkg.Exception("AssertionFailed", lb.Lam([]lb.Field{lb.F("e", tAssert)}, lb.Proj("AssertionFailed", "message", lb.Var("e"))))
	// assertMsg msg cond, which throws AssertionFailed msg when cond is False.
	assertMsg := func(msg string, cond lb.Expr) lb.Expr {
		return lb.Case(cond, lb.TrueAlt(unit), lb.FalseAlt(lb.Throw(lb.TUpdate(lb.TUnit), tAssert, lb.Record("AssertionFailed", lb.FE("message", lb.Text(msg))))))
	}
	// lookupByKey @tpl key >>= \actual -> assertMsg msg (expected == actual)
	lookupMatches := func(tpl, msg string, key, expected lb.Expr) lb.Expr {
		tCid, tTpl := lb.TContractID(lb.TCon(tpl)), lb.TCon(tpl)
		none := lb.None(tCid)
		actual := lb.Case(lb.Var("r"), lb.NoneAlt(none), lb.SomeAlt("l", lb.Case(lb.Var("l"), lb.NilAlt(none),
			lb.ConsAlt("h", "_t", lb.Some(tCid, lb.Tuple2Proj("_1", tCid, tTpl, lb.Var("h")))))))
		return lb.Do([]lb.Binding{{Name: "r", Type: lb.TOptional(lb.TList(lb.TTuple2(tCid, tTpl))), Bound: lb.App(lb.QueryNByKey(tpl), lb.Int(1), key)}},
			assertMsg(msg, lb.App(lb.TyApp(lb.Builtin(lb.Equal), lb.TOptional(tCid)), expected, actual)))
	}

	const tko = "TextKeyOperations"
	tTextKey, tTextKeyCid := lb.TCon("TextKey"), lb.TContractID(lb.TCon("TextKey"))
	pkg.Record(tko, lb.F("tkoParty", lb.TParty))
	pkg.Record("TKOLookup", lb.F("keyToLookup", tPair), lb.F("expected", lb.TOptional(tTextKeyCid)))
	pkg.Record("TKOFetchAndRecreate", lb.F("keyToFetch", tPair))
	oSigs := parties(field(tko, "tkoParty"))
	found := func(f string) lb.Expr { return lb.Tuple2Proj(f, tTextKeyCid, tTextKey, lb.Var("found")) }
	pkg.Template(lb.Template{Name: tko, Param: "this", Signatories: oSigs, Choices: []lb.Choice{
		lb.Archive("Archive", oSigs),
		choice("TKOLookup", false, oSigs, lb.TUnit, lookupMatches("TextKey", "lookup matches", argField("TKOLookup", "keyToLookup"), argField("TKOLookup", "expected"))),
		// (cid, contract) <- fetchByKey k; exercise cid TextKeyChoice; create contract
		choice("TKOFetchAndRecreate", false, oSigs, lb.TUnit, lb.Do([]lb.Binding{
			{Name: "found", Type: lb.TTuple2(tTextKeyCid, tTextKey), Bound: lb.App(lb.FetchByKey("TextKey"), argField("TKOFetchAndRecreate", "keyToFetch"))},
			{Name: "_e", Type: lb.TUnit, Bound: lb.Exercise("TextKey", "TextKeyChoice", found("_1"), lb.Record("TextKeyChoice"))},
			{Name: "_c", Type: tTextKeyCid, Bound: lb.Create("TextKey", found("_2"))}}, unit)),
	}})

	const mpc = "MultiPartyContract"
	tMpc := lb.TCon(mpc)
	pkg.Record(mpc, lb.F("parties", lb.TList(lb.TParty)), lb.F("value", lb.TText))
	pkg.Record("MPFetchOtherByKey", lb.F("keyToFetch", tMpc), lb.F("actors", lb.TList(lb.TParty)))
	pkg.Record("MPLookupOtherByKey", lb.F("keyToFetch", tMpc), lb.F("actors", lb.TList(lb.TParty)), lb.F("expectedCid", lb.TOptional(lb.TContractID(tMpc))))
	mSigs := field(mpc, "parties")
	pkg.Template(lb.Template{Name: mpc, Param: "this", Signatories: mSigs, Choices: []lb.Choice{
		lb.Archive("Archive", mSigs),
		choice("MPFetchOtherByKey", false, argField("MPFetchOtherByKey", "actors"), lb.TUnit, fetchByKey(mpc, argField("MPFetchOtherByKey", "keyToFetch"))),
		choice("MPLookupOtherByKey", false, argField("MPLookupOtherByKey", "actors"), lb.TUnit,
			lookupMatches(mpc, "LookupOtherByKey value matches", argField("MPLookupOtherByKey", "keyToFetch"), argField("MPLookupOtherByKey", "expectedCid"))),
	}, Key: &lb.Key{Type: tMpc, Body: lb.Var("this"), Maintainers: lb.Lam([]lb.Field{lb.F("k", tMpc)}, lb.Proj(mpc, "parties", lb.Var("k")))}})

	tAssetCid := lb.TContractID(lb.TCon("Asset"))
	pkg.Record("Asset", lb.F("issuer", lb.TParty), lb.F("owner", lb.TParty))
	pkg.Record("AssetTransfer", lb.F("newOwner", lb.TParty))
	issuer := field("Asset", "issuer")
	pkg.Template(lb.Template{Name: "Asset", Param: "this", Signatories: parties(issuer), Observers: parties(field("Asset", "owner")), Choices: []lb.Choice{
		lb.Archive("Archive", parties(issuer)),
		choice("AssetTransfer", true, parties(field("Asset", "owner")), tAssetCid,
			lb.Create("Asset", lb.Record("Asset", lb.FE("issuer", issuer), lb.FE("owner", argField("AssetTransfer", "newOwner"))))),
	}, Key: &lb.Key{Type: lb.TParty, Body: issuer, Maintainers: lb.Lam([]lb.Field{lb.F("k", lb.TParty)}, parties(lb.Var("k")))}})
	pkg.Record("Proposal", lb.F("from", lb.TParty), lb.F("to", lb.TParty))
	pkg.Record("ProposalAccept", lb.F("asset", tAssetCid))
	from, to := parties(field("Proposal", "from")), parties(field("Proposal", "to"))
	asset := argField("ProposalAccept", "asset")
	pkg.Template(lb.Template{Name: "Proposal", Param: "this", Signatories: from, Observers: to, Choices: []lb.Choice{
		lb.Archive("Archive", from),
		// fetch asset; exercise asset AssetTransfer with newOwner = from
		choice("ProposalAccept", true, to, tAssetCid, then(lb.TCon("Asset"), lb.Fetch("Asset", asset),
			lb.Exercise("Asset", "AssetTransfer", asset, lb.Record("AssetTransfer", lb.FE("newOwner", field("Proposal", "from")))))),
	}})
}

const (
	ckTextKey        = "#ck-keys-tests:Test:TextKey"
	ckDelegated      = "#ck-keys-tests:Test:Delegated"
	ckDelegation     = "#ck-keys-tests:Test:Delegation"
	ckWithKey        = "#ck-keys-tests:Test:WithKey"
	ckCallablePayout = "#ck-keys-tests:Test:CallablePayout"
	ckLocalOps       = "#ck-keys-tests:Test:LocalKeyVisibilityOperations"
	ckCreatorAlt     = "#ck-keys-tests:Test:WithKeyCreatorAlternative"
)

func exerciseByKeyCmd(template string, key any, choice string, arg any) map[string]any {
	if arg == nil {
		arg = map[string]any{}
	}
	return map[string]any{"ExerciseByKeyCommand": map[string]any{"templateId": template, "contractKey": key, "choice": choice, "choiceArgument": arg}}
}

// ContractKeysIT.scala on ledger serve (one participant: the Scala's
// second participant is a second party of it). CKFetchOrLookup,
// CKMaintainerScoped and CKNoFetchUndisclosed are differences (Canton
// excludes them on protocol 35: docs/conformance.md).
func TestContractKeysIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, keysModel()))
	const submitAndWait = "/v2/commands/submit-and-wait"
	keyNotFound := failure{code: "CONTRACT_KEY_NOT_FOUND", cause: "couldn't find key", definite: true}
	created := func(t *testing.T, txs []ledgerapi.Transaction) *ledgerapi.CreatedEvent {
		t.Helper()
		var out []*ledgerapi.CreatedEvent
		for _, tx := range txs {
			out = append(out, createdEvents(tx)...)
		}
		if len(out) != 1 {
			t.Fatalf("%d created events, want exactly one", len(out))
		}
		return out[0]
	}

	t.Run("CKNoContractKey", func(t *testing.T) {
		receiver, giver := p.allocate(t, "receiver"), p.allocate(t, "giver")
		p.create(t, giver, ckCallablePayout, map[string]any{"giver": giver, "receiver": receiver})
		c := created(t, p.transactionsOf(t, ledgerapi.TransactionShapeACSDelta, giver, receiver))
		if len(c.ContractKey) != 0 && string(c.ContractKey) != "null" {
			t.Errorf("The key is not empty: %s", c.ContractKey)
		}
	})

	t.Run("CKRecreate", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		first := p.transaction(t, []string{owner}, createCmd(ckDelegated, map[string]any{"owner": owner, "k": p.next("key")}))
		c1 := createdEvents(first)[0]
		tx := p.exercise(t, owner, ckDelegated, c1.ContractID, "Recreate", nil)
		if len(tx.Events) != 2 {
			t.Fatalf("%d events, want 2", len(tx.Events))
		}
		c2 := createdEvents(tx)
		if len(c2) != 1 || c2[0].ContractID == c1.ContractID {
			t.Fatalf("New contract was not created: %+v", c2)
		}
		if string(c2[0].ContractKey) != string(c1.ContractKey) {
			t.Errorf("Contract keys did not match: %s, %s", c2[0].ContractKey, c1.ContractKey)
		}
	})

	t.Run("CKTransients", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		key, key2 := p.next("key"), p.next("key")
		delegation := p.create(t, owner, ckDelegation, map[string]any{"owner": owner, "delegate": owner})
		delegated := p.create(t, owner, ckDelegated, map[string]any{"owner": owner, "k": key})
		p.mustFail(t, "POST", submitAndWait, p.jsCommands([]string{owner},
			exerciseCmd(ckDelegation, delegation, "FetchByKeyDelegated", map[string]any{"p": owner, "k": key2})), keyNotFound)
		for range 2 {
			p.exercise(t, owner, ckDelegated, delegated, "CreateAnotherAndArchive", map[string]any{"k2": key2})
		}
	})

	t.Run("CKExposedByTemplate", func(t *testing.T) {
		party := p.allocate(t, "party")
		key := p.next("key")
		p.create(t, party, ckTextKey, map[string]any{"tkParty": party, "tkKey": key, "tkDisclosedTo": []string{}})
		c := created(t, p.transactionsOf(t, ledgerapi.TransactionShapeACSDelta, party))
		var got map[string]any
		if err := json.Unmarshal(c.ContractKey, &got); err != nil {
			t.Fatalf("contractKey %s: %v", c.ContractKey, err)
		}
		if len(got) != 2 || got["_1"] != party || got["_2"] != key {
			t.Errorf("contractKey %s, want {_1: %s, _2: %s}", c.ContractKey, party, key)
		}
	})

	t.Run("CKExerciseByKey", func(t *testing.T) {
		party := p.allocate(t, "party")
		keyString := p.next("key")
		key := map[string]any{"_1": party, "_2": keyString}
		byKey := func() map[string]any {
			return p.jsCommands([]string{party}, exerciseByKeyCmd(ckTextKey, key, "TextKeyChoice", nil))
		}
		dependency := failure{code: "CONTRACT_KEY_NOT_FOUND", cause: "dependency error: couldn't find key", definite: true}
		p.mustFail(t, "POST", submitAndWait, byKey(), dependency)
		p.create(t, party, ckTextKey, map[string]any{"tkParty": party, "tkKey": keyString, "tkDisclosedTo": []string{}})
		p.ok(t, "POST", submitAndWait, byKey(), nil)
		p.mustFail(t, "POST", submitAndWait, byKey(), dependency)
	})

	for _, c := range []struct{ name, choice string }{
		{"CKLocalLookupByKeyVisibility", "LocalLookup"},
		{"CKLocalFetchByKeyVisibility", "LocalFetch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			party1, party2 := p.allocate(t, "party1"), p.allocate(t, "party2")
			ops := p.create(t, party1, ckLocalOps, map[string]any{"sig": party1, "obs": party2})
			p.exercise(t, party2, ckLocalOps, ops, c.choice, nil)
		})
	}

	t.Run("CKDisclosedContractKeyReusabilityAsSubmitter", func(t *testing.T) {
		party1, party2 := p.allocate(t, "party1"), p.allocate(t, "party2")
		creator := p.create(t, party1, ckCreatorAlt, map[string]any{"p1": party1, "p2": party2})
		p.exercise(t, party2, ckCreatorAlt, creator, "WithKeyCreatorAlternative_DiscloseCreate", nil)
		var withKey []string
		for _, c := range p.activeContracts(t, party1) {
			if strings.HasSuffix(c.TemplateID, ":Test:WithKey") {
				withKey = append(withKey, c.ContractID)
			}
		}
		if len(withKey) != 1 {
			t.Fatalf("party1's active WithKey contracts %v, want one", withKey)
		}
		p.exercise(t, party1, ckWithKey, withKey[0], "Archive", nil)
		p.exercise(t, party2, ckCreatorAlt, creator, "WithKeyCreatorAlternative_DiscloseCreate", nil)
	})

	t.Run("CKGlocalKeyVisibility", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		cid := p.create(t, alice, ckWithKey, map[string]any{"p": alice})
		p.ok(t, "POST", "/v2/commands/async/submit", p.jsCommands([]string{alice}, exerciseByKeyCmd(ckWithKey, alice, "WithKey_NoOp", map[string]any{"divulgee": alice})), nil)
		var disclosed map[string]any
		for _, tx := range p.transactionsIn(t, ledgerapi.EventFormatOf([]string{alice}, []string{ckWithKey}, nil, true), ledgerapi.TransactionShapeACSDelta, 0, p.ledgerEnd(t)) {
			for _, c := range createdEvents(tx) {
				if c.ContractID == cid {
					disclosed = disclosedOf(c)
				}
			}
		}
		if disclosed == nil {
			t.Fatal("alice's WithKey is not in her transactions")
		}
		withDisclosed := func(body map[string]any) map[string]any {
			body["disclosedContracts"] = []any{disclosed}
			return body
		}
		p.ok(t, "POST", submitAndWait, withDisclosed(p.jsCommands([]string{bob},
			exerciseCmd(ckWithKey, cid, "WithKey_NoOp", map[string]any{"divulgee": bob}))), nil)
		byKey := func() map[string]any {
			return p.jsCommands([]string{bob}, exerciseByKeyCmd(ckWithKey, alice, "WithKey_NoOp", map[string]any{"divulgee": bob}))
		}
		p.mustFail(t, "POST", "/v2/commands/async/submit", byKey(), keyNotFound)
		p.ok(t, "POST", "/v2/commands/async/submit", withDisclosed(byKey()), nil)
	})
}
