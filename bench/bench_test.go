package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
)

// node starts an in-process `ledger serve` on a temporary database file
// (no authentication) and returns a client of it.
func node(t *testing.T) *client.Client {
	t.Helper()
	n, err := local.Open(context.Background(), local.Config{DBPath: filepath.Join(t.TempDir(), "ledger.db")})
	if err != nil {
		t.Fatalf("open node: %v", err)
	}
	run, err := server.Start(context.Background(), n, server.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { run.Close() })
	c, err := client.New(client.Config{URL: run.URL(), MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func run(t *testing.T, cfg Config) *Summary {
	t.Helper()
	s, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run(%s): %v", cfg.Scenario, err)
	}
	return s
}

// checkConsistent checks what holds for every run without failures.
func checkConsistent(t *testing.T, name string, st Stats, wantOps int64) {
	t.Helper()
	if st.Ops != wantOps || st.Succeeded != wantOps || st.Failed != 0 || len(st.Errors) != 0 || st.ErrorRate != 0 {
		t.Errorf("%s: ops %d succeeded %d failed %d errors %v, want %d clean operations", name, st.Ops, st.Succeeded, st.Failed, st.Errors, wantOps)
	}
	l := st.LatencyMs
	if !(0 < l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max) {
		t.Errorf("%s: percentiles out of order or zero: %+v", name, l)
	}
	if l.Mean <= 0 || l.Mean > l.Max {
		t.Errorf("%s: mean %v outside (0, max %v]", name, l.Mean, l.Max)
	}
	if st.Throughput <= 0 {
		t.Errorf("%s: throughput %v", name, st.Throughput)
	}
}

func TestScenariosAgainstServe(t *testing.T) {
	c := node(t)
	const count = 40
	for _, sc := range []string{ScenarioPrepare, ScenarioSubmit, ScenarioExecute, ScenarioCompletions, ScenarioMixed} {
		t.Run(sc, func(t *testing.T) {
			cfg := Config{Client: c, UserID: ledger.AdminUserID, Scenario: sc, Concurrency: 4, Count: count, NewParties: 2, Warmup: 50 * time.Millisecond}
			if sc == ScenarioCompletions || sc == ScenarioMixed {
				cfg.Seed = 450 // more than two pages of 200
			}
			s := run(t, cfg)
			checkConsistent(t, sc, s.Stats, count)
			if s.Scenario != sc || s.Concurrency != 4 || s.Duration <= 0 || s.SetupSeconds <= 0 || s.UserID != ledger.AdminUserID {
				t.Errorf("header %+v", s)
			}
			// throughput is successful operations over the measured time
			if got, want := s.Throughput, float64(count)/s.Duration; got < want*0.99 || got > want*1.01 {
				t.Errorf("throughput %v, want %v ops / %v s = %v", got, count, s.Duration, want)
			}
			switch sc {
			case ScenarioExecute:
				if len(s.Parties) != 2 || !strings.HasPrefix(s.Parties[0], "bench-") {
					t.Errorf("parties %v", s.Parties)
				}
			case ScenarioCompletions:
				// 40 pages: passes of 200, 200, 50 completions.
				if s.Completions < 40*50 || s.CompletionsPerSecond <= 0 {
					t.Errorf("completions %d (%v/s)", s.Completions, s.CompletionsPerSecond)
				}
			case ScenarioMixed:
				if len(s.ByKind) != 4 {
					t.Fatalf("byKind %v", s.ByKind)
				}
				for k, st := range s.ByKind {
					checkConsistent(t, "mixed/"+k, st, count/4)
				}
			}
		})
	}
}

// TestSubmitCommitsEveryOperation reads back what a submit run did: one
// successful completion per operation, with the run's command ids.
func TestSubmitCommitsEveryOperation(t *testing.T) {
	c := node(t)
	s := run(t, Config{Client: c, UserID: ledger.AdminUserID, Scenario: ScenarioSubmit, Concurrency: 8, Count: 30, NewParties: 1, CommandIDPrefix: "read-back-"})
	checkConsistent(t, "submit", s.Stats, 30)
	page, err := c.Completions(context.Background(), ledgerapi.CompletionStreamRequest{UserID: ledger.AdminUserID, Parties: s.Parties},
		client.CompletionsOptions{Limit: 200, IdleTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, e := range page {
		if e.Completion == nil || !e.Completion.Succeeded() || !strings.HasPrefix(e.Completion.CommandID, "read-back-") {
			t.Errorf("completion %+v", e)
			continue
		}
		ids[e.Completion.CommandID] = true
	}
	if len(ids) != 30 {
		t.Errorf("%d distinct committed commands, want 30", len(ids))
	}
}

// TestDuplicateCommandsCountedByErrorID runs the same command ids twice: the
// second run's operations are all rejected as duplicates.
func TestDuplicateCommandsCountedByErrorID(t *testing.T) {
	c := node(t)
	first := run(t, Config{Client: c, UserID: ledger.AdminUserID, Scenario: ScenarioSubmit, Concurrency: 3, Count: 12, NewParties: 1, CommandIDPrefix: "dup-"})
	checkConsistent(t, "first", first.Stats, 12)
	second := run(t, Config{Client: c, UserID: ledger.AdminUserID, Scenario: ScenarioSubmit, Concurrency: 3, Count: 12, Parties: first.Parties, CommandIDPrefix: "dup-"})
	if second.Ops != 12 || second.Failed != 12 || second.Succeeded != 0 || second.ErrorRate != 1 || second.Throughput != 0 {
		t.Errorf("second run: %+v", second.Stats)
	}
	if len(second.Errors) != 1 || second.Errors[ledgerapi.CodeDuplicateCommand.ID] != 12 {
		t.Errorf("errors %v, want DUPLICATE_COMMAND: 12", second.Errors)
	}
	if !strings.Contains(second.ErrorExamples[ledgerapi.CodeDuplicateCommand.ID], "DUPLICATE_COMMAND") {
		t.Errorf("example %q", second.ErrorExamples)
	}
	if second.LatencyMs != (Latency{}) {
		t.Errorf("latency of failures recorded: %+v", second.LatencyMs)
	}
}

func TestInvalidTemplateCountedByErrorID(t *testing.T) {
	c := node(t)
	for _, sc := range []string{ScenarioPrepare, ScenarioSubmit} {
		s := run(t, Config{Client: c, UserID: ledger.AdminUserID, Scenario: sc, Concurrency: 2, Count: 6, NewParties: 1, Template: "no-colons"})
		if s.Failed != 6 || len(s.Errors) != 1 {
			t.Fatalf("%s: %+v", sc, s.Stats)
		}
		for id := range s.Errors {
			if id == "" || strings.HasPrefix(id, "HTTP") || strings.Contains(id, " ") || id != strings.ToUpper(id) {
				t.Errorf("%s: error id %q is not a Canton error id", sc, id)
			}
		}
	}
}

func TestDurationRateAndProgress(t *testing.T) {
	c := node(t)
	var mu sync.Mutex
	var seen []Progress
	s := run(t, Config{Client: c, UserID: ledger.AdminUserID, Scenario: ScenarioPrepare, Concurrency: 4, Duration: 400 * time.Millisecond,
		Rate: 50, NewParties: 1, ProgressEvery: 100 * time.Millisecond, Progress: func(p Progress) {
			mu.Lock()
			seen = append(seen, p)
			mu.Unlock()
		}})
	if s.Duration < 0.4 {
		t.Errorf("measured %v s, less than --duration", s.Duration)
	}
	// A limiter of 50/s with a burst of 1 lets at most 1 + 50·t operations start.
	if max := 1 + 50*s.Duration; float64(s.Ops) > max {
		t.Errorf("%d operations in %v s at 50/s", s.Ops, s.Duration)
	}
	checkConsistent(t, "prepare", s.Stats, s.Ops)
	if s.RateLimit != 50 {
		t.Errorf("rateLimit %v", s.RateLimit)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || !seen[len(seen)-1].Done || seen[len(seen)-1].Ops != s.Ops || seen[len(seen)-1].Phase != "run" {
		t.Errorf("progress %+v", seen)
	}
}

func TestConfigErrors(t *testing.T) {
	c := node(t)
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Scenario: "load"}, "unknown scenario"},
		{Config{Scenario: ScenarioSubmit, Args: `{"owner":{{party}}}`}, "--args"},
		{Config{Scenario: ScenarioMixed, Mix: map[string]int{"read": 1}}, `unknown kind "read"`},
		{Config{Scenario: ScenarioMixed, Mix: map[string]int{ScenarioSubmit: 0}}, "all weights are zero"},
		{Config{Scenario: ScenarioSubmit, Count: -1}, "negative"},
		{Config{Scenario: ScenarioSubmit, Parties: []string{"bad!party"}}, "--party"},
	} {
		tc.cfg.Client, tc.cfg.UserID = c, ledger.AdminUserID
		_, err := Run(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// TestDefaultsWork: mixed and completions with their defaults seed what
// they read; seeding runs at SeedConcurrency whatever -c says; a page size
// above the node's list maximum is one setup error (issue 12, item 29).
func TestDefaultsWork(t *testing.T) {
	c := node(t)
	var log strings.Builder
	s, err := Run(context.Background(), Config{Client: c, UserID: ledger.AdminUserID, Scenario: ScenarioMixed, Concurrency: 1, Count: 8, NewParties: 1, Log: &log})
	if err != nil {
		t.Fatalf("mixed with its defaults: %v", err)
	}
	checkConsistent(t, "mixed", s.Stats, 8)
	if s.Seeded != DefaultSeed || !strings.Contains(log.String(), "seeding") {
		t.Errorf("seeded %d, log %q", s.Seeded, log.String())
	}

	// Seeding at -c 1 is not one create at a time: count the requests in
	// flight on their way to the node.
	var inFlight, peak atomic.Int32
	target, _ := url.Parse(c.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		proxy.ServeHTTP(w, r)
	}))
	defer counting.Close()
	pc, err := client.New(client.Config{URL: counting.URL, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	s = run(t, Config{Client: pc, UserID: ledger.AdminUserID, Scenario: ScenarioCompletions, Concurrency: 1, Count: 4, NewParties: 1, Seed: 300})
	checkConsistent(t, "completions", s.Stats, 4)
	if peak.Load() < 8 {
		t.Errorf("seeding at -c 1 had at most %d requests in flight", peak.Load())
	}

	_, err = Run(context.Background(), Config{Client: c, UserID: ledger.AdminUserID, Scenario: ScenarioCompletions, Concurrency: 1, Count: 1, NewParties: 1, Seed: 300, PageSize: 500})
	if err == nil || !strings.Contains(err.Error(), "smaller --page-size") {
		t.Errorf("page size 500 against a maximum of 200: %v", err)
	}
}

// TestPingScenarioAgainstServe uploads the Ping DAR at setup and runs the
// ping scenario: creates and Responds alternate per client, every one
// succeeds; without the DAR, setup says what is missing.
func TestPingScenarioAgainstServe(t *testing.T) {
	c := node(t)
	cfg := Config{Client: c, UserID: ledger.AdminUserID, Scenario: ScenarioPing, Concurrency: 4, Count: 40, NewParties: 2}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--upload-dar") {
		t.Errorf("ping without the DAR: %v", err)
	}
	dar, err := os.ReadFile(filepath.Join("..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dar = dar
	s := run(t, cfg)
	checkConsistent(t, ScenarioPing, s.Stats, 40)
	if s.Template != PingTemplate {
		t.Errorf("template %q", s.Template)
	}
	cfg.NewParties = 1
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "two parties") {
		t.Errorf("ping with one party: %v", err)
	}
}

// TestTokenScenarioAgainstServe uploads my-exercise-app's DARs at setup
// and runs token transfers: every one succeeds and spends a fresh holding
// (a spent one would fail its settlement); without the DARs, setup says
// what is missing.
func TestTokenScenarioAgainstServe(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "dars")
	var dars [][]byte
	for _, f := range splice.TokenAppDars {
		dar, err := os.ReadFile(filepath.Join(dir, f))
		if os.IsNotExist(err) {
			t.Skipf("%s not found in %s (the shared folder beside the repository); skipping", f, dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		dars = append(dars, dar)
	}
	c := node(t)
	cfg := Config{Client: c, UserID: ledger.AdminUserID, Scenario: ScenarioToken, Concurrency: 4, Count: 24, NewParties: 2}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--dars") {
		t.Errorf("token without the DARs: %v", err)
	}
	cfg.Dars = dars
	s := run(t, cfg)
	checkConsistent(t, ScenarioToken, s.Stats, 24)
	if s.TransfersPerSecond != s.Throughput || s.CommandsPerSecond != 2*s.Throughput {
		t.Errorf("transfers/s %g, commands/s %g, throughput %g", s.TransfersPerSecond, s.CommandsPerSecond, s.Throughput)
	}
	var text strings.Builder
	if err := s.WriteText(&text); err != nil || !strings.Contains(text.String(), "transfers/s") {
		t.Errorf("summary: %v\n%s", err, text.String())
	}
}
