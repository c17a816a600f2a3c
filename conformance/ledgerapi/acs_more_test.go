package ledgerapi

import (
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// ActiveContractsServiceIT.scala's cases on built Test.daml templates
// (Witnesses with WitnessesCreateNewWitnesses, Divulgence1/2,
// WithObservers). The party-wildcard reads keep the contracts created
// after the test's start, as Scala does.
func TestActiveContractsServiceITBuilt(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	witnesses, withObservers := builtTemplate("Witnesses"), builtTemplate("WithObservers")

	// acs reads the ACS at the ledger end for parties (none: any party),
	// keeping the contracts created after offset after.
	acs := func(t *testing.T, after int64, parties ...string) []ledgerapi.CreatedEvent {
		t.Helper()
		var out []ledgerapi.CreatedEvent
		for _, c := range p.activeContracts(t, parties...) {
			if int64(c.Offset) > after {
				out = append(out, c)
			}
		}
		return out
	}

	t.Run("ACSnoWitnessedContracts", func(t *testing.T) {
		start := p.ledgerEnd(t)
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		w := p.create(t, alice, witnesses, map[string]any{"p_signatory": alice, "p_observer": bob, "p_actor": bob})
		tx := p.exercise(t, bob, witnesses, w, "WitnessesCreateNewWitnesses", nil)
		created := createdEvents(tx)
		if len(created) != 1 {
			t.Fatalf("%d created events, want 1", len(created))
		}
		bobContracts, aliceContracts, wildcard := acs(t, 0, bob), acs(t, 0, alice), acs(t, start)
		p.exercise(t, alice, witnesses, w, "Archive", nil)
		p.exercise(t, bob, witnesses, created[0].ContractID, "Archive", nil)
		if len(bobContracts) != 2 {
			t.Errorf("Expected to receive 2 active contracts for %s, but received %d.", bob, len(bobContracts))
		}
		if len(aliceContracts) != 1 {
			t.Errorf("Expected to receive 1 active contracts for %s, but received %d.", alice, len(aliceContracts))
		}
		if len(wildcard) != 2 {
			t.Errorf("Expected to receive 2 active contracts for all parties, but received %d.", len(wildcard))
		}
	})

	t.Run("ACSnoDivulgedContracts", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		div1, div2 := builtTemplate("Divulgence1"), builtTemplate("Divulgence2")
		d1 := p.create(t, alice, div1, map[string]any{"div1Party": alice})
		d2 := p.create(t, bob, div2, map[string]any{"div2Signatory": bob, "div2Fetcher": alice})
		p.exercise(t, alice, div2, d2, "Divulgence2Fetch", map[string]any{"div1ToFetch": d1})
		bobContracts, aliceContracts := acs(t, 0, bob), acs(t, 0, alice)
		p.exercise(t, alice, div1, d1, "Archive", nil)
		p.exercise(t, bob, div2, d2, "Archive", nil)
		if len(bobContracts) != 1 {
			t.Errorf("Expected to receive 1 active contracts for %s, but received %d.", bob, len(bobContracts))
		}
		if len(aliceContracts) != 2 {
			t.Errorf("Expected to receive 2 active contracts for %s, but received %d.", alice, len(aliceContracts))
		}
	})

	t.Run("ACSnoSignatoryObservers", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		cid := p.create(t, alice, withObservers, map[string]any{"giver": alice, "observers": []string{alice, bob}})
		contracts := acs(t, 0, alice)
		p.exercise(t, alice, withObservers, cid, "Archive", nil)
		if len(contracts) == 0 {
			t.Fatal("no active contract")
		}
		for _, c := range contracts {
			if !slices.Equal(c.Observers, []string{bob}) {
				t.Errorf("Expected observers to only contain %s, but received %v", bob, c.Observers)
			}
		}
	})

	t.Run("ACFilterWitnesses", func(t *testing.T) {
		start := p.ledgerEnd(t)
		alice, bob, charlie := p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "charlie")
		cid := p.create(t, alice, withObservers, map[string]any{"giver": alice, "observers": []string{bob, charlie}})
		reads := []struct {
			got  []ledgerapi.CreatedEvent
			want []string
		}{
			{acs(t, 0, bob), []string{bob}},
			{acs(t, 0, alice, bob), []string{alice, bob}},
			{acs(t, 0, bob, charlie), []string{bob, charlie}},
			{acs(t, start), []string{alice, bob, charlie}},
		}
		p.exercise(t, alice, withObservers, cid, "Archive", nil)
		for _, r := range reads {
			if len(r.got) != 1 {
				t.Errorf("Expected to receive 1 active contracts for %v, but received %d.", r.want, len(r.got))
				continue
			}
			got := slices.Clone([]string(r.got[0].WitnessParties))
			slices.Sort(got)
			want := slices.Clone(r.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Expected witness parties to equal to %v, but received %v", r.want, r.got[0].WitnessParties)
			}
		}
	})

	t.Run("ACSFilterCombinations", func(t *testing.T) {
		templates := []string{builtTemplate("TriAgreement"), builtTemplate("TriProposal"), withObservers}
		ps := []string{p.allocate(t, "p1"), p.allocate(t, "p2"), p.allocate(t, "p3")}
		combinations := [][]int{{0}, {1}, {2}, {0, 1}, {1, 2}, {0, 2}, {0, 1, 2}}
		type coord struct{ template, combination int }
		start := p.ledgerEnd(t)
		// three contracts per template and party combination, created by
		// (and signed by) the parties of the combination
		all := map[coord][]string{}
		for ci, comb := range combinations {
			var set []string
			for _, i := range comb {
				set = append(set, ps[i])
			}
			three := []string{set[0], set[min(1, len(set)-1)], set[len(set)-1]}
			args := []map[string]any{
				{"operator": three[0], "receiver": three[1], "giver": three[2]},
				{"operator": three[0], "receiver": three[1], "giver": three[2]},
				{"giver": set[0], "observers": set},
			}
			for ti, tpl := range templates {
				for range 3 {
					body := p.jsCommands(set, createCmd(tpl, args[ti]))
					body["readAs"] = set
					var resp struct {
						Transaction ledgerapi.Transaction `json:"transaction"`
					}
					p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{"commands": body,
						"transactionFormat": map[string]any{"eventFormat": ledgerapi.EventFormatOf(set, nil, nil, false),
							"transactionShape": ledgerapi.TransactionShapeACSDelta}}, &resp)
					created := createdEvents(resp.Transaction)
					if len(created) != 1 {
						t.Fatalf("create %s for %v: %d created events", tpl, set, len(created))
					}
					all[coord{ti, ci}] = append(all[coord{ti, ci}], created[0].ContractID)
				}
			}
		}
		// A filter maps a party index (-1: any party) to template indices
		// (none: every template).
		const w = -1
		type filter map[int][]int
		filters := []filter{
			{0: nil}, {0: {0}}, {0: {1}}, {0: {2}}, {0: {0, 1}}, {0: {0, 2}}, {0: {1, 2}}, {0: {0, 1, 2}},
			{0: nil, 1: nil}, {0: nil, 2: nil}, {0: nil, 1: nil, 2: nil}, {0: {0}, 1: {1}}, {0: {0}, 1: {1}, 2: {2}},
			{0: {0, 1}, 1: {0, 2}}, {0: {0, 1}, 1: {0, 2}, 2: {1, 2}}, {0: nil, 1: {0}}, {0: nil, 1: {0}, 2: {1, 2}}, {0: nil},
			{w: {0}}, {w: {1}}, {w: {2}}, {w: {0, 1}}, {w: {0, 2}}, {w: {1, 2}}, {w: {0, 1, 2}},
			{w: nil, 1: nil}, {0: nil, w: nil}, {0: nil, w: nil, 2: nil}, {w: {0}, 1: {1}}, {0: {0}, w: {1}},
			{0: {0}, 1: {1}, w: {2}}, {0: {0, 1}, w: {0, 2}}, {w: {0, 1}, 1: {0, 2}, 2: {1, 2}}, {w: nil, 1: {0}},
			{0: nil, w: {0}}, {w: nil, 1: {0}, 2: {1, 2}}, {0: nil, w: {0}, 2: {1, 2}}, {0: nil, 1: {0}, w: {1, 2}},
			{0: nil, w: {0}, 2: {1, 2}},
		}
		filtersOf := func(tis []int) ledgerapi.Filters {
			if len(tis) == 0 {
				return ledgerapi.Filters{Cumulative: ledgerapi.List[ledgerapi.CumulativeFilter]{}}
			}
			f := ledgerapi.Filters{}
			for _, ti := range tis {
				f.Cumulative = append(f.Cumulative, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
					Template: &ledgerapi.TemplateFilter{TemplateID: templates[ti]}}})
			}
			return f
		}
		for _, f := range filters {
			ef := ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{}, Verbose: true}
			expected := map[coord]bool{}
			for party, tis := range f {
				if party == w {
					anyParty := filtersOf(tis)
					if len(tis) == 0 {
						anyParty.Cumulative = append(anyParty.Cumulative, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
							Wildcard: &ledgerapi.WildcardFilter{}}})
					}
					ef.FiltersForAnyParty = &anyParty
				} else {
					ef.FiltersByParty[ps[party]] = filtersOf(tis)
				}
				forTemplates := tis
				if len(forTemplates) == 0 {
					forTemplates = []int{0, 1, 2}
				}
				for _, ti := range forTemplates {
					for ci, comb := range combinations {
						if party == w || slices.Contains(comb, party) {
							expected[coord{ti, ci}] = true
						}
					}
				}
			}
			var els []ledgerapi.JsGetActiveContractsResponse
			p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"eventFormat": ef, "activeAtOffset": p.ledgerEnd(t)}, &els)
			got := map[string]int{}
			for _, el := range els {
				if ac := el.ContractEntry.ActiveContract; ac != nil && int64(ac.CreatedEvent.Offset) > start {
					got[ac.CreatedEvent.ContractID]++
				}
			}
			want := 0
			for c, ids := range all {
				for _, id := range ids {
					if got[id] > 1 {
						t.Errorf("Filter %v: ACS returned redundant entries %s", f, id)
					}
					if expected[c] && got[id] == 0 {
						t.Errorf("Filter %v: %+v is missing from result", f, c)
					}
					if !expected[c] && got[id] > 0 {
						t.Errorf("Filter %v: %+v is present (too many contracts in result)", f, c)
					}
				}
				if expected[c] {
					want += len(ids)
				}
			}
			if len(got) != want {
				t.Errorf("Filter %v: %d contracts, want %d", f, len(got), want)
			}
		}
	})
}
