package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/sqlite"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestPruneKilledLosesNothingActive kills `ledger serve` with SIGKILL in
// the middle of a prune, several times, and checks after each kill that
// every contract that was active is still there and active, that the
// database is intact, and that a prune after the restart finishes.
func TestPruneKilledLosesNothingActive(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills ledger serve")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ledger.db")
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, testSecret, 0o600); err != nil {
		t.Fatal(err)
	}
	// 6,000 transactions of 4 contracts each; every other transaction's
	// contracts are created and archived at once, so 12,000 stay active.
	st, err := seedStore(db)
	if err != nil {
		t.Fatal(err)
	}
	const entries, perEntry = 6000, 4
	const pruneUpTo = entries - 1 // Canton prunes only below the ledger end
	err = seedEntries(st, entries, func(i int64) ledger.Entry {
		tx := &ledger.Transaction{UpdateID: fmt.Sprintf("1220%060x", i), EffectiveAt: time.Now(), Events: []byte(`{}`)}
		for k := int64(0); k < perEntry; k++ {
			cid := fmt.Sprintf("00%064x", i*perEntry+k)
			tx.Created = append(tx.Created, ledger.Contract{ContractID: cid, TemplateID: "pkg:Iou:Iou", PackageName: "iou",
				Argument: []byte{1}, ArgumentJSON: []byte(`{}`), Signatories: []string{seedParty}, Stakeholders: []string{seedParty},
				CreatedAt: time.Now()})
			if i%2 == 0 {
				tx.Archived = append(tx.Archived, cid)
			}
		}
		return ledger.Entry{UserID: "seed", CommandID: fmt.Sprintf("seed-%d", i), SubmissionID: "s", ActAs: []string{seedParty}, Transaction: tx}
	})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	active := activeIDs(t, db)
	if len(active) != entries/2*perEntry {
		t.Fatalf("seeded %d active contracts", len(active))
	}
	admin, _ := auth.Mint(testSecret, ledger.AdminUserID, time.Hour, "", auth.DefaultParticipantID, time.Now())
	client := &http.Client{Timeout: 30 * time.Second}
	pruned := false
	for round := 0; round < 4; round++ {
		p := startProcess(t, db, secretFile)
		done := make(chan int, 1)
		go func() {
			status, _ := post(client, "POST", p.url+server.PrunePath, admin, map[string]any{"pruneUpTo": pruneUpTo})
			done <- status
		}()
		time.Sleep(time.Duration(rand.IntN(60)+5) * time.Millisecond)
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		if status := <-done; status == 200 {
			pruned = true // the prune finished before the kill
		}
		t.Logf("round %d: killed %s", round, pruneState(t, db))
		after := activeIDs(t, db)
		for id := range active {
			if !after[id] {
				t.Fatalf("round %d: active contract %s is gone after a kill during pruning", round, id)
			}
		}
		verifyIntegrity(t, db)
	}
	// A restarted node finishes the job.
	p := startProcess(t, db, secretFile)
	if status, body := post(client, "POST", p.url+server.PrunePath, admin, map[string]any{"pruneUpTo": pruneUpTo}); status != 200 {
		t.Fatalf("prune after the kills: %d %s", status, body)
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	st, err = sqlite.Open(db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.PrunedUpTo() != pruneUpTo || st.LedgerEnd() != entries {
		t.Errorf("pruned up to %d, ledger end %d (any prune finished before a kill: %v)", st.PrunedUpTo(), st.LedgerEnd(), pruned)
	}
	if _, err := st.ContractByID(context.Background(), fmt.Sprintf("00%064x", 2*perEntry)); err == nil {
		t.Error("an archived contract below the pruning offset is still there")
	}
	if got := activeIDs(t, db); len(got) != len(active) {
		t.Errorf("%d active contracts after pruning, want %d", len(got), len(active))
	}
}

// activeIDs lists the contracts active at the ledger end of db.
func activeIDs(t *testing.T, db string) map[string]bool {
	t.Helper()
	st, err := sqlite.Open(db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[string]bool{}
	q := ledger.ACSQuery{At: st.LedgerEnd(), Limit: 10000}
	for {
		cs, err := st.ActiveContracts(context.Background(), q, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			out[c.ContractID] = true
			q.AfterSeq = c.Seq
		}
		if len(cs) < q.Limit {
			return out
		}
	}
}

// pruneState tells how far a prune got: the pruning offset recorded and the
// completions left at or below it.
func pruneState(t *testing.T, db string) string {
	t.Helper()
	st, err := sqlite.Open(db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	left, err := st.Completions(context.Background(), ledger.CompletionQuery{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range left {
		if c.Offset <= st.PrunedUpTo() {
			n++
		}
	}
	return fmt.Sprintf("with the pruning offset at %d and %d completions still below it", st.PrunedUpTo(), n)
}
