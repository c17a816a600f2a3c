package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// `ledger status` against a started node: the admin sees every part, as a
// table and as JSON; a user who may not list parties or packages sees the
// rest, those parts marked with the node's reason, exit 0; a node that does
// not answer is exit 1.
func TestStatusAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "clerk", "--act-as", bank}, conn...)...).must(t, 0)
	clerk := []string{"--url", n.url, "--token", n.token("clerk")}
	runCLI(t, "", append([]string{"submit", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + bank + `"}`, "--act-as", bank,
		"--command-id", "status-1"}, clerk...)...).must(t, 0)

	r := runCLI(t, "", append([]string{"status"}, conn...)...).must(t, 0)
	for _, want := range []string{"Version:", "Participant:", "Synchronizers:", "Ledger end:", "Pruned up to:", "Packages:", "Parties:"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("status lacks %q:\n%s", want, r.out)
		}
	}
	var res StatusResult
	r = runCLI(t, "", append([]string{"status", "-o", "json"}, conn...)...).must(t, 0)
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatalf("%v: %s", err, r.out)
	}
	if res.Version == "" || res.ParticipantID == "" || len(res.Synchronizers) != 1 || res.LedgerEnd == nil || *res.LedgerEnd < 1 ||
		res.PrunedUpTo == nil || *res.PrunedUpTo != 0 || res.Parties == nil || *res.Parties < 1 || res.Packages == nil || len(res.Errors) != 0 {
		t.Errorf("status -o json: %s", r.out)
	}

	// A user with only a party's rights: the admin-only parts say why.
	r = runCLI(t, "", append([]string{"status", "-o", "json"}, clerk...)...).must(t, 0)
	res = StatusResult{}
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatalf("%v: %s", err, r.out)
	}
	if res.LedgerEnd == nil || res.Parties != nil || !strings.Contains(res.Errors["parties"], "HTTP 403") {
		t.Errorf("status as a plain user: %s", r.out)
	}
	r = runCLI(t, "", append([]string{"status"}, clerk...)...).must(t, 0)
	if !strings.Contains(r.out, "Parties:        ? (") {
		t.Errorf("status table as a plain user:\n%s", r.out)
	}

	runCLI(t, "", "status", "--url", "http://127.0.0.1:1", "--timeout", "2s").must(t, 1)
}
