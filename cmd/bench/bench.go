// Package bench holds `ledger bench`: the flags of a load run, handed to the
// bench package (imported as ledgerbench) that drives the node, and its
// report.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	ledgerbench "github.com/ledger-cli/ledger/bench"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/serve"
	"github.com/ledger-cli/ledger/hashing"
)

// Options are the inputs of `ledger bench`.
type Options struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string
	// ProgressTTY rewrites one progress line in place (stderr is a terminal).
	ProgressTTY bool
	// ProgressEvery overrides the progress interval (tests).
	ProgressEvery time.Duration

	Scenario        string
	Concurrency     int
	Duration        time.Duration
	Count           int64
	Rate            float64
	Warmup          time.Duration
	Template        string
	Args            string
	Parties         []string
	NewParties      int
	CommandIDPrefix string
	Synchronizer    string
	Scheme          string
	Seed            int64
	PageSize        int
	PageIdle        time.Duration
	Mix             string
	MaxErrorRate    float64
	Dar             string
	Dars            string
}

// NewCmdBench builds `ledger bench`.
func NewCmdBench(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "bench SCENARIO",
		Short: "Measure a node's throughput and latency under load",
		Long: `Drive a JSON Ledger API node (ledger serve or a Canton participant) with many
concurrent clients and report throughput, latency percentiles (p50, p90, p99,
max from an HDR histogram) and failures counted by Canton error id.

Scenarios, one operation each:
  prepare      POST /v2/interactive-submission/prepare of one create, as a
               local party
  submit       POST /v2/commands/submit-and-wait-for-transaction-tree of one
               create, as a local party
  execute      prepare as an external party, recompute the hash here (the
               node's hash is never signed unchecked), sign it, then
               POST /v2/interactive-submission/executeAndWait
  completions  one page (--page-size) of POST /v2/commands/completions,
               paging through a party's completions from offset 0 again and
               again; also reports completions read per second
  ping         Daml code: each client creates one of Canton's Pings as an
               initiator (POST /v2/commands/submit-and-wait-for-transaction),
               then exercises Respond on it as the responder
               (POST /v2/commands/submit-and-wait), and again; every command
               is one operation. ledger serve runs the Ping only once its DAR
               is uploaded: --upload-dar uploads it at setup
  token        token-standard transfers of my-exercise-app's token: each
               client's sender exercises TransferFactory_Transfer through the
               interface on its own fresh holding
               (POST /v2/commands/submit-and-wait-for-transaction), then the
               token's admin settles the instruction with
               TransferInstruction_Update, which archives the holding and
               creates the receiver's and the change the next transfer
               spends; one operation is one transfer of these two commands.
               Setup uploads the DARs (--dars DIR, as quickstart --token finds
               them), allocates the admin, creates the factory, mints a
               holding per client and checks one transfer. 64 clients unless
               -c says otherwise
  acs          read a party's whole active contract set over the websocket,
               decoding every contract; reports contracts/s across clients
  updates      replay a party's update stream (to the ledger end at setup)
               over the websocket, decoding every update; reports updates/s
  mixed        a weighted mix of prepare, submit, execute and completions
               (--mix), each also measured alone

Setup is not measured: it allocates --parties fresh local parties named
bench-<run>-N and grants the user CanActAs on them (unless --party names
existing ones), onboards as many external parties with fresh keys for
execute (generate-topology, checked, multi-hash signed, allocate), and for
completions and mixed submits creates for them to read: --seed N of them, or
1000 when the party has none. Seeding runs at a concurrency of at least 64,
whatever -c says, and ignores --rate: it is setup. A --page-size above the
node's list maximum is found once, at setup. Setup needs the
ParticipantAdmin right; the operations need read rights on the parties
(prepare, completions) or act rights (submit, execute). The user is --user,
else the token's.

Each operation's create (but ping's) uses --template with --args, JSON in which
{{party}}, {{seq}} and {{commandId}} are filled in; against Canton, name a
template of an uploaded package and arguments that fit it. Command ids are
--command-id-prefix followed by the operation's number from 1, so a second
run with the same fixed prefix and parties is rejected as duplicates.

The run lasts --duration, or --count operations, after --warmup unmeasured.
--rate caps operations per second across all clients. Throughput counts
successful operations; latencies are those of successful operations.
Operations in flight at the end are awaited and counted. Ctrl-C stops early
and reports what finished.

Progress goes to standard error: one line rewritten in place on a terminal,
else a line every 5 seconds. -o json writes the summary for the record:
scenario, concurrency, duration (seconds measured), ops, succeeded, failed,
errorRate, throughput (successful operations per second), latencyMs
{p50, p90, p99, max, mean}, errors {id: count}, errorExamples, and for
completions completions and completionsPerSecond, for acs contracts and
contractsPerSecond, for updates updates and updatesPerSecond; mixed adds
byKind.

Exit status: 0, or 1 when more than --max-error-rate of the operations
failed (or none finished), 2 usage error.`,
		Example: `  # 64 clients submitting for 20 s against a local node
  ledger serve --db /tmp/bench.db &
  ledger bench submit --url http://127.0.0.1:7575 --user participant_admin -c 64 --duration 20s

  # 5,000 prepares at no more than 1,000/s, as existing parties, for the record
  ledger bench prepare --count 5000 --rate 1000 --party "$ALICE" --party "$BOB" -o json > prepare.json

  # read rate of 100,000 completions
  ledger bench completions --seed 100000 -c 8 --duration 20s

  # two clients replaying 100,000 updates; one client reading the contracts
  ledger bench updates --seed 100000 -c 2 --count 4
  ledger bench acs --party "$ALICE" -c 1 --count 3

  # against Canton: a real template and its arguments
  ledger bench submit --template '#my-pkg:Main:Asset' --args '{"owner":"{{party}}","n":"{{seq}}"}'

  ledger bench mixed --mix prepare=2,submit=2,execute=1,completions=0

  # token-standard transfers at 64 clients, the DARs uploaded first
  ledger bench token --duration 20s --dars ../shared/dars

  # Daml: 64 clients creating and responding to Pings, the DAR uploaded first
  ledger bench ping -c 64 --duration 20s --upload-dar daml/archive/testdata/canton-builtin-admin-workflow-ping.dar`,
		Args: cmdutil.ExactArgs(1),
	}
	conn := cmdutil.AddConnFlags(cmd)
	fl := cmd.Flags()
	fl.IntVarP(&opts.Concurrency, "concurrency", "c", ledgerbench.DefaultConcurrency, "concurrent clients")
	fl.DurationVar(&opts.Duration, "duration", ledgerbench.DefaultDuration, "how long to measure")
	fl.Int64Var(&opts.Count, "count", 0, "measure this many operations instead of a duration")
	fl.Float64Var(&opts.Rate, "rate", 0, "at most this many operations per second across all clients (0: no limit)")
	fl.DurationVar(&opts.Warmup, "warmup", 0, "run this long unmeasured before measuring")
	fl.StringVar(&opts.Template, "template", ledgerbench.DefaultTemplate, "template of the created contracts")
	fl.StringVar(&opts.Args, "args", ledgerbench.DefaultArgs, "create arguments: JSON with {{party}}, {{seq}} and {{commandId}} filled in")
	fl.StringArrayVar(&opts.Parties, "party", nil, "existing local party to act as, by id or hint (repeatable; default: allocate --parties fresh ones)")
	fl.IntVar(&opts.NewParties, "parties", ledgerbench.DefaultParties, "how many parties setup allocates (local ones, and external ones for execute)")
	fl.StringVar(&opts.CommandIDPrefix, "command-id-prefix", "", "command ids are this prefix and a number from 1 (default: bench-<random>-)")
	fl.StringVar(&opts.Synchronizer, "synchronizer", "", "synchronizer of the external parties (default: the node's only one)")
	fl.StringVar(&opts.Scheme, "scheme", "", "hashing scheme prepare asks for: v2 or v3 (default: the node's)")
	fl.Int64Var(&opts.Seed, "seed", 0, "submit this many creates before measuring, for completions to read (default: 1000 when there are none)")
	fl.IntVar(&opts.PageSize, "page-size", ledgerbench.DefaultPageSize, "completions per request (one page): the node's maximum list size (Canton's default is 200)")
	fl.DurationVar(&opts.PageIdle, "page-idle", ledgerbench.DefaultPageIdle, "stream_idle_timeout_ms of a completions page; a short page ends a pass")
	fl.StringVar(&opts.Mix, "mix", "prepare=1,submit=1,execute=1,completions=1", "weights of the mixed scenario: KIND=N,…")
	fl.Float64Var(&opts.MaxErrorRate, "max-error-rate", 0.01, "exit 1 when more than this fraction of operations failed")
	fl.StringVar(&opts.Dar, "upload-dar", "", "DAR to upload to the node at setup (ping: the DAR of Canton's Ping package)")
	cmdutil.OldFlagName(fl, "dar", "upload-dar") // --dar reads a DAR here, it sends none
	fl.StringVar(&opts.Dars, "dars", "", "token: folder of my-exercise-app.dar and the splice-api-token-* DARs (default: $"+cmdutil.DarsEnv+", else ./dars or ../shared/dars)")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		opts.Scenario = args[0]
		if c.Flags().Changed("count") && c.Flags().Changed("duration") {
			return cmdutil.UsageError("give --duration or --count, not both")
		}
		if c.Flags().Changed("count") {
			opts.Duration = 0
		}
		if opts.Scenario == ledgerbench.ScenarioToken && !c.Flags().Changed("concurrency") {
			opts.Concurrency = ledgerbench.TokenConcurrency
		}
		opts.Connect = conn.Connect
		opts.ProgressTTY = isTerminal(opts.IO.ErrOut)
		if runF != nil {
			return runF(opts)
		}
		return benchRun(c.Context(), opts)
	}
	return cmd
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// config checks the flags and turns them into a ledgerbench.Config.
func (opts *Options) config() (ledgerbench.Config, error) {
	cfg := ledgerbench.Config{
		Scenario: opts.Scenario, Concurrency: opts.Concurrency, Duration: opts.Duration, Count: opts.Count,
		Rate: opts.Rate, Warmup: opts.Warmup, Template: opts.Template, Args: opts.Args, Parties: opts.Parties,
		NewParties: opts.NewParties, CommandIDPrefix: opts.CommandIDPrefix, Synchronizer: opts.Synchronizer,
		Seed: opts.Seed, PageSize: opts.PageSize, PageIdle: opts.PageIdle,
	}
	known := false
	for _, s := range ledgerbench.Scenarios {
		known = known || s == opts.Scenario
	}
	switch {
	case !known:
		return cfg, cmdutil.UsageError("unknown scenario %q: use one of %s", opts.Scenario, strings.Join(ledgerbench.Scenarios, ", "))
	case opts.Concurrency < 1:
		return cfg, cmdutil.UsageError("--concurrency must be at least 1")
	case opts.Count < 0:
		return cfg, cmdutil.UsageError("--count must not be negative")
	case opts.Count == 0 && opts.Duration <= 0:
		return cfg, cmdutil.UsageError("--duration must be positive")
	case opts.Rate < 0:
		return cfg, cmdutil.UsageError("--rate must not be negative (0: no limit)")
	case opts.Warmup < 0:
		return cfg, cmdutil.UsageError("--warmup must not be negative")
	case opts.NewParties < 1:
		return cfg, cmdutil.UsageError("--parties must be at least 1")
	case opts.Seed < 0:
		return cfg, cmdutil.UsageError("--seed must not be negative")
	case opts.PageSize < 1:
		return cfg, cmdutil.UsageError("--page-size must be at least 1")
	case opts.MaxErrorRate < 0 || opts.MaxErrorRate > 1:
		return cfg, cmdutil.UsageError("--max-error-rate must be between 0 and 1")
	case opts.Scenario == ledgerbench.ScenarioExecute && len(opts.Parties) > 0:
		return cfg, cmdutil.UsageError("--party cannot be used with execute: it onboards external parties whose keys it generates (--parties sets how many)")
	case opts.Seed > 0 && opts.Scenario != ledgerbench.ScenarioCompletions && opts.Scenario != ledgerbench.ScenarioMixed &&
		opts.Scenario != ledgerbench.ScenarioACS && opts.Scenario != ledgerbench.ScenarioUpdates:
		return cfg, cmdutil.UsageError("--seed is for the completions, acs, updates and mixed scenarios")
	}
	if opts.Dars != "" && opts.Scenario != ledgerbench.ScenarioToken {
		return cfg, cmdutil.UsageError("--dars is for the token scenario")
	}
	if opts.Scenario == ledgerbench.ScenarioToken {
		files, err := cmdutil.FindTokenDars(opts.Dars)
		if err != nil {
			return cfg, err
		}
		for _, f := range files {
			dar, err := os.ReadFile(f)
			if err != nil {
				return cfg, err
			}
			cfg.Dars = append(cfg.Dars, dar)
		}
	}
	if opts.Dar != "" {
		dar, err := os.ReadFile(opts.Dar)
		if err != nil {
			return cfg, cmdutil.UsageError("--upload-dar: %s", err)
		}
		cfg.Dar = dar
	}
	if opts.Scheme != "" {
		s, err := hashing.ParseScheme(opts.Scheme)
		if err != nil {
			return cfg, cmdutil.UsageError("--scheme: %s", err)
		}
		cfg.Scheme = s
	}
	if opts.Scenario == ledgerbench.ScenarioMixed {
		mix, err := parseMix(opts.Mix)
		if err != nil {
			return cfg, err
		}
		cfg.Mix = mix
	}
	return cfg, nil
}

