package display

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
)

// Table writes rows under a header in aligned columns, plain text without
// borders, as lists are printed for a terminal and for grep and awk alike:
//
//	USER               ACTIVE  PRIMARY PARTY
//	participant_admin  yes
//	alice              yes     alice::1220a1a2…
//
// A cell may hold several lines. Nothing is cut: columns are as wide as
// their widest cell.
func Table(w io.Writer, header []string, rows [][]string) error {
	re := lipgloss.NewRenderer(io.Discard) // layout only: no colour, no terminal queries
	cell := re.NewStyle().PaddingRight(2)
	t := table.New().
		Headers(header...).
		Rows(rows...).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderHeader(false).BorderColumn(false).BorderRow(false).
		StyleFunc(func(row, col int) lipgloss.Style {
			if col == len(header)-1 {
				return re.NewStyle()
			}
			return cell
		})
	return writeTrimmed(w, t.String())
}

// Fields writes label/value lines with the values aligned, labels as
// written ("Fingerprint", "Primary party"), one style for every command:
//
//	Key file:     alice.key
//	Fingerprint:  1220…
func Fields(w io.Writer, fields [][2]string) error {
	if len(fields) == 0 {
		return nil
	}
	rows := make([][]string, len(fields))
	for i, f := range fields {
		rows[i] = []string{f[0] + ":", f[1]}
	}
	// The first pair goes in as the header: lipgloss/table (v1.1) drops the
	// last row of a borderless table without one.
	return Table(w, rows[0], rows[1:])
}

// writeTrimmed writes s line by line without the padding lipgloss leaves
// at the end of lines.
func writeTrimmed(w io.Writer, s string) error {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
