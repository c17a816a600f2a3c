package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDeveloperMistakesAreNamed is issue 25 item 7 through the binary: a
// command without a user on a node without authentication is a usage
// mistake (exit 2 with the hint), not a ledger rejection; an unknown
// choice lists the template's choices; a second upload of a DAR says the
// node already had it.
func TestDeveloperMistakesAreNamed(t *testing.T) {
	url := startOpenNode(t)
	conn := []string{"--url", url}
	r := runCLI(t, "", append([]string{"dars", "upload", pingDarPath}, conn...)...).must(t, 0)
	if strings.Contains(r.out, "already") {
		t.Errorf("first upload says already:\n%s", r.out)
	}
	r = runCLI(t, "", append([]string{"dars", "upload", pingDarPath}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "already on the node") {
		t.Errorf("second upload does not say the node had the DAR:\n%s", r.out)
	}

	r = runCLI(t, "", append([]string{"parties", "allocate", "alice", "-o", "json"}, conn...)...).must(t, 0)
	var alice struct {
		Party string `json:"party"`
	}
	if err := json.Unmarshal([]byte(r.out), &alice); err != nil {
		t.Fatal(err)
	}
	const ping = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
	create := []string{"submit", "--create", ping, "--args", `{"id":"p1","initiator":"` + alice.Party + `","responder":"` + alice.Party + `"}`, "--act-as", alice.Party}
	r = runCLI(t, "", append(create, conn...)...).must(t, 2)
	if !strings.Contains(r.err, "--user") || strings.Contains(r.err, "rejected") {
		t.Errorf("a missing user reads as a rejection, or names no --user:\n%s", r.err)
	}

	r = runCLI(t, "", append(append(create, "--user", "participant_admin", "-o", "json"), conn...)...).must(t, 0)
	cid := strings.Split(strings.SplitN(r.out, `"contractId": "`, 2)[1], `"`)[0]
	r = runCLI(t, "", append([]string{"submit", "--exercise", ping, "--contract-id", cid, "--choice", "respond",
		"--act-as", alice.Party, "--user", "participant_admin"}, conn...)...).must(t, 4)
	for _, c := range []string{"Respond", "AbortPing", "Archive"} {
		if !strings.Contains(r.err, c) {
			t.Errorf("the unknown choice's answer does not list %s:\n%s", c, r.err)
		}
	}
}
