package hashing

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// Trace records every piece of a hash preimage in order. Nested preimages
// (a child node, an input contract) appear as their own Trace, followed by
// the line that writes their hash.
type Trace struct {
	Lines []TraceLine
}

// TraceLine is one piece of a preimage, a section heading (no bytes), or a
// nested preimage.
type TraceLine struct {
	Bytes   []byte
	Comment string
	Nested  *Trace
}

// String renders the trace in Canton's hashingDetails format: `'hex' # comment`
// per line, `# heading` for sections, nested preimages indented by two spaces.
func (t *Trace) String() string {
	var b strings.Builder
	t.write(&b, "")
	return b.String()
}

func (t *Trace) write(b *strings.Builder, indent string) {
	for _, l := range t.Lines {
		switch {
		case l.Nested != nil:
			l.Nested.write(b, indent+"  ")
		case l.Bytes == nil:
			fmt.Fprintf(b, "%s# %s\n", indent, l.Comment)
		default:
			fmt.Fprintf(b, "%s'%x' # %s\n", indent, l.Bytes, l.Comment)
		}
	}
}

func (t *Trace) nest(child *Trace) {
	if t != nil && child != nil {
		t.Lines = append(t.Lines, TraceLine{Nested: child})
	}
}

// Preimage returns the top-level bytes of the trace, without nested preimages:
// exactly what was hashed.
func (t *Trace) Preimage() []byte {
	var out []byte
	for _, l := range t.Lines {
		if l.Nested == nil {
			out = append(out, l.Bytes...)
		}
	}
	return out
}

var traceHex = regexp.MustCompile(`^\s*'([0-9a-fA-F]*)'\s*(?:#\s*(.*))?$`)

// Difference locates where two traces part.
type Difference struct {
	// Offset is the byte offset in the flattened traces (all bytes, nested
	// preimages included, in line order).
	Offset int
	// Context is the section heading and comment of our line at that point.
	Context string
	Ours    string
	Theirs  string
}

// FirstDifference compares our trace with a trace in Canton's text format
// (for example the hashingDetails of a prepare response) byte by byte and
// reports the first place where they part, or nil if the bytes agree.
func FirstDifference(ours *Trace, theirs string) *Difference {
	type piece struct {
		b       []byte
		context string
	}
	var mine []piece
	var walk func(t *Trace, heading string)
	walk = func(t *Trace, heading string) {
		for _, l := range t.Lines {
			switch {
			case l.Nested != nil:
				walk(l.Nested, heading)
			case l.Bytes == nil:
				heading = l.Comment
			default:
				mine = append(mine, piece{l.Bytes, strings.TrimSpace(heading + ": " + l.Comment)})
			}
		}
	}
	walk(ours, "")

	var other []byte
	for _, line := range strings.Split(theirs, "\n") {
		if m := traceHex.FindStringSubmatch(line); m != nil {
			b, err := hex.DecodeString(m[1])
			if err == nil {
				other = append(other, b...)
			}
		}
	}
	off := 0
	for _, p := range mine {
		end := off + len(p.b)
		if end > len(other) || !bytes.Equal(p.b, other[off:end]) {
			theirsPart := ""
			if off < len(other) {
				theirsPart = hex.EncodeToString(other[off:min(end, len(other))])
			}
			return &Difference{Offset: off, Context: p.context, Ours: hex.EncodeToString(p.b), Theirs: theirsPart}
		}
		off = end
	}
	if off != len(other) {
		return &Difference{Offset: off, Context: "their trace is longer", Theirs: hex.EncodeToString(other[off:min(off+32, len(other))])}
	}
	return nil
}
