package ledgerapi

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceValidationIT.scala.
func TestTransactionServiceValidationIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	t.Run("TXRejectEmptyFilter", func(t *testing.T) {
		party := p.allocate(t, "party")
		req := updatesRequest(party, 0, nil, ledgerapi.TransactionShapeACSDelta)
		req["updateFormat"].(map[string]any)["includeTransactions"].(map[string]any)["eventFormat"] = map[string]any{"filtersByParty": map[string]any{}, "verbose": true}
		p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", req,
			failure{code: "INVALID_ARGUMENT", cause: "filtersByParty and filtersForAnyParty cannot be empty simultaneously"})
	})

	t.Run("TXRejectBeginAfterEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, dummy, map[string]any{"operator": party}) // so that earlier is an offset (Canton's parties take offsets)
		earlier := p.ledgerEnd(t)
		p.create(t, party, dummy, map[string]any{"operator": party})
		later := p.ledgerEnd(t)
		p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", updatesRequest(party, later, &earlier, ledgerapi.TransactionShapeACSDelta),
			failure{code: "OFFSET_OUT_OF_RANGE", cause: "is before begin offset"})
	})

	t.Run("TXUpdateByIdWithoutParty", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/updates/update-by-id", map[string]any{"updateId": "1220" + strings.Repeat("ab", 32)},
			failure{code: "MISSING_FIELD", cause: "The submitted command is missing a mandatory field: update_format"})
	})

	t.Run("TXTransactionByOffsetInvalid", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/updates/transaction-by-offset", transactionByOffset(party, -21),
			failure{code: "NON_POSITIVE_OFFSET", cause: "Offset -21 in offset is not a positive integer"})
	})

	t.Run("TXUpdateByOffsetWithoutParty", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/updates/update-by-offset", map[string]any{"offset": 42},
			failure{code: "MISSING_FIELD", cause: "The submitted command is missing a mandatory field: update_format"})
	})
}
