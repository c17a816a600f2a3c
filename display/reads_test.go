package display

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestContractLineShowsTheView: a contract read through an interface shows
// its computed view instead of its argument; a failed view leaves the
// argument.
func TestContractLineShowsTheView(t *testing.T) {
	ev := ledgerapi.CreatedEvent{TemplateID: "pkg:M:T", ContractID: "00ab", CreateArgument: []byte(`{"arg":"1"}`)}
	if got := ContractLine(&ev, TextOptions{}); !strings.HasSuffix(got, `{"arg":"1"}`) {
		t.Errorf("no view: %s", got)
	}
	ev.InterfaceViews = ledgerapi.List[ledgerapi.InterfaceView]{
		{InterfaceID: "pkg:I:Failing", ViewStatus: ledgerapi.JsStatus{Code: 9, Message: "boom"}, ViewValue: []byte("null")},
		{InterfaceID: "pkg:I:View", ViewStatus: *ledgerapi.StatusOK(), ViewValue: []byte(`{"view":"2"}`)},
	}
	if got := ContractLine(&ev, TextOptions{}); !strings.HasSuffix(got, `{"view":"2"}`) {
		t.Errorf("with a view: %s", got)
	}
	ev.InterfaceViews = ev.InterfaceViews[:1]
	if got := ContractLine(&ev, TextOptions{}); !strings.HasSuffix(got, `{"arg":"1"}`) {
		t.Errorf("failed view: %s", got)
	}
	if h := ContractHeader(true); h[len(h)-1] != "VIEW" {
		t.Errorf("header %q", h)
	}
}

// TestTreeWithoutCommandIDHasNoTrailingSpace: a party that did not submit
// sees no command id; the tree then leaves the line out rather than
// printing a label followed by spaces (issue 25, item 12).
func TestTreeWithoutCommandIDHasNoTrailingSpace(t *testing.T) {
	var b strings.Builder
	tree := ledgerapi.TransactionTree{UpdateID: "1220ab", Offset: 3}
	if err := RenderTransactionTree(&b, &tree, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("line ends in a space: %q", l)
		}
	}
	if strings.Contains(b.String(), "command id") {
		t.Errorf("an empty command id is shown:\n%s", b.String())
	}
}
