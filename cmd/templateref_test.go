package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTemplateReferencesThatWouldGoGeneric is issue 25 item 1 through the
// binary: a package name written without its # was read as a package id
// the node never saw and created a generic contract (exit 0); an unknown
// entity of an uploaded package is refused by name; --check-types on a
// template the node has no package for passed without checking anything;
// a command the generic model served looked like any other.
func TestTemplateReferencesThatWouldGoGeneric(t *testing.T) {
	url := startOpenNode(t)
	conn := []string{"--url", url, "--user", "participant_admin"}
	runCLI(t, "", "dars", "upload", pingDarPath, "--url", url).must(t, 0)
	r := runCLI(t, "", "parties", "allocate", "alice", "--url", url, "-o", "json").must(t, 0)
	var alice struct{ Party string }
	if err := json.Unmarshal([]byte(r.out), &alice); err != nil {
		t.Fatal(err)
	}
	args := `{"id":"p1","initiator":"` + alice.Party + `","responder":"` + alice.Party + `"}`
	create := func(tmpl string, extra ...string) cliResult {
		return runCLI(t, "", append(append([]string{"submit", "--create", tmpl, "--args", args, "--act-as", alice.Party}, extra...), conn...)...)
	}

	r = create("canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping").must(t, 2)
	if !strings.Contains(r.err, "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping") {
		t.Errorf("a name without # does not point at the # form:\n%s", r.err)
	}
	r = create("#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Pong").must(t, 4)
	if !strings.Contains(r.err, "TEMPLATES_OR_INTERFACES_NOT_FOUND") {
		t.Errorf("an unknown entity of an uploaded package:\n%s", r.err)
	}
	r = create("#iou:Iou:Iou", "--check-types").must(t, 1)
	if !strings.Contains(r.err, "cannot check #iou:Iou:Iou") || !strings.Contains(r.err, "generic") {
		t.Errorf("--check-types without a package passed or said nothing useful:\n%s", r.err)
	}
	r = runCLI(t, "", "contracts", "--party", alice.Party, "--url", url).must(t, 0)
	if strings.Contains(r.out, "Ping") {
		t.Errorf("a refused command left a contract:\n%s", r.out)
	}
	r = create("#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping", "--check-types").must(t, 0)
	if strings.Contains(r.err, "generic") {
		t.Errorf("a typed template is reported as generic:\n%s", r.err)
	}
	// The generic model serves a package the node never saw, and says so.
	for _, tmpl := range []string{"#iou:Iou:Iou", strings.Repeat("ab", 32) + ":Iou:Iou"} {
		r = create(tmpl).must(t, 0)
		if !strings.Contains(r.err, "no package for "+tmpl) || !strings.Contains(r.err, "generic contract model") {
			t.Errorf("%s: the generic model served it without a word:\n%s", tmpl, r.err)
		}
	}
}
