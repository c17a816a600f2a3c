package events

import (
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// A ledger-effects event is acsDelta only for readers among its
// stakeholders: Bob, who sees Alice's contract created under his own
// exercise (immediate divulgence), gets it without the flag; Alice gets
// it with (DivulgenceIT ImmediateDivulgenceTx).
func TestLedgerEffectsACSDeltaNeedsAStakeholder(t *testing.T) {
	const alice, bob = "alice::1220", "bob::1220"
	ev := New([]Node{
		{NodeID: 0, Kind: KindExercise, ContractID: "00d2", TemplateID: "p:M:Div2", Signatories: []string{bob},
			Stakeholders: []string{alice, bob}, Choice: "Divulge", ActingParties: []string{alice}, LastDescendant: 2, Witnesses: []string{alice, bob}},
		{NodeID: 1, Kind: KindCreate, ContractID: "00d1", TemplateID: "p:M:Div1", Signatories: []string{alice},
			Stakeholders: []string{alice}, Witnesses: []string{alice, bob}},
		{NodeID: 2, Kind: KindExercise, ContractID: "00d0", TemplateID: "p:M:Div1", Signatories: []string{alice},
			Stakeholders: []string{alice}, Choice: "Archive", ActingParties: []string{alice}, Consuming: true, LastDescendant: 2, Witnesses: []string{alice, bob}},
	}, "1220ab", "c", "", "local::1220", time.Unix(0, 0), nil)
	at := ledger.Committed{Offset: 7, RecordTime: time.Unix(0, 0)}
	for _, c := range []struct {
		reader string
		want   bool
	}{{bob, false}, {alice, true}} {
		tx := ev.Transaction(at, ledgerapi.TransactionShapeLedgerEffects, []string{c.reader})
		if len(tx.Events) != 3 {
			t.Fatalf("%s sees %d events, want 3", c.reader, len(tx.Events))
		}
		if got := tx.Events[1].Created.ACSDelta; got != c.want {
			t.Errorf("%s: the create of a contract of alice's has acsDelta %v, want %v", c.reader, got, c.want)
		}
		if got := tx.Events[2].Exercised.ACSDelta; got != c.want {
			t.Errorf("%s: the archive of a contract of alice's has acsDelta %v, want %v", c.reader, got, c.want)
		}
	}
}
