package ledgerapi

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// exceptionRaceModel is the key-free part of the test tool's
// ExceptionRaceTests.daml (ledger-common-dars experimental/):
// ContractWithKey (without its key, which these cases never use),
// FetchWrapper and ExerciseWrapper, whose choices touch the contract inside
// a try block that always throws.
func exceptionRaceModel() *lb.Package {
	pkg := lb.New("exception-race-tests", "1.0.0", "ExceptionRaceTests")
	pkg.Record("Archive")
	pkg.Record("E")
	pkg.Exception("E", lb.Lam([]lb.Field{lb.F("e", lb.TCon("E"))}, lb.Text("E")))
	unit := lb.Pure(lb.TUnit, lb.Unit)
	tCid := lb.TContractID(lb.TCon("ContractWithKey"))
	// rollback is `try do _ <- body; throw E catch E -> pure ()`.
	rollback := func(bodyType lb.Type, body lb.Expr) lb.Expr {
		return catching(lb.TUnit, then(bodyType, body, lb.Throw(lb.TUpdate(lb.TUnit), lb.TCon("E"), lb.Record("E"))), "E", "_e", unit)
	}
	declare := func(name string, fields []lb.Field, choices ...lb.Choice) {
		pkg.Record(name, fields...)
		sigs := parties(field(name, fields[0].Name))
		for i := range choices {
			choices[i].Controllers = sigs
		}
		pkg.Template(lb.Template{Name: name, Param: "this", Signatories: sigs, Choices: append([]lb.Choice{lb.Archive("Archive", sigs)}, choices...)})
	}
	owner := []lb.Field{lb.F("owner", lb.TParty)}
	pkg.Record("ContractWithKey_Archive")
	pkg.Record("ContractWithKey_Exercise")
	declare("ContractWithKey", owner,
		choice("ContractWithKey_Archive", true, lb.Expr{}, lb.TUnit, unit),
		choice("ContractWithKey_Exercise", false, lb.Expr{}, lb.TUnit, unit))
	pkg.Record("FetchWrapper_Fetch")
	declare("FetchWrapper", []lb.Field{lb.F("fetcher", lb.TParty), lb.F("contractId", tCid)},
		choice("FetchWrapper_Fetch", false, lb.Expr{}, lb.TUnit,
			rollback(lb.TCon("ContractWithKey"), lb.Fetch("ContractWithKey", field("FetchWrapper", "contractId")))))
	cidArg := func(ch string) lb.Expr { return argField(ch, "cid") }
	pkg.Record("ExerciseWrapper_ExerciseConsumingRollback", lb.F("cid", tCid))
	pkg.Record("ExerciseWrapper_ExerciseNonConsumingRollback", lb.F("cid", tCid))
	declare("ExerciseWrapper", owner,
		choice("ExerciseWrapper_ExerciseConsumingRollback", false, lb.Expr{}, lb.TUnit,
			rollback(lb.TUnit, archiveOf("ContractWithKey", cidArg("ExerciseWrapper_ExerciseConsumingRollback")))),
		choice("ExerciseWrapper_ExerciseNonConsumingRollback", false, lb.Expr{}, lb.TUnit,
			rollback(lb.TUnit, lb.Exercise("ContractWithKey", "ContractWithKey_Exercise", cidArg("ExerciseWrapper_ExerciseNonConsumingRollback"),
				lb.Record("ContractWithKey_Exercise")))))
	return pkg
}

// ExceptionRaceConditionIT.scala (v2_dev in 3.5), its key-free cases: an
// archival races ten exercises that use the contract inside a rolled-back
// try block; whichever of those succeed come before the archival. The
// consuming variant can never succeed on protocol version 35 (an effectful
// rollback), so its check holds trivially, as it would for a node that
// refused it for any reason.
func TestExceptionRaceConditionIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, exceptionRaceModel())
	tpl := func(name string) string { return "#exception-race-tests:ExceptionRaceTests:" + name }

	// race runs once and attempts repeated commands concurrently, each
	// after a random delay of up to 20 ms; their failures are expected.
	race := func(party string, once map[string]any, repeated map[string]any, attempts int) {
		var wg sync.WaitGroup
		submit := func(cmd map[string]any) {
			defer wg.Done()
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
			p.submitStatus([]string{party}, cmd)
		}
		wg.Add(1 + attempts)
		go submit(once)
		for range attempts {
			go submit(repeated)
		}
		wg.Wait()
	}
	// check finds the one archival among party's single-event transactions
	// and that every exercise of choice comes before it.
	check := func(t *testing.T, party, choice string) {
		t.Helper()
		var archival *ledgerapi.Transaction
		var exercises []ledgerapi.Transaction
		txs := p.transactionsOf(t, ledgerapi.TransactionShapeLedgerEffects, party)
		for i, tx := range txs {
			if len(tx.Events) != 1 || tx.Events[0].Exercised == nil {
				continue
			}
			switch tx.Events[0].Exercised.Choice {
			case "ContractWithKey_Archive":
				if archival != nil {
					t.Errorf("two archivals, at %d and %d", archival.Offset, tx.Offset)
				}
				archival = &txs[i]
			case choice:
				exercises = append(exercises, tx)
			}
		}
		if archival == nil {
			t.Fatal("no archival")
		}
		for _, tx := range exercises {
			if tx.Offset >= archival.Offset {
				t.Errorf("%s at offset %d succeeded after the archival at %d", choice, tx.Offset, archival.Offset)
			}
		}
	}
	for _, c := range []struct{ name, choice string }{
		{"RWArchiveVsRollbackNonConsumingChoice", "ExerciseWrapper_ExerciseNonConsumingRollback"},
		{"RWArchiveVsRollbackConsumingChoice", "ExerciseWrapper_ExerciseConsumingRollback"},
	} {
		t.Run(c.name, func(t *testing.T) {
			alice := p.allocate(t, "alice")
			wrapper := p.create(t, alice, tpl("ExerciseWrapper"), map[string]any{"owner": alice})
			contract := p.create(t, alice, tpl("ContractWithKey"), map[string]any{"owner": alice})
			race(alice, exerciseCmd(tpl("ContractWithKey"), contract, "ContractWithKey_Archive", nil),
				exerciseCmd(tpl("ExerciseWrapper"), wrapper, c.choice, map[string]any{"cid": contract}), 10)
			check(t, alice, c.choice)
		})
	}
	t.Run("RWArchiveVsRollbackFetch", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		contract := p.create(t, alice, tpl("ContractWithKey"), map[string]any{"owner": alice})
		fetcher := p.create(t, alice, tpl("FetchWrapper"), map[string]any{"fetcher": alice, "contractId": contract})
		race(alice, exerciseCmd(tpl("ContractWithKey"), contract, "ContractWithKey_Archive", nil),
			exerciseCmd(tpl("FetchWrapper"), fetcher, "FetchWrapper_Fetch", nil), 10)
		check(t, alice, "FetchWrapper_Fetch")
	})
}
