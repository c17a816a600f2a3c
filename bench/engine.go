package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/splice"
)

// Scenario names.
const (
	ScenarioPrepare     = "prepare"
	ScenarioSubmit      = "submit"
	ScenarioExecute     = "execute"
	ScenarioCompletions = "completions"
	ScenarioPing        = "ping"
	ScenarioACS         = "acs"
	ScenarioUpdates     = "updates"
	ScenarioMixed       = "mixed"
	ScenarioToken       = "token"
)

// Scenarios lists the scenarios in help order.
var Scenarios = []string{ScenarioPrepare, ScenarioSubmit, ScenarioExecute, ScenarioCompletions, ScenarioPing, ScenarioToken, ScenarioACS, ScenarioUpdates, ScenarioMixed}

// PingTemplate is the template of the ping scenario: Canton's own Ping,
// which every Canton participant has (the admin workflow package) and
// ledger serve runs once its DAR is uploaded.
const PingTemplate = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"

// Defaults of Config fields left at zero.
const (
	DefaultConcurrency = 16
	DefaultDuration    = 10 * time.Second
	DefaultTemplate    = "#bench:Bench:Item"
	DefaultArgs        = `{"owner":"{{party}}","seq":{{seq}}}`
	DefaultParties     = 8
	DefaultPageSize    = 200
	DefaultPageIdle    = 10 * time.Millisecond
	DefaultProgress    = 5 * time.Second
	// DefaultSeed is how many creates setup submits when the completions
	// party has nothing to read and no --seed was given.
	DefaultSeed = 1000
	// SeedConcurrency is the least concurrency of seeding, whatever the
	// measured concurrency: seeding is setup, and at -c 1 200,000 creates
	// took eleven minutes.
	SeedConcurrency = 64
)

// DefaultMix is the mixed scenario's weights when none are given.
var DefaultMix = map[string]int{ScenarioPrepare: 1, ScenarioSubmit: 1, ScenarioExecute: 1, ScenarioCompletions: 1}

// Config is one benchmark run.
type Config struct {
	// Client talks to the node. Run widens its connection pool to the
	// concurrency (an http.Transport keeps 2 idle connections per host by
	// default, which would make most requests open a new connection).
	Client *client.Client
	// UserID is the user commands and completions name; "" asks the node
	// for the token's user.
	UserID string

	Scenario    string
	Concurrency int
	// Duration is the measured time; Count, when positive, is the number of
	// operations instead.
	Duration time.Duration
	Count    int64
	// Rate caps operations per second across all workers (0: no cap).
	Rate float64
	// Warmup runs the scenario unmeasured for this long first.
	Warmup time.Duration

	// Template and Args make the create command: Args is JSON in which
	// {{party}}, {{seq}} and {{commandId}} are replaced per operation.
	Template string
	Args     string
	// Parties are existing local parties to act as (prepare, submit,
	// completions); none: NewParties fresh ones are allocated. Execute always
	// onboards NewParties external parties of its own.
	Parties    []string
	NewParties int
	// CommandIDPrefix starts every command id; the rest is the operation's
	// sequence number from 1. Empty: "bench-<random>-", unique per run.
	// A fixed prefix makes a second run's commands duplicates of the first's.
	CommandIDPrefix string
	// Synchronizer is the synchronizer of external parties ("": the node's
	// only one).
	Synchronizer string
	// Scheme is the hashing scheme prepare asks for (0: the node's default).
	Scheme hashing.Scheme

	// Seed submits this many creates before a completions run.
	Seed int64
	// PageSize is the limit of one completions page (the node's maximum
	// list size; Canton's default is 200). PageIdle is its
	// stream_idle_timeout_ms: a page shorter than PageSize ends a pass.
	PageSize int
	PageIdle time.Duration

	// Mix weighs the kinds of the mixed scenario.
	Mix map[string]int

	// Dar, when set, is uploaded at setup (the ping scenario: the DAR of
	// Canton's Ping, which ledger serve does not have until uploaded).
	Dar []byte
	// Dars are uploaded at setup in order (the token scenario: the DARs of
	// splice.TokenAppDars).
	Dars [][]byte

	// Progress, when set, is called every ProgressEvery during each phase and
	// once at its end (Done set).
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Log receives one line per setup step (nil: discarded).
	Log io.Writer
}

