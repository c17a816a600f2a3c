package ledgerapi

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// raceModel is the test tool's keys/RaceTests.daml as Daml-LF 2.3, the
// templates of the cases Canton runs on protocol 35: ContractWithKey
// (keyed by its owner), FetchWrapper, LookupWrapper and LookupResult.
func raceModel() *lb.Package {
	pkg := lb.New("race-tests", "1.0.0", "RaceTests")
	pkg.Record("Archive")
	unit := lb.Pure(lb.TUnit, lb.Unit)
	tCwk, tCid := lb.TCon("ContractWithKey"), lb.TContractID(lb.TCon("ContractWithKey"))
	declare := func(name string, fields []lb.Field, key *lb.Key, choices ...lb.Choice) {
		pkg.Record(name, fields...)
		sigs := parties(field(name, fields[0].Name))
		for i := range choices {
			choices[i].Controllers = sigs
			pkg.Record(choices[i].Name)
		}
		pkg.Template(lb.Template{Name: name, Param: "this", Signatories: sigs, Choices: append([]lb.Choice{lb.Archive("Archive", sigs)}, choices...), Key: key})
	}
	owner := []lb.Field{lb.F("owner", lb.TParty)}
	declare("ContractWithKey", owner,
		&lb.Key{Type: lb.TParty, Body: field("ContractWithKey", "owner"), Maintainers: lb.Lam([]lb.Field{lb.F("k", lb.TParty)}, parties(lb.Var("k")))},
		choice("ContractWithKey_Archive", true, lb.Expr{}, lb.TUnit, unit),
		choice("ContractWithKey_Exercise", false, lb.Expr{}, lb.TUnit, unit))
	declare("FetchWrapper", []lb.Field{lb.F("fetcher", lb.TParty), lb.F("contractId", tCid)}, nil,
		choice("FetchWrapper_Fetch", false, lb.Expr{}, tCwk, lb.Fetch("ContractWithKey", field("FetchWrapper", "contractId"))))
	declare("LookupResult", []lb.Field{lb.F("owner", lb.TParty), lb.F("found", lb.TBool)}, nil)
	// LookupWrapper_Lookup: r <- lookupByKey @ContractWithKey owner;
	// create LookupResult with owner, found = isSome r.
	me := field("LookupWrapper", "owner")
	result := func(found lb.Expr) lb.Expr {
		return then(lb.TContractID(lb.TCon("LookupResult")), lb.Create("LookupResult", lb.Record("LookupResult", lb.FE("owner", me), lb.FE("found", found))), unit)
	}
	lookup := lb.Do([]lb.Binding{{Name: "r", Type: lb.TOptional(lb.TList(lb.TTuple2(tCid, tCwk))), Bound: lb.App(lb.QueryNByKey("ContractWithKey"), lb.Int(1), me)}},
		lb.Case(lb.Var("r"), lb.NoneAlt(result(lb.False)),
			lb.SomeAlt("l", lb.Case(lb.Var("l"), lb.NilAlt(result(lb.False)), lb.ConsAlt("_h", "_t", result(lb.True))))))
	declare("LookupWrapper", owner, nil, choice("LookupWrapper_Lookup", false, lb.Expr{}, lb.TUnit, lookup))
	return pkg
}

// RaceConditionIT.scala (v2_3): an archival races exercises, fetches and
// lookups by key of its contract; whichever succeed come before it, and of
// concurrent archivals one succeeds. Each case runs once (Scala repeats
// three times). The four cases written for unique keys are differences
// (Canton excludes them on protocol 35: docs/conformance.md).
func TestRaceConditionIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, raceModel()))
	tpl := func(name string) string { return "#race-tests:RaceTests:" + name }
	archive := func(cid string) map[string]any {
		return exerciseCmd(tpl("ContractWithKey"), cid, "ContractWithKey_Archive", nil)
	}
	// race runs once and attempts-1 repeated commands concurrently, each
	// after a random delay of up to 20 ms (executeRepeatedlyWithRandomDelay);
	// failures are expected.
	race := func(party string, once, repeated map[string]any, attempts int) {
		var wg sync.WaitGroup
		submit := func(cmd map[string]any) {
			defer wg.Done()
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
			p.submitStatus([]string{party}, cmd)
		}
		wg.Add(attempts)
		go submit(once)
		for range attempts - 1 {
			go submit(repeated)
		}
		wg.Wait()
	}
	single := func(choice string) func(ledgerapi.Transaction) bool {
		return func(tx ledgerapi.Transaction) bool {
			return len(tx.Events) == 1 && tx.Events[0].Exercised != nil && tx.Events[0].Exercised.Choice == choice
		}
	}
	isArchival := single("ContractWithKey_Archive")
	// archivedAfter checks that party has exactly one archival and that
	// every transaction racer picks comes before it (assertTransactionOrder).
	archivedAfter := func(t *testing.T, party string, racer func(ledgerapi.Transaction) bool) {
		t.Helper()
		var archival *ledgerapi.Transaction
		txs := p.transactionsOf(t, ledgerapi.TransactionShapeLedgerEffects, party)
		for i, tx := range txs {
			if isArchival(tx) {
				if archival != nil {
					t.Fatalf("archivals: two, at %d and %d", archival.Offset, tx.Offset)
				}
				archival = &txs[i]
			}
		}
		if archival == nil {
			t.Fatal("archivals: none")
		}
		for _, tx := range txs {
			if racer(tx) && tx.Offset >= archival.Offset {
				t.Errorf("Offset %d is not before %d (the archival)", tx.Offset, archival.Offset)
			}
		}
	}

	t.Run("WWDoubleArchive", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		contract := p.create(t, alice, tpl("ContractWithKey"), map[string]any{"owner": alice})
		race(alice, archive(contract), archive(contract), 5)
		archivedAfter(t, alice, func(ledgerapi.Transaction) bool { return false })
	})
	t.Run("RWArchiveVsNonConsumingChoice", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		contract := p.create(t, alice, tpl("ContractWithKey"), map[string]any{"owner": alice})
		race(alice, archive(contract), exerciseCmd(tpl("ContractWithKey"), contract, "ContractWithKey_Exercise", nil), 10)
		archivedAfter(t, alice, single("ContractWithKey_Exercise"))
	})
	t.Run("RWArchiveVsFetch", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		contract := p.create(t, alice, tpl("ContractWithKey"), map[string]any{"owner": alice})
		fetcher := p.create(t, alice, tpl("FetchWrapper"), map[string]any{"fetcher": alice, "contractId": contract})
		race(alice, archive(contract), exerciseCmd(tpl("FetchWrapper"), fetcher, "FetchWrapper_Fetch", nil), 10)
		archivedAfter(t, alice, single("FetchWrapper_Fetch"))
	})
	t.Run("RWArchiveVsLookupByKey", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		contract := p.create(t, alice, tpl("ContractWithKey"), map[string]any{"owner": alice})
		looker := p.create(t, alice, tpl("LookupWrapper"), map[string]any{"owner": alice})
		race(alice, archive(contract), exerciseCmd(tpl("LookupWrapper"), looker, "LookupWrapper_Lookup", nil), 20)
		// isContractLookup(success = true): a LookupResult created with found
		archivedAfter(t, alice, func(tx ledgerapi.Transaction) bool {
			for _, ev := range tx.Events {
				if ev.Created != nil && strings.HasSuffix(ev.Created.TemplateID, ":RaceTests:LookupResult") {
					var arg struct {
						Found bool `json:"found"`
					}
					if json.Unmarshal(ev.Created.CreateArgument, &arg) == nil && arg.Found {
						return true
					}
				}
			}
			return false
		})
	})
}
