package display

import (
	"github.com/ledger-cli/ledger/display/format"

	"fmt"
	"io"
	"strconv"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// CompletionHeader names the columns of CompletionLine. Completions are
// printed one line as each arrives (a tail may run for days), so the columns
// are fixed widths here rather than a lipgloss table, which needs every row
// before it can size a column.
func CompletionHeader() string {
	return fmt.Sprintf("%-6s %-27s %-8s  %s  %s", "OFFSET", "RECORD TIME", "STATUS", "COMMAND ID", "UPDATE AND COST, OR ERROR")
}

// CompletionLine is one completion in words, what `ledger completions`
// prints per line and `ledger execute` after a submission:
//
//	17  2026-07-24T11:59:02.512Z  OK        iou-1  update 1220f0…  cost 2560
//	18  2026-07-24T11:59:03Z      REJECTED  iou-2  LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED: …
func CompletionLine(c *ledgerapi.Completion, opts TextOptions) string {
	st := newStyles(opts.Color)
	id := func(s string) string {
		if opts.FullIDs {
			return format.Escape(s)
		}
		return format.Escape(format.ShortHex(s, 8, 4))
	}
	rt := "-"
	if !c.SynchronizerTime.RecordTime.IsZero() {
		rt = c.SynchronizerTime.RecordTime.String()
	}
	head := fmt.Sprintf("%-6s %-27s", strconv.FormatInt(int64(c.Offset), 10), rt)
	if c.Succeeded() {
		return fmt.Sprintf("%s %s  %s  update %s  cost %d", head, st.ok.Render("OK      "), format.Escape(c.CommandID), id(c.UpdateID), int64(c.PaidTrafficCost))
	}
	why := "rejected"
	if e := ledgerapi.ErrorFromStatus(c.Status); e != nil {
		why = format.Escape(e.Code + ": " + e.Cause)
	}
	return fmt.Sprintf("%s %s  %s  %s", head, st.bad.Render("REJECTED"), format.Escape(c.CommandID), why)
}

// RenderCompletion writes one completion as a block, with every field a
// person acting on it needs.
func RenderCompletion(w io.Writer, c *ledgerapi.Completion, opts TextOptions) error {
	st := newStyles(opts.Color)
	status := st.ok.Render("succeeded")
	if !c.Succeeded() {
		status = st.bad.Render("rejected")
	}
	lines := [][2]string{
		{"Status", status},
		{"Command id", format.Escape(c.CommandID)},
		{"Submission id", format.Escape(c.SubmissionID)},
		{"Offset", strconv.FormatInt(int64(c.Offset), 10)},
	}
	if c.Succeeded() {
		lines = append(lines, [2]string{"Update id", format.Escape(c.UpdateID)})
	} else if e := ledgerapi.ErrorFromStatus(c.Status); e != nil {
		lines = append(lines, [2]string{"Error", format.Escape(e.Code)}, [2]string{"Cause", format.Escape(e.Cause)})
	}
	if !c.SynchronizerTime.RecordTime.IsZero() {
		lines = append(lines, [2]string{"Record time", c.SynchronizerTime.RecordTime.String()})
	}
	lines = append(lines, [2]string{"Traffic cost", strconv.FormatInt(int64(c.PaidTrafficCost), 10)})
	return Fields(w, lines)
}