// Progress is a snapshot of a running phase.
type Progress struct {
	// Phase is "seed", "warmup" or "run".
	Phase   string
	Elapsed time.Duration
	Ops     int64
	Failed  int64
	// Completions read so far (completions scenario).
	Completions int64
	// P99Ms is the 99th percentile latency of successful operations so far.
	P99Ms float64
	// Target is the operation count the phase runs to (0: by time).
	Target int64
	Done   bool
}

// Summary is the result of a run: `ledger bench -o json` writes it.
type Summary struct {
	Scenario    string  `json:"scenario"`
	URL         string  `json:"url"`
	Concurrency int     `json:"concurrency"`
	RateLimit   float64 `json:"rateLimit"`
	// Duration is the measured phase in seconds (setup and warm-up excluded).
	Duration      float64 `json:"duration"`
	SetupSeconds  float64 `json:"setupSeconds"`
	WarmupSeconds float64 `json:"warmupSeconds"`
	Stats
	// ByKind splits the mixed scenario by kind of operation.
	ByKind map[string]Stats `json:"byKind,omitempty"`
	// Contracts and Updates count what the acs and updates scenarios read
	// (every element decoded), and their rates across all clients.
	Contracts          int64   `json:"contracts,omitempty"`
	ContractsPerSecond float64 `json:"contractsPerSecond,omitempty"`
	Updates            int64   `json:"updates,omitempty"`
	UpdatesPerSecond   float64 `json:"updatesPerSecond,omitempty"`
	// TransfersPerSecond and CommandsPerSecond are the token scenario's
	// throughput: each operation is one transfer of two commands.
	TransfersPerSecond float64   `json:"transfersPerSecond,omitempty"`
	CommandsPerSecond  float64   `json:"commandsPerSecond,omitempty"`
	UserID             string    `json:"userId"`
	Parties            []string  `json:"parties"`
	Template           string    `json:"template,omitempty"`
	Seeded             int64     `json:"seeded,omitempty"`
	Interrupted        bool      `json:"interrupted,omitempty"`
	StartedAt          time.Time `json:"startedAt"`
}

// opFunc runs one operation for worker w; seq is unique in the run. It
// returns the completions it read (completions scenario).
type opFunc func(ctx context.Context, w int, seq int64) (items int, err error)

// plan is what the workers run: kinds picked by weight, round robin.
type plan struct {
	wheel []string
	ops   map[string]opFunc
}

func (p *plan) pick(seq int64) string { return p.wheel[int(seq%int64(len(p.wheel)))] }

// runner holds one run's state.
type runner struct {
	cfg   Config
	c     *client.Client
	user  string
	seq   atomic.Int64 // command sequence numbers across phases
	local []string     // local parties
	ext   []*externalParty
	sync  string
	// cursors are the completions workers' positions, one per worker.
	cursors []int64
	// pings are the ping workers' Pings awaiting their Respond, one per
	// worker ("" when the next operation creates one).
	pings []string
	// end is the offset the updates scenario replays up to.
	end int64
	// token is the token scenario's admin, factory and holdings.
	token *tokenState
	// readsCompletions says the scenario reads completion pages; autoSeed
	// is how many creates setup found it must seed for them to have
	// something to read.
	readsCompletions bool
	autoSeed         int64
	cidPre           string
}

