package integration

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/node/sqlite"
	"github.com/ledger-cli/ledger/server"
)

// The read side's benchmarks: the active contract set and the update
// stream of a node holding readSeeded transactions that each create one
// contract (so as many contracts are active), read by clients that decode
// every element; and pruning 1,000,000 archived contracts while
// submissions go on. Seeding takes minutes: LEDGER_BENCH_READ_DB and
// LEDGER_BENCH_PRUNE_DB name files to keep the databases in (an existing
// file is reused as it is).

// readSeeded is how many transactions (and active contracts) the read
// benchmarks' database holds: 1,000,000, or LEDGER_BENCH_READ_N for a
// quicker look.
var readSeeded = func() int {
	if n, err := strconv.Atoi(os.Getenv("LEDGER_BENCH_READ_N")); err == nil && n > 1 {
		return n
	}
	return 1_000_000
}()

var (
	readOnce sync.Once
	readDB   string
	readErr  error
)

// templateEntry is one real transaction, made by the node, whose bytes the
// seeding copies with fresh ids.
type templateEntry struct {
	party    string
	events   []byte
	contract ledger.Contract
	cid, uid string
}

// realEntry submits one create through a node on db and returns it with
// its events as the node stored them.
func realEntry(db string) (*templateEntry, error) {
	ctx := context.Background()
	n, err := local.Open(ctx, local.Config{DBPath: db})
	if err != nil {
		return nil, err
	}
	p, err := n.AllocateParty(ctx, "Bench", nil, "", "")
	if err != nil {
		return nil, err
	}
	user := "bench-user"
	r, err := n.Submit(ctx, ledgerapi.Commands{CommandID: "template", ActAs: []string{p.ID}, UserID: &user,
		Commands: []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{TemplateID: "#iou:Iou:Iou",
			CreateArguments: []byte(`{"issuer":"` + p.ID + `","owner":"` + p.ID + `","currency":"USD","amount":"1000.25","note":"a bench contract"}`)}}}},
		user, "")
	if err != nil {
		return nil, err
	}
	if r.Rejection != nil {
		return nil, r.Rejection
	}
	uid := r.UpdateID()
	if err := n.Close(); err != nil {
		return nil, err
	}
	st, err := sqlite.Open(db, sqlite.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	u, err := st.UpdateWithID(ctx, uid)
	if err != nil {
		return nil, err
	}
	cs, err := st.ActiveContracts(ctx, ledger.ACSQuery{At: u.Offset}, true)
	if err != nil || len(cs) != 1 {
		return nil, fmt.Errorf("template contract: %v (%d)", err, len(cs))
	}
	return &templateEntry{party: p.ID, events: u.Events, contract: cs[0], cid: cs[0].ContractID, uid: uid}, nil
}

// entry is the template with the ids of number i.
func (te *templateEntry) entry(i int64, archive bool) ledger.Entry {
	cid := fmt.Sprintf("00%064x", i)
	uid := fmt.Sprintf("1220%060x", i)
	events := bytes.ReplaceAll(bytes.ReplaceAll(te.events, []byte(te.cid), []byte(cid)), []byte(te.uid), []byte(uid))
	c := te.contract
	c.ContractID, c.Seq = cid, 0
	c.CreatedJSON = bytes.ReplaceAll(c.CreatedJSON, []byte(te.cid), []byte(cid))
	tx := &ledger.Transaction{UpdateID: uid, EffectiveAt: c.CreatedAt, Events: events, Created: []ledger.Contract{c}}
	if archive {
		tx.Archived = []string{cid}
	}
	return ledger.Entry{UserID: "bench-user", CommandID: fmt.Sprintf("cmd-%d", i), SubmissionID: "s",
		ActAs: []string{te.party}, PaidTrafficCost: 2048, Transaction: tx}
}

// seedEntries commits count entries made by mk through 256 concurrent
// committers.
func seedEntries(st *sqlite.Store, count int64, mk func(i int64) ledger.Entry) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for g := 0; g < 256; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > count {
					return
				}
				if _, err := st.Commit(context.Background(), mk(i)); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// seedRead returns the read benchmarks' database and its party.
