//go:build crashlong

package integration

import (
	"testing"
	"time"
)

// TestCrashLong is the long crash durability run: 30 kill -9 and restart
// rounds with 16 submitters, 6 external-party executors and 6 party
// patchers, the kill landing anywhere from 50 ms to 2 s into the load. Run
// it with
//
//	go test -tags crashlong -run CrashLong ./server/integration -v -timeout 30m
//
// and record the line it logs in RELIABILITY.md.
func TestCrashLong(t *testing.T) {
	c := runCrashDurability(t, crashPlan{rounds: 30, submitters: 16, executors: 6, patchers: 6,
		minKill: 50 * time.Millisecond, maxKill: 2 * time.Second})
	t.Logf("rounds=%d acknowledged submits=%d executes=%d partyUpdates=%d ledgerEnd=%d duration=%s",
		c.Rounds, c.Submits, c.Executes, c.PartyUpdates, c.LedgerEnd, c.Duration.Round(time.Second))
}
