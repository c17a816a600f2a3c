package integration

import (
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/sqlite"
	"github.com/ledger-cli/ledger/server/auth"
	"github.com/ledger-cli/ledger/signer"
)

// crashPlan is how hard a crash durability run pushes: how many kill and
// restart rounds, how many goroutines of each kind, and when the kill lands:
// after a random number of acknowledged operations in [minOps, maxOps] plus
// a random pause of up to 20 ms, so that it falls at an arbitrary point of
// the requests in flight whatever the machine's speed.
type crashPlan struct {
	rounds     int
	submitters int // submit-and-wait as a local party
	executors  int // prepare, sign, executeAndWait as an external party
	patchers   int // party annotation updates, one party per patcher
	minOps     int
	maxOps     int
}

// crashCounts is what a run acknowledged and checked.
type crashCounts struct {
	Rounds, Submits, Executes, PartyUpdates int
	LedgerEnd                               int64
	Duration                                time.Duration
}

// TestCrashDurability is the short variant of the crash durability test:
// submissions, external-party executes and party updates from several
// goroutines, kill -9, restart, verify. The long variant (crash_long_test.go,
// build tag crashlong) runs the same with more rounds and goroutines.
func TestCrashDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ledger serve as a process")
	}
	c := runCrashDurability(t, crashPlan{rounds: 5, submitters: 6, executors: 3, patchers: 3, minOps: 40, maxOps: 150})
	t.Logf("%+v", c)
}

// patchLog is one patcher's history: its party, the sequence numbers it
// sent, and the highest acknowledged one with the resource version the node
// answered.
type patchLog struct {
	party     string
	sent      int // highest sequence number sent (acknowledged or not)
	ackedSeq  int
	ackedRV   int64
	ackedKeys map[string]int // annotation key → highest acknowledged sequence number written to it
}

// patchKeys is how many annotation keys each patcher cycles through (the
// values are overwritten, so the annotations stay small).
const patchKeys = 16

