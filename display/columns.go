package display

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Columns writes a table whose rows arrive over time — a tail that may
// run for days, or an active contract set read page by page — so it cannot
// wait for every row to size its columns as Table does. Each batch of rows
// widens the columns to fit it (they never narrow), the header goes out
// once with the first batch, columns are two spaces apart, the last one is
// not padded and no line ends in spaces:
//
//	OFFSET  RECORD TIME                  STATUS  COMMAND ID  UPDATE AND COST, OR ERROR
//	4       2026-11-29T07:11:21.368565Z  OK      iou-1       update 12209267…e49a  cost 2585
//
// Rows of one batch line up with each other and with what came before;
// a later, wider cell moves only the rows after it. Add holds rows until
// Batch of them are waiting (0 or 1: none is held, for a tail that must
// show each row as it comes, or has written it before a checkpoint) and
// Flush writes what is held.
type Columns struct {
	W      io.Writer
	Header []string
	// NoHeader leaves the header out (a file appended to across restarts).
	NoHeader bool
	Batch    int
	widths   []int
	started  bool
	held     [][]string
}

// Add writes row, or holds it until Batch rows are waiting.
func (c *Columns) Add(row []string) error {
	c.held = append(c.held, row)
	if len(c.held) < c.Batch {
		return nil
	}
	return c.Flush()
}

// Flush writes the rows Add holds, as one batch.
func (c *Columns) Flush() error {
	rows := c.held
	c.held = nil
	return c.Write(rows...)
}

// Write writes a batch of rows, each as many cells as Header.
func (c *Columns) Write(rows ...[]string) error {
	if len(rows) == 0 {
		return nil
	}
	if c.widths == nil {
		c.widths = make([]int, len(c.Header))
		if !c.NoHeader {
			c.fit(c.Header)
		}
	}
	for _, r := range rows {
		c.fit(r)
	}
	var b strings.Builder
	if !c.started && !c.NoHeader {
		c.line(&b, c.Header)
	}
	c.started = true
	for _, r := range rows {
		c.line(&b, r)
	}
	_, err := io.WriteString(c.W, b.String())
	return err
}

func (c *Columns) fit(row []string) {
	for i, cell := range row {
		if i < len(c.widths) && i < len(row)-1 {
			c.widths[i] = max(c.widths[i], lipgloss.Width(cell))
		}
	}
}

func (c *Columns) line(b *strings.Builder, row []string) {
	var l strings.Builder
	for i, cell := range row {
		l.WriteString(cell)
		if i < len(row)-1 {
			l.WriteString(strings.Repeat(" ", c.widths[i]-lipgloss.Width(cell)+2))
		}
	}
	b.WriteString(strings.TrimRight(l.String(), " "))
	b.WriteByte('\n')
}
