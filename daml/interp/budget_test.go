package interp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/lf"
)

// TestMemoryBudget: a text that doubles at each call is stopped by the
// memory budget before it is built (without the budget, 35 doublings take
// the process down), and so is a list that grows by a record per step,
// which the step budget alone lets reach gigabytes.
func TestMemoryBudget(t *testing.T) {
	for _, c := range []struct {
		name  string
		expr  lf.Expr
		limit int64
	}{
		{"doubling text", app(val("bomb"), text("boom")), 64 << 20},
		{"list of records", app(val("hoard"), i64(1_000_000_000), nilE()), 8 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			lamb, err := testEngine.Packages().Closed("test", c.expr)
			if err != nil {
				t.Fatal(err)
			}
			m := newMachine(context.Background(), testEngine.Packages(), Limits{Memory: c.limit})
			_, err = m.run(lamb, nil, nil)
			var ie *Error
			if !errors.As(err, &ie) || ie.ID != "INTERPRETATION_TIME_EXCEEDED" || !strings.Contains(ie.Cause, "memory budget") {
				t.Fatalf("got %v, want the memory budget's INTERPRETATION_TIME_EXCEEDED", err)
			}
			limit := c.limit
			// What was built stays within the budget: the value that would
			// have crossed it was refused before it was allocated.
			built := m.mem - lastCharge(ie.Cause)
			if built > limit {
				t.Errorf("built %d bytes, budget %d", built, limit)
			}
			if m.steps >= DefaultSteps {
				t.Errorf("stopped by the step budget (%d steps), not the memory budget", m.steps)
			}
		})
	}
}

// lastCharge reads the size of the refused value from the error's cause.
func lastCharge(cause string) int64 {
	var n int64
	i := strings.Index(cause, "building a value of ")
	if i < 0 {
		return 0
	}
	for _, c := range cause[i+len("building a value of "):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// TestMemoryBudgetAllowsOrdinaryCode: the list and recursion tests of
// TestLimits build far less than the default budget.
func TestMemoryBudgetAllowsOrdinaryCode(t *testing.T) {
	lamb, err := testEngine.Packages().Closed("test", app(bi(lf.BuiltinFoldl), add(), i64(0), app(val("mapList"), app(add(), i64(1)), app(val("range"), i64(50_000)))))
	if err != nil {
		t.Fatal(err)
	}
	m := newMachine(context.Background(), testEngine.Packages(), Limits{})
	if _, err := m.run(lamb, nil, nil); err != nil {
		t.Fatal(err)
	}
	if m.mem == 0 || m.mem > 50<<20 {
		t.Errorf("mapping a list of 50,000 built %d bytes; want some, and well under the budget", m.mem)
	}
}

// TestLane: evaluations past the lane's threshold run at most as many at
// once as the lane has slots; the others wait, and one whose context ends
// while it waits stops without running further. Evaluations that stay
// under the threshold never wait.
func TestLane(t *testing.T) {
	lane := NewLane(1, 2048, 0)
	loop, err := testEngine.Packages().Closed("test", app(val("loop"), i64(0)))
	if err != nil {
		t.Fatal(err)
	}
	short, err := testEngine.Packages().Closed("test", app(val("count"), i64(10), i64(0)))
	if err != nil {
		t.Fatal(err)
	}
	// Three endless loops; they end when the test cancels them.
	loops, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := testEngine.EvalLambda(loops, loop, Limits{Steps: 1 << 62, Lane: lane})
			errs <- err
		}()
	}
	// Wait until the lane is full and the two others queue behind it.
	deadline := time.Now().Add(30 * time.Second)
	for lane.Stats().Waiting < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if s := lane.Stats(); s.Waiting != 2 || s.Running != 1 {
		t.Fatalf("lane %+v, want one running and two waiting", s)
	}
	// A short evaluation runs while the lane is full.
	if _, _, err := testEngine.EvalLambda(context.Background(), short, Limits{Lane: lane}); err != nil {
		t.Fatal(err)
	}
	// One that would need the lane gives up when its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, steps, err := testEngine.EvalLambda(ctx, loop, Limits{Lane: lane})
	var ie *Error
	if !errors.As(err, &ie) || ie.ID != "INTERPRETATION_TIME_EXCEEDED" || !strings.Contains(ie.Cause, "waiting for a slot") {
		t.Errorf("waiting evaluation: %v", err)
	}
	if steps > 4096 {
		t.Errorf("the waiting evaluation ran %d steps", steps)
	}
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.As(err, &ie) || ie.ID != "INTERPRETATION_TIME_EXCEEDED" {
			t.Errorf("stopped loop: %v", err)
		}
	}
	if s := lane.Stats(); s.Peak != 1 || s.Running != 0 || s.Waiting != 0 {
		t.Errorf("lane %+v, want a peak of 1 and nothing left in it", s)
	}
}

// TestLaneBySize: an evaluation that has built more than the lane's byte
// threshold waits for a slot too, however few steps it took.
func TestLaneBySize(t *testing.T) {
	lane := NewLane(1, 1<<40, 1<<20)
	lane.slots <- struct{}{} // the one slot is taken
	lamb, err := testEngine.Packages().Closed("test", app(val("bomb"), text("boom")))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	m := newMachine(ctx, testEngine.Packages(), Limits{Memory: 64 << 20, Lane: lane})
	_, err = m.run(lamb, nil, nil)
	var ie *Error
	if !errors.As(err, &ie) || !strings.Contains(ie.Cause, "waiting for a slot") {
		t.Fatalf("got %v, want to have waited for the lane", err)
	}
	if m.mem < 1<<20 || m.mem > 4<<20 {
		t.Errorf("waited after building %d bytes, want just past 1 MiB", m.mem)
	}
}

// TestErrorCauseBounded: an error naming a text of megabytes (here ERROR's
// message) has a cause of at most MaxCauseBytes and says what was cut.
func TestErrorCauseBounded(t *testing.T) {
	big := strings.Repeat("é", 1<<20)
	_, err := eval(t, app(bi(lf.BuiltinError), text(big)))
	var ie *Error
	if !errors.As(err, &ie) || ie.ID != "INTERPRETATION_USER_ERROR" {
		t.Fatalf("got %v", err)
	}
	if len(ie.Cause) > MaxCauseBytes+64 || !strings.HasSuffix(ie.Cause, "more bytes cut)") || !strings.HasPrefix(ie.Cause, "Interpretation error: Error: User abort: éé") {
		t.Errorf("cause of %d bytes: %.80q…%q", len(ie.Cause), ie.Cause, ie.Cause[len(ie.Cause)-40:])
	}
}

// BenchmarkDoublingTextRefused: what the doubling text costs before the
// default memory budget (512 MiB of values) stops it — the figure in
// RELIABILITY.md.
func BenchmarkDoublingTextRefused(b *testing.B) {
	lamb, err := testEngine.Packages().Closed("test", app(val("bomb"), text("boom")))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var steps int64
	for b.Loop() {
		_, s, err := testEngine.EvalLambda(context.Background(), lamb, Limits{})
		var ie *Error
		if !errors.As(err, &ie) || !strings.Contains(ie.Cause, "memory budget") {
			b.Fatal(err)
		}
		steps = s
	}
	b.ReportMetric(float64(steps), "steps")
}
