package bench_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/internal/cmdtest"
)

// benchJSON runs `ledger bench` against n with -o json and decodes the
// summary generically, so that the test sees the field names scripts see.
func benchJSON(t *testing.T, n *cmdtest.Node, code int, args ...string) (map[string]any, cmdtest.Result) {
	t.Helper()
	args = append(append([]string{"bench"}, args...), "--url", n.URL, "--token", n.Admin, "-o", "json")
	r := run(t, "", args...).Must(t, code)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.Out), &m); err != nil {
		t.Fatalf("bench -o json: %v\n%s\nstderr:\n%s", err, r.Out, r.Err)
	}
	return m, r
}

// run runs ledger with args as the binary does.
func run(t *testing.T, stdin string, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmd.NewCmdRoot, stdin, args...)
}

func num(t *testing.T, m map[string]any, path ...string) float64 {
	t.Helper()
	var v any = m
	for _, k := range path {
		o, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: not an object at %q", path, k)
		}
		v = o[k]
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v = %v (%T), want a number", path, v, v)
	}
	return f
}

func TestBenchEachScenarioAgainstServe(t *testing.T) {
	n := cmdtest.StartNode(t)
	for _, sc := range []string{"prepare", "submit", "execute", "completions", "mixed"} {
		t.Run(sc, func(t *testing.T) {
			args := []string{sc, "--count", "24", "-c", "4", "--parties", "2", "--warmup", "20ms"}
			if sc == "completions" || sc == "mixed" {
				args = append(args, "--seed", "300")
			}
			m, r := benchJSON(t, n, 0, args...)
			if m["scenario"] != sc || num(t, m, "concurrency") != 4 || num(t, m, "ops") != 24 || num(t, m, "succeeded") != 24 || num(t, m, "failed") != 0 {
				t.Errorf("summary %v", m)
			}
			if errs, ok := m["errors"].(map[string]any); !ok || len(errs) != 0 {
				t.Errorf("errors %v", m["errors"])
			}
			p50, p90, p99, max := num(t, m, "latencyMs", "p50"), num(t, m, "latencyMs", "p90"), num(t, m, "latencyMs", "p99"), num(t, m, "latencyMs", "max")
			if !(0 < p50 && p50 <= p90 && p90 <= p99 && p99 <= max) {
				t.Errorf("latencyMs %v", m["latencyMs"])
			}
			d, tp := num(t, m, "duration"), num(t, m, "throughput")
			if d <= 0 || tp < 24/d*0.99 || tp > 24/d*1.01 {
				t.Errorf("throughput %v over %v s, want 24 ops / duration", tp, d)
			}
			if sc == "completions" && num(t, m, "completionsPerSecond") <= 0 {
				t.Errorf("completionsPerSecond missing: %v", m)
			}
			if sc == "mixed" {
				byKind, _ := m["byKind"].(map[string]any)
				if len(byKind) != 4 {
					t.Errorf("byKind %v", m["byKind"])
				}
			}
			// the progress line of the measured phase, not a terminal: plain lines
			if !strings.Contains(r.Err, "run ") || !strings.Contains(r.Err, "24/24 ops") || strings.Contains(r.Err, "\r") {
				t.Errorf("stderr:\n%q", r.Err)
			}
		})
	}
}

func TestBenchCountsRejectionsByErrorID(t *testing.T) {
	n := cmdtest.StartNode(t)
	first, _ := benchJSON(t, n, 0, "submit", "--count", "10", "-c", "2", "--parties", "1", "--command-id-prefix", "again-")
	party := first["parties"].([]any)[0].(string)

	// The same command ids as the same party, named by its hint: all
	// duplicates, exit 1.
	hint, _, _ := strings.Cut(party, "::")
	m, r := benchJSON(t, n, 1, "submit", "--count", "10", "-c", "2", "--party", hint, "--command-id-prefix", "again-")
	if !strings.Contains(r.Err, "--party "+hint+" is "+party) {
		t.Errorf("the hint %s was not resolved to %s:\n%s", hint, party, r.Err)
	}
	if num(t, m, "failed") != 10 || num(t, m, "errors", "DUPLICATE_COMMAND") != 10 || num(t, m, "throughput") != 0 {
		t.Errorf("summary %v", m)
	}
	if !strings.Contains(r.Err, "10 of 10 operations failed (100.00%), more than --max-error-rate 0.01") {
		t.Errorf("stderr %s", r.Err)
	}
	// Tolerated with --max-error-rate 1; the table names the error id.
	r = run(t, "", "bench", "prepare", "--count", "4", "-c", "2", "--party", party, "--template", "no-colons",
		"--max-error-rate", "1", "--url", n.URL, "--token", n.Admin).Must(t, 0)
	if !strings.Contains(r.Out, "4 failed") || !strings.Contains(r.Out, "errors\n") {
		t.Errorf("table:\n%s", r.Out)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	cmdtest.IsolateConfig(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench"}, "missing SCENARIO"},
		{[]string{"bench", "load"}, `unknown scenario "load"`},
		{[]string{"bench", "submit", "--count", "5", "--duration", "1s"}, "not both"},
		{[]string{"bench", "execute", "--party", "a::1220ab"}, "--party cannot be used with execute"},
		{[]string{"bench", "mixed", "--mix", "prepare=x"}, "--mix"},
		{[]string{"bench", "mixed", "--mix", "read=1"}, `unknown kind "read"`},
		{[]string{"bench", "submit", "-c", "0"}, "--concurrency"},
		{[]string{"bench", "submit", "--seed", "10"}, "--seed is for"},
		{[]string{"bench", "prepare", "--scheme", "v9"}, "--scheme"},
		{[]string{"bench", "prepare", "--max-error-rate", "2"}, "--max-error-rate"},
	} {
		r := run(t, "", c.args...).Must(t, 2)
		if !strings.Contains(r.Err, c.want) {
			t.Errorf("%v: stderr %q, want %q", c.args, r.Err, c.want)
		}
	}
}

// TestBenchReadScenariosAgainstServe runs acs and updates against a node
// seeded by the scenario itself: every operation reads every element.
func TestBenchReadScenariosAgainstServe(t *testing.T) {
	n := cmdtest.StartNode(t)
	for _, c := range []struct{ scenario, count string }{{"acs", "contracts"}, {"updates", "updates"}} {
		t.Run(c.scenario, func(t *testing.T) {
			m, r := benchJSON(t, n, 0, c.scenario, "--seed", "150", "--count", "4", "-c", "2", "--parties", "1")
			if num(t, m, "succeeded") != 4 || num(t, m, "failed") != 0 || num(t, m, c.count) != 4*150 || num(t, m, c.count+"PerSecond") <= 0 {
				t.Errorf("summary %v\nstderr %s", m, r.Err)
			}
			if _, ok := m["completions"]; ok {
				t.Errorf("the read scenario reports completions: %v", m)
			}
		})
	}
}
