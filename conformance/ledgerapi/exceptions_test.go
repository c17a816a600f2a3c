package ledgerapi

import (
	"strings"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// exceptionsModel is the test tool's Exceptions.daml (ledger-common-dars
// experimental/) as Daml-LF 2.3, its single-participant part: WithSimpleKey
// with its key (the party), ExceptionTester with the keyed choices. WithKey,
// WithKeyDelegate and the projection helpers, used only by the
// three-participant projection cases, are left out.
func exceptionsModel() *lb.Package {
	pkg := lb.New("exceptions-tests", "1.0.0", "Exceptions")
	const tester = "ExceptionTester"
	tE, tE2, tEcid := lb.TCon("E"), lb.TCon("E2"), lb.TCon("Ecid")
	tTester, tSimple := lb.TCon(tester), lb.TCon("WithSimpleKey")
	unitU := lb.TUpdate(lb.TUnit)
	throwE := func(ret lb.Type) lb.Expr { return lb.Throw(ret, tE, lb.Record("E", lb.FE("t", lb.Text("")))) }
	pure := lb.Pure(lb.TUnit, lb.Unit)

	pkg.Record("Archive")
	pkg.Record("E", lb.F("t", lb.TText))
	pkg.Exception("E", lb.Lam([]lb.Field{lb.F("e", tE)}, lb.Proj("E", "t", lb.Var("e"))))
	pkg.Record("E2", lb.F("t", lb.TText))
	pkg.Exception("E2", lb.Lam([]lb.Field{lb.F("e", tE2)}, lb.Proj("E2", "t", lb.Var("e"))))
	pkg.Record("Ecid", lb.F("cid", lb.TContractID(lb.TCon("T"))))
	pkg.Exception("Ecid", lb.Lam([]lb.Field{lb.F("e", tEcid)}, lb.Text("Ecid")))

	pkg.Record("T", lb.F("p", lb.TParty))
	tSigs := parties(field("T", "p"))
	pkg.Template(lb.Template{Name: "T", Param: "this", Signatories: tSigs, Choices: []lb.Choice{lb.Archive("Archive", tSigs)}})

	pkg.Record("WithSimpleKey", lb.F("p", lb.TParty))
	pkg.Record("WithKey_Noop")
	kSigs := parties(field("WithSimpleKey", "p"))
	pkg.Template(lb.Template{Name: "WithSimpleKey", Param: "this", Signatories: kSigs, Choices: []lb.Choice{
		lb.Archive("Archive", kSigs),
		choice("WithKey_Noop", false, kSigs, lb.TUnit, pure),
	}, Key: &lb.Key{Type: lb.TParty, Body: field("WithSimpleKey", "p"),
		Maintainers: lb.Lam([]lb.Field{lb.F("k", lb.TParty)}, parties(lb.Var("k")))}})

	pkg.Record(tester, lb.F("p", lb.TParty))
	p := parties(field(tester, "p"))
	cid := argField // the choice's cid argument: cid("RollbackFetch", "cid")
	exerciseSelf := func(choice string) lb.Expr {
		return lb.Exercise(tester, choice, lb.Var("self"), lb.Record(choice))
	}
	noop := func(c lb.Expr) lb.Expr { return lb.Exercise(tester, "Noop", c, lb.Record("Noop")) }
	// try (first >> throw (E "")) catch E _ -> handler
	rollback := func(ft lb.Type, first, handler lb.Expr) lb.Expr {
		return catching(lb.TUnit, then(ft, first, throwE(unitU)), "E", "_e", handler)
	}
	// the keyed updates on the key p of WithSimpleKey
	myKey := field(tester, "p")
	tFound := lb.TTuple2(lb.TContractID(tSimple), tSimple)
	createKeyed := lb.Create("WithSimpleKey", lb.Record("WithSimpleKey", lb.FE("p", myKey)))
	// lookup runs `lookupByKey @WithSimpleKey p` (query_n_by_key 1), then
	// none or found as it finds no contract or one.
	lookup := func(none, found lb.Expr) lb.Expr {
		r := lb.Var("r")
		return lb.Do([]lb.Binding{{Name: "r", Type: lb.TOptional(lb.TList(tFound)), Bound: lb.App(lb.QueryNByKey("WithSimpleKey"), lb.Int(1), myKey)}},
			lb.Case(r, lb.NoneAlt(none), lb.SomeAlt("l", lb.Case(lb.Var("l"), lb.NilAlt(none), lb.ConsAlt("_h", "_t", found)))))
	}
	// `None <- lookupByKey @WithSimpleKey p`: a contract found fails (E2,
	// which no handler here catches), as the pattern match would.
	found := lb.Throw(unitU, tE2, lb.Record("E2", lb.FE("t", lb.Text("lookupByKey found a contract"))))
	// archive cid; try (None <- lookupByKey p; throw E) catch E -> pure (); then
	globalArchived := func(choice string, then_ lb.Expr) lb.Expr {
		return lb.Do([]lb.Binding{{Name: "_a", Type: lb.TUnit, Bound: archiveOf("WithSimpleKey", cid(choice, "cid"))},
			{Name: "_l", Type: lb.TUnit, Bound: catching(lb.TUnit, lookup(throwE(unitU), found), "E", "_e", pure)}}, then_)
	}
	choices := []struct {
		name   string
		fields []lb.Field
		ret    lb.Type
		update lb.Expr
	}{
		{"Noop", nil, lb.TUnit, pure},
		{"ThrowUncaught", nil, lb.TUnit, lb.Throw(unitU, tE, lb.Record("E", lb.FE("t", lb.Text("exception message"))))},
		{"ThrowCaught", nil, lb.TText, catching(lb.TText, then(lb.TUnit, exerciseSelf("ThrowUncaught"), lb.Pure(lb.TText, lb.Text("uncaught"))),
			"E", "e", lb.Pure(lb.TText, lb.Proj("E", "t", lb.Var("e"))))},
		{"RollbackFetch", []lb.Field{lb.F("cid", lb.TContractID(tTester))}, lb.TUnit,
			rollback(tTester, lb.Fetch(tester, cid("RollbackFetch", "cid")), pure)},
		{"RollbackFetchWithExercise", []lb.Field{lb.F("cid", lb.TContractID(tTester))}, lb.TUnit,
			rollback(tTester, lb.Fetch(tester, cid("RollbackFetchWithExercise", "cid")), noop(cid("RollbackFetchWithExercise", "cid")))},
		{"RollbackConsuming", []lb.Field{lb.F("cid", lb.TContractID(tTester))}, lb.TUnit,
			rollback(lb.TUnit, archiveOf(tester, cid("RollbackConsuming", "cid")), pure)},
		{"RollbackConsumingWithCreate", []lb.Field{lb.F("cid", lb.TContractID(tTester))}, lb.TUnit,
			rollback(lb.TUnit, archiveOf(tester, cid("RollbackConsumingWithCreate", "cid")),
				then(lb.TContractID(tTester), lb.Create(tester, lb.Record(tester, lb.FE("p", field(tester, "p")))), pure))},
		{"RollbackNonConsuming", []lb.Field{lb.F("cid", lb.TContractID(tTester))}, lb.TUnit,
			rollback(lb.TUnit, noop(cid("RollbackNonConsuming", "cid")), pure)},
		{"RolledBackChoice", nil, lb.TContractID(tTester), lb.Create(tester, this)},
		{"RollbackCreate", nil, lb.TUnit, rollback(lb.TContractID(tTester), exerciseSelf("RolledBackChoice"), pure)},
		{"RollbackCreateWithExercise", nil, lb.TUnit, rollback(lb.TContractID(tTester), exerciseSelf("RolledBackChoice"), noop(lb.Var("self")))},
		{"NestedCatch", nil, lb.TUnit, catching(lb.TUnit, exerciseSelf("NestedCatchChild"), "E2", "_e", pure)},
		{"NestedCatchChild", nil, lb.TUnit, catching(lb.TUnit, lb.Throw(unitU, tE2, lb.Record("E2", lb.FE("t", lb.Text("nested")))), "E", "_e", pure)},
		{"RolledbackArchiveConsuming", []lb.Field{lb.F("cid", lb.TContractID(tSimple))}, lb.TUnit,
			rollback(lb.TUnit, archiveOf("WithSimpleKey", cid("RolledbackArchiveConsuming", "cid")), archiveOf("WithSimpleKey", cid("RolledbackArchiveConsuming", "cid")))},
		{"RolledbackArchiveNonConsuming", []lb.Field{lb.F("cid", lb.TContractID(tSimple))}, lb.TUnit,
			rollback(lb.TUnit, archiveOf("WithSimpleKey", cid("RolledbackArchiveNonConsuming", "cid")),
				lb.Exercise("WithSimpleKey", "WithKey_Noop", cid("RolledbackArchiveNonConsuming", "cid"), lb.Record("WithKey_Noop")))},
		{"DuplicateKey", nil, lb.TUnit, rollback(lb.TContractID(tSimple), createKeyed, pure)},
		{"FetchKey", nil, lb.TUnit, rollback(tFound, lb.App(lb.FetchByKey("WithSimpleKey"), myKey), pure)},
		{"RolledbackDuplicateKey", nil, lb.TUnit, rollback(lb.TContractID(tSimple), createKeyed, then(lb.TContractID(tSimple), createKeyed, pure))},
		{"RollbackGlobalArchivedLookup", []lb.Field{lb.F("cid", lb.TContractID(tSimple))}, lb.TUnit,
			globalArchived("RollbackGlobalArchivedLookup", lookup(pure, found))},
		{"RollbackGlobalArchivedCreate", []lb.Field{lb.F("cid", lb.TContractID(tSimple))}, lb.TUnit,
			globalArchived("RollbackGlobalArchivedCreate", then(lb.TContractID(tSimple), createKeyed, pure))},
		// try (archive cid; create (WithSimpleKey p); throw E) catch E -> pure ();
		// then lookupByKey p must find a contract (Scala: cid itself)
		{"RollbackExerciseCreateLookup", []lb.Field{lb.F("cid", lb.TContractID(tSimple))}, lb.TUnit, lb.Do([]lb.Binding{
			{Name: "_r", Type: lb.TUnit, Bound: catching(lb.TUnit, lb.Do([]lb.Binding{
				{Name: "_a", Type: lb.TUnit, Bound: archiveOf("WithSimpleKey", cid("RollbackExerciseCreateLookup", "cid"))},
				{Name: "_c", Type: lb.TContractID(tSimple), Bound: createKeyed}}, throwE(unitU)), "E", "_e", pure)}},
			lookup(lb.Throw(unitU, tE2, lb.Record("E2", lb.FE("t", lb.Text("lookupByKey found nothing")))), pure))},
		// try do cid <- create (T p); throw (Ecid cid) catch Ecid cid -> archive cid
		{"RollbackCreateBecomesInactive", nil, lb.TUnit, catching(lb.TUnit,
			lb.Do([]lb.Binding{{Name: "cid", Type: lb.TContractID(lb.TCon("T")), Bound: lb.Create("T", lb.Record("T", lb.FE("p", field(tester, "p"))))}},
				lb.Throw(unitU, tEcid, lb.Record("Ecid", lb.FE("cid", lb.Var("cid"))))),
			"Ecid", "e", archiveOf("T", lb.Proj("Ecid", "cid", lb.Var("e"))))},
	}
	tpl := lb.Template{Name: tester, Param: "this", Signatories: p, Choices: []lb.Choice{lb.Archive("Archive", p)}}
	for _, c := range choices {
		pkg.Record(c.name, c.fields...)
		tpl.Choices = append(tpl.Choices, choice(c.name, false, p, c.ret, c.update))
	}
	pkg.Template(tpl)
	return pkg
}

const (
	exceptionTester = "#exceptions-tests:Exceptions:ExceptionTester"
	withSimpleKey   = "#exceptions-tests:Exceptions:WithSimpleKey"
)

// exercisedEvents and createdEvents count a transaction's events of each kind.
func exercisedEvents(tx ledgerapi.Transaction) []*ledgerapi.ExercisedEvent {
	var out []*ledgerapi.ExercisedEvent
	for _, ev := range tx.Events {
		if ev.Exercised != nil {
			out = append(out, ev.Exercised)
		}
	}
	return out
}

func createdEvents(tx ledgerapi.Transaction) []*ledgerapi.CreatedEvent {
	var out []*ledgerapi.CreatedEvent
	for _, ev := range tx.Events {
		if ev.Created != nil {
			out = append(out, ev.Created)
		}
	}
	return out
}

// ExceptionsIT.scala (v2_dev in Canton 3.5): exceptions thrown and caught
// in Daml code, and what rolled-back parts of a transaction may and may
// not do, contract keys included. The three-participant projection cases
// are not ported: docs/conformance.md.
func TestExceptionsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, exceptionsModel()))
	tester := func(t *testing.T, party string) string {
		return p.create(t, party, exceptionTester, map[string]any{"p": party})
	}
	exerciseFails := func(t *testing.T, party, cid, choice string, arg any, f failure) {
		t.Helper()
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, exerciseCmd(exceptionTester, cid, choice, arg)), f)
	}
	notFound := failure{code: "CONTRACT_NOT_FOUND", cause: "Contract could not be found", definite: true}

	t.Run("ExUncaught", func(t *testing.T) {
		party := p.allocate(t, "party")
		exerciseFails(t, party, tester(t, party), "ThrowUncaught", nil, failure{code: "DAML_FAILURE", cause: "UNHANDLED_EXCEPTION", definite: true})
	})
	for _, c := range []struct{ name, choice string }{{"ExCaughtBasic", "ThrowCaught"}, {"ExCaughtNested", "NestedCatch"}} {
		t.Run(c.name, func(t *testing.T) {
			party := p.allocate(t, "party")
			tx := p.exercise(t, party, exceptionTester, tester(t, party), c.choice, nil)
			if n := len(exercisedEvents(tx)); n != 1 {
				t.Errorf("%d exercised events, want 1 successful exercise", n)
			}
		})
	}
	// The rolled-back action still needs its contract active: once it is
	// archived, the same exercise fails. Canton 3.5 (protocol version 35)
	// refuses to roll back a consuming exercise or a create
	// (DAML_EFFECTFUL_ROLLBACK_ERROR) where v2_dev's expectation, on the dev
	// protocol, is success: the cases that roll one back expect that refusal.
	effectful := failure{code: "DAML_EFFECTFUL_ROLLBACK_ERROR", cause: "Tried to rollback side-effectful node(s)", definite: true}
	for _, c := range []struct {
		name, choice string
		effectful    bool
	}{
		{"ExRollbackActiveFetch", "RollbackFetch", false},
		{"ExRollbackActiveExerciseConsuming", "RollbackConsuming", true},
		{"ExRollbackActiveExerciseNonConsuming", "RollbackNonConsuming", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			party := p.allocate(t, "party")
			tc, other := tester(t, party), tester(t, party)
			arg := map[string]any{"cid": other}
			if c.effectful {
				exerciseFails(t, party, tc, c.choice, arg, effectful)
			} else {
				tx := p.exercise(t, party, exceptionTester, tc, c.choice, arg)
				if ex := exercisedEvents(tx); len(ex) != 1 || ex[0].Choice != c.choice {
					t.Errorf("exercises %+v, want only the root %s (the rolled-back part is not shown)", ex, c.choice)
				}
			}
			p.exercise(t, party, exceptionTester, other, "Archive", nil)
			exerciseFails(t, party, tc, c.choice, arg, notFound)
		})
	}
	for _, c := range []struct{ name, choice string }{
		{"ExRolledbackArchiveConsuming", "RolledbackArchiveConsuming"},
		{"ExRolledbackArchiveNonConsuming", "RolledbackArchiveNonConsuming"},
	} {
		t.Run(c.name, func(t *testing.T) {
			party := p.allocate(t, "party")
			tc := tester(t, party)
			withKey := p.create(t, party, withSimpleKey, map[string]any{"p": party})
			exerciseFails(t, party, tc, c.choice, map[string]any{"cid": withKey}, effectful)
		})
	}
	t.Run("ExRollbackHidden", func(t *testing.T) {
		party := p.allocate(t, "party")
		exerciseFails(t, party, tester(t, party), "RollbackCreate", nil, effectful)
	})
	t.Run("ExRollbackCreate", func(t *testing.T) {
		party := p.allocate(t, "party")
		exerciseFails(t, party, tester(t, party), "RollbackCreateBecomesInactive", nil, effectful)
	})

	// The contract-key cases (WithSimpleKey's key is its party; Daml-LF
	// 2.3). Canton 3.5 runs keys in NUCK mode on protocol version 35: a
	// rolled-back create of a keyed contract is an effectful rollback, and
	// no key is unique, so DuplicateContractKey cannot arise there.
	keyNotFound := failure{code: "CONTRACT_KEY_NOT_FOUND", cause: "couldn't find key", definite: true}
	keyed := func(t *testing.T, party string) string {
		return p.create(t, party, withSimpleKey, map[string]any{"p": party})
	}
	onlyRoot := func(t *testing.T, tx ledgerapi.Transaction, choice string) {
		t.Helper()
		if ex := exercisedEvents(tx); len(ex) < 1 || ex[0].Choice != choice || len(createdEvents(tx)) != 0 {
			t.Errorf("exercises %+v and %d creates, want the root %s and no create", ex, len(createdEvents(tx)), choice)
		}
	}
	t.Run("ExRolledbackKeyCreation", func(t *testing.T) {
		party := p.allocate(t, "party")
		exerciseFails(t, party, tester(t, party), "RolledbackDuplicateKey", nil, effectful)
	})
	t.Run("ExRollbackDuplicateKeyCreated", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc := tester(t, party)
		exerciseFails(t, party, tc, "DuplicateKey", nil, effectful)
		keyed(t, party)
		exerciseFails(t, party, tc, "DuplicateKey", nil, effectful)
	})
	t.Run("ExRollbackDuplicateKeyArchived", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc, withKey := tester(t, party), keyed(t, party)
		exerciseFails(t, party, tc, "DuplicateKey", nil, effectful)
		p.exercise(t, party, withSimpleKey, withKey, "Archive", nil)
		exerciseFails(t, party, tc, "DuplicateKey", nil, effectful)
	})
	t.Run("ExRollbackKeyFetchCreated", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc, withKey := tester(t, party), keyed(t, party)
		onlyRoot(t, p.exercise(t, party, exceptionTester, tc, "FetchKey", nil), "FetchKey")
		p.exercise(t, party, withSimpleKey, withKey, "Archive", nil)
		exerciseFails(t, party, tc, "FetchKey", nil, keyNotFound)
	})
	t.Run("ExRollbackKeyFetchArchived", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc := tester(t, party)
		exerciseFails(t, party, tc, "FetchKey", nil, keyNotFound)
		keyed(t, party)
		onlyRoot(t, p.exercise(t, party, exceptionTester, tc, "FetchKey", nil), "FetchKey")
	})
	t.Run("ExCKRollbackGlobalArchivedLookup", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc, withKey := tester(t, party), keyed(t, party)
		tx := p.exercise(t, party, exceptionTester, tc, "RollbackGlobalArchivedLookup", map[string]any{"cid": withKey})
		if ex := exercisedEvents(tx); len(ex) != 2 || ex[1].Choice != "Archive" || ex[1].ContractID != withKey {
			t.Errorf("exercises %+v, want the root and the archive of %s", ex, withKey)
		}
	})
	t.Run("ExCKRollbackGlobalArchivedCreate", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc, withKey := tester(t, party), keyed(t, party)
		tx := p.exercise(t, party, exceptionTester, tc, "RollbackGlobalArchivedCreate", map[string]any{"cid": withKey})
		if c := createdEvents(tx); len(c) != 1 || !strings.HasSuffix(c[0].TemplateID, ":Exceptions:WithSimpleKey") {
			t.Errorf("creates %+v, want the new WithSimpleKey", c)
		}
	})
	t.Run("ExRollbackExerciseCreateLookup", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc, withKey := tester(t, party), keyed(t, party)
		exerciseFails(t, party, tc, "RollbackExerciseCreateLookup", map[string]any{"cid": withKey}, effectful)
	})
}
