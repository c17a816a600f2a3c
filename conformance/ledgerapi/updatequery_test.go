package ledgerapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// UpdateServiceQueryIT.scala: lookups of transactions by update id and by
// offset, in both shapes.
func TestUpdateServiceQueryIT(t *testing.T) {
	p := startParticipant(t, node.Config{NonconsumingChoices: []string{"DummyNonConsuming"}})
	notFound := failure{code: "UPDATE_NOT_FOUND", cause: "Update not found, or not visible."}
	format := func(party string, templates []string, shape ledgerapi.TransactionShape) map[string]any {
		return map[string]any{"eventFormat": ledgerapi.EventFormatOf([]string{party}, templates, nil, false), "transactionShape": shape}
	}
	byID := func(id, party string, templates []string, shape ledgerapi.TransactionShape) map[string]any {
		return map[string]any{"updateId": id, "transactionFormat": format(party, templates, shape)}
	}
	byOffset := func(off int64, party string, templates []string, shape ledgerapi.TransactionShape) map[string]any {
		return map[string]any{"offset": off, "transactionFormat": format(party, templates, shape)}
	}
	// exercised is a Dummy's DummyChoice1 transaction in shape, as the
	// submission answers it.
	exercised := func(t *testing.T, party string, shape ledgerapi.TransactionShape) ledgerapi.Transaction {
		t.Helper()
		d := p.create(t, party, dummy, map[string]any{"operator": party})
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{
			"commands":          p.jsCommands([]string{party}, exerciseCmd(dummy, d, "DummyChoice1", nil)),
			"transactionFormat": format(party, nil, shape),
		}, &resp)
		return resp.Transaction
	}
	same := func(t *testing.T, want ledgerapi.Transaction, path string, body map[string]any) {
		t.Helper()
		var got struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", path, body, &got)
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got.Transaction)
		if string(w) != string(g) {
			t.Errorf("The transaction fetched does not match\n got: %s\nwant: %s", g, w)
		}
	}
	missingID := "1220" + strings.Repeat("aa", 32)

	for _, s := range []struct {
		name  string
		shape ledgerapi.TransactionShape
	}{{"LedgerEffects", ledgerapi.TransactionShapeLedgerEffects}, {"AcsDelta", ledgerapi.TransactionShapeACSDelta}} {
		basicByID := "TX" + s.name + "UpdateByIdBasic"
		if s.name == "LedgerEffects" {
			basicByID = "TXTransactionByIdLedgerEffectsBasic"
		}
		t.Run(basicByID, func(t *testing.T) {
			party := p.allocate(t, "party")
			tx := exercised(t, party, s.shape)
			same(t, tx, "/v2/updates/transaction-by-id", byID(tx.UpdateID, party, nil, s.shape))
		})
		t.Run("TX"+s.name+"InvisibleUpdateByIdOtherParty", func(t *testing.T) {
			party, intruder := p.allocate(t, "party"), p.allocate(t, "intruder")
			tx := exercised(t, party, s.shape)
			p.mustFail(t, "POST", "/v2/updates/transaction-by-id", byID(tx.UpdateID, intruder, nil, s.shape), notFound)
		})
		t.Run("TX"+s.name+"InvisibleUpdateByIdOtherTemplate", func(t *testing.T) {
			party := p.allocate(t, "party")
			tx := exercised(t, party, s.shape)
			p.mustFail(t, "POST", "/v2/updates/transaction-by-id", byID(tx.UpdateID, party, []string{dummyWithParam}, s.shape), notFound)
		})
		t.Run("TX"+s.name+"UpdateByIdNotFound", func(t *testing.T) {
			party := p.allocate(t, "party")
			p.mustFail(t, "POST", "/v2/updates/transaction-by-id", byID(missingID, party, nil, s.shape), notFound)
		})
		// The Scala names of the offset cases spell "Leger" for LedgerEffects.
		prefix := "TX" + s.name
		if s.name == "LedgerEffects" {
			prefix = "TXLegerEffects"
		}
		t.Run("TX"+s.name+"UpdateByOffsetBasic", func(t *testing.T) {
			party := p.allocate(t, "party")
			tx := exercised(t, party, s.shape)
			same(t, tx, "/v2/updates/transaction-by-offset", byOffset(int64(tx.Offset), party, nil, s.shape))
		})
		t.Run(prefix+"InvisibleUpdateByOffsetOtherParty", func(t *testing.T) {
			party, intruder := p.allocate(t, "party"), p.allocate(t, "intruder")
			tx := exercised(t, party, s.shape)
			p.mustFail(t, "POST", "/v2/updates/transaction-by-offset", byOffset(int64(tx.Offset), intruder, nil, s.shape), notFound)
		})
		t.Run(prefix+"InvisibleUpdateByOffsetOtherTemplate", func(t *testing.T) {
			party := p.allocate(t, "party")
			tx := exercised(t, party, s.shape)
			p.mustFail(t, "POST", "/v2/updates/transaction-by-offset", byOffset(int64(tx.Offset), party, []string{dummyWithParam}, s.shape), notFound)
		})
		t.Run(prefix+"UpdateByOffsetNotFound", func(t *testing.T) {
			party := p.allocate(t, "party")
			p.mustFail(t, "POST", "/v2/updates/transaction-by-offset", byOffset(p.ledgerEnd(t)+100, party, nil, s.shape), notFound)
		})
	}

	// submitted submits cmd as party and answers its transaction in shape.
	submitted := func(t *testing.T, party string, cmd map[string]any, shape ledgerapi.TransactionShape) ledgerapi.Transaction {
		t.Helper()
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{
			"commands": p.jsCommands([]string{party}, cmd), "transactionFormat": format(party, nil, shape)}, &resp)
		return resp.Transaction
	}
	// argumentsNonEmpty reads the created Dummy's transaction at path and
	// checks its create arguments, then archives the Dummy (as Scala does,
	// "to not pollute the ledger").
	argumentsNonEmpty := func(t *testing.T, path string, body func(tx ledgerapi.Transaction, party string) map[string]any) {
		party := p.allocate(t, "party")
		tx := submitted(t, party, createCmd(dummy, map[string]any{"operator": party}), ledgerapi.TransactionShapeACSDelta)
		var got struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", path, body(tx, party), &got)
		if len(got.Transaction.Events) == 0 || got.Transaction.Events[0].Created == nil {
			t.Fatalf("no created event first: %+v", got.Transaction)
		}
		c := got.Transaction.Events[0].Created
		if args := strings.TrimSpace(string(c.CreateArgument)); args == "" || args == "null" || args == "{}" {
			t.Errorf("Create event %s createArguments must NOT be empty: %s", c.ContractID, args)
		}
		p.exercise(t, party, dummy, c.ContractID, "Archive", nil)
	}
	t.Run("TXAcsDeltaUpdateByIdCreateArgumentsNonEmpty", func(t *testing.T) {
		argumentsNonEmpty(t, "/v2/updates/transaction-by-id", func(tx ledgerapi.Transaction, party string) map[string]any {
			return byID(tx.UpdateID, party, nil, ledgerapi.TransactionShapeACSDelta)
		})
	})
	t.Run("TXAcsDeltaUpdateByOffsetCreateArgumentsNonEmpty", func(t *testing.T) {
		argumentsNonEmpty(t, "/v2/updates/transaction-by-offset", func(tx ledgerapi.Transaction, party string) map[string]any {
			return byOffset(int64(tx.Offset), party, nil, ledgerapi.TransactionShapeACSDelta)
		})
	})

	// A transaction with nothing in its ACS delta (a transient contract,
	// a nonconsuming choice alone) is not found in that shape.
	transient := func(party string) map[string]any {
		return createAndExerciseCmd(dummy, map[string]any{"operator": party}, "Archive")
	}
	t.Run("TXUpdateByIdTransientContract", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		tx := submitted(t, owner, transient(owner), ledgerapi.TransactionShapeLedgerEffects)
		p.mustFail(t, "POST", "/v2/updates/transaction-by-id", byID(tx.UpdateID, owner, nil, ledgerapi.TransactionShapeACSDelta), notFound)
		var le struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/updates/transaction-by-id", byID(tx.UpdateID, owner, nil, ledgerapi.TransactionShapeLedgerEffects), &le)
		if len(le.Transaction.Events) == 0 {
			t.Error("ledgerEffectsResult should not be empty")
		}
	})
	t.Run("TXUpdateByOffsetTransientContract", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		tx := submitted(t, owner, transient(owner), ledgerapi.TransactionShapeLedgerEffects)
		p.mustFail(t, "POST", "/v2/updates/transaction-by-offset", byOffset(int64(tx.Offset), owner, nil, ledgerapi.TransactionShapeACSDelta), notFound)
		var le struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/updates/transaction-by-offset", byOffset(int64(tx.Offset), owner, nil, ledgerapi.TransactionShapeLedgerEffects), &le)
		if len(le.Transaction.Events) == 0 {
			t.Error("ledgerEffectsResult should not be empty")
		}
	})
	t.Run("TXUpdateByIdNonConsumingChoice", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		d := p.create(t, owner, dummy, map[string]any{"operator": owner})
		tx := submitted(t, owner, exerciseCmd(dummy, d, "DummyNonConsuming", nil), ledgerapi.TransactionShapeLedgerEffects)
		p.mustFail(t, "POST", "/v2/updates/transaction-by-id", byID(tx.UpdateID, owner, nil, ledgerapi.TransactionShapeACSDelta), notFound)
	})
	t.Run("TXUpdateByOffsetNonConsumingChoice", func(t *testing.T) {
		owner := p.allocate(t, "owner")
		d := p.create(t, owner, dummy, map[string]any{"operator": owner})
		tx := submitted(t, owner, exerciseCmd(dummy, d, "DummyNonConsuming", nil), ledgerapi.TransactionShapeLedgerEffects)
		p.mustFail(t, "POST", "/v2/updates/transaction-by-offset", byOffset(int64(tx.Offset), owner, nil, ledgerapi.TransactionShapeACSDelta), notFound)
	})
}
