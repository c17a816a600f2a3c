//go:build crashlong

package integration

import (
	"testing"
	"time"
)

// TestCrashLong is the long crash durability run: 30 kill -9 and restart
// rounds with 16 submitters, 6 external-party executors and 6 party
// patchers, the kill landing after 20 to 1500 acknowledged operations. Run
// it with
//
//	go test -tags crashlong -run CrashLong ./server/integration -v -timeout 30m
//
// and record the line it logs in RELIABILITY.md.
func TestCrashLong(t *testing.T) {
	c := runCrashDurability(t, crashPlan{rounds: 30, submitters: 16, executors: 6, patchers: 6, minOps: 20, maxOps: 1500})
	t.Logf("rounds=%d acknowledged submits=%d executes=%d partyUpdates=%d ledgerEnd=%d duration=%s",
		c.Rounds, c.Submits, c.Executes, c.PartyUpdates, c.LedgerEnd, c.Duration.Round(time.Second))
}
