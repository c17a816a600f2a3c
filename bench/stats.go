package bench

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/ledger-cli/ledger/client"
)

// Histogram bounds, in microseconds: 1 µs to 10 minutes, 3 significant
// digits (a recorded value is off by at most 0.1%).
const (
	histMin     = 1
	histMax     = int64(10 * time.Minute / time.Microsecond)
	histSigFigs = 3
)

// Latency is a latency distribution in milliseconds.
type Latency struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Stats are the outcome of the operations of one kind (or of all).
type Stats struct {
	// Ops counts operations that finished, successful or not.
	Ops       int64 `json:"ops"`
	Succeeded int64 `json:"succeeded"`
	Failed    int64 `json:"failed"`
	// ErrorRate is Failed / Ops (0 when no operation finished).
	ErrorRate float64 `json:"errorRate"`
	// Throughput is successful operations per second.
	Throughput float64 `json:"throughput"`
	// LatencyMs is the latency of successful operations.
	LatencyMs Latency `json:"latencyMs"`
	// Errors counts failed operations by error id: the Canton error id, else
	// "HTTP <status>", "transport error", "timeout" or a local check.
	Errors map[string]int64 `json:"errors"`
	// ErrorExamples holds the first message seen for each error id.
	ErrorExamples map[string]string `json:"errorExamples,omitempty"`
	// Completions and CompletionsPerSecond count the completions read (the
	// completions scenario; pages are its operations).
	Completions          int64   `json:"completions,omitempty"`
	CompletionsPerSecond float64 `json:"completionsPerSecond,omitempty"`
}

// recorder accumulates the outcomes of operations; safe for concurrent use.
type recorder struct {
	mu       sync.Mutex
	hist     *hdrhistogram.Histogram
	ops      int64
	failed   int64
	items    int64
	errors   map[string]int64
	examples map[string]string
}

func newRecorder() *recorder {
	return &recorder{
		hist:     hdrhistogram.New(histMin, histMax, histSigFigs),
		errors:   map[string]int64{},
		examples: map[string]string{},
	}
}

// record adds one finished operation. Latency is recorded for successes only.
func (r *recorder) record(d time.Duration, items int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops++
	if err != nil {
		r.failed++
		id := ErrorID(err)
		r.errors[id]++
		if _, ok := r.examples[id]; !ok {
			r.examples[id] = truncate(err.Error(), 300)
		}
		return
	}
	r.items += int64(items)
	_ = r.hist.RecordValue(clampMicros(d))
}

// clampMicros converts d to microseconds within the histogram's range.
func clampMicros(d time.Duration) int64 {
	us := d.Microseconds()
	if us < histMin {
		return histMin
	}
	if us > histMax {
		return histMax
	}
	return us
}

// progress is what the live line shows.
type progress struct {
	ops, failed, items int64
	p99                float64
}

func (r *recorder) progress() progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return progress{ops: r.ops, failed: r.failed, items: r.items, p99: micros(r.hist.ValueAtQuantile(99))}
}

// stats summarizes the recorder over a measured span.
func (r *recorder) stats(elapsed time.Duration) Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return summarize(r.hist, r.ops, r.failed, r.items, r.errors, r.examples, elapsed)
}

// summarize is the arithmetic of a Stats, separate so that it can be tested
// with exact inputs.
func summarize(h *hdrhistogram.Histogram, ops, failed, items int64, errs map[string]int64, examples map[string]string, elapsed time.Duration) Stats {
	s := Stats{
		Ops:           ops,
		Succeeded:     ops - failed,
		Failed:        failed,
		Errors:        map[string]int64{},
		ErrorExamples: map[string]string{},
		Completions:   items,
	}
	for k, v := range errs {
		s.Errors[k] = v
	}
	for k, v := range examples {
		s.ErrorExamples[k] = v
	}
	if ops > 0 {
		s.ErrorRate = float64(failed) / float64(ops)
	}
	if sec := elapsed.Seconds(); sec > 0 {
		s.Throughput = float64(s.Succeeded) / sec
		s.CompletionsPerSecond = float64(items) / sec
	}
	if h.TotalCount() > 0 {
		s.LatencyMs = Latency{
			P50:  micros(h.ValueAtQuantile(50)),
			P90:  micros(h.ValueAtQuantile(90)),
			P99:  micros(h.ValueAtQuantile(99)),
			Max:  micros(h.Max()),
			Mean: round3(h.Mean() / 1000),
		}
	}
	return s
}

// micros turns a histogram value (µs) into milliseconds.
func micros(us int64) float64 { return round3(float64(us) / 1000) }

func round3(x float64) float64 {
	return float64(int64(x*1000+0.5)) / 1000
}

// ErrorID names the kind of a failed operation: the Canton error id the node
// answered with ("DUPLICATE_COMMAND"; "NA" for a redacted error), else
// "HTTP <status>" for an answer without a Canton error, "timeout" or
// "transport error" for a request without an answer, and the id of a local
// check (HASH_MISMATCH) for the rest.
func ErrorID(err error) string {
	if id := client.ErrorID(err); id != "" {
		return id
	}
	var le *localError
	if errors.As(err, &le) {
		return le.id
	}
	var ae *client.APIError
	if errors.As(err, &ae) {
		return fmt.Sprintf("HTTP %d", ae.StatusCode)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errTimeout) {
		return "timeout"
	}
	var te *client.TransportError
	var ue *url.Error
	if errors.As(err, &te) || errors.As(err, &ue) {
		return "transport error"
	}
	return "error"
}

var errTimeout = errors.New("timeout")

// localError is a failure found by the benchmark itself, e.g. a prepared
// transaction whose hash does not recompute.
type localError struct {
	id  string
	msg string
}

func (e *localError) Error() string { return e.id + ": " + e.msg }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// sortedErrorIDs lists the ids of errs, most frequent first.
func sortedErrorIDs(errs map[string]int64) []string {
	ids := make([]string, 0, len(errs))
	for id := range errs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if errs[ids[i]] != errs[ids[j]] {
			return errs[ids[i]] > errs[ids[j]]
		}
		return strings.Compare(ids[i], ids[j]) < 0
	})
	return ids
}