func seedRead(b *testing.B) (db, party string) {
	readOnce.Do(func() {
		db := os.Getenv("LEDGER_BENCH_READ_DB")
		if db == "" {
			dir, err := os.MkdirTemp("", "ledger-read-bench-")
			if err != nil {
				readErr = err
				return
			}
			db = filepath.Join(dir, "ledger.db")
		} else if _, err := os.Stat(db); err == nil {
			readDB, readErr = db, checkSchema(db)
			return
		}
		readDB = db
		te, err := realEntry(db)
		if err != nil {
			readErr = err
			return
		}
		st, err := sqlite.Open(db, sqlite.Options{})
		if err != nil {
			readErr = err
			return
		}
		readErr = seedEntries(st, int64(readSeeded-1), func(i int64) ledger.Entry { return te.entry(i, false) })
		if err := st.Close(); readErr == nil {
			readErr = err
		}
	})
	if readErr != nil {
		b.Fatal(readErr)
	}
	st, err := sqlite.Open(readDB, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	cs, err := st.ActiveContracts(context.Background(), ledger.ACSQuery{At: st.LedgerEnd(), Limit: 1}, false)
	if err != nil || len(cs) == 0 {
		b.Fatalf("read benchmark database: %v", err)
	}
	return readDB, cs[0].Signatories[0]
}

// checkSchema refuses a kept database of an older schema, which opening
// would migrate (and so close to the builds that wrote it): the benchmarks
// need one seeded by this build.
func checkSchema(db string) error {
	raw, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		return err
	}
	defer raw.Close()
	var v int
	if err := raw.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil {
		return fmt.Errorf("%s: %w", db, err)
	}
	if v != sqlite.SchemaVersion() {
		return fmt.Errorf("%s has schema version %d, this build's is %d: name a new file, which the benchmark seeds", db, v, sqlite.SchemaVersion())
	}
	return nil
}

// readStream opens the websocket at path with req and decodes every frame
// into a new value of the element type until the node ends a finite stream
// or want frames arrived; it returns how many arrived.
func readStream(b *testing.B, url, path string, req any, want int, decode func(*ledgerapi.StreamDecoder, []byte) error) int {
	conn, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(url, "http")+path,
		&websocket.DialOptions{Subprotocols: []string{"daml.ws.auth"}})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 20)
	raw, _ := json.Marshal(req)
	if err := conn.Write(context.Background(), websocket.MessageText, raw); err != nil {
		b.Fatal(err)
	}
	got := 0
	var dec ledgerapi.StreamDecoder
	var buf bytes.Buffer // one buffer for every frame, as a careful client reads
	for want <= 0 || got < want {
		_, r, err := conn.Reader(context.Background())
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(r)
		}
		if err != nil {
			if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
				return got
			}
			b.Fatal(err)
		}
		data := buf.Bytes()
		if err := decode(&dec, data); err != nil {
			b.Fatalf("frame %d: %v: %.300s", got, err, data)
		}
		got++
	}
	return got
}

// decoders are the benchmarks' clients' decoders, one per stream as a
// client keeps one (readStream runs one stream per goroutine).
func decodeContract(d *ledgerapi.StreamDecoder, data []byte) error {
	el, err := d.ActiveContract(data)
	if err != nil {
		return err
	}
	if el.ContractEntry.ActiveContract == nil {
		return fmt.Errorf("not an active contract")
	}
	return nil
}

func decodeUpdate(d *ledgerapi.StreamDecoder, data []byte) error {
	el, err := d.Update(data)
	if err != nil {
		return err
	}
	if el.Update.Transaction == nil || len(el.Update.Transaction.Events) != 1 {
		return fmt.Errorf("not a transaction with one event")
	}
	return nil
}

