package display

import (
	"github.com/ledger-cli/ledger/display/format"

	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// CompletionHeader names the columns of CompletionCells. Completions are
// printed one line as each arrives (a tail may run for days), through
// Columns, which widens a column when a wider cell comes.
func CompletionHeader() []string {
	return []string{"OFFSET", "RECORD TIME", "STATUS", "COMMAND ID", "UPDATE AND COST, OR ERROR"}
}

// CompletionCells is one completion as a table row, what `ledger
// completions` prints per line:
//
//	17  2026-07-24T11:59:02.512Z  OK        iou-1  update 1220f0…  cost 2560
//	18  2026-07-24T11:59:03Z      REJECTED  iou-2  LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED: …
func CompletionCells(c *ledgerapi.Completion, opts TextOptions) []string {
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
	off := strconv.FormatInt(int64(c.Offset), 10)
	if c.Succeeded() {
		return []string{off, rt, st.ok.Render("OK"), orDash(format.Escape(c.CommandID)),
			fmt.Sprintf("update %s  cost %d", id(c.UpdateID), int64(c.PaidTrafficCost))}
	}
	why := "rejected"
	if e := ledgerapi.ErrorFromStatus(c.Status); e != nil {
		why = format.Escape(e.Code + ": " + e.Cause)
	}
	return []string{off, rt, st.bad.Render("REJECTED"), orDash(format.Escape(c.CommandID)), why}
}

// CompletionLine is CompletionCells on one line, two spaces between cells,
// what `ledger execute` prints after a submission.
func CompletionLine(c *ledgerapi.Completion, opts TextOptions) string {
	return strings.Join(CompletionCells(c, opts), "  ")
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
