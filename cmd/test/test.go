// Package test holds `ledger test`: run the Daml Script tests of a DAR, as
// `daml test` does, each on a fresh in-memory ledger.
package test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/script"
)

// Options are the inputs of `ledger test`.
type Options struct {
	IO     *cmdutil.IOStreams
	Format string

	Dar     string
	Scripts []string // Module:name; none means every script of the main package
	JUnit   string   // file to write JUnit XML to, "" for none
	Jobs    int      // scripts run at once; 0 means the number of CPUs
	Steps   int64    // interpreter steps per evaluation, 0 for the default
	OnNode  bool     // run each script on a fresh in-process ledger serve node
	// IDEProtocolVersion is the protocol version whose rollback rule the
	// in-memory ledger follows (34 or 35, as Daml's
	// --ide-ledger-protocol-version); "" follows Daml's IDE ledger for the
	// DAR's daml-script version.
	IDEProtocolVersion string

	// ReadDar reads the DAR file; nil means archive.ReadDarFile.
	ReadDar func(path string) (*archive.Dar, error)
}

// NewCmdTest builds `ledger test`.
func NewCmdTest(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "test DAR [--script Module:name]...",
		Short: "Run the Daml Script tests of a DAR",
		Long: `Run the Daml Script tests of a DAR, as daml test does: every top-level value
of type Script a of the DAR's main package (or only those named with
--script), each on a fresh in-memory ledger with static time starting at
1970-01-01T00:00:00Z, interpreted by ledger's own Daml engine — no node, no
JVM.

Each script prints a line: ok, or the failure (the Daml error and its
message, the script's location, its debug trace). A summary follows. The exit
status is 0 only when every script passed. --junit writes a JUnit XML report
for CI. Scripts run in parallel, up to the number of CPUs (--jobs).

With --on-node each script runs on a fresh ledger serve node over the JSON
Ledger API instead. That node follows Canton 3.5, which refuses to roll back
a try block that created or archived a contract
(DAML_EFFECTFUL_ROLLBACK_ERROR); daml test for a DAR built with daml-script
before 3.5 rolls it back. A script the node refuses for that reason, and
which passes on the in-memory ledger, is reported as an expected difference
(a skipped case in JUnit), not as a failure. --ide-ledger-protocol-version 35
makes the in-memory ledger follow Canton 3.5's rule too, as daml test does
for daml-script 3.5 and later (34 for the earlier rule).`,
		Example: `  ledger test my-app-test.dar
  ledger test my-app-test.dar --script Test.Main:testTransfer --script Test.Main:testSetup
  ledger test my-app-test.dar --junit test-results.xml -o json`,
		Args: cmdutil.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dar = args[0]
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if opts.IDEProtocolVersion != "" {
				if _, err := stateMode(opts.IDEProtocolVersion); err != nil {
					return cmdutil.UsageError("--ide-ledger-protocol-version: %v", err)
				}
				if opts.OnNode {
					return cmdutil.UsageError("--ide-ledger-protocol-version sets the in-memory ledger's rule; a node (--on-node) follows Canton 3.5 (35)")
				}
			}
			if opts.Jobs < 0 {
				return cmdutil.UsageError("--jobs must be at least 1, not %d", opts.Jobs)
			}
			if runF != nil {
				return runF(opts)
			}
			return testRun(c.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Scripts, "script", nil, "run only this script (Module:name); repeat for several")
	cmd.Flags().StringVar(&opts.JUnit, "junit", "", "write a JUnit XML report to `FILE`")
	cmd.Flags().IntVarP(&opts.Jobs, "jobs", "j", 0, "scripts run at once (default: the number of CPUs)")
	cmd.Flags().BoolVar(&opts.OnNode, "on-node", false, "run each script on a fresh ledger serve node in process (SQLite in memory, static time), over the JSON Ledger API, instead of the in-memory ledger")
	cmd.Flags().StringVar(&opts.IDEProtocolVersion, "ide-ledger-protocol-version", "", "`VERSION` whose rollback rule the in-memory ledger follows: 34 (a caught exception undoes its try block) or 35 (an effectful rollback fails, as Canton 3.5); default: as daml test for the DAR's daml-script (34 before daml-script 3.5)")
	cmd.Flags().Int64Var(&opts.Steps, "steps", 0, "interpreter steps each evaluation of a script may take (default 100000000)")
	return cmd
}