// parseMix reads "prepare=2,submit=1".
func parseMix(s string) (map[string]int, error) {
	mix := map[string]int{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		k = strings.TrimSpace(k)
		if !ok || err != nil || n < 0 {
			return nil, cmdutil.UsageError("--mix: %q is not KIND=WEIGHT with a weight ≥ 0 (e.g. prepare=2,submit=1)", part)
		}
		switch k {
		case ledgerbench.ScenarioPrepare, ledgerbench.ScenarioSubmit, ledgerbench.ScenarioExecute, ledgerbench.ScenarioCompletions:
		default:
			return nil, cmdutil.UsageError("--mix: unknown kind %q: use prepare, submit, execute or completions", k)
		}
		mix[k] = n
	}
	total := 0
	for _, n := range mix {
		total += n
	}
	if total == 0 {
		return nil, cmdutil.UsageError("--mix: give at least one kind a positive weight")
	}
	return mix, nil
}

func benchRun(ctx context.Context, opts *Options) error {
	serve.ThroughputGC()
	cfg, err := opts.config()
	if err != nil {
		return err
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()

	if cfg.Parties, err = conn.ResolvePartyHints("--party", cfg.Parties, opts.IO.ErrOut); err != nil {
		return err
	}
	cfg.Client, cfg.UserID, cfg.Log = conn.Client, conn.UserID, opts.IO.ErrOut
	cfg.ProgressEvery = 5 * time.Second
	if opts.ProgressTTY {
		cfg.ProgressEvery = 500 * time.Millisecond
	}
	if opts.ProgressEvery > 0 {
		cfg.ProgressEvery = opts.ProgressEvery
	}
	cfg.Progress = func(p ledgerbench.Progress) {
		line := ledgerbench.FormatProgress(p)
		switch {
		case opts.ProgressTTY && p.Done:
			fmt.Fprintf(opts.IO.ErrOut, "\r\033[K%s\n", line)
		case opts.ProgressTTY:
			fmt.Fprintf(opts.IO.ErrOut, "\r\033[K%s", line)
		default:
			fmt.Fprintln(opts.IO.ErrOut, line)
		}
	}
	sum, err := ledgerbench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if opts.Format != cmdutil.FormatTable {
		err = cmdutil.WriteStructured(opts.IO.Out, opts.Format, sum)
	} else {
		err = sum.WriteText(opts.IO.Out)
	}
	if err != nil {
		return err
	}
	switch {
	case sum.Ops == 0:
		return cmdutil.WithExit(cmdutil.ExitFailure, fmt.Errorf("no operation finished in %.3fs: raise --duration or check the node", sum.Duration))
	case sum.ErrorRate > opts.MaxErrorRate:
		return cmdutil.WithExit(cmdutil.ExitFailure, fmt.Errorf("%d of %d operations failed (%.2f%%), more than --max-error-rate %g", sum.Failed, sum.Ops, 100*sum.ErrorRate, opts.MaxErrorRate))
	}
	return nil
}