// Run sets up, warms up and measures cfg's scenario. Its error is a setup
// failure or a bad Config; failed operations are counted in the Summary.
// When ctx ends during the measured phase, the Summary covers what finished
// and is marked Interrupted.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, c: cfg.Client, cursors: make([]int64, cfg.Concurrency), pings: make([]string, cfg.Concurrency), cidPre: cfg.CommandIDPrefix}
	if r.cidPre == "" {
		r.cidPre = "bench-" + randomHex(4) + "-"
	}
	widenPool(r.c, max(cfg.Concurrency, SeedConcurrency))

	start := time.Now()
	sum := &Summary{Scenario: cfg.Scenario, URL: r.c.URL(), Concurrency: cfg.Concurrency, RateLimit: cfg.Rate, Template: cfg.Template, StartedAt: start.UTC()}
	p, err := r.setup(ctx)
	if err != nil {
		return nil, err
	}
	if seed := max(cfg.Seed, r.autoSeed); seed > 0 {
		if err := r.seed(ctx, seed); err != nil {
			return nil, err
		}
		sum.Seeded = seed
		if cfg.Scenario == ScenarioUpdates {
			if r.end, err = r.readEnd(ctx); err != nil {
				return nil, err
			}
		}
		if r.readsCompletions {
			// A node refuses a page larger than its maximum only once
			// there is more to read: check again now there is.
			if err := r.checkCompletions(ctx); err != nil {
				return nil, err
			}
		}
	}
	sum.SetupSeconds = round3(time.Since(start).Seconds())
	sum.UserID, sum.Parties = r.user, append(append([]string{}, r.local...), r.externalIDs()...)

	if cfg.Warmup > 0 {
		t := time.Now()
		r.phase(ctx, "warmup", p, cfg.Warmup, 0, newRecorders(p, false))
		sum.WarmupSeconds = round3(time.Since(t).Seconds())
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	mixed := cfg.Scenario == ScenarioMixed
	recs := newRecorders(p, mixed)
	elapsed := r.phase(ctx, "run", p, cfg.Duration, cfg.Count, recs)
	sum.Duration = elapsed.Seconds()
	sum.Stats = recs.total.stats(elapsed)
	if mixed {
		sum.ByKind = map[string]Stats{}
		for k, rec := range recs.byKind {
			sum.ByKind[k] = rec.stats(elapsed)
		}
	}
	sum.readElements()
	if cfg.Scenario == ScenarioToken {
		sum.TransfersPerSecond, sum.CommandsPerSecond = sum.Throughput, 2*sum.Throughput
	}
	sum.Interrupted = ctx.Err() != nil
	return sum, nil
}

