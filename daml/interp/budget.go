package interp

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
)

// What building a value costs against Limits.Memory, in bytes. The figures
// are close to what the Go values take: a header for each heap object, an
// interface (two words) per element or field value, a label beside each
// field. They need not be exact; they must grow with what is built.
const (
	costObject = 48 // a record, struct, variant, list run, map or closure
	costSlot   = 16 // an element of a list, a captured value, an argument
	costField  = 32 // a field (label and value) or a map entry (key and value)
)

// charge counts n bytes of values about to be built and reports whether
// they fit the memory budget. When they do not, the machine fails with
// INTERPRETATION_TIME_EXCEEDED and the caller must not build them:
// builders of values whose size depends on their arguments (APPEND_TEXT,
// IMPLODE_TEXT, map inserts, …) charge before they allocate, so a single
// step cannot allocate past the budget.
//
// Canton's Speedy has no memory bound (the JVM's heap is the limit); we
// answer the id Canton answers for a command that costs more than the node
// gives one command, as for the step budget.
func (m *Machine) charge(n int) bool {
	m.mem += int64(n)
	if !m.laneIfDue() {
		return false
	}
	if m.mem <= m.limits.Memory {
		return true
	}
	m.fail(m.newError(errMemory, fmt.Sprintf("Interpretation aborted: the memory budget of %d bytes is exhausted (building a value of %d bytes after %d bytes built)", m.limits.Memory, n, m.mem-int64(n))))
	return false
}

// Memory returns the bytes of values the machine has built so far.
func (m *Machine) Memory() int64 { return m.mem }

// textCost is the cost of a text of n bytes.
func textCost(n int) int { return costSlot + n }

// Lane bounds how many long or large evaluations run at once. Every
// evaluation starts outside the lane; one that has taken more steps, or
// built more bytes of values, than the lane's thresholds waits for a slot
// before it goes on, and keeps the slot until it ends. Short commands, which are nearly all commands, never
// wait, so they keep their latency while loops run: with one slot fewer
// than the cores, a core stays free for them. A waiting evaluation ends
// when its context does (the request's deadline or its client leaving).
type Lane struct {
	slots      chan struct{}
	after      int64
	afterBytes int64

	running atomic.Int64 // evaluations holding a slot now
	waiting atomic.Int64 // evaluations waiting for one
	peak    atomic.Int64 // most evaluations that held a slot at once
}

// NewLane returns a lane of the given number of slots (at least one) that
// evaluations enter after the given number of steps (at least 1,024: the
// machine looks at the lane when it looks at its context, every 1,024
// steps) or once they have built the given bytes of values (0: never).
func NewLane(slots int, afterSteps, afterBytes int64) *Lane {
	if afterBytes <= 0 {
		afterBytes = math.MaxInt64
	}
	return &Lane{slots: make(chan struct{}, max(slots, 1)), after: max(afterSteps, 1024), afterBytes: afterBytes}
}

// LaneStats is a snapshot of a lane.
type LaneStats struct {
	Slots   int   // slots in the lane
	Running int64 // evaluations in the lane now
	Waiting int64 // evaluations waiting to enter it
	Peak    int64 // most evaluations that were in it at once
}

// Stats returns the lane's counters.
func (l *Lane) Stats() LaneStats {
	return LaneStats{Slots: cap(l.slots), Running: l.running.Load(), Waiting: l.waiting.Load(), Peak: l.peak.Load()}
}

// laneIfDue enters the machine's lane once it has taken more steps or
// built more bytes than the lane's thresholds; false when its context
// ended while it waited (the machine has then failed).
func (m *Machine) laneIfDue() bool {
	l := m.limits.Lane
	if l == nil || m.inLane || m.steps < l.after && m.mem < l.afterBytes {
		return true
	}
	return m.enterLane(l)
}

// enterLane waits for a slot of l; false when the machine's context ended
// first (the machine has then failed).
func (m *Machine) enterLane(l *Lane) bool {
	ctx := m.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case l.slots <- struct{}{}:
	default:
		l.waiting.Add(1)
		select {
		case l.slots <- struct{}{}:
			l.waiting.Add(-1)
		case <-ctx.Done():
			l.waiting.Add(-1)
			m.fail(m.newError(errCanceled, "Interpretation aborted while waiting for a slot for long evaluations: "+ctx.Err().Error()))
			return false
		}
	}
	m.inLane = true
	n := l.running.Add(1)
	for {
		p := l.peak.Load()
		if n <= p || l.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return true
}

// leaveLane gives back the machine's slot, if it holds one. Every entry
// point that runs a machine calls it when the machine is done.
func (m *Machine) leaveLane() {
	if !m.inLane {
		return
	}
	m.inLane = false
	m.limits.Lane.running.Add(-1)
	<-m.limits.Lane.slots
}