// Outcome is the result of one script.
type Outcome struct {
	Name     string         `json:"name"`
	Passed   bool           `json:"passed"`
	Commands int            `json:"commands"`
	Steps    int64          `json:"steps"`
	Duration time.Duration  `json:"-"`
	Millis   int64          `json:"durationMs"`
	Failure  *FailureReport `json:"failure,omitempty"`
	// Difference, set only with --on-node, says why a script that failed
	// on the node is an expected difference from daml test, not a
	// failure: it passes on the in-memory ledger, which follows Daml's IDE
	// ledger, and the node refused it as Canton 3.5 does.
	Difference string          `json:"expectedDifference,omitempty"`
	Trace      []string        `json:"trace,omitempty"`
	err        *script.Failure `json:"-"`
}

// FailureReport is why a script failed.
type FailureReport struct {
	Kind     string `json:"kind"`
	Command  string `json:"command,omitempty"`
	Message  string `json:"message"`
	Location string `json:"location,omitempty"`
}

// Report is what `ledger test -o json` prints.
type Report struct {
	Dar     string    `json:"dar"`
	Package string    `json:"package"`
	Scripts []Outcome `json:"scripts"`
	Passed  int       `json:"passed"`
	Failed  int       `json:"failed"`
	// Differ counts the scripts that failed on the node only as Canton
	// 3.5 differs from the IDE ledger of their daml-script (--on-node).
	Differ int   `json:"expectedDifferences"`
	Millis int64 `json:"durationMs"`
}

