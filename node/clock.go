package node

import (
	"fmt"
	"sync"
	"time"
)

// StaticClock is the clock of a node with static time (ledger serve
// --static-time), as Canton's static time: it stands still until it is
// set, and only moves forward. Daml Script's setTime and passTime move it.
// Give its Now to Config.Now.
type StaticClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewStaticClock returns a clock standing at start.
func NewStaticClock(start time.Time) *StaticClock { return &StaticClock{t: start.UTC()} }

// Now returns the clock's time.
func (c *StaticClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock from current to next, as Canton's TimeService
// SetTime: current must be the clock's time (so that two setters do not
// undo each other) and next may not be before it.
func (c *StaticClock) Set(current, next time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !current.Equal(c.t) {
		return fmt.Errorf("current_time %s does not match the node's time %s", current.UTC().Format(time.RFC3339Nano), c.t.Format(time.RFC3339Nano))
	}
	if next.Before(c.t) {
		return fmt.Errorf("new_time %s is before current_time %s: static time only moves forward", next.UTC().Format(time.RFC3339Nano), c.t.Format(time.RFC3339Nano))
	}
	c.t = next.UTC()
	return nil
}
