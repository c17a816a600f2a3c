package typecheck

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestNoteGenericReadsTheNodesHeader: the note names exactly the commands
// whose templates the node's answer says its generic model served — by
// package id as written, or by name with the same module and entity — and
// says nothing when the answer carries no such header (Canton's never do).
func TestNoteGenericReadsTheNodesHeader(t *testing.T) {
	id := strings.Repeat("ab", 32)
	other := strings.Repeat("cd", 32)
	create := func(tmpl string) ledgerapi.Command {
		return ledgerapi.Command{Create: &ledgerapi.CreateCommand{TemplateID: tmpl}}
	}
	cmds := []ledgerapi.Command{create("#iou:Iou:Iou"), create(id + ":Main:Asset"), create(other + ":Main:Asset"), create("#ping:Ping:Ping")}
	note := func(h http.Header) string {
		var b bytes.Buffer
		NoteGeneric(h, cmds, &b)
		return b.String()
	}
	if got := note(http.Header{}); got != "" {
		t.Errorf("no header, yet a note:\n%s", got)
	}
	h := http.Header{}
	h.Set(ledgerapi.GenericModelHeader, strings.Repeat("01", 32)+":Iou:Iou, "+id+":Main:Asset")
	got := note(h)
	for _, want := range []string{"no package for #iou:Iou:Iou", "no package for " + id + ":Main:Asset"} {
		if !strings.Contains(got, want) {
			t.Errorf("note lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{other, "Ping"} {
		if strings.Contains(got, not) {
			t.Errorf("note names %s, which Daml code served:\n%s", not, got)
		}
	}
}