func testRun(ctx context.Context, opts *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	read := opts.ReadDar
	if read == nil {
		read = func(path string) (*archive.Dar, error) { return archive.ReadDarFile(path, archive.Options{}) }
	}
	dar, err := read(opts.Dar)
	if err != nil {
		return fmt.Errorf("reading %s: %w", opts.Dar, err)
	}
	mode, err := stateMode(opts.IDEProtocolVersion)
	if err != nil {
		return cmdutil.UsageError("--ide-ledger-protocol-version: %v", err)
	}
	newLedger := func(ctx context.Context, r *script.Runner) (script.Ledger, func(), error) {
		l := script.NewMemoryLedger(r)
		if opts.IDEProtocolVersion != "" {
			l.SetStateMode(mode)
		}
		return l, func() {}, nil
	}
	if opts.OnNode {
		darBytes, err := os.ReadFile(opts.Dar)
		if err != nil {
			return err
		}
		newLedger = func(ctx context.Context, r *script.Runner) (script.Ledger, func(), error) {
			return nodeLedger(ctx, dar.Packages, darBytes)
		}
	}
	r, err := script.New(dar.Packages, dar.Main, interp.Limits{Steps: opts.Steps})
	if err != nil {
		return fmt.Errorf("%s: %w", opts.Dar, err)
	}
	var names []lf.ValueName
	if len(opts.Scripts) == 0 {
		names = r.Scripts()
		if len(names) == 0 {
			return fmt.Errorf("%s: the main package %s has no scripts (top-level values of type Script a)", opts.Dar, dar.MainPackage().Name)
		}
	}
	for _, s := range opts.Scripts {
		n, err := r.Lookup(s)
		if err != nil {
			return cmdutil.UsageError("--script: %v", err)
		}
		names = append(names, n)
	}
	// In table form each script's line is printed as soon as it and those
	// before it are done, so a long suite shows its progress.
	var done func(o Outcome)
	if opts.Format == cmdutil.FormatTable {
		done = func(o Outcome) { printOutcome(opts.IO.Out, o) }
	}
	outcomes := runAll(ctx, r, names, opts.Jobs, newLedger, opts.OnNode, done)
	rep := Report{Dar: opts.Dar, Package: dar.MainPackage().Name + "-" + dar.MainPackage().Version, Scripts: outcomes}
	for _, o := range outcomes {
		switch {
		case o.Passed:
			rep.Passed++
		case o.Difference != "":
			rep.Differ++
		default:
			rep.Failed++
		}
	}
	elapsed := time.Since(start)
	rep.Millis = elapsed.Milliseconds()
	if opts.JUnit != "" {
		if err := writeJUnit(opts.JUnit, rep, elapsed); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	if opts.Format != cmdutil.FormatTable {
		if err := cmdutil.WriteStructured(opts.IO.Out, opts.Format, rep); err != nil {
			return err
		}
	} else {
		differ := ""
		if rep.Differ > 0 {
			differ = fmt.Sprintf(", %d expected differences from daml test", rep.Differ)
		}
		fmt.Fprintf(opts.IO.Out, "\n%d scripts: %d passed, %d failed%s (%s)\n", len(rep.Scripts), rep.Passed, rep.Failed, differ, elapsed.Round(time.Millisecond))
	}
	if rep.Failed > 0 {
		return cmdutil.WithExit(cmdutil.ExitFailure, nil)
	}
	return nil
}

// runAll runs the scripts, jobs at a time, each on its own ledger, and
// returns their outcomes in the order of names. done, when set, is called
// with each outcome in that order, as soon as it and those before it are
// known.
//
// onNode says the ledgers are nodes: a script a node refuses for an
// effectful rollback is run again on the in-memory ledger, to tell an
// expected difference from a failure.
func runAll(ctx context.Context, r *script.Runner, names []lf.ValueName, jobs int, newLedger ledgerFactory, onNode bool, done func(Outcome)) []Outcome {
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	out := make([]Outcome, len(names))
	finished := make([]bool, len(names))
	reported := 0
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o := runOne(ctx, r, names[i], newLedger)
				if onNode && !o.Passed && effectfulRollback(o.err) {
					o.Difference = rollbackDifference(ctx, r, names[i])
				}
				mu.Lock()
				out[i], finished[i] = o, true
				for reported < len(names) && finished[reported] {
					if done != nil {
						done(out[reported])
					}
					reported++
				}
				mu.Unlock()
			}
		}()
	}
	for i := range names {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// ledgerFactory gives each script a fresh ledger, and what closes it.
type ledgerFactory func(ctx context.Context, r *script.Runner) (script.Ledger, func(), error)

func runOne(ctx context.Context, r *script.Runner, name lf.ValueName, newLedger ledgerFactory) Outcome {
	start := time.Now()
	var res *script.Result
	l, closeLedger, err := newLedger(ctx, r)
	if err == nil {
		res, err = r.Run(ctx, name, l, script.Options{})
		closeLedger()
	}
	o := Outcome{Name: name.Module.String() + ":" + name.Name.String(), Duration: time.Since(start)}
	o.Millis = o.Duration.Milliseconds()
	if res != nil {
		o.Commands, o.Steps = res.Commands, res.Steps
		for _, t := range res.Trace {
			o.Trace = append(o.Trace, t.String())
		}
		if res.TraceDropped > 0 {
			o.Trace = append(o.Trace, fmt.Sprintf("… %d more trace lines not kept", res.TraceDropped))
		}
	}
	if err == nil {
		o.Passed = true
		return o
	}
	var f *script.Failure
	if !errors.As(err, &f) {
		f = &script.Failure{Kind: "internal", Message: err.Error()}
	}
	o.err = f
	o.Failure = &FailureReport{Kind: f.Kind, Command: f.Command, Message: f.Message}
	if f.Location != nil {
		o.Failure.Location = f.Location.String()
	}
	return o
}

// stateMode reads a protocol version as Daml's --ide-ledger-protocol-version
// does ("34", "v34", "35", "v35", "latest"; "" is 35 here, unused) into the
// rollback rule Canton uses with it (EngineMode.forProtocolVersion).
func stateMode(v string) (interp.StateMode, error) {
	switch strings.ToLower(v) {
	case "34", "v34":
		return interp.StateNoKey, nil
	case "", "35", "v35", "latest":
		return interp.StateNUCK, nil
	}
	return 0, fmt.Errorf("unknown protocol version %q: want 34 or 35", v)
}

// effectfulRollback reports whether a script failed because the ledger
// refused to roll back what a try block did (Canton 3.5's rule).
func effectfulRollback(f *script.Failure) bool {
	const id = "DAML_EFFECTFUL_ROLLBACK_ERROR"
	var ie *interp.Error
	var sf *script.SubmitFailure
	return f != nil && (errors.As(f, &ie) && ie.ID == id || errors.As(f, &sf) && sf.ID == id)
}

// rollbackDifference runs a script that a node refused for an effectful
// rollback on the in-memory ledger, whose rule is that of Daml's IDE ledger
// for the DAR's daml-script. When the IDE ledger rolls back (daml-script
// before 3.5) and the script passes there, the refusal is Canton 3.5's
// rule (protocol version 35, ContractStateMachine mode NUCK), not a fault
// of the script: the note saying so is returned; otherwise "".
func rollbackDifference(ctx context.Context, r *script.Runner, name lf.ValueName) string {
	if r.StateMode() != interp.StateNoKey {
		return ""
	}
	if _, err := r.Run(ctx, name, script.NewMemoryLedger(r), script.Options{}); err != nil {
		return ""
	}
	return fmt.Sprintf("expected difference from daml test: the script catches an exception after its code created or archived "+
		"a contract. Daml's IDE ledger for daml-script %s rolls that back (Canton 3.4's rule), and the script passes on the in-memory "+
		"ledger (ledger test without --on-node); a Canton 3.5 node (protocol version 35) refuses an effectful rollback, as this node does.",
		r.ScriptVersion())
}

// printOutcome prints a script's line, and its failure.
func printOutcome(w io.Writer, o Outcome) {
	if o.Passed {
		fmt.Fprintf(w, "%s: ok, %d commands (%s)\n", o.Name, o.Commands, o.Duration.Round(time.Millisecond))
		return
	}
	if o.Difference != "" {
		fmt.Fprintf(w, "%s: EXPECTED DIFFERENCE (not counted as a failure)\n", o.Name)
		fmt.Fprintf(w, "  %s\n", o.Difference)
		writeFailure(w, "  ", o)
		return
	}
	fmt.Fprintf(w, "%s: FAILED\n", o.Name)
	writeFailure(w, "  ", o)
}

// writeFailure prints a failure: its message, the command and location,
// and the script's trace.
func writeFailure(w io.Writer, indent string, o Outcome) {
	f := o.Failure
	for _, line := range strings.Split(f.Message, "\n") {
		fmt.Fprintf(w, "%s%s\n", indent, line)
	}
	if f.Command != "" {
		fmt.Fprintf(w, "%sin command %s\n", indent, f.Command)
	}
	if f.Location != "" {
		fmt.Fprintf(w, "%sat %s\n", indent, f.Location)
	}
	if len(o.Trace) > 0 {
		fmt.Fprintf(w, "%strace:\n", indent)
		for _, t := range o.Trace {
			fmt.Fprintf(w, "%s  %s\n", indent, t)
		}
	}
}

// The JUnit XML report, as CI systems read it.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// junitSkipped marks an expected difference: neither a pass nor a
// failure.
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func writeJUnit(path string, rep Report, elapsed time.Duration) error {
	suite := junitSuite{Name: rep.Package, Tests: len(rep.Scripts), Failures: rep.Failed, Skipped: rep.Differ, Time: seconds(elapsed)}
	for _, o := range rep.Scripts {
		mod, name := o.Name, o.Name
		if i := strings.LastIndex(o.Name, ":"); i >= 0 {
			mod, name = o.Name[:i], o.Name[i+1:]
		}
		c := junitCase{ClassName: mod, Name: name, Time: seconds(o.Duration), SystemOut: strings.Join(o.Trace, "\n")}
		switch {
		case o.Difference != "":
			c.Skipped = &junitSkipped{Message: o.Difference}
		case !o.Passed:
			var b strings.Builder
			writeFailure(&b, "", o)
			first, _, _ := strings.Cut(o.Failure.Message, "\n")
			c.Failure = &junitFailure{Message: first, Type: o.Failure.Kind, Text: b.String()}
		}
		suite.Cases = append(suite.Cases, c)
	}
	b, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{suite}}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