// reportElems reports elements/s and process CPU time per element.
func reportElems(b *testing.B, n int, cpu0 time.Duration, unit string) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), unit+"/s")
	if n > 0 {
		b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/1000/float64(n), "cpu-µs/"+unit)
	}
}

// BenchmarkACSRead reads the 1,000,000 active contracts over the websocket
// with one client that decodes every element into the ledgerapi types.
func BenchmarkACSRead(b *testing.B) {
	db, party := seedRead(b)
	run := serve(b, local.Config{DBPath: db}, server.Config{})
	req := map[string]any{"activeAtOffset": readSeeded, "eventFormat": map[string]any{
		"filtersByParty": map[string]any{party: map[string]any{}}, "verbose": true}}
	n, cpu0 := 0, processCPU()
	for b.Loop() {
		if got := readStream(b, run.URL(), "/v2/state/active-contracts", req, 0, decodeContract); got != readSeeded {
			b.Fatalf("read %d contracts, want %d", got, readSeeded)
		}
		n += readSeeded
	}
	reportElems(b, n, cpu0, "contracts")
}

// BenchmarkUpdatesRead replays the 1,000,000 transactions over the
// websocket to one and to two concurrent clients, each decoding every
// update; the rate is per client.
func BenchmarkUpdatesRead(b *testing.B) {
	db, party := seedRead(b)
	run := serve(b, local.Config{DBPath: db}, server.Config{})
	req := map[string]any{"beginExclusive": 0, "updateFormat": map[string]any{"includeTransactions": map[string]any{
		"transactionShape": "TRANSACTION_SHAPE_ACS_DELTA", "eventFormat": map[string]any{
			"filtersByParty": map[string]any{party: map[string]any{}}, "verbose": true}}}}
	for _, clients := range []int{1, 2} {
		b.Run(fmt.Sprintf("clients-%d", clients), func(b *testing.B) {
			n, cpu0 := 0, processCPU()
			for b.Loop() {
				var wg sync.WaitGroup
				for c := 0; c < clients; c++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						readStream(b, run.URL(), "/v2/updates", req, readSeeded, decodeUpdate)
					}()
				}
				wg.Wait()
				n += readSeeded
			}
			reportElems(b, n, cpu0, "updates")
			b.ReportMetric(float64(n*clients)/b.Elapsed().Seconds(), "updates-all-clients/s")
		})
	}
}

// BenchmarkACSServeProcess reads the active contract set from `ledger
// serve` running as its own process, so that its peak resident set
// (VmHWM) is the node's alone.
func BenchmarkACSServeProcess(b *testing.B) {
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	db, party := seedRead(b)
	dir := b.TempDir()
	portFile := filepath.Join(dir, "port")
	cmd := exec.Command(binary, "serve", "--db", db, "--addr", "127.0.0.1:0", "--port-file", portFile)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	url := waitPortFile(b, portFile)
	req := map[string]any{"activeAtOffset": readSeeded, "eventFormat": map[string]any{
		"filtersByParty": map[string]any{party: map[string]any{}}, "verbose": true}}
	n, cpu0 := 0, processCPU()
	for b.Loop() {
		n += readStream(b, url, "/v2/state/active-contracts", req, 0, decodeContract)
	}
	b.StopTimer()
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "contracts/s")
	b.ReportMetric(float64(procStatusKB(b, cmd.Process.Pid, "VmHWM:"))/1024, "node-peak-RSS-MB")
	b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/1000/float64(max(n, 1)), "client-cpu-µs/contract")
	b.ReportMetric(float64(procCPU(b, cmd.Process.Pid).Nanoseconds())/1000/float64(max(n, 1)), "node-cpu-µs/contract")
}

func waitPortFile(b *testing.B, portFile string) string {
	for deadline := time.Now().Add(60 * time.Second); ; {
		if p, err := os.ReadFile(portFile); err == nil && len(bytes.TrimSpace(p)) > 0 {
			return "http://127.0.0.1:" + strings.TrimSpace(string(p))
		}
		if time.Now().After(deadline) {
			b.Fatal("no port file")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procStatusKB reads a kB field of /proc/PID/status.
func procStatusKB(b *testing.B, pid int, field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb
		}
	}
	return 0
}

// procCPU is the user and system CPU time of process pid (Linux).
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ = 100
}

