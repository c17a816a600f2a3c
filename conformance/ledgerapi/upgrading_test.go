package ledgerapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/internal/dalfedit"
	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// upgradedDar is dar with its main package at version: the same code
// under a new package id, a valid upgrade of the original.
func upgradedDar(t *testing.T, dar []byte, version string) []byte {
	t.Helper()
	out, err := dalfedit.EditMainDalf(dar, func(p *dalfedit.Package) error { return p.SetVersion(version) })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// UpgradingIT.scala. The upgrade test DARs (UA/UB at 1.0.0, 2.0.0, 3.0.0,
// Fetcher at 1.0.0 and 2.0.0) are real DARs made newer in the test: the
// test token 1.0.0 and a copy at 1.0.1, Ping 3.4.0 and a copy at 3.4.1
// (internal/dalfedit changes the package version, so the package id). Both
// versions have the same code, so what differs from one to the other is
// only the package: which one the node prefers, reports and renders views
// with.
func TestUpgradingIT(t *testing.T) {
	// StrictPackages: Canton has no generic model, so an unknown package
	// name in a filter is PACKAGE_NAMES_NOT_FOUND.
	p := startParticipant(t, node.Config{StrictPackages: true})
	ping := pingDar(t)
	p.upload(t, ping)
	le, acs := ledgerapi.TransactionShapeLedgerEffects, ledgerapi.TransactionShapeACSDelta
	templateFormat := func(party, template string) ledgerapi.EventFormat {
		return ledgerapi.EventFormatOf([]string{party}, []string{template}, nil, false)
	}
	updates := func(party, template string, shape ledgerapi.TransactionShape) map[string]any {
		return map[string]any{"beginExclusive": 0, "updateFormat": map[string]any{"includeTransactions": map[string]any{
			"eventFormat": templateFormat(party, template), "transactionShape": shape}}}
	}
	// failsEverywhere is the Scala trio: the ACS-delta and ledger-effects
	// transaction streams and the active contracts refuse the filter.
	failsEverywhere := func(t *testing.T, party, template string, f failure) {
		t.Helper()
		p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", updates(party, template, acs), f)
		p.mustFail(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t),
			"eventFormat": templateFormat(party, template)}, f)
		p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", updates(party, template, le), f)
	}

	t.Run("USubscriptionsUnknownPackageNames", func(t *testing.T) {
		party := p.allocate(t, "party")
		failsEverywhere(t, party, "#unknownPkgName:module:entity", failure{code: "PACKAGE_NAMES_NOT_FOUND",
			cause: "The following package names do not match upgradable packages uploaded on this participant: [unknownPkgName]."})
	})

	t.Run("USubscriptionsNoTemplatesForPackageName", func(t *testing.T) {
		party := p.allocate(t, "party")
		failsEverywhere(t, party, "#canton-builtin-admin-workflow-ping:unknownModule:unknownEntity", failure{code: "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
			cause: "The following package-name/template qualified-name pairs do not reference any template-id uploaded on this participant: [(canton-builtin-admin-workflow-ping,unknownModule:unknownEntity)]."})
	})

	t.Run("UDynamicSubscriptions", func(t *testing.T) {
		// The test token is uploaded for this case only.
		q := p
		v1 := sharedDar(t, "splice-test-token-v1-1.0.0.dar")
		v2 := upgradedDar(t, v1, "1.0.1")
		v1ID, v2ID := mainPackage(t, v1), mainPackage(t, v2)
		q.upload(t, v1)
		party := q.allocate(t, "party")
		holdingFormat := ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{
			party: filtersOf(nil, [][2]any{{holdingInterface, true}}, false)}, Verbose: true}
		// implementations are the implementation packages of the Holding
		// views of evs, in order.
		implementations := func(evs []ledgerapi.CreatedEvent) []string {
			var out []string
			for _, ev := range evs {
				for _, v := range ev.InterfaceViews {
					if v.ImplementationPackageID != nil {
						out = append(out, *v.ImplementationPackageID)
					} else {
						out = append(out, "")
					}
				}
			}
			return out
		}
		acsHolding := func() []ledgerapi.CreatedEvent {
			var els []ledgerapi.JsGetActiveContractsResponse
			q.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": q.ledgerEnd(t), "eventFormat": holdingFormat}, &els)
			var out []ledgerapi.CreatedEvent
			for _, el := range els {
				if ac := el.ContractEntry.ActiveContract; ac != nil {
					out = append(out, ac.CreatedEvent)
				}
			}
			return out
		}
		byContractID := func(cid string) ledgerapi.CreatedEvent {
			var r struct {
				Created *struct {
					CreatedEvent ledgerapi.CreatedEvent `json:"createdEvent"`
				} `json:"created"`
			}
			q.ok(t, "POST", "/v2/events/events-by-contract-id", map[string]any{"contractId": cid, "eventFormat": holdingFormat}, &r)
			if r.Created == nil {
				t.Fatalf("no created event for %s", cid)
			}
			return r.Created.CreatedEvent
		}
		// subscribe opens a Holding subscription that ends after n
		// transactions.
		subscribe := func(n int) <-chan []ledgerapi.CreatedEvent {
			begin := q.ledgerEnd(t)
			out := make(chan []ledgerapi.CreatedEvent, 1)
			go func() {
				var els []ledgerapi.JsGetUpdatesResponse
				a := q.do(t, "POST", "/v2/updates?stream_idle_timeout_ms=5000&limit="+itoa(n), q.admin, map[string]any{"beginExclusive": begin,
					"updateFormat": map[string]any{"includeTransactions": map[string]any{"eventFormat": holdingFormat, "transactionShape": acs}}})
				_ = json.Unmarshal(a.body, &els)
				var txs []ledgerapi.Transaction
				for _, el := range els {
					if el.Update.Transaction != nil {
						txs = append(txs, *el.Update.Transaction)
					}
				}
				out <- createdOf(txs)
			}()
			time.Sleep(50 * time.Millisecond)
			return out
		}
		create := func(pkg string) string {
			template := testToken
			if pkg != "" {
				template = pkg + tokenTemplateShort
			}
			return q.create(t, party, template, tokenArgs(party, party))
		}

		atV1 := subscribe(3)
		c1 := create("")
		if got := implementations(acsHolding()); len(got) != 1 || got[0] != v1ID {
			t.Errorf("ACS before the v2 upload: implementation packages %v, want [%s]", got, v1ID)
		}
		q.upload(t, v2)
		if got := implementations(acsHolding()); len(got) != 1 || got[0] != v2ID {
			t.Errorf("ACS after the v2 upload: implementation packages %v, want [%s]", got, v2ID)
		}
		if got := implementations([]ledgerapi.CreatedEvent{byContractID(c1)}); len(got) != 1 || got[0] != v2ID {
			t.Errorf("GetEventsByContractId after the v2 upload: implementation packages %v, want [%s]", got, v2ID)
		}
		atV2 := subscribe(2)
		c2 := create("")   // by package name: v2, the preferred package
		c3 := create(v1ID) // by package id: v1
		creates := <-atV1
		if len(creates) != 3 || creates[0].ContractID != c1 || creates[1].ContractID != c2 || creates[2].ContractID != c3 {
			t.Fatalf("subscription at v1: %d creates", len(creates))
		}
		// A stream picks the implementation package of a view the first
		// time it renders one and keeps it (Scala's "Iface1 at v1" renders
		// create 4, made after the v3 upload, with v2, its first choice):
		// here the first view was rendered before the v2 upload.
		if got := implementations(creates); len(got) != 3 || got[0] != v1ID || got[1] != v1ID || got[2] != v1ID {
			t.Errorf("subscription at v1: implementation packages %v, want v1 %s throughout", got, v1ID)
		}
		if got := <-atV2; len(got) != 2 || got[0].ContractID != c2 || got[1].ContractID != c3 {
			t.Errorf("subscription at v2: %+v", got)
		} else if impl := implementations(got); len(impl) != 2 || impl[0] != v2ID || impl[1] != v2ID {
			t.Errorf("subscription at v2: implementation packages %v, want v2 %s", impl, v2ID)
		}
		if !strings.HasPrefix(creates[1].TemplateID, v2ID+":") || !strings.HasPrefix(creates[2].TemplateID, v1ID+":") {
			t.Errorf("template ids: by name %s (want v2), by id %s (want v1)", creates[1].TemplateID, creates[2].TemplateID)
		}
	})

	t.Run("UPackageNameInEvents", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, pingTemplate, pingArgs(party, party))
		var acsBefore []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t),
			"eventFormat": templateFormat(party, pingTemplate)}, &acsBefore)
		p.exercise(t, party, pingTemplate, cid, "AbortPing", map[string]any{"anyone": party})
		if len(acsBefore) != 1 || acsBefore[0].ContractEntry.ActiveContract == nil ||
			acsBefore[0].ContractEntry.ActiveContract.CreatedEvent.PackageName != "canton-builtin-admin-workflow-ping" {
			t.Fatalf("Ping template ACS before archive: %+v", acsBefore)
		}
		for _, shape := range []ledgerapi.TransactionShape{acs, le} {
			txs := p.transactionsWith(t, templateFormat(party, pingTemplate), shape, 0)
			if len(txs) != 2 {
				t.Errorf("%s transactions for Ping template: %d, want 2", shape, len(txs))
			}
			for _, tx := range txs {
				for _, ev := range tx.Events {
					name := ""
					switch {
					case ev.Created != nil:
						name = ev.Created.PackageName
					case ev.Archived != nil:
						name = ev.Archived.PackageName
					case ev.Exercised != nil:
						name = ev.Exercised.PackageName
					}
					if name != "canton-builtin-admin-workflow-ping" {
						t.Errorf("%s: Package name in event %q", shape, name)
					}
				}
			}
		}
	})

	t.Run("URepresentativePackageIdInEvents", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		cid := p.create(t, party, pingTemplate, pingArgs(party, party))
		pingID := mainPackage(t, ping)
		for _, ev := range p.activeContracts(t, party) {
			if ev.ContractID == cid && ev.RepresentativePackageID != pingID {
				t.Errorf("ACS created event representative package-id %q, want %s", ev.RepresentativePackageID, pingID)
			}
		}
		for _, shape := range []ledgerapi.TransactionShape{acs, le} {
			created := createdOf(p.transactionsWith(t, templateFormat(party, pingTemplate), shape, begin))
			if len(created) != 1 || created[0].RepresentativePackageID != pingID {
				t.Errorf("%s created event representative package-id: %+v, want %s", shape, created, pingID)
			}
		}
		p.exercise(t, party, pingTemplate, cid, "AbortPing", map[string]any{"anyone": party})
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

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
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
