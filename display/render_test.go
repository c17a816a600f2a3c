package display

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/ledger-cli/ledger/wallet/review"
)

// A transaction is hostile input: nothing in it may reach the terminal as a
// control sequence, and invisible characters must be visible.
func TestHostileStringsAreEscaped(t *testing.T) {
	c := create(cidA, text("pay \x1b[2K\x1b[1Gbob\u202e001"))
	c.GetCreate().TemplateId.EntityName = "Iou\x1b[31m"
	pt := transfer([]string{"0"}, node("0", c))
	pt.Metadata.SubmitterInfo.CommandId = "cmd\r\x07"
	r, err := review.Summarize(pt, nil, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !containsWarning(r, "control or invisible characters") {
		t.Errorf("no warning about hidden characters: %q", r.Warnings)
	}
	for _, color := range []bool{false, true} {
		var out bytes.Buffer
		if err := RenderText(&out, r, TextOptions{Color: color}); err != nil {
			t.Fatal(err)
		}
		s := ansi.ReplaceAllString(out.String(), "") // our own colour codes
		for _, bad := range []string{"\x1b", "\r", "\x07", "\u202e"} {
			if strings.Contains(s, bad) {
				t.Errorf("color=%v: output contains %q", color, bad)
			}
		}
		for _, want := range []string{`\x1b[2K`, `\u202e`, `Iou:Iou\x1b[31m`, `cmd\r\a`} {
			if !strings.Contains(s, want) {
				t.Errorf("color=%v: output lacks the escaped form %q", color, want)
			}
		}
	}
}

// Every line of the text rendering fits 80 columns, except the full party
// ids of the legend, which are not cut.
func TestFitsEightyColumns(t *testing.T) {
	for _, c := range goldenCases {
		r := reviewVector(t, c.file)
		var out bytes.Buffer
		if err := RenderText(&out, r, TextOptions{Width: 80}); err != nil {
			t.Fatal(err)
		}
		inLegend := false
		for i, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "PARTIES") {
				inLegend = true
			}
			if w := lipgloss.Width(line); w > 80 && !inLegend {
				t.Errorf("%s line %d is %d columns wide: %s", c.name, i+1, w, line)
			}
		}
	}
}

// The TIMES section shows each Canton Coin mining round the transaction
// uses, with the time left until it is due to close, and the round's
// warning.
func TestMiningRoundInTimes(t *testing.T) {
	pt := transfer([]string{"0"}, node("0", create(cidA, text("x"))))
	r, err := review.Summarize(pt, nil, time.Date(2025, 8, 7, 2, 30, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	r.Times.MiningRounds = []review.MiningRound{{ContractID: cidA, Round: "42", TargetClosesAt: "2025-08-07T02:37:00Z", TimeLeft: "7m00s left", SecondsLeft: 420}}
	var out bytes.Buffer
	if err := RenderText(&out, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "mining round 42 closes 2025-08-07T02:37:00Z  7m00s left") {
		t.Errorf("TIMES without the mining round:\n%s", out.String())
	}
}

// Past max_ledger_effective_time but within Canton's default 60 s
// ledger-time tolerance, the time left is what remains of the tolerance.
func TestTimeLeftInTheLedgerTimeTolerance(t *testing.T) {
	pt := transfer([]string{"0"}, node("0", create(cidA, text("x"))))
	mlet := uint64(time.Date(2025, 8, 7, 2, 10, 0, 0, time.UTC).UnixMicro())
	pt.Metadata.MaxLedgerEffectiveTime = &mlet
	r, err := review.Summarize(pt, nil, time.Date(2025, 8, 7, 2, 10, 20, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := RenderText(&out, r, TextOptions{Width: 80}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  time left    40s, in the 60 s tolerance after max_ledger_effective_time\n") {
		t.Errorf("TIMES:\n%s", out.String())
	}
}
