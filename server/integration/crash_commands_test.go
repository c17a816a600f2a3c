package integration

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/server/auth"
	"github.com/ledger-cli/ledger/server/store"
)

// TestKillDuringSubmissions kills `ledger serve` with SIGKILL while many
// clients submit-and-wait, restarts it on the same database, and checks the
// ledger: every command answered 200 is there exactly once at the offset it
// was given, offsets are gap-free, and every transaction has its completion.
func TestKillDuringSubmissions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ledger serve as a process")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ledger.db")
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, testSecret, 0o600); err != nil {
		t.Fatal(err)
	}
	mint := func(user string) string {
		tok, err := auth.Mint(testSecret, user, time.Hour, "", auth.DefaultParticipantID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	admin, submitter := mint(store.AdminUserID), mint("submitter")
	client := &http.Client{Timeout: 10 * time.Second}
	var (
		mu    sync.Mutex
		acked = map[string]int64{} // command id → completion offset answered
		alice string
	)
	const iterations, writers = 5, 16
	for it := 0; it <= iterations; it++ {
		p := startProcess(t, db, secretFile)
		if it == 0 {
			status, body := post(client, "POST", p.url+"/v2/parties", admin, map[string]any{"partyIdHint": "Alice"})
			var resp ledgerapi.AllocatePartyResponse
			if status != 200 || json.Unmarshal(body, &resp) != nil {
				t.Fatalf("allocate: %d %s", status, body)
			}
			alice = resp.PartyDetails.Party
			if status, body := post(client, "POST", p.url+"/v2/users", admin, map[string]any{
				"user": map[string]any{"id": "submitter"}, "rights": []any{ledgerapi.CanActAs(alice)}}); status != 200 {
				t.Fatalf("create user: %d %s", status, body)
			}
		} else {
			verifyLedger(t, client, p.url, submitter, alice, acked)
		}
		if it == iterations {
			// a clean stop, then the store's own view of the ledger
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := p.cmd.Wait(); err != nil {
				t.Fatalf("ledger serve after SIGTERM: %v; stderr:\n%s", err, p.stderr)
			}
			break
		}
		var wg sync.WaitGroup
		for g := 0; g < writers; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; ; i++ {
					id := fmt.Sprintf("it%d-g%d-%d", it, g, i)
					status, body := post(client, "POST", p.url+"/v2/commands/submit-and-wait", submitter,
						commands(id, []string{alice}, []map[string]any{create(alice, "1")}, nil))
					if status != 200 {
						return // the process is gone
					}
					var resp ledgerapi.SubmitAndWaitResponse
					if err := json.Unmarshal(body, &resp); err != nil {
						t.Errorf("%s: %s", id, body)
						return
					}
					mu.Lock()
					acked[id] = int64(resp.CompletionOffset)
					mu.Unlock()
				}
			}(g)
		}
		time.Sleep(time.Duration(150+rand.IntN(350)) * time.Millisecond)
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = p.cmd.Wait()
		wg.Wait()
		client.CloseIdleConnections()
	}
	if len(acked) < 100 {
		t.Errorf("only %d submissions acknowledged before the kills: too few to mean anything", len(acked))
	}
	t.Logf("%d submissions acknowledged across %d kills", len(acked), iterations)

	// Every transaction has its completion, read from the database itself.
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var after int64
	updates := 0
	for {
		ups, err := st.Updates(t.Context(), after, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(ups) == 0 {
			break
		}
		for _, u := range ups {
			c, err := st.CompletionAt(t.Context(), u.Offset)
			if err != nil || c.UpdateID != u.UpdateID || c.CommandID != u.CommandID || c.Status.Code != 0 {
				t.Errorf("transaction at %d (%s) has completion %+v, %v", u.Offset, u.CommandID, c, err)
			}
			after = u.Offset
			updates++
		}
	}
	if int64(updates) != st.LedgerEnd() {
		t.Errorf("%d transactions up to ledger end %d: every entry here is an accepted transaction", updates, st.LedgerEnd())
	}
}

// verifyLedger reads every completion of the submitter and checks the
// acknowledged commands and the offsets.
func verifyLedger(t *testing.T, client *http.Client, url, token, party string, acked map[string]int64) {
	t.Helper()
	var all []ledgerapi.Completion
	var begin int64
	for {
		status, body := post(client, "POST", url+"/v2/commands/completions?limit=200&stream_idle_timeout_ms=50", token,
			map[string]any{"parties": []string{party}, "beginExclusive": begin})
		var els []ledgerapi.CompletionStreamResponse
		if status != 200 || json.Unmarshal(body, &els) != nil {
			t.Fatalf("completions: %d %s", status, body)
		}
		if len(els) == 0 {
			break
		}
		for _, el := range els {
			all = append(all, *el.Completion)
			begin = el.Offset()
		}
	}
	seen := map[string]int{}
	for i, c := range all {
		if int64(c.Offset) != int64(i+1) {
			t.Fatalf("completion %d has offset %d: offsets are not gap-free from 1", i, c.Offset)
		}
		if !c.Succeeded() {
			t.Errorf("completion at %d failed: %+v", c.Offset, c.Status)
		}
		seen[c.CommandID]++
	}
	var end ledgerapi.GetLedgerEndResponse
	status, body := post(client, "GET", url+"/v2/state/ledger-end", token, nil)
	if status != 200 || json.Unmarshal(body, &end) != nil || int64(end.Offset) != int64(len(all)) {
		t.Errorf("ledger end %s, %d completions", body, len(all))
	}
	at := map[int64]string{}
	for _, c := range all {
		at[int64(c.Offset)] = c.CommandID
	}
	for id, off := range acked {
		if seen[id] != 1 {
			t.Errorf("acknowledged command %s is in the ledger %d times", id, seen[id])
		}
		if at[off] != id {
			t.Errorf("acknowledged command %s was answered offset %d, which holds %q", id, off, at[off])
		}
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("command %s appears %d times", id, k)
		}
	}
}
