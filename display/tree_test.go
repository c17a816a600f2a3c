package display

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
)

func TestTreeRootsAndRendering(t *testing.T) {
	ex := func(id, last int32, choice string) ledgerapi.TreeEvent {
		return ledgerapi.TreeEvent{Exercised: &ledgerapi.ExercisedEvent{NodeID: ledgerapi.Int32(id), LastDescendantNodeID: ledgerapi.Int32(last),
			Choice: choice, TemplateID: "pkg1:Iou:Iou", ContractID: "00aabbccddeeff00112233", ActingParties: []string{"alice::1220abcdef0123456789"},
			ChoiceArgument: json.RawMessage(`{"newOwner":"bob"}`), Consuming: id == 0}}
	}
	cr := func(id int32, arg string) ledgerapi.TreeEvent {
		return ledgerapi.TreeEvent{Created: &ledgerapi.CreatedEvent{NodeID: ledgerapi.Int32(id), TemplateID: "pkg1:Iou:Iou",
			ContractID: "00cc", Signatories: []string{"alice::1220ab"}, CreateArgument: json.RawMessage(arg)}}
	}
	tree := &ledgerapi.TransactionTree{UpdateID: "upd", CommandID: "cmd-1", Offset: 9, EventsByID: ledgerapi.Map[ledgerapi.TreeEvent]{
		"0": ex(0, 3, "Transfer"), "1": cr(1, `{"a":"1"}`), "2": ex(2, 3, "Inner"), "3": cr(3, `{"b":"\u001b[31m"}`), "4": cr(4, `{"c":"3"}`),
	}}
	roots, children := TreeRoots(tree)
	if len(roots) != 2 || roots[0] != 0 || roots[1] != 4 || len(children[0]) != 2 || children[0][1] != 2 || len(children[2]) != 1 || children[2][0] != 3 {
		t.Fatalf("roots %v children %v", roots, children)
	}
	var b strings.Builder
	if err := RenderTransactionTree(&b, tree, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Transaction upd", "command id      cmd-1", "exercise (consuming) Transfer on Iou:Iou", "#3 create Iou:Iou", "Events (5)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequence from a value reached the output:\n%q", out)
	}
	// #3 is nested deeper than #1.
	i1, i3 := strings.Index(out, "#1 "), strings.Index(out, "#3 ")
	line := func(i int) string { s := out[:i]; return s[strings.LastIndex(s, "\n")+1:] }
	if len(line(i3)) <= len(line(i1)) {
		t.Errorf("#3 not indented below #2:\n%s", out)
	}
}

func TestCompletionLine(t *testing.T) {
	ok := &ledgerapi.Completion{CommandID: "c1", Status: ledgerapi.StatusOK(), UpdateID: "1220f0f1f2f3f4f5f6f7", Offset: 17, PaidTrafficCost: 2560}
	if l := CompletionLine(ok, TextOptions{}); !strings.Contains(l, "OK") || !strings.Contains(l, "cost 2560") || !strings.HasPrefix(l, "17 ") {
		t.Errorf("%q", l)
	}
	bad := &ledgerapi.Completion{CommandID: "c2", Status: ledgerapi.NewError(ledgerapi.CodeDuplicateCommand, "seen before", nil).Status(), Offset: 18}
	if l := CompletionLine(bad, TextOptions{}); !strings.Contains(l, "REJECTED") || !strings.Contains(l, "DUPLICATE_COMMAND: seen before") {
		t.Errorf("%q", l)
	}
}
