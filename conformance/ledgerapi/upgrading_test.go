package ledgerapi

import (
	"strings"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// modelTestsDummy is the test tool's model-tests package as far as
// UpgradingIT reads it: Test.daml's Dummy with its non-consuming choice,
// under the package name "model-tests" the Scala messages quote.
func modelTestsDummy() *lb.Package {
	pkg := lb.New("model-tests", "1.0.0", "Test")
	pkg.Record("Archive")
	pkg.Record("DummyNonConsuming")
	pkg.Record("Dummy", lb.F("operator", lb.TParty))
	sigs := parties(field("Dummy", "operator"))
	pkg.Template(lb.Template{Name: "Dummy", Param: "this", Signatories: sigs, Choices: []lb.Choice{
		lb.Archive("Archive", sigs),
		choice("DummyNonConsuming", false, sigs, lb.TUnit, lb.Pure(lb.TUnit, lb.Unit)),
	}})
	return pkg
}

// upgradeFetchModel is UpgradeFetch.daml of upgrade_fetch/1.0.0 or, with
// v2, 2.0.0: Fetcher gains an optional field i.
func upgradeFetchModel(v2 bool) *lb.Package {
	version, fields := "1.0.0", []lb.Field{lb.F("owner", lb.TParty)}
	if v2 {
		version, fields = "2.0.0", append(fields, lb.F("i", lb.TOptional(lb.TInt64)))
	}
	pkg := lb.New("upgrade-fetch-tests", version, "UpgradeFetch")
	pkg.Record("Archive")
	pkg.Record("Fetcher", fields...)
	pkg.Record("Fetch", lb.F("cid", lb.TContractID(lb.TCon("Fetcher"))))
	sigs := parties(field("Fetcher", "owner"))
	pkg.Template(lb.Template{Name: "Fetcher", Param: "this", Signatories: sigs, Choices: []lb.Choice{
		lb.Archive("Archive", sigs),
		choice("Fetch", false, sigs, lb.TCon("Fetcher"), lb.Fetch("Fetcher", argField("Fetch", "cid"))),
	}})
	return pkg
}

// UpgradingIT.scala: package names in filters and events, and a choice
// exercised by package name runs the newest uploaded version. The node
// runs with --strict-packages: without it a package name never uploaded
// is the generic model's (docs/conformance.md).
func TestUpgradingIT(t *testing.T) {
	p := startParticipant(t, node.Config{StrictPackages: true})
	dummyPkg := modelTestsDummy()
	dar, dummyPkgID := dummyPkg.DAR()
	p.upload(t, dar)
	const dummy = "#model-tests:Test:Dummy"

	// refused checks the three reads the Scala suite opens on filter: ACS
	// delta and ledger-effects updates, active contracts.
	refused := func(t *testing.T, party, template string, f failure) {
		t.Helper()
		for _, shape := range []ledgerapi.TransactionShape{ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects} {
			p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": 0,
				"updateFormat": map[string]any{"includeTransactions": map[string]any{
					"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{template}, nil, false), "transactionShape": shape}}}, f)
		}
		p.mustFail(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t),
			"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{template}, nil, false)}, f)
	}
	t.Run("USubscriptionsUnknownPackageNames", func(t *testing.T) {
		refused(t, p.allocate(t, "party"), "#unknownPkgName:module:entity", failure{code: "PACKAGE_NAMES_NOT_FOUND",
			cause: "The following package names do not match upgradable packages uploaded on this participant: [unknownPkgName]."})
	})
	t.Run("USubscriptionsNoTemplatesForPackageName", func(t *testing.T) {
		refused(t, p.allocate(t, "party"), "#model-tests:unknownModule:unknownEntity", failure{code: "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
			cause: "The following package-name/template qualified-name pairs do not reference any template-id uploaded on this participant: [(model-tests,unknownModule:unknownEntity)]."})
	})

	// dummyUpdates are party's transactions of shape filtered to Dummy.
	dummyUpdates := func(t *testing.T, party string, shape ledgerapi.TransactionShape) []ledgerapi.Transaction {
		t.Helper()
		var els []struct {
			Update ledgerapi.JsUpdate `json:"update"`
		}
		p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": 0, "endInclusive": p.ledgerEnd(t),
			"updateFormat": map[string]any{"includeTransactions": map[string]any{
				"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{dummy}, nil, false), "transactionShape": shape}}}, &els)
		var out []ledgerapi.Transaction
		for _, el := range els {
			if el.Update.Transaction != nil {
				out = append(out, *el.Update.Transaction)
			}
		}
		return out
	}
	dummyACS := func(t *testing.T, party string) []ledgerapi.CreatedEvent {
		t.Helper()
		var els []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t),
			"eventFormat": ledgerapi.EventFormatOf([]string{party}, []string{dummy}, nil, false)}, &els)
		var out []ledgerapi.CreatedEvent
		for _, el := range els {
			if ac := el.ContractEntry.ActiveContract; ac != nil {
				out = append(out, ac.CreatedEvent)
			}
		}
		return out
	}
	t.Run("UPackageNameInEvents", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, dummy, map[string]any{"operator": party})
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, exerciseCmd(dummy, cid, "DummyNonConsuming", nil)), nil)
		acs := dummyACS(t, party)
		if len(acs) != 1 || acs[0].PackageName != "model-tests" {
			t.Fatalf("ACS before archive %+v, want one Dummy of package name model-tests", acs)
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, exerciseCmd(dummy, cid, "Archive", nil)), nil)
		for _, shape := range []ledgerapi.TransactionShape{ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects} {
			// The Scala suite takes the first two of each stream: in ledger
			// effects the create and the non-consuming exercise.
			txs := dummyUpdates(t, party, shape)
			if len(txs) < 2 || shape == ledgerapi.TransactionShapeACSDelta && len(txs) != 2 {
				t.Errorf("%s: %d transactions, want 2", shape, len(txs))
			}
			for _, tx := range txs[:min(2, len(txs))] {
				for _, ev := range tx.Events {
					var name string
					switch {
					case ev.Created != nil:
						name = ev.Created.PackageName
					case ev.Archived != nil:
						name = ev.Archived.PackageName
					case ev.Exercised != nil:
						name = ev.Exercised.PackageName
					}
					if name != "model-tests" {
						t.Errorf("%s: event %+v has package name %q", shape, ev, name)
					}
				}
			}
		}
	})
	t.Run("URepresentativePackageIdInEvents", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, dummy, map[string]any{"operator": party})
		acs := dummyACS(t, party)
		if len(acs) != 1 || acs[0].RepresentativePackageID != dummyPkgID {
			t.Errorf("ACS %+v, want one create whose representative package id is %s", acs, dummyPkgID)
		}
		for _, shape := range []ledgerapi.TransactionShape{ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects} {
			txs := dummyUpdates(t, party, shape)
			if len(txs) != 1 || len(txs[0].Events) != 1 || txs[0].Events[0].Created == nil ||
				txs[0].Events[0].Created.RepresentativePackageID != dummyPkgID {
				t.Errorf("%s: %+v, want one create whose representative package id is %s", shape, txs, dummyPkgID)
			}
		}
	})
	t.Run("UChoicePackageId", func(t *testing.T) {
		party := p.allocate(t, "party")
		const fetcher = "#upgrade-fetch-tests:UpgradeFetch:Fetcher"
		v1, v1ID := upgradeFetchModel(false).DAR()
		v2, v2ID := upgradeFetchModel(true).DAR()
		p.upload(t, v1)
		cid := p.create(t, party, fetcher, map[string]any{"owner": party})
		var exercised []*ledgerapi.ExercisedEvent
		exercised = append(exercised, exercisedEvents(p.exercise(t, party, fetcher, cid, "Fetch", map[string]any{"cid": cid}))...)
		p.upload(t, v2) // v2 becomes the default package for Fetcher
		exercised = append(exercised, exercisedEvents(p.exercise(t, party, fetcher, cid, "Fetch", map[string]any{"cid": cid}))...)
		if len(exercised) != 2 {
			t.Fatalf("%d exercises, want 2", len(exercised))
		}
		for i, want := range []string{v1ID, v2ID} {
			if !strings.HasPrefix(exercised[i].TemplateID, want+":") {
				t.Errorf("exercise %d reports template %s, want the one of package %s", i+1, exercised[i].TemplateID, want)
			}
			// v2's result has i = None, a trailing None the JSON leaves out.
			sameJSON(t, "exercise result", exercised[i].ExerciseResult, map[string]any{"owner": party})
		}
	})
}
