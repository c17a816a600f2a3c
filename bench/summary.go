package bench

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/display"
)

// WriteText renders the summary for a terminal or a log.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	rate := "unlimited"
	if s.RateLimit > 0 {
		rate = fmt.Sprintf("%g ops/s", s.RateLimit)
	}
	fmt.Fprintf(&b, "scenario     %s against %s as user %s\n", s.Scenario, s.URL, s.UserID)
	fmt.Fprintf(&b, "settings     concurrency %d, rate %s", s.Concurrency, rate)
	if s.Seeded > 0 {
		fmt.Fprintf(&b, ", seeded %d completions", s.Seeded)
	}
	fmt.Fprintf(&b, "\nmeasured     %.3fs (setup %.3fs and warm-up %.3fs excluded)\n", s.Duration, s.SetupSeconds, s.WarmupSeconds)
	if s.Interrupted {
		b.WriteString("             interrupted: the figures cover the operations that finished\n")
	}
	writeStats(&b, "", s.Stats, s.Scenario == ScenarioCompletions)
	s.writeRead(&b)
	if s.TransfersPerSecond > 0 {
		fmt.Fprintf(&b, "transfers    %.1f transfers/s (%.1f commands/s: a transfer and its settlement each)\n", s.TransfersPerSecond, s.CommandsPerSecond)
	}
	if len(s.ByKind) > 0 {
		kinds := make([]string, 0, len(s.ByKind))
		for k := range s.ByKind {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			fmt.Fprintf(&b, "\n%s:\n", k)
			writeStats(&b, "  ", s.ByKind[k], k == ScenarioCompletions)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeStats(b *strings.Builder, indent string, st Stats, completions bool) {
	fmt.Fprintf(b, "%soperations   %d (%d succeeded, %d failed, %.2f%% errors)\n", indent, st.Ops, st.Succeeded, st.Failed, 100*st.ErrorRate)
	fmt.Fprintf(b, "%sthroughput   %.1f ops/s\n", indent, st.Throughput)
	if completions {
		fmt.Fprintf(b, "%scompletions  %d read, %.0f completions/s\n", indent, st.Completions, st.CompletionsPerSecond)
	}
	l := st.LatencyMs
	fmt.Fprintf(b, "%slatency ms   p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  mean %.3f\n", indent, l.P50, l.P90, l.P99, l.Max, l.Mean)
	if len(st.Errors) > 0 {
		fmt.Fprintf(b, "%serrors\n", indent)
		var rows [][]string
		for _, id := range sortedErrorIDs(st.Errors) {
			rows = append(rows, []string{id, strconv.FormatInt(st.Errors[id], 10), "e.g. " + truncate(st.ErrorExamples[id], 160)})
		}
		var t strings.Builder
		_ = display.Table(&t, []string{"ERROR ID", "COUNT", "EXAMPLE"}, rows)
		for _, line := range strings.SplitAfter(strings.TrimSuffix(t.String(), "\n"), "\n") {
			b.WriteString(indent + "  " + line)
		}
		b.WriteString("\n")
	}
}

// FormatProgress renders a progress snapshot as one line.
func FormatProgress(p Progress) string {
	sec := p.Elapsed.Seconds()
	opsPerSec := 0.0
	if sec > 0 {
		opsPerSec = float64(p.Ops) / sec
	}
	ops := fmt.Sprintf("%d", p.Ops)
	if p.Target > 0 {
		ops = fmt.Sprintf("%d/%d", p.Ops, p.Target)
	}
	line := fmt.Sprintf("%-6s %6s  %s ops  %.0f ops/s  %d errors  p99 %.1f ms",
		p.Phase, p.Elapsed.Truncate(100*time.Millisecond), ops, opsPerSec, p.Failed, p.P99Ms)
	if p.Completions > 0 && sec > 0 {
		line += fmt.Sprintf("  %.0f completions/s", float64(p.Completions)/sec)
	}
	return line
}
