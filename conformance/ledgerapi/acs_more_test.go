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
}
