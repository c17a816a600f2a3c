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
	p := startParticipant(t, node.Config{})
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
}
