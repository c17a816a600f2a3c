package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// within reports whether got is want within the histogram's precision.
func within(got, want float64) bool {
	return math.Abs(got-want) <= want*0.001+0.001
}

func TestPercentilesOfUniformLatencies(t *testing.T) {
	r := newRecorder()
	// 1 ms, 2 ms, …, 1000 ms, in shuffled order
	for i := 0; i < 1000; i++ {
		ms := (i*7919)%1000 + 1
		r.record(time.Duration(ms)*time.Millisecond, 0, nil)
	}
	st := r.stats(4 * time.Second)
	l := st.LatencyMs
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", l.P50, 500}, {"p90", l.P90, 900}, {"p99", l.P99, 990}, {"max", l.Max, 1000}, {"mean", l.Mean, 500.5}} {
		if !within(c.got, c.want) {
			t.Errorf("%s = %v ms, want %v ms within 0.1%%", c.name, c.got, c.want)
		}
	}
	if st.Ops != 1000 || st.Succeeded != 1000 || st.Throughput != 250 || st.ErrorRate != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestSummaryArithmetic(t *testing.T) {
	r := newRecorder()
	for i := 0; i < 90; i++ {
		r.record(10*time.Millisecond, 3, nil)
	}
	dup := ledgerapi.Errorf(ledgerapi.CodeDuplicateCommand, "A command with the given command id has already been successfully processed")
	for i := 0; i < 6; i++ {
		r.record(time.Hour, 99, &client.APIError{Method: "POST", Path: "/v2/commands/x", StatusCode: 409, Canton: asCanton(t, dup)})
	}
	for i := 0; i < 4; i++ {
		r.record(time.Millisecond, 0, &client.APIError{Method: "POST", Path: "/v2/commands/x", StatusCode: 502, Text: "bad gateway"})
	}
	st := r.stats(2 * time.Second)
	if st.Ops != 100 || st.Succeeded != 90 || st.Failed != 10 || st.ErrorRate != 0.1 {
		t.Errorf("counts %+v", st)
	}
	if st.Throughput != 45 {
		t.Errorf("throughput %v, want 90 successes / 2 s = 45", st.Throughput)
	}
	if st.Completions != 270 || st.CompletionsPerSecond != 135 {
		t.Errorf("completions %d (%v/s): failed operations' items must not count", st.Completions, st.CompletionsPerSecond)
	}
	if want := map[string]int64{"DUPLICATE_COMMAND": 6, "HTTP 502": 4}; fmt.Sprint(st.Errors) != fmt.Sprint(want) {
		t.Errorf("errors %v, want %v", st.Errors, want)
	}
	// failures are not latencies: the hour-long ones do not show
	if !within(st.LatencyMs.Max, 10) || !within(st.LatencyMs.P50, 10) {
		t.Errorf("latency %+v", st.LatencyMs)
	}
	if ids := sortedErrorIDs(st.Errors); ids[0] != "DUPLICATE_COMMAND" {
		t.Errorf("order %v", ids)
	}
}

func asCanton(t *testing.T, err error) *ledgerapi.JsCantonError {
	t.Helper()
	var ce *ledgerapi.JsCantonError
	if !errors.As(err, &ce) {
		t.Fatalf("%T is no JsCantonError", err)
	}
	return ce
}

func TestEmptyAndOutOfRange(t *testing.T) {
	st := newRecorder().stats(0)
	if st.Throughput != 0 || st.ErrorRate != 0 || st.LatencyMs != (Latency{}) || st.Errors == nil {
		t.Errorf("empty stats %+v", st)
	}
	r := newRecorder()
	r.record(0, 0, nil)
	r.record(time.Hour, 0, nil) // beyond the histogram: clamped, not dropped
	st = r.stats(time.Second)
	if st.Succeeded != 2 || st.LatencyMs.P50 <= 0 || !within(st.LatencyMs.Max, float64(histMax)/1000) {
		t.Errorf("clamped stats %+v", st)
	}
}

func TestErrorID(t *testing.T) {
	dup := ledgerapi.Errorf(ledgerapi.CodeDuplicateCommand, "dup")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&client.APIError{StatusCode: 409, Canton: asCanton(t, dup)}, "DUPLICATE_COMMAND"},
		{fmt.Errorf("wrapped: %w", &client.APIError{StatusCode: 409, Canton: asCanton(t, dup)}), "DUPLICATE_COMMAND"},
		{&client.APIError{StatusCode: 400, Text: "Invalid value for: body"}, "HTTP 400"},
		{&client.TransportError{Method: "POST", Path: "/v2/x", Err: errors.New("connection refused")}, "transport error"},
		{&client.TransportError{Method: "POST", Path: "/v2/x", Err: timeoutErr{}}, "timeout"},
		{&localError{"HASH_MISMATCH", "differs"}, "HASH_MISMATCH"},
		{errors.New("other"), "error"},
	} {
		if got := ErrorID(c.err); got != c.want {
			t.Errorf("ErrorID(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// TestSummaryJSON pins the field names scripts read.
func TestSummaryJSON(t *testing.T) {
	r := newRecorder()
	r.record(5*time.Millisecond, 0, nil)
	s := Summary{Scenario: "submit", Concurrency: 64, Duration: 1, Stats: r.stats(time.Second)}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenario", "concurrency", "duration", "ops", "throughput", "latencyMs", "errors", "errorRate", "succeeded", "failed", "setupSeconds"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	lat, _ := m["latencyMs"].(map[string]any)
	for _, k := range []string{"p50", "p90", "p99", "max"} {
		if _, ok := lat[k].(float64); !ok {
			t.Errorf("latencyMs.%s missing in %s", k, b)
		}
	}
	if _, ok := m["errors"].(map[string]any); !ok {
		t.Errorf("errors is not an object: %s", b)
	}
	var buf bytes.Buffer
	if err := s.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"throughput   1.0 ops/s", "p99 5.", "operations   1 (1 succeeded, 0 failed"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestFormatProgress(t *testing.T) {
	got := FormatProgress(Progress{Phase: "run", Elapsed: 2500 * time.Millisecond, Ops: 500, Failed: 2, P99Ms: 12.34, Target: 1000})
	for _, want := range []string{"run", "2.5s", "500/1000 ops", "200 ops/s", "2 errors", "p99 12.3 ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
