package integration

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestGenericModelSaysSo: a command on a template of no uploaded package is
// served by the generic contract model, and the answer says so in
// server.GenericModelHeader (prepare and the submit-and-wait family); a
// command whose Daml code ran carries no such header.
func TestGenericModelSaysSo(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	n.ok("POST", "/v2/dars", "", archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), nil)
	alice := n.allocate("Alice").Party
	extra := map[string]any{"userId": damlUser}

	r := n.call("POST", "/v2/commands/submit-and-wait", "", commands("g-1", []string{alice}, []map[string]any{create(alice, "1")}, extra))
	if r.status != 200 || !strings.Contains(r.header.Get(server.GenericModelHeader), ":Iou:Iou") {
		t.Errorf("generic submit: %d, header %q", r.status, r.header.Get(server.GenericModelHeader))
	}
	r = n.call("POST", "/v2/interactive-submission/prepare", "", commands("g-2", []string{alice}, []map[string]any{create(alice, "1")}, extra))
	if r.status != 200 || !strings.Contains(r.header.Get(server.GenericModelHeader), ":Iou:Iou") {
		t.Errorf("generic prepare: %d %s, header %q", r.status, r.body, r.header.Get(server.GenericModelHeader))
	}
	r = n.call("POST", "/v2/commands/submit-and-wait", "", commands("d-1", []string{alice}, []map[string]any{pingCreate(alice, alice, "p")}, extra))
	if r.status != 200 || r.header.Get(server.GenericModelHeader) != "" {
		t.Errorf("Daml submit: %d, header %q", r.status, r.header.Get(server.GenericModelHeader))
	}
}
