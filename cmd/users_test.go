package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/node/ledger"
)

func TestUsersAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	p := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "alice"}, conn...)...).must(t, 0).out)
	r := runCLI(t, "", append([]string{"users", "create", "alice", "--primary-party", p, "--act-as", p, "--annotation", "example.com/team=a"}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "CanActAs("+p+")") {
		t.Errorf("create: %s", r.out)
	}
	r = runCLI(t, "", append([]string{"users", "grant", "alice", "--read-as", p, "--act-as", p}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "Granted alice: CanReadAs") || strings.Contains(r.out, "CanActAs") {
		t.Errorf("grant prints only new rights: %s", r.out)
	}
	r = runCLI(t, "", append([]string{"users", "revoke", "alice", "--act-as", p, "-o", "json"}, conn...)...).must(t, 0)
	var revoked map[string][]json.RawMessage
	if json.Unmarshal([]byte(r.out), &revoked) != nil || len(revoked["revoked"]) != 1 {
		t.Errorf("revoke: %s", r.out)
	}
	r = runCLI(t, "", "users", "get", "--url", n.url, "--token", n.token("alice")).must(t, 0)
	if !strings.Contains(r.out, "User:           alice") || !strings.Contains(r.out, "CanReadAs") || strings.Contains(r.out, "CanActAs") {
		t.Errorf("get (self): %s", r.out)
	}
	r = runCLI(t, "", append([]string{"users", "list"}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "participant_admin") || !strings.Contains(r.out, "alice") {
		t.Errorf("list: %s", r.out)
	}
	r = runCLI(t, "", append([]string{"users", "create", "alice"}, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "USER_ALREADY_EXISTS") {
		t.Errorf("duplicate: %s", r.err)
	}
	runCLI(t, "", append([]string{"users", "grant", "alice"}, conn...)...).must(t, 2)
	runCLI(t, "", append([]string{"users", "create", "bad user"}, conn...)...).must(t, 2)
}

// TestUsersUpdateAndDelete: the client could update and delete users; the
// CLI now can too (issue 12, item 23).
func TestUsersUpdateAndDelete(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	p := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bob"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "bob"}, conn...)...).must(t, 0)

	r := runCLI(t, "", append([]string{"users", "update", "bob", "--primary-party", p, "--set", "example.com/team=a", "--deactivate", "-o", "json"}, conn...)...).must(t, 0)
	var u struct {
		User struct {
			PrimaryParty  string `json:"primaryParty"`
			IsDeactivated bool   `json:"isDeactivated"`
			Metadata      struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		} `json:"user"`
	}
	if err := json.Unmarshal([]byte(r.out), &u); err != nil {
		t.Fatalf("update -o json: %v\n%s", err, r.out)
	}
	if u.User.PrimaryParty != p || !u.User.IsDeactivated || u.User.Metadata.Annotations["example.com/team"] != "a" {
		t.Errorf("update: %+v", u.User)
	}
	r = runCLI(t, "", append([]string{"users", "update", "bob", "--primary-party", "", "--unset", "example.com/team", "--activate", "-o", "json"}, conn...)...).must(t, 0)
	u.User.Metadata.Annotations = nil
	if err := json.Unmarshal([]byte(r.out), &u); err != nil || u.User.PrimaryParty != "" || u.User.IsDeactivated || len(u.User.Metadata.Annotations) != 0 {
		t.Errorf("update back: %v %+v", err, u.User)
	}
	runCLI(t, "", append([]string{"users", "update", "bob"}, conn...)...).must(t, 2)

	r = runCLI(t, "", append([]string{"users", "delete", "bob"}, conn...)...).must(t, 2)
	if !strings.Contains(r.err, "--yes") {
		t.Errorf("delete without a terminal or --yes: %s", r.err)
	}
	runCLI(t, "", append([]string{"users", "delete", "bob", "--yes"}, conn...)...).must(t, 0)
	r = runCLI(t, "", append([]string{"users", "get", "bob"}, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "USER_NOT_FOUND") {
		t.Errorf("get after delete: %s", r.err)
	}
}

// TestUsersGetWithoutAuth: on a node without authentication there is no
// token to ask about, so "users get" shows the user of --user (issue 12,
// item 28).
func TestUsersGetWithoutAuth(t *testing.T) {
	url := startOpenNode(t)
	r := runCLI(t, "", "users", "get", "--url", url, "--user", ledger.AdminUserID).must(t, 0)
	if !strings.Contains(r.out, ledger.AdminUserID) || !strings.Contains(r.out, "ParticipantAdmin") {
		t.Errorf("users get --user on a node without auth:\n%s", r.out)
	}
	r = runCLI(t, "", "users", "get", "--url", url).must(t, 2)
	if !strings.Contains(r.err, "give USER, or --user") {
		t.Errorf("without --user: %s", r.err)
	}
}
