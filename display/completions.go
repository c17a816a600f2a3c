package display

import (
	"github.com/ledger-cli/ledger/wallet/review"

	"fmt"
	"io"
	"strconv"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// CompletionLine is one completion in words, what `ledger completions`
// prints per line and `ledger execute` after a submission:
//
//	17  2026-07-24T11:59:02.512Z  OK        iou-1  update 1220f0…  cost 2560
//	18  2026-07-24T11:59:03Z      REJECTED  iou-2  LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED: …
func CompletionLine(c *ledgerapi.Completion, opts TextOptions) string {
	st := newStyles(opts.Color)
	id := func(s string) string {
		if opts.FullIDs {
			return review.Escape(s)
		}
		return review.Escape(review.ShortHex(s, 8, 4))
	}
	rt := "-"
	if !c.SynchronizerTime.RecordTime.IsZero() {
		rt = c.SynchronizerTime.RecordTime.String()
	}
	head := fmt.Sprintf("%-6s %-27s", strconv.FormatInt(int64(c.Offset), 10), rt)
	if c.Succeeded() {
		return fmt.Sprintf("%s %s  %s  update %s  cost %d", head, st.ok.Render("OK      "), review.Escape(c.CommandID), id(c.UpdateID), int64(c.PaidTrafficCost))
	}
	why := "rejected"
	if e := ledgerapi.ErrorFromStatus(c.Status); e != nil {
		why = review.Escape(e.Code + ": " + e.Cause)
	}
	return fmt.Sprintf("%s %s  %s  %s", head, st.bad.Render("REJECTED"), review.Escape(c.CommandID), why)
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
		{"status", status},
		{"command id", review.Escape(c.CommandID)},
		{"submission id", review.Escape(c.SubmissionID)},
		{"offset", strconv.FormatInt(int64(c.Offset), 10)},
	}
	if c.Succeeded() {
		lines = append(lines, [2]string{"update id", review.Escape(c.UpdateID)})
	} else if e := ledgerapi.ErrorFromStatus(c.Status); e != nil {
		lines = append(lines, [2]string{"error", review.Escape(e.Code)}, [2]string{"cause", review.Escape(e.Cause)})
	}
	if !c.SynchronizerTime.RecordTime.IsZero() {
		lines = append(lines, [2]string{"record time", c.SynchronizerTime.RecordTime.String()})
	}
	lines = append(lines, [2]string{"traffic cost", strconv.FormatInt(int64(c.PaidTrafficCost), 10)})
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%-15s %s\n", l[0]+":", l[1]); err != nil {
			return err
		}
	}
	return nil
}
