package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceOutputsIT.scala: what the node answers for Daml values
// it built. TXVerbosity and TXNonVerboseNoTrailingNones are GrpcOnly (the
// JSON API always writes labels); TXVerboseNoTrailingNones needs an
// interface view, which the built models do not declare (not ported:
// docs/conformance.md).
func TestTransactionServiceOutputsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())

	// The record without its trailing None, as the Scala suite expects:
	// Canton's JSON codec drops trailing nulls (removeTrailingNonesInRecords).
	t.Run("TXUnitAsArgumentToNothing", func(t *testing.T) {
		party := p.allocate(t, "party")
		tx := p.transaction(t, []string{party}, createCmd(builtTemplate("NothingArgument"), map[string]any{"operator": party}))
		created := createdEvents(tx)
		if len(created) != 1 {
			t.Fatalf("%d created events, want 1", len(created))
		}
		sameJSON(t, "UnitAsArgumentToNothing", created[0].CreateArgument, map[string]any{"operator": party})
	})
}