// pruneSeeded is how many archived contracts the prune benchmark removes.
const pruneSeeded = 1_000_000

// seedPrune returns a fresh copy of a database holding pruneSeeded
// archived contracts (100 per transaction, created and archived there) and
// the template entry's party.
func seedPrune(b *testing.B) (string, string) {
	src := os.Getenv("LEDGER_BENCH_PRUNE_DB")
	if src == "" {
		src = filepath.Join(os.TempDir(), "ledger-prune-bench.db")
	}
	if _, err := os.Stat(src); err != nil {
		te, err := realEntry(src)
		if err != nil {
			b.Fatal(err)
		}
		st, err := sqlite.Open(src, sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		const perEntry = 100
		err = seedEntries(st, pruneSeeded/perEntry, func(i int64) ledger.Entry {
			e := te.entry(i*perEntry, true)
			tx := e.Transaction
			for k := int64(1); k < perEntry; k++ {
				c := tx.Created[0]
				c.ContractID = fmt.Sprintf("00%064x", i*perEntry+k)
				tx.Created = append(tx.Created, c)
				tx.Archived = append(tx.Archived, c.ContractID)
			}
			return e
		})
		if cerr := st.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	dst := filepath.Join(b.TempDir(), "ledger.db")
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	return dst, ""
}

// BenchmarkPruneUnderLoad prunes 1,000,000 archived contracts while one
// client submits commands one after another, and reports the longest
// submission (the requirement: none blocked more than 100 ms) and the
// prune's duration.
func BenchmarkPruneUnderLoad(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		db, _ := seedPrune(b)
		run := serve(b, local.Config{DBPath: db}, server.Config{})
		hc := &http.Client{Timeout: time.Minute}
		raw, _ := json.Marshal(map[string]any{"partyIdHint": "Loader"})
		var alloc ledgerapi.AllocatePartyResponse
		_ = json.Unmarshal(benchPost(b, hc, run.URL()+"/v2/parties", "", raw), &alloc)
		party := alloc.PartyDetails.Party
		end := run.Server.Node.LedgerEnd()
		b.StartTimer()

		stop := make(chan struct{})
		var mu sync.Mutex
		var lat, before []time.Duration
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				raw, _ := json.Marshal(commands(fmt.Sprintf("load-%d", i), []string{party}, []map[string]any{create(party, "1")}, map[string]any{"userId": "u"}))
				t0 := time.Now()
				benchPost(b, hc, run.URL()+"/v2/commands/submit-and-wait", "", raw)
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		}()
		// One second of load alone: the longest submission then is what the
		// machine does without pruning, to compare with.
		time.Sleep(time.Second)
		mu.Lock()
		before, lat = lat, nil
		mu.Unlock()
		t0 := time.Now()
		praw, _ := json.Marshal(map[string]any{"pruneUpTo": end})
		out := benchPost(b, hc, run.URL()+server.PrunePath, "", praw)
		pruneTook := time.Since(t0)
		close(stop)
		wg.Wait()
		var pr ledgerapi.PruneResponse
		if err := json.Unmarshal(out, &pr); err != nil || pr.ContractsRemoved < pruneSeeded {
			b.Fatalf("prune answered %s", out)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		sort.Slice(before, func(i, j int) bool { return before[i] < before[j] })
		if len(before) > 0 {
			b.ReportMetric(float64(before[len(before)-1].Microseconds())/1000, "max-submit-ms-without-prune")
		}
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-submit-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-submit-ms")
		b.ReportMetric(float64(len(lat)), "submissions")
		b.ReportMetric(pruneTook.Seconds(), "prune-s")
		b.ReportMetric(float64(pr.ContractsRemoved)/pruneTook.Seconds(), "pruned-contracts/s")
	}
}
