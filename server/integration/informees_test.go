package integration

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestUnknownInformeesOverHTTP: a Ping whose responder the node never
// allocated is refused (404 UNKNOWN_INFORMEES) and nothing is committed,
// with and without --strict-packages; allocated, the same create commits.
func TestUnknownInformeesOverHTTP(t *testing.T) {
	for _, strict := range []bool{false, true} {
		n := startCommandNode(t, auth.ModeNone, node.Config{StrictPackages: strict})
		n.ok("POST", "/v2/dars", "", archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), nil)
		initiator := n.allocate("Initiator").Party
		ghost := "Ghost::" + strings.SplitN(initiator, "::", 2)[1]
		before := n.run.Server.Node.LedgerEnd()
		e := n.refused("ghost-ping", []string{initiator}, pingCreate(initiator, ghost, "p1"), 404, "UNKNOWN_INFORMEES")
		if e.Context["unknownInformees"] != ghost {
			t.Errorf("strict %v: %+v", strict, e)
		}
		if end := n.run.Server.Node.LedgerEnd(); end != before {
			t.Errorf("strict %v: the refused create moved the ledger end from %d to %d", strict, before, end)
		}
		responder := n.allocate("Ghost").Party
		if responder != ghost {
			t.Fatalf("allocated %s, want %s", responder, ghost)
		}
		n.tree("ghost-ping-2", []string{initiator}, pingCreate(initiator, ghost, "p1"))
	}
}
