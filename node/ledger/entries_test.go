package ledger

import (
	"testing"
	"time"
)

func TestChangeIDIgnoresActAsOrder(t *testing.T) {
	a := ChangeIDOf("u", []string{"A", "B"}, "c")
	for _, tc := range []struct {
		user, cmd string
		actAs     []string
		same      bool
	}{
		{"u", "c", []string{"B", "A"}, true},
		{"u", "c", []string{"B", "A", "B"}, true},
		{"u", "c", []string{"A"}, false},
		{"v", "c", []string{"A", "B"}, false},
		{"u", "d", []string{"A", "B"}, false},
		{"uc", "", []string{"A", "B"}, false},
	} {
		if got := ChangeIDOf(tc.user, tc.actAs, tc.cmd) == a; got != tc.same {
			t.Errorf("ChangeIDOf(%q, %v, %q) equal = %v, want %v", tc.user, tc.actAs, tc.cmd, got, tc.same)
		}
	}
}

// TestDedupCovers pins the one deduplication rule the commit check and the
// re-execution check share.
func TestDedupCovers(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	const max = time.Hour
	for _, tc := range []struct {
		name   string
		d      Dedup
		offset int64
		at     time.Time
		want   bool
	}{
		{"offset window: a later offset", Dedup{Kind: DedupOffset, Offset: 4}, 5, now.Add(-48 * time.Hour), true},
		{"offset window: that offset itself", Dedup{Kind: DedupOffset, Offset: 5}, 5, now, false},
		{"offset window: from the start", Dedup{Kind: DedupOffset}, 1, now, true},
		{"duration: inside", Dedup{Kind: DedupDuration, Duration: 11 * time.Minute}, 1, now.Add(-10 * time.Minute), true},
		{"duration: too short", Dedup{Kind: DedupDuration, Duration: 9 * time.Minute}, 1, now.Add(-10 * time.Minute), false},
		{"duration: exactly its length ago", Dedup{Kind: DedupDuration, Duration: time.Minute}, 1, now.Add(-time.Minute), false},
		{"duration: a nanosecond less than its length ago", Dedup{Kind: DedupDuration, Duration: time.Minute}, 1, now.Add(-time.Minute + 1), true},
		{"duration: sub-microsecond part counts", Dedup{Kind: DedupDuration, Duration: 1500 * time.Nanosecond}, 1, now.Add(-time.Microsecond), true},
		{"zero duration covers nothing", Dedup{Kind: DedupDuration}, 1, now, false},
		{"default: the maximum", Dedup{}, 1, now.Add(-59 * time.Minute), true},
		{"default: older than the maximum", Dedup{}, 1, now.Add(-61 * time.Minute), false},
	} {
		if got := tc.d.Resolve(max).Covers(tc.offset, tc.at, now); got != tc.want {
			t.Errorf("%s: Covers = %v, want %v", tc.name, got, tc.want)
		}
	}
	if (Dedup{}).Covers(1, now, now) {
		t.Error("an unresolved default window covers a command")
	}
	if got := (Dedup{}).Resolve(max); got != (Dedup{Kind: DedupDuration, Duration: max}) {
		t.Errorf("Resolve of the default = %+v", got)
	}
	if d := (Dedup{Kind: DedupOffset, Offset: 3}); d.Resolve(max) != d {
		t.Errorf("Resolve changed an offset window: %+v", d.Resolve(max))
	}
}
