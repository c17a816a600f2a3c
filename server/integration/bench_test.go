package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/node/sqlite"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// benchClients is the number of concurrent clients of the load benchmarks.
const benchClients = 64

// benchNode starts an in-process node on a temporary database file.
func benchNode(b *testing.B, mode string, nc node.Config) (*server.Running, *http.Client) {
	b.Helper()
	run := serve(b, local.Config{Node: nc}, server.Config{Auth: auth.Config{Mode: mode, Secret: testSecret}})
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = benchClients*2, benchClients*2
	return run, &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// seedStore opens db for seeding behind a node: the node creates its
// identity first, then the store takes entries directly.
func seedStore(db string) (*sqlite.Store, error) {
	n, err := local.Open(context.Background(), local.Config{DBPath: db})
	if err != nil {
		return nil, err
	}
	if err := n.Close(); err != nil {
		return nil, err
	}
	return sqlite.Open(db, sqlite.Options{})
}

// benchPost sends one JSON request and fails the benchmark unless it is 200.
func benchPost(b *testing.B, hc *http.Client, url, token string, body []byte) []byte {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		b.Error(err)
		return nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.Errorf("%s: %d %s", url, resp.StatusCode, out)
		return nil
	}
	return out
}

// setupParty allocates Alice and, with auth, a user acting as her.
func setupParty(b *testing.B, run *server.Running, hc *http.Client, mode string) (party, token, user string) {
	b.Helper()
	admin := ""
	if mode != auth.ModeNone {
		admin, _ = auth.Mint(testSecret, ledger.AdminUserID, time.Hour, "", auth.DefaultParticipantID, time.Now())
	}
	raw, _ := json.Marshal(map[string]any{"partyIdHint": "Alice"})
	var resp ledgerapi.AllocatePartyResponse
	if err := json.Unmarshal(benchPost(b, hc, run.URL()+"/v2/parties", admin, raw), &resp); err != nil {
		b.Fatal(err)
	}
	party, user = resp.PartyDetails.Party, "bench-user"
	if mode != auth.ModeNone {
		raw, _ = json.Marshal(ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: user}, Rights: []ledgerapi.Right{ledgerapi.CanActAs(party)}})
		benchPost(b, hc, run.URL()+"/v2/users", admin, raw)
		token, _ = auth.Mint(testSecret, user, time.Hour, "", auth.DefaultParticipantID, time.Now())
	}
	return party, token, user
}

// runLoad runs b.N requests from benchClients goroutines; body(i) makes the
// i-th request. It reports requests/s and the p50/p99 latency.
func runLoad(b *testing.B, hc *http.Client, url, token string, body func(i int64) []byte) {
	runLoadPerClient(b, hc, url, token, func(_ int, i int64) (string, []byte) { return "", body(i) }, nil)
}

// BenchmarkSubmitTree measures submit-and-wait-for-transaction-tree (a
// create, durable commit) from 64 concurrent clients over HTTP, with and
// without token checks, and reports commits per fsync.
func BenchmarkSubmitTree(b *testing.B) {
	for _, mode := range []string{auth.ModeNone, auth.ModeHS256} {
		b.Run("auth="+mode, func(b *testing.B) {
			run, hc := benchNode(b, mode, node.Config{})
			party, token, user := setupParty(b, run, hc, mode)
			before := run.Server.Node.CommitStats()
			prefix := strconv.FormatInt(time.Now().UnixNano(), 36)
			runLoad(b, hc, run.URL()+"/v2/commands/submit-and-wait-for-transaction-tree", token, func(i int64) []byte {
				raw, _ := json.Marshal(commands(fmt.Sprintf("%s-%d", prefix, i), []string{party},
					[]map[string]any{create(party, "10.25")}, map[string]any{"userId": user}))
				return raw
			})
			st := run.Server.Node.CommitStats()
			if batches := st.Batches - before.Batches; batches > 0 {
				b.ReportMetric(float64(st.Commits-before.Commits)/float64(batches), "commits/fsync")
			}
		})
	}
}

// BenchmarkPrepare measures prepare of a create from 64 concurrent clients.
func BenchmarkPrepare(b *testing.B) {
	run, hc := benchNode(b, auth.ModeNone, node.Config{})
	party, _, _ := setupParty(b, run, hc, auth.ModeNone)
	runLoad(b, hc, run.URL()+"/v2/interactive-submission/prepare", "", func(i int64) []byte {
		body := prepareBody(fmt.Sprintf("p-%d", i), []string{party}, create(party, "10.25"))
		body["userId"] = "bench-user"
		raw, _ := json.Marshal(body)
		return raw
	})
}