// runCrashDurability starts `ledger serve` on one database, drives load,
// kills it with SIGKILL at a random moment, restarts it and verifies, plan.rounds
// times; then stops it cleanly and checks the database file itself.
func runCrashDurability(t *testing.T, plan crashPlan) crashCounts {
	t.Helper()
	began := time.Now()
	db, secretFile := processFiles(t)
	mint := func(user string) string {
		tok, err := auth.Mint(testSecret, user, 24*time.Hour, "", auth.DefaultParticipantID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	admin, worker := mint(ledger.AdminUserID), mint("worker")
	client := &http.Client{Timeout: 15 * time.Second}

	var (
		mu      sync.Mutex
		acked   = map[string]int64{} // command id → completion offset answered
		execs   int
		alice   string
		ext     string
		extKey  *signer.Key
		patches = make([]*patchLog, plan.patchers)
	)

	// setup on the first start
	p := startProcess(t, db, secretFile)
	alice = allocateOverHTTP(t, client, p.url, admin, "Alice")
	ext, extKey = onboardOverHTTP(t, client, p.url, admin, "Ext")
	for i := range patches {
		patches[i] = &patchLog{party: allocateOverHTTP(t, client, p.url, admin, fmt.Sprintf("Patched%d", i)), ackedKeys: map[string]int{}}
	}
	if status, body := post(client, "POST", p.url+"/v2/users", admin, map[string]any{
		"user": map[string]any{"id": "worker"}, "rights": []any{ledgerapi.CanActAs(alice), ledgerapi.CanActAs(ext),
			adminRight(ledgerapi.RightCanReadAsAnyParty)}}); status != 200 {
		t.Fatalf("create user: %d %s", status, body)
	}

	for round := 0; round < plan.rounds; round++ {
		if round > 0 {
			p = startProcess(t, db, secretFile)
			verifyDurable(t, client, p.url, admin, worker, []string{alice, ext}, acked, patches)
			if t.Failed() {
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
				t.FailNow()
			}
		}
		var wg sync.WaitGroup
		acks := make(chan struct{}, 1<<16) // one per acknowledged operation
		ack := func() {
			select {
			case acks <- struct{}{}:
			default:
			}
		}
		for g := 0; g < plan.submitters; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					id := fmt.Sprintf("r%d-s%d-%d", round, g, i)
					status, body := post(client, "POST", p.url+"/v2/commands/submit-and-wait", worker,
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
					ack()
				}
			}()
		}
		for g := 0; g < plan.executors; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					id := fmt.Sprintf("r%d-e%d-%d", round, g, i)
					status, body := post(client, "POST", p.url+"/v2/interactive-submission/prepare", worker,
						prepareBody(id, []string{ext}, create(ext, "2")))
					if status != 200 {
						return
					}
					var prep ledgerapi.PrepareSubmissionResponse
					if err := json.Unmarshal(body, &prep); err != nil {
						t.Errorf("prepare %s: %s", id, body)
						return
					}
					status, body = post(client, "POST", p.url+"/v2/interactive-submission/executeAndWait", worker,
						executeBody(prep, ext, extKey, "sub-"+id))
					if status != 200 {
						return
					}
					var resp ledgerapi.SubmitAndWaitResponse
					if err := json.Unmarshal(body, &resp); err != nil {
						t.Errorf("execute %s: %s", id, body)
						return
					}
					mu.Lock()
					acked[id] = int64(resp.CompletionOffset)
					execs++
					mu.Unlock()
					ack()
				}
			}()
		}
		for g := 0; g < plan.patchers; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				pl := patches[g] // only this goroutine touches pl during the round
				for {
					pl.sent++
					seq := pl.sent
					key := fmt.Sprintf("example.com/k%d", seq%patchKeys)
					status, body := post(client, "PATCH", p.url+partyPath(pl.party), admin,
						patchBody(pl.party, "", map[string]string{key: strconv.Itoa(seq)}, "local_metadata.annotations"))
					if status != 200 {
						return
					}
					var resp ledgerapi.UpdatePartyDetailsResponse
					if err := json.Unmarshal(body, &resp); err != nil {
						t.Errorf("party update: %s", body)
						return
					}
					rv, err := strconv.ParseInt(resp.PartyDetails.LocalMetadata.ResourceVersion, 10, 64)
					if err != nil || rv <= pl.ackedRV {
						t.Errorf("party %s: resource version %q answered after %d", pl.party, resp.PartyDetails.LocalMetadata.ResourceVersion, pl.ackedRV)
					}
					pl.ackedSeq, pl.ackedRV = seq, rv
					pl.ackedKeys[key] = seq
					ack()
				}
			}()
		}
		workersDone := make(chan struct{})
		go func() { wg.Wait(); close(workersDone) }()
		target := plan.minOps + mrand.IntN(plan.maxOps-plan.minOps+1)
	wait:
		for n := 0; n < target; n++ {
			select {
			case <-acks:
			case <-workersDone:
				break wait // every worker stopped: the node failed them; verify will say why
			}
		}
		time.Sleep(time.Duration(mrand.IntN(20_000)) * time.Microsecond)
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = p.cmd.Wait()
		wg.Wait()
		client.CloseIdleConnections()
	}

	// a last restart, a verification, and a clean stop
	p = startProcess(t, db, secretFile)
	end := verifyDurable(t, client, p.url, admin, worker, []string{alice, ext}, acked, patches)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("ledger serve after SIGTERM: %v; stderr:\n%s", err, p.stderr)
	}
	verifyStore(t, db)
	verifyIntegrity(t, db)

	c := crashCounts{Rounds: plan.rounds, Submits: len(acked) - execs, Executes: execs, LedgerEnd: end, Duration: time.Since(began)}
	for _, pl := range patches {
		c.PartyUpdates += int(pl.ackedRV)
	}
	if c.Submits+c.Executes+c.PartyUpdates < plan.rounds*plan.minOps || c.Submits == 0 || (plan.executors > 0 && c.Executes == 0) || c.PartyUpdates == 0 {
		t.Errorf("too little acknowledged to mean anything: %+v", c)
	}
	return c
}

