package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceFiltersIT.scala, the wildcard cases: created events
// keep their arguments under party and party-wildcard filters. The test
// tool's T3..T6 are the generic model's Dummy, DummyWithParam and
// DummyFactory and Canton's Ping.
func TestTransactionServiceFiltersIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))

	for _, s := range []struct {
		name  string
		shape ledgerapi.TransactionShape
	}{{"TransactionAcsDeltaWildcardFilters", ledgerapi.TransactionShapeACSDelta}, {"TransactionLedgerEffectsWildcardFilters", ledgerapi.TransactionShapeLedgerEffects}} {
		t.Run(s.name, func(t *testing.T) {
			party := p.allocate(t, "party")
			begin := p.ledgerEnd(t)
			templates := []string{dummy, dummyWithParam, dummyFactory}
			var cids []string
			for _, tmpl := range templates {
				cids = append(cids, p.create(t, party, tmpl, map[string]any{"operator": party}))
			}
			ping := p.create(t, party, pingTemplate, pingArgs(party, party))
			for i, tmpl := range templates {
				p.exercise(t, party, tmpl, cids[i], "Archive", nil)
			}
			p.exercise(t, party, pingTemplate, ping, "Archive", nil)
			for _, parties := range [][]string{{party}, nil} {
				var els []struct {
					Update ledgerapi.JsUpdate `json:"update"`
				}
				p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": begin, "endInclusive": p.ledgerEnd(t),
					"updateFormat": map[string]any{"includeTransactions": map[string]any{
						"eventFormat": ledgerapi.EventFormatOf(parties, nil, nil, false), "transactionShape": s.shape}}}, &els)
				n := 0
				for _, el := range els {
					if tx := el.Update.Transaction; tx != nil {
						for _, ev := range tx.Events {
							if c := ev.Created; c != nil {
								n++
								if len(c.CreateArgument) == 0 || string(c.CreateArgument) == "null" {
									t.Errorf("Create event contract arguments must NOT be empty for %s", c.ContractID)
								}
							}
						}
					}
				}
				if n < 4 {
					t.Errorf("parties %v: %d created events, want the 4 created", parties, n)
				}
			}
		})
	}
}