// completionsDB is a database holding completionsSeeded completions of one
// user and party, made once by direct store commits.
var (
	completionsOnce sync.Once
	completionsDir  string
	completionsDB   string
	completionsErr  error
)

const seedParty = "Alice::1220aabbccddeeff00112233445566778899aabbccddeeff0011223344556677"

// completionsSeeded is how many completions BenchmarkCompletionsRead seeds:
// 200,000, or LEDGER_BENCH_COMPLETIONS (the serve target is stated for a
// node holding 1,000,000; seeding that many takes minutes).
var completionsSeeded = func() int64 {
	if v, err := strconv.ParseInt(os.Getenv("LEDGER_BENCH_COMPLETIONS"), 10, 64); err == nil && v > 0 {
		return v
	}
	return 200_000
}()

// seedCompletions returns a database holding completionsSeeded completions.
// LEDGER_BENCH_DB names a file to keep it in: an existing file is reused
// as it is (seeding 1,000,000 takes minutes), a missing one is seeded.
func seedCompletions() (string, error) {
	completionsOnce.Do(func() {
		db := os.Getenv("LEDGER_BENCH_DB")
		if db != "" {
			if _, err := os.Stat(db); err == nil {
				completionsDB = db
				return
			}
		} else {
			completionsDir, completionsErr = os.MkdirTemp("", "ledger-completions-bench-")
			if completionsErr != nil {
				return
			}
			db = filepath.Join(completionsDir, "ledger.db")
		}
		completionsDB = db
		st, err := seedStore(db)
		if err != nil {
			completionsErr = err
			return
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		var mu sync.Mutex
		for g := 0; g < 256; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1)
					if i > completionsSeeded {
						return
					}
					_, err := st.Commit(context.Background(), ledger.Entry{
						UserID: "bench-user", CommandID: fmt.Sprintf("cmd-%d", i), SubmissionID: fmt.Sprintf("%032x", i),
						ActAs: []string{seedParty}, TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
						PaidTrafficCost: 2048,
						Transaction: &ledger.Transaction{UpdateID: fmt.Sprintf("1220%060x", i), EffectiveAt: time.Now(),
							Events: make([]byte, 512)},
					})
					if err != nil {
						mu.Lock()
						completionsErr = err
						mu.Unlock()
						return
					}
				}
			}()
		}
		wg.Wait()
		if err := st.Close(); err != nil && completionsErr == nil {
			completionsErr = err
		}
	})
	return completionsDB, completionsErr
}

