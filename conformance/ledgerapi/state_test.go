package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// StateServiceIT.scala.
func TestStateServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	t.Run("StateServiceGetConnectedSynchronizersWithoutParty", func(t *testing.T) {
		var resp ledgerapi.GetConnectedSynchronizersResponse
		p.ok(t, "GET", "/v2/state/connected-synchronizers", nil, &resp)
		if len(resp.ConnectedSynchronizers) == 0 {
			t.Error("Expected connected synchronizers")
		}
	})
}