func (cfg *Config) normalize() error {
	if cfg.Client == nil {
		return errors.New("bench: no client")
	}
	known := false
	for _, s := range Scenarios {
		known = known || s == cfg.Scenario
	}
	if !known {
		return fmt.Errorf("unknown scenario %q: use one of %v", cfg.Scenario, Scenarios)
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
		if cfg.Scenario == ScenarioToken {
			cfg.Concurrency = TokenConcurrency
		}
	}
	if cfg.Count < 0 || cfg.Duration < 0 || cfg.Rate < 0 || cfg.Warmup < 0 || cfg.Seed < 0 || cfg.NewParties < 0 || cfg.PageSize < 0 {
		return errors.New("bench: count, duration, rate, warmup, seed, parties and page size must not be negative")
	}
	if cfg.Count == 0 && cfg.Duration == 0 {
		cfg.Duration = DefaultDuration
	}
	switch cfg.Scenario {
	case ScenarioPing:
		cfg.Template = PingTemplate
	case ScenarioToken:
		// What each operation exercises first; the summary names it.
		cfg.Template = splice.TransferFactory
	}
	if cfg.Template == "" {
		cfg.Template = DefaultTemplate
	}
	if cfg.Args == "" {
		cfg.Args = DefaultArgs
	}
	if _, err := createArgs(cfg.Args, "p::1220", 1, "c"); err != nil {
		return err
	}
	if cfg.NewParties == 0 {
		cfg.NewParties = DefaultParties
	}
	if cfg.PageSize == 0 {
		cfg.PageSize = DefaultPageSize
	}
	if cfg.PageIdle <= 0 {
		cfg.PageIdle = DefaultPageIdle
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgress
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Scenario == ScenarioMixed {
		if len(cfg.Mix) == 0 {
			cfg.Mix = DefaultMix
		}
		total := 0
		for k, w := range cfg.Mix {
			if k == ScenarioMixed || !isKind(k) {
				return fmt.Errorf("mix: unknown kind %q: use prepare, submit, execute or completions", k)
			}
			if w < 0 {
				return fmt.Errorf("mix: weight of %s is negative", k)
			}
			total += w
		}
		if total == 0 {
			return errors.New("mix: all weights are zero")
		}
	}
	return nil
}

func isKind(k string) bool {
	switch k {
	case ScenarioPrepare, ScenarioSubmit, ScenarioExecute, ScenarioCompletions:
		return true
	}
	return false
}

// recorders are the totals of a phase and, per kind, its parts.
type recorders struct {
	total  *recorder
	byKind map[string]*recorder
}

// newRecorders keeps per-kind recorders only when there are several kinds.
func newRecorders(p *plan, split bool) *recorders {
	rs := &recorders{total: newRecorder(), byKind: map[string]*recorder{}}
	if split {
		for k := range p.ops {
			rs.byKind[k] = newRecorder()
		}
	}
	return rs
}

// phase runs p's operations from cfg.Concurrency workers until dur has
// passed or count operations have been issued, and waits for those in
// flight. It returns the time from its start until the last one finished.
func (r *runner) phase(ctx context.Context, name string, p *plan, dur time.Duration, count int64, recs *recorders) time.Duration {
	var limiter *rate.Limiter
	workers := r.cfg.Concurrency
	if name == phaseSeed {
		workers = max(workers, SeedConcurrency) // setup, not measured: as fast as the node goes
	} else if r.cfg.Rate > 0 {
		limiter = rate.NewLimiter(rate.Limit(r.cfg.Rate), 1)
	}
	start := time.Now()
	// issueCtx ends the issuing of new operations; operations already issued
	// run under ctx and are awaited.
	issueCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if count == 0 {
		var c2 context.CancelFunc
		issueCtx, c2 = context.WithDeadline(issueCtx, start.Add(dur))
		defer c2()
	}
	var issued atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for issueCtx.Err() == nil {
				if count > 0 && issued.Add(1) > count {
					return
				}
				if limiter != nil && limiter.Wait(issueCtx) != nil {
					return
				}
				seq := r.seq.Add(1)
				kind := p.pick(seq)
				t0 := time.Now()
				items, err := p.ops[kind](ctx, w, seq)
				d := time.Since(t0)
				if err != nil && ctx.Err() != nil {
					return // interrupted: neither a success nor the node's failure
				}
				recs.total.record(d, items, err)
				if rec := recs.byKind[kind]; rec != nil {
					rec.record(d, items, err)
				}
			}
		}(w)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	report := func(final bool) {
		if r.cfg.Progress == nil {
			return
		}
		pr := recs.total.progress()
		r.cfg.Progress(Progress{Phase: name, Elapsed: time.Since(start), Ops: pr.ops, Failed: pr.failed,
			Completions: pr.items, P99Ms: pr.p99, Target: count, Done: final})
	}
	tick := time.NewTicker(r.cfg.ProgressEvery)
	defer tick.Stop()
	for {
		select {
		case <-done:
			elapsed := time.Since(start)
			if count == 0 && elapsed < dur && ctx.Err() == nil {
				// The limiter refuses to start operations it could not
				// start before the deadline; the window is still dur.
				elapsed = dur
			}
			report(true)
			return elapsed
		case <-tick.C:
			report(false)
		}
	}
}

// widenPool lets the client keep one idle connection per worker.
func widenPool(c *client.Client, n int) {
	if tr, ok := c.HTTPClient().Transport.(*http.Transport); ok {
		if tr.MaxIdleConnsPerHost < n+8 {
			tr.MaxIdleConnsPerHost = n + 8
		}
		if tr.MaxIdleConns != 0 && tr.MaxIdleConns < n+8 {
			tr.MaxIdleConns = n + 8
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
