package ledgerapi

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The TransactionServiceFiltersIT compositions of template and interface
// filters, with and without created event blobs, on the test token: I2 is
// Holding; T5 a TokenTransferOffer (named by a template filter, implements
// Holding), T6 a Token (implements Holding, no template filter), T3 a
// TokenRules (named by a template filter, implements no Holding), T4 a Ping
// (neither). TSFExercisedTemplateFilters runs on the generic model's Dummy
// and DummyWithParam, as the Scala case does on model-tests.
func TestTransactionServiceFiltersITCompositions(t *testing.T) {
	p := startParticipant(t, node.Config{NonconsumingChoices: []string{"DummyNonConsuming"}})
	p.upload(t, pingDar(t))
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))
	acs, le := ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects

	type contracts struct{ t5, t6, t3, t4 string }
	create := func(t *testing.T, party string) contracts {
		t.Helper()
		return contracts{
			t5: p.create(t, party, testTokenOffer, offerArgs(party, party, party)),
			t6: p.create(t, party, testToken, tokenArgs(party, party)),
			t3: p.create(t, party, testTokenRules, map[string]any{"admin": party}),
			t4: p.create(t, party, pingTemplate, pingArgs(party, party)),
		}
	}
	archive := func(t *testing.T, party string, c contracts) {
		t.Helper()
		p.exercise(t, party, testTokenOffer, c.t5, "Archive", nil)
		p.exercise(t, party, testToken, c.t6, "Archive", nil)
		p.exercise(t, party, testTokenRules, c.t3, "Archive", nil)
		p.exercise(t, party, pingTemplate, c.t4, "Archive", nil)
	}
	// format is the test tool's createEventFormat merged: the template
	// filters on T3 and T5 by party (or for any party), the interface
	// filter on I2 by party (or for any party).
	format := func(party string, templatesAnyParty, interfaceAnyParty, templateBlob, interfaceBlob bool) ledgerapi.EventFormat {
		tf := filtersOf([]string{testTokenRules, testTokenOffer}, nil, templateBlob)
		ifc := filtersOf(nil, [][2]any{{holdingInterface, true}}, interfaceBlob)
		ef := ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{}, Verbose: true}
		add := func(f ledgerapi.Filters, anyParty bool) {
			if anyParty {
				if ef.FiltersForAnyParty == nil {
					ef.FiltersForAnyParty = &ledgerapi.Filters{}
				}
				ef.FiltersForAnyParty.Cumulative = append(ef.FiltersForAnyParty.Cumulative, f.Cumulative...)
				return
			}
			g := ef.FiltersByParty[party]
			g.Cumulative = append(g.Cumulative, f.Cumulative...)
			ef.FiltersByParty[party] = g
		}
		add(tf, templatesAnyParty)
		add(ifc, interfaceAnyParty)
		return ef
	}
	acsOf := func(t *testing.T, f ledgerapi.EventFormat) []ledgerapi.CreatedEvent {
		t.Helper()
		var els []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t), "eventFormat": f}, &els)
		var out []ledgerapi.CreatedEvent
		for _, el := range els {
			if ac := el.ContractEntry.ActiveContract; ac != nil {
				out = append(out, ac.CreatedEvent)
			}
		}
		return out
	}
	// basic is the test tool's basicAssertions.
	basic := func(t *testing.T, what string, evs []ledgerapi.CreatedEvent, c contracts, blobFromInterfaces, blobFromTemplates bool) {
		t.Helper()
		if len(evs) != 3 {
			t.Fatalf("%s: 3 transactions found: %d", what, len(evs))
		}
		check := func(i int, cid, template string, views int, blob bool) {
			ev := evs[i]
			if ev.ContractID != cid || !strings.HasSuffix(ev.TemplateID, template) {
				t.Errorf("%s: Create event %d: %s %s, want %s (%s)", what, i+1, ev.ContractID, ev.TemplateID, cid, template)
			}
			if len(ev.InterfaceViews) != views {
				t.Errorf("%s: Create event %d has %d views, want %d", what, i+1, len(ev.InterfaceViews), views)
			}
			if len(ev.CreateArgument) == 0 || string(ev.CreateArgument) == "null" {
				t.Errorf("%s: Create event %d createArguments must NOT be empty", what, i+1)
			}
			if got := len(ev.CreatedEventBlob) > 0; got != blob {
				t.Errorf("%s: Create event %d has a createdEventBlob: %v, want %v", what, i+1, got, blob)
			}
		}
		check(0, c.t5, ":TokenTransferOffer", 1, blobFromInterfaces || blobFromTemplates)
		check(1, c.t6, tokenTemplateShort, 1, blobFromInterfaces)
		check(2, c.t3, ":TokenRules", 0, blobFromTemplates)
	}
	// compositions reads one set of contracts under the four mixes of
	// by-party and any-party filters (Scala creates a set per mix; the
	// other mixes' contracts are archived by then, so they read the same).
	compositions := func(t *testing.T, templateBlob, interfaceBlob bool) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		c := create(t, party)
		for _, m := range []struct {
			name                           string
			templatesAnyParty, ifaceAnyPty bool
		}{{"party", false, false}, {"any party", true, true}, {"template by party, interface any party", false, true}, {"template any party, interface by party", true, false}} {
			f := format(party, m.templatesAnyParty, m.ifaceAnyPty, templateBlob, interfaceBlob)
			basic(t, m.name+", acs delta", createdOf(p.transactionsWith(t, f, acs, begin)), c, interfaceBlob, templateBlob)
			basic(t, m.name+", active contracts", acsOf(t, f), c, interfaceBlob, templateBlob)
			basic(t, m.name+", ledger effects", createdOf(p.transactionsWith(t, f, le, begin)), c, interfaceBlob, templateBlob)
		}
		archive(t, party, c)
	}

	for _, s := range []struct {
		name                        string
		templateBlob, interfaceBlob bool
	}{
		{"TSFInterfaceTemplatePlainFilters", false, false},
		{"TSFInterfaceTemplateFiltersWithEventBlobs", true, false},
		{"TSFInterfaceWithEventBlobsTemplatePlainFilters", false, true},
		{"TSFInterfaceWithEventBlobsTemplateFiltersWithEventBlobs", true, true},
	} {
		t.Run(s.name, func(t *testing.T) { compositions(t, s.templateBlob, s.interfaceBlob) })
	}

	t.Run("TSFTemplateWildcardFiltersWithEventBlobs", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		c := create(t, party)
		f := ledgerapi.EventFormatOf([]string{party}, nil, nil, true)
		for what, evs := range map[string][]ledgerapi.CreatedEvent{
			"acs delta":        createdOf(p.transactionsWith(t, f, acs, begin)),
			"ledger effects":   createdOf(p.transactionsWith(t, f, le, begin)),
			"active contracts": acsOf(t, f),
		} {
			if len(evs) != 4 {
				t.Errorf("%s: 4 transactions found: %d", what, len(evs))
			}
			for _, ev := range evs {
				if len(ev.CreatedEventBlob) == 0 {
					t.Errorf("%s: Create event %s createdEventBlob must NOT be empty", what, ev.ContractID)
				}
			}
		}
		archive(t, party, c)
	})

	t.Run("TSFExercisedTemplateFilters", func(t *testing.T) {
		for _, anyParty := range []bool{false, true} {
			party1, party2 := p.allocate(t, "party"), p.allocate(t, "party")
			begin := p.ledgerEnd(t)
			dummy1 := p.create(t, party1, dummy, map[string]any{"operator": party1})
			dummy2 := p.create(t, party2, dummy, map[string]any{"operator": party2})
			withParam := p.create(t, party1, dummyWithParam, map[string]any{"operator": party1})
			p.exercise(t, party1, dummy, dummy1, "DummyNonConsuming", nil)
			p.exercise(t, party2, dummy, dummy2, "DummyNonConsuming", nil)
			p.exercise(t, party1, dummyWithParam, withParam, "DummyChoice2", map[string]any{"paramString": ""})
			p.exercise(t, party1, dummy, dummy1, "Archive", nil)
			p.exercise(t, party2, dummy, dummy2, "Archive", nil)
			f := ledgerapi.EventFormatOf([]string{party1}, []string{dummy}, nil, false)
			want := 2
			if anyParty {
				f, want = ledgerapi.EventFormatOf(nil, []string{dummy}, nil, false), 4
			}
			var exercised []ledgerapi.ExercisedEvent
			for _, tx := range p.transactionsWith(t, f, le, begin) {
				for _, ev := range tx.Events {
					if ev.Exercised != nil {
						exercised = append(exercised, *ev.Exercised)
					}
				}
			}
			if len(exercised) != want {
				t.Errorf("any party %v: %d exercised events should have been found: %d", anyParty, want, len(exercised))
			}
			for _, ev := range exercised {
				if !strings.HasSuffix(ev.TemplateID, ":Test:Dummy") {
					t.Errorf("Exercised event of Dummy template ID: %s", ev.TemplateID)
				}
			}
		}
	})
}
