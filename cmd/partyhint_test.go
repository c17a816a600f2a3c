package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartyHintsAgainstServe: a party flag takes the hint of a party the
// node knows, says on stderr which party it took, and refuses a hint no
// party or several parties have, listing candidates; a full party id is
// never looked up. The create line `dars inspect --template` prints runs
// as printed, its placeholders filled in.
func TestPartyHintsAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	runCLI(t, "", append([]string{"dars", "upload", pingDarPath}, conn...)...).must(t, 0)
	alice := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "alice"}, conn...)...).must(t, 0).out)
	bob := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bob"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "grant", "participant_admin", "--act-as", alice, "--read-as", bob}, conn...)...).must(t, 0)

	// The skeleton inspect prints, filled in, with the line's --act-as alice.
	r := runCLI(t, "", "dars", "inspect", pingDarPath, "--template", "Canton.Internal.Ping:Ping", "-o", "json").must(t, 0)
	var d struct {
		ExampleArgs    json.RawMessage
		ExampleCommand string
	}
	if err := json.Unmarshal([]byte(r.out), &d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.ExampleCommand, " --act-as alice ") {
		t.Fatalf("example command: %s", d.ExampleCommand)
	}
	args := strings.ReplaceAll(string(d.ExampleArgs), "alice::1220…", alice)
	tid := "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
	r = runCLI(t, "", append([]string{"submit", "--create", tid, "--act-as", "alice", "--read-as", "bob", "--args", args}, conn...)...).must(t, 0)
	if !strings.Contains(r.err, "--act-as alice is "+alice+"\n") || !strings.Contains(r.err, "--read-as bob is "+bob+"\n") {
		t.Errorf("submit does not say which parties it took:\n%s", r.err)
	}
	if !strings.Contains(r.out, "Ping") {
		t.Errorf("submit: %s", r.out)
	}

	// So does prepare, whose envelope names the party the hint stands for.
	out := filepath.Join(t.TempDir(), "prepared.json")
	r = runCLI(t, "", append([]string{"prepare", "--create", tid, "--act-as", "alice", "--read-as", "bob", "--args", args, "--out", out}, conn...)...).must(t, 0)
	if !strings.Contains(r.err, "--act-as alice is "+alice+"\n") || !strings.Contains(r.err, "--read-as bob is "+bob+"\n") {
		t.Errorf("prepare does not say which parties it took:\n%s", r.err)
	}
	if env, err := os.ReadFile(out); err != nil || !strings.Contains(string(env), alice) {
		t.Errorf("the envelope does not act as %s: %v\n%s", alice, err, env)
	}

	// Reads take hints too.
	r = runCLI(t, "", append([]string{"contracts", "--party", "alice", "-o", "json"}, conn...)...).must(t, 0)
	if !strings.Contains(r.err, "--party alice is "+alice) || !strings.Contains(r.out, "Canton.Internal.Ping:Ping") {
		t.Errorf("contracts --party alice:\nstdout %s\nstderr %s", r.out, r.err)
	}
	r = runCLI(t, "", append([]string{"completions", "--party", "alice", "--limit", "5", "--idle-timeout", "50ms", "-o", "json"}, conn...)...).must(t, 0)
	if !strings.Contains(r.err, "--party alice is "+alice) {
		t.Errorf("completions --party alice:\n%s", r.err)
	}

	// Users' rights and primary party too.
	r = runCLI(t, "", append([]string{"users", "create", "clerk", "--primary-party", "alice", "--act-as", "alice", "--read-as", "bob", "-o", "json"}, conn...)...).must(t, 0)
	if !strings.Contains(r.err, "--act-as alice is "+alice) || !strings.Contains(r.err, "--read-as bob is "+bob) ||
		!strings.Contains(r.err, "--primary-party alice is "+alice) || strings.Count(r.out, alice) < 2 || !strings.Contains(r.out, bob) {
		t.Errorf("users create with hints:\nstdout %s\nstderr %s", r.out, r.err)
	}
	r = runCLI(t, "", append([]string{"users", "grant", "clerk", "--execute-as", "bob"}, conn...)...).must(t, 0)
	if !strings.Contains(r.err, "--execute-as bob is "+bob) || !strings.Contains(r.out, bob) {
		t.Errorf("users grant with a hint:\nstdout %s\nstderr %s", r.out, r.err)
	}

	// A hint no party has: the candidates are similar hints, else every
	// party.
	r = runCLI(t, "", append([]string{"submit", "--create", tid, "--act-as", "ali", "--args", args}, conn...)...).must(t, 2)
	if !strings.Contains(r.err, `--act-as "ali": no party the node knows has the hint ali; parties with a similar hint: `+alice) ||
		!strings.Contains(r.err, "ledger parties allocate ali") {
		t.Errorf("unknown hint:\n%s", r.err)
	}
	r = runCLI(t, "", append([]string{"contracts", "--party", "carol"}, conn...)...).must(t, 2)
	if !strings.Contains(r.err, `--party "carol": no party the node knows has the hint carol; parties the node knows: `) ||
		!strings.Contains(r.err, alice) || !strings.Contains(r.err, bob) {
		t.Errorf("unknown hint, no similar one:\n%s", r.err)
	}

	// A full party id is sent as given, never looked up: a user who may act
	// as bob but not read the node's parties submits by id, and is told to
	// give the id when it gives a hint.
	runCLI(t, "", append([]string{"users", "create", "teller", "--act-as", bob}, conn...)...).must(t, 0)
	teller := []string{"--url", n.url, "--token", n.token("teller")}
	bobArgs := strings.ReplaceAll(string(d.ExampleArgs), "alice::1220…", bob)
	r = runCLI(t, "", append([]string{"submit", "--create", tid, "--act-as", bob, "--args", bobArgs}, teller...)...).must(t, 0)
	if strings.Contains(r.err, " is "+bob) {
		t.Errorf("a full party id was looked up:\n%s", r.err)
	}
	r = runCLI(t, "", append([]string{"submit", "--create", tid, "--act-as", "bob", "--args", bobArgs}, teller...)...).must(t, 2)
	if !strings.Contains(r.err, `--act-as "bob" is a party hint, and the node's parties could not be read to find its party id`) ||
		!strings.Contains(r.err, "give the full party id") {
		t.Errorf("hint without the right to list parties:\n%s", r.err)
	}

	// Two parties with the hint alice (the second external): refused,
	// both named.
	ext, _, _, _ := n.externalParty("alice")
	r = runCLI(t, "", append([]string{"submit", "--create", tid, "--act-as", "alice", "--args", args}, conn...)...).must(t, 2)
	if !strings.Contains(r.err, `--act-as "alice": 2 parties have the hint alice: `) || !strings.Contains(r.err, alice) ||
		!strings.Contains(r.err, ext) || !strings.Contains(r.err, "give the full party id") {
		t.Errorf("ambiguous hint:\n%s", r.err)
	}
}
