package display

import (
	"github.com/ledger-cli/ledger/display/format"

	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/tree"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// maxInlineValue bounds how much of a Daml value a tree line shows.
const maxInlineValue = 400

// TreeRoots returns the node ids of a transaction tree's roots in order: the
// nodes not inside any exercised node's (nodeId, lastDescendantNodeId]
// range, as Canton's trees carry no root list since 3.3. children maps each
// exercise to its direct children.
func TreeRoots(t *ledgerapi.TransactionTree) (roots []int32, children map[int32][]int32) {
	ids := make([]int32, 0, len(t.EventsByID))
	byID := map[int32]ledgerapi.TreeEvent{}
	for _, ev := range t.EventsByID {
		id := ev.NodeID()
		ids = append(ids, id)
		byID[id] = ev
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	children = map[int32][]int32{}
	// A stack of open exercises: node ids are in pre-order, so the parent of
	// a node is the innermost open exercise whose range contains it.
	type open struct{ id, last int32 }
	var stack []open
	for _, id := range ids {
		for len(stack) > 0 && id > stack[len(stack)-1].last {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, id)
		} else {
			p := stack[len(stack)-1].id
			children[p] = append(children[p], id)
		}
		if ex := byID[id].Exercised; ex != nil && int32(ex.LastDescendantNodeID) > id {
			stack = append(stack, open{id, int32(ex.LastDescendantNodeID)})
		}
	}
	return roots, children
}

// RenderTransactionTree writes a transaction tree for a terminal: the
// update's header, then each root event with the events it caused.
func RenderTransactionTree(w io.Writer, t *ledgerapi.TransactionTree, opts TextOptions) error {
	st := newStyles(opts.Color)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", st.title.Render("Transaction"), format.Escape(t.UpdateID))
	kv := func(k, v string) { fmt.Fprintf(&b, "%s\n", strings.TrimRight(fmt.Sprintf("  %-15s %s", k, v), " ")) }
	kv("offset", strconv.FormatInt(int64(t.Offset), 10))
	if t.CommandID != "" { // only the submitting parties see it
		kv("command id", format.Escape(t.CommandID))
	}
	if t.WorkflowID != "" {
		kv("workflow id", format.Escape(t.WorkflowID))
	}
	kv("effective at", t.EffectiveAt.String())
	kv("record time", t.RecordTime.String())
	kv("synchronizer", format.Escape(t.SynchronizerID))
	roots, children := TreeRoots(t)
	events := map[int32]ledgerapi.TreeEvent{}
	for _, ev := range t.EventsByID {
		events[ev.NodeID()] = ev
	}
	fmt.Fprintf(&b, "%s (%d)\n", st.title.Render("Events"), len(events))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	width := opts.Width
	if width <= 0 {
		width = DefaultWidth
	}
	var build func(id int32, depth int) *tree.Tree
	build = func(id int32, depth int) *tree.Tree {
		n := tree.Root(treeEventText(events[id], st, opts.FullIDs, width-4*(depth+1)))
		for _, c := range children[id] {
			n.Child(build(c, depth+1))
		}
		return n
	}
	for _, r := range roots {
		t := build(r, 0).EnumeratorStyle(st.faint.PaddingRight(1)).ItemStyle(lipgloss.NewStyle())
		if _, err := io.WriteString(w, t.String()+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// treeEventText is the block of one event.
func treeEventText(ev ledgerapi.TreeEvent, st styles, full bool, avail int) string {
	id := func(s string) string {
		if full {
			return format.Escape(s)
		}
		return format.Escape(format.ShortParty(s, 6, 4))
	}
	parties := func(ps []string) string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = id(p)
		}
		if len(out) == 0 {
			return "-"
		}
		return strings.Join(out, ", ")
	}
	var lines []string
	detail := func(k, v string) { lines = append(lines, fmt.Sprintf("  %-12s %s", k, v)) }
	switch {
	case ev.Created != nil:
		c := ev.Created
		lines = append(lines, fmt.Sprintf("%s %s %s", st.faint.Render("#"+strconv.Itoa(int(c.NodeID))), st.create.Render("create"), format.Escape(templateName(c.TemplateID, full))))
		detail("contract", st.contract.Render(id(c.ContractID)))
		detail("signatories", parties(c.Signatories))
		if len(c.Observers) > 0 {
			detail("observers", parties(c.Observers))
		}
		detail("argument", inlineJSON(c.CreateArgument, avail-15))
		if len(c.ContractKey) > 0 && string(c.ContractKey) != "null" {
			detail("key", inlineJSON(c.ContractKey, avail-15))
		}
	case ev.Exercised != nil:
		e := ev.Exercised
		kind := "exercise"
		style := st.exercise
		if e.Consuming {
			kind, style = "exercise (consuming)", st.archive
		}
		lines = append(lines, fmt.Sprintf("%s %s %s on %s", st.faint.Render("#"+strconv.Itoa(int(e.NodeID))), style.Render(kind), format.Escape(e.Choice), format.Escape(templateName(e.TemplateID, full))))
		detail("contract", st.contract.Render(id(e.ContractID)))
		detail("acting", parties(e.ActingParties))
		detail("argument", inlineJSON(e.ChoiceArgument, avail-15))
		if len(e.ExerciseResult) > 0 && string(e.ExerciseResult) != "null" {
			detail("result", inlineJSON(e.ExerciseResult, avail-15))
		}
	default:
		lines = append(lines, "(empty event)")
	}
	return strings.Join(lines, "\n")
}

// templateName shortens "pkg:Module:Entity" to "Module:Entity" unless full.
func templateName(t string, full bool) string {
	if full {
		return t
	}
	if tid, err := ledgerapi.ParseTemplateID(t); err == nil {
		return tid.Module + ":" + tid.Entity
	}
	return t
}

// inlineJSON prints a Daml-LF JSON value compactly, escaped for a terminal
// and cut at the width (at most maxInlineValue characters).
func inlineJSON(raw json.RawMessage, avail int) string {
	if len(raw) == 0 {
		return "-"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "(malformed value)"
	}
	s := format.Escape(buf.String())
	limit := maxInlineValue
	if avail > 20 && avail < limit {
		limit = avail
	}
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	return s
}