// BenchmarkCompletionsRead reads every completion of a node holding
// completionsSeeded of them: through the list endpoint in pages of 200 (the
// default --completions-max) and 10,000 with a reader that counts elements
// without decoding them, through the real client (which decodes every
// element into ledgerapi types) in pages of 10,000, and through the
// websocket. Besides completions/s, which depends on how much of the two
// cores the machine's other load leaves, it reports the process CPU time
// (node and reader together) per completion.
func BenchmarkCompletionsRead(b *testing.B) {
	db, err := seedCompletions()
	if err != nil {
		b.Fatal(err)
	}
	run := serve(b, local.Config{DBPath: db}, server.Config{CompletionsMax: 10000})
	hc := &http.Client{Timeout: time.Minute}
	for _, page := range []int{200, 10000} {
		b.Run(fmt.Sprintf("list-%d", page), func(b *testing.B) {
			read, cpu0 := 0, processCPU()
			for b.Loop() {
				var begin int64
				for begin < completionsSeeded {
					raw, _ := json.Marshal(map[string]any{"userId": "bench-user", "parties": []string{seedParty}, "beginExclusive": begin})
					out := benchPost(b, hc, fmt.Sprintf("%s/v2/commands/completions?limit=%d&stream_idle_timeout_ms=100", run.URL(), page), "", raw)
					// Count the elements and take the last offset from the bytes:
					// the client's JSON decoding is not what is measured here.
					els := bytes.Count(out, []byte(`{"completionResponse":`))
					i := bytes.LastIndex(out, []byte(`"offset":`))
					if els == 0 || i < 0 {
						b.Fatalf("page after %d: %.200s", begin, out)
					}
					rest := out[i+len(`"offset":`):]
					next, err := strconv.ParseInt(string(rest[:bytes.IndexByte(rest, ',')]), 10, 64)
					if err != nil {
						b.Fatal(err)
					}
					begin = next
					read += els
				}
			}
			reportRead(b, read, cpu0)
		})
	}
	b.Run("client-10000", func(b *testing.B) {
		cl, err := client.New(client.Config{URL: run.URL()})
		if err != nil {
			b.Fatal(err)
		}
		read, cpu0 := 0, processCPU()
		for b.Loop() {
			var begin int64
			for begin < completionsSeeded {
				page, err := cl.Completions(context.Background(), ledgerapi.CompletionStreamRequest{
					UserID: "bench-user", Parties: []string{seedParty}, BeginExclusive: ledgerapi.Int64(begin),
				}, client.CompletionsOptions{Limit: 10000, IdleTimeout: 100 * time.Millisecond})
				if err != nil || len(page) == 0 || page[len(page)-1].Completion == nil {
					b.Fatalf("page after %d: %d elements, %v", begin, len(page), err)
				}
				begin = page[len(page)-1].Offset()
				read += len(page)
			}
		}
		reportRead(b, read, cpu0)
	})
	b.Run("websocket", func(b *testing.B) {
		n := &testNode{url: run.URL()}
		req, _ := json.Marshal(map[string]any{"userId": "bench-user", "parties": []string{seedParty}})
		read, cpu0 := 0, processCPU()
		for b.Loop() {
			conn, _, err := websocket.Dial(context.Background(), wsURL(n), &websocket.DialOptions{Subprotocols: []string{"daml.ws.auth"}})
			if err != nil {
				b.Fatal(err)
			}
			conn.SetReadLimit(1 << 20)
			if err := conn.Write(context.Background(), websocket.MessageText, req); err != nil {
				b.Fatal(err)
			}
			for got := int64(0); got < completionsSeeded; got++ {
				if _, _, err := conn.Read(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			conn.CloseNow()
			read += int(completionsSeeded)
		}
		reportRead(b, read, cpu0)
	})
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportRead reports completions/s and the CPU time per completion since
// cpu0.
func reportRead(b *testing.B, read int, cpu0 time.Duration) {
	b.ReportMetric(float64(read)/b.Elapsed().Seconds(), "completions/s")
	if read > 0 {
		b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/1000/float64(read), "cpu-µs/completion")
	}
}

// BenchmarkServeRSS seeds a database with 1,000,000 active contracts, starts
// `ledger serve` on it as a process, submits against it, and reports the
// process's resident set size.
func BenchmarkServeRSS(b *testing.B) {
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	const contracts, perEntry = 1_000_000, 100
	dir := b.TempDir()
	db := filepath.Join(dir, "ledger.db")
	st, err := seedStore(db)
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	arg := make([]byte, 120)
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				e := next.Add(1)
				if e > contracts/perEntry {
					return
				}
				tx := &ledger.Transaction{UpdateID: fmt.Sprintf("1220%060x", e), EffectiveAt: time.Now(), Events: make([]byte, 256)}
				for k := int64(0); k < perEntry; k++ {
					tx.Created = append(tx.Created, ledger.Contract{ContractID: fmt.Sprintf("00%064x", e*perEntry+k),
						TemplateID: "pkg:Iou:Iou", PackageName: "iou", Argument: arg,
						Signatories: []string{seedParty}, Stakeholders: []string{seedParty}, CreatedAt: time.Now()})
				}
				if _, err := st.Commit(context.Background(), ledger.Entry{UserID: "seed", CommandID: fmt.Sprintf("seed-%d", e),
					SubmissionID: "s", ActAs: []string{seedParty}, Transaction: tx}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	_ = st.Close()

	portFile := filepath.Join(dir, "port")
	cmd := exec.Command(binary, "serve", "--db", db, "--addr", "127.0.0.1:0", "--port-file", portFile)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == ""; {
		if p, err := os.ReadFile(portFile); err == nil {
			url = "http://127.0.0.1:" + strings.TrimSpace(string(p))
		} else if time.Now().After(deadline) {
			b.Fatal("no port file")
		}
		time.Sleep(20 * time.Millisecond)
	}
	hc := &http.Client{Timeout: time.Minute}
	raw, _ := json.Marshal(map[string]any{"partyIdHint": "Alice"})
	var alloc ledgerapi.AllocatePartyResponse
	_ = json.Unmarshal(benchPost(b, hc, url+"/v2/parties", "", raw), &alloc)
	party := alloc.PartyDetails.Party
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		raw, _ := json.Marshal(commands(fmt.Sprintf("rss-%d", i), []string{party}, []map[string]any{create(party, "1")}, map[string]any{"userId": "u"}))
		benchPost(b, hc, url+"/v2/commands/submit-and-wait-for-transaction-tree", "", raw)
		raw, _ = json.Marshal(map[string]any{"userId": "seed", "parties": []string{seedParty}, "beginExclusive": i * 100})
		benchPost(b, hc, url+"/v2/commands/completions?limit=100&stream_idle_timeout_ms=1", "", raw)
	}
	b.StopTimer()
	b.ReportMetric(float64(rssKB(b, cmd.Process.Pid))/1024, "RSS-MB")
}

// rssKB reads VmRSS of a process from /proc (Linux).
func rssKB(b *testing.B, pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

// BenchmarkPingFlow measures Daml on the node over HTTP: 64 clients, each
// creating a Ping as its initiator (submit-and-wait-for-transaction) and
// then exercising Respond on it as its responder (submit-and-wait), with
// durable commits; every command counts as one request.
func BenchmarkPingFlow(b *testing.B) {
	run, hc := benchNode(b, auth.ModeNone, node.Config{})
	benchPost(b, hc, run.URL()+"/v2/dars", "", archiveTestdata(b, "canton-builtin-admin-workflow-ping.dar"))
	var parties []string
	for _, hint := range []string{"Initiator", "Responder"} {
		raw, _ := json.Marshal(map[string]any{"partyIdHint": hint})
		var resp ledgerapi.AllocatePartyResponse
		if err := json.Unmarshal(benchPost(b, hc, run.URL()+"/v2/parties", "", raw), &resp); err != nil {
			b.Fatal(err)
		}
		parties = append(parties, resp.PartyDetails.Party)
	}
	prefix := strconv.FormatInt(time.Now().UnixNano(), 36)
	pending := make([]string, benchClients) // per client: the Ping awaiting its Respond
	runLoadPerClient(b, hc, run.URL(), "", func(c int, i int64) (string, []byte) {
		id := fmt.Sprintf("%s-%d", prefix, i)
		if pending[c] == "" {
			raw, _ := json.Marshal(map[string]any{"commands": commands(id, []string{parties[0]},
				[]map[string]any{pingCreate(parties[0], parties[1], id)}, map[string]any{"userId": damlUser})})
			return "/v2/commands/submit-and-wait-for-transaction", raw
		}
		raw, _ := json.Marshal(commands(id, []string{parties[1]},
			[]map[string]any{damlExercise(pingTemplate, pending[c], "Respond", map[string]any{})}, map[string]any{"userId": damlUser}))
		pending[c] = ""
		return "/v2/commands/submit-and-wait", raw
	}, func(c int, out []byte) {
		if i := bytes.Index(out, []byte(`"contractId":"`)); i >= 0 && bytes.Contains(out, []byte(`"CreatedEvent"`)) {
			rest := out[i+len(`"contractId":"`):]
			pending[c] = string(rest[:bytes.IndexByte(rest, '"')])
		}
	})
}

// runLoadPerClient runs b.N requests from benchClients goroutines, for
// flows with per-client state: req(c, i) makes client c's i-th request
// (the path after base, and the body), done(c, answer), when set, reads
// the answer. It reports requests/s, the p50/p99 latency and the process's
// CPU time per request (clients and node together).
func runLoadPerClient(b *testing.B, hc *http.Client, base, token string, req func(c int, i int64) (string, []byte), done func(c int, out []byte)) {
	var next atomic.Int64
	lat := make([][]time.Duration, benchClients)
	var wg sync.WaitGroup
	cpu0 := processCPU()
	b.ResetTimer()
	start := time.Now()
	for c := 0; c < benchClients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				path, body := req(c, i)
				t0 := time.Now()
				out := benchPost(b, hc, base+path, token, body)
				if out == nil {
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
				if done != nil {
					done(c, out)
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(len(all)), "cpu-µs/req")
}