// allocateOverHTTP allocates a local party.
func allocateOverHTTP(t *testing.T, client *http.Client, base, admin, hint string) string {
	t.Helper()
	status, body := post(client, "POST", base+"/v2/parties", admin, map[string]any{"partyIdHint": hint})
	var resp ledgerapi.AllocatePartyResponse
	if status != 200 || json.Unmarshal(body, &resp) != nil {
		t.Fatalf("allocate %s: %d %s", hint, status, body)
	}
	return resp.PartyDetails.Party
}

// onboardOverHTTP makes an external party with a fresh key through
// generate-topology and external/allocate.
func onboardOverHTTP(t *testing.T, client *http.Client, base, admin, hint string) (string, *signer.Key) {
	t.Helper()
	var syncs ledgerapi.GetConnectedSynchronizersResponse
	status, body := post(client, "GET", base+"/v2/state/connected-synchronizers", admin, nil)
	if status != 200 || json.Unmarshal(body, &syncs) != nil || len(syncs.ConnectedSynchronizers) != 1 {
		t.Fatalf("connected synchronizers: %d %s", status, body)
	}
	sync := syncs.ConnectedSynchronizers[0].SynchronizerID
	key, err := signer.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var gen ledgerapi.GenerateExternalPartyTopologyResponse
	status, body = post(client, "POST", base+"/v2/parties/external/generate-topology", admin, map[string]any{
		"synchronizer": sync, "partyHint": hint,
		"publicKey": map[string]any{"format": "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
			"keyData": key.Public().SPKIDER(), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"},
	})
	if status != 200 || json.Unmarshal(body, &gen) != nil {
		t.Fatalf("generate-topology: %d %s", status, body)
	}
	sig, err := key.SignMultiHash(gen.MultiHash)
	if err != nil {
		t.Fatal(err)
	}
	onboarding := make([]map[string]any, len(gen.TopologyTransactions))
	for i, tx := range gen.TopologyTransactions {
		onboarding[i] = map[string]any{"transaction": tx, "signatures": []any{}}
	}
	var alloc ledgerapi.AllocateExternalPartyResponse
	status, body = post(client, "POST", base+"/v2/parties/external/allocate", admin, map[string]any{
		"synchronizer": sync, "onboardingTransactions": onboarding,
		"multiHashSignatures": []any{sig}, "identityProviderId": "",
	})
	if status != 200 || json.Unmarshal(body, &alloc) != nil {
		t.Fatalf("external allocate: %d %s", status, body)
	}
	return alloc.PartyID, key
}

// verifyDurable checks, over the API of a restarted node, that every
// acknowledged command is in the ledger exactly once at the offset it was
// answered, that offsets are gap-free (completions and the topology updates
// of party allocations together), and that no acknowledged party update is
// lost. It returns the ledger end.
func verifyDurable(t *testing.T, client *http.Client, base, admin, worker string, parties []string, acked map[string]int64, patches []*patchLog) int64 {
	t.Helper()
	var all []ledgerapi.Completion
	var begin int64
	for {
		status, body := post(client, "POST", base+"/v2/commands/completions?limit=200&stream_idle_timeout_ms=50", worker,
			map[string]any{"parties": parties, "beginExclusive": begin})
		var els []ledgerapi.CompletionStreamResponse
		if status != 200 || json.Unmarshal(body, &els) != nil {
			t.Fatalf("completions: %d %s", status, body)
		}
		if len(els) == 0 {
			break
		}
		for _, el := range els {
			if el.Completion == nil {
				continue // an offset checkpoint
			}
			all = append(all, *el.Completion)
			begin = el.Offset()
		}
	}
	topology := topologyOffsets(t, client, base, worker)
	seen := map[string]int{}
	at := map[int64]string{}
	next := int64(1) // the offset the next completion must have
	for i, c := range all {
		for topology[next] {
			next++
		}
		if int64(c.Offset) != next {
			t.Fatalf("completion %d has offset %d, want %d: offsets are not gap-free from 1", i, c.Offset, next)
		}
		next++
		if !c.Succeeded() {
			t.Errorf("completion at %d (%s) failed: %+v", c.Offset, c.CommandID, c.Status)
		}
		seen[c.CommandID]++
		at[int64(c.Offset)] = c.CommandID
	}
	var end ledgerapi.GetLedgerEndResponse
	status, body := post(client, "GET", base+"/v2/state/ledger-end", worker, nil)
	if status != 200 || json.Unmarshal(body, &end) != nil || int64(end.Offset) != int64(len(all)+len(topology)) {
		t.Errorf("ledger end %s, %d completions and %d topology updates", body, len(all), len(topology))
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

	for _, pl := range patches {
		var got ledgerapi.GetPartiesResponse
		status, body := post(client, "GET", base+"/v2/parties/"+url.PathEscape(pl.party), admin, nil)
		if status != 200 || json.Unmarshal(body, &got) != nil || len(got.PartyDetails) != 1 {
			t.Fatalf("get party %s: %d %s", pl.party, status, body)
		}
		md := got.PartyDetails[0].LocalMetadata
		rv, err := strconv.ParseInt(md.ResourceVersion, 10, 64)
		// One update may have landed without its answer: the one in flight at the kill.
		if err != nil || rv < pl.ackedRV || rv > pl.ackedRV+1 {
			t.Errorf("party %s: resource version %q after acknowledged %d", pl.party, md.ResourceVersion, pl.ackedRV)
		}
		for key, seq := range pl.ackedKeys {
			v, err := strconv.Atoi(md.Annotations[key])
			if err != nil || v < seq || v > pl.sent {
				t.Errorf("party %s: annotation %s = %q; acknowledged %d, sent up to %d", pl.party, key, md.Annotations[key], seq, pl.sent)
			}
		}
		// Continue from what the node holds, so the next round's versions
		// are checked against the truth.
		pl.ackedRV = rv
		for key := range md.Annotations {
			if v, err := strconv.Atoi(md.Annotations[key]); err == nil && v > pl.ackedKeys[key] {
				pl.ackedKeys[key] = v
			}
		}
	}
	return int64(end.Offset)
}

// verifyStore reads the database through the store: every transaction has
// its successful completion and every ledger entry is a transaction.
func verifyStore(t *testing.T, db string) {
	t.Helper()
	st, err := sqlite.Open(db, sqlite.Options{})
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
	topo, err := st.TopologyRange(t.Context(), ledger.UpdateQuery{Through: st.LedgerEnd(), Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if int64(updates+len(topo)) != st.LedgerEnd() {
		t.Errorf("%d transactions and %d topology updates up to ledger end %d: every entry here is an accepted transaction or a party allocation",
			updates, len(topo), st.LedgerEnd())
	}
}

// verifyIntegrity runs SQLite's own consistency check on the file.
func verifyIntegrity(t *testing.T, db string) {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query("PRAGMA integrity_check")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != "ok" {
		t.Errorf("PRAGMA integrity_check: %s", strings.Join(lines, "; "))
	}
}

// topologyOffsets are the offsets of the topology updates (party
// allocations, when `ledger serve` records them) up to the ledger end.
func topologyOffsets(t *testing.T, client *http.Client, base, token string) map[int64]bool {
	t.Helper()
	status, body := post(client, "POST", base+"/v2/updates?stream_idle_timeout_ms=50", token, map[string]any{"beginExclusive": 0,
		"updateFormat": map[string]any{"includeTopologyEvents": map[string]any{"includeParticipantAuthorizationEvents": map[string]any{}}}})
	var els []ledgerapi.JsGetUpdatesResponse
	if status != 200 || json.Unmarshal(body, &els) != nil {
		t.Fatalf("topology updates: %d %s", status, body)
	}
	out := map[int64]bool{}
	for _, el := range els {
		if el.Update.TopologyTransaction != nil {
			out[el.Update.Offset()] = true
		}
	}
	return out
}
