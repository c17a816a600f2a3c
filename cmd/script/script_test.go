package script_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/internal/cmdtest"
)

func sharedDar(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "dars", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found (the shared DARs are beside the repository): %v", path, err)
	}
	return path
}

// startNode starts ledger serve in process without authentication, in
// memory, on static time when static.
func startNode(t *testing.T, static bool) string {
	t.Helper()
	if static {
		return cmdtest.StartStaticTimeNode(t)
	}
	return cmdtest.StartOpenNode(t)
}

func runCLI(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmd.NewCmdRoot, "", args...)
}

const setup = "Splice.Scripts.Wallet.TestSubscriptions:testSetup"

// TestScriptAgainstStaticTimeNode runs a setup script of the
// splice-wallet-test DAR against ledger serve --static-time over HTTP, and
// reads what it created with ledger contracts.
func TestScriptAgainstStaticTimeNode(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	url := startNode(t, true)
	outFile := filepath.Join(t.TempDir(), "result.json")
	r := runCLI(t, "script", dar, "--script-name", setup, "--url", url, "--upload-dar", "--output-file", outFile)
	if r.Code != 0 {
		t.Fatalf("ledger script: exit %d\n%s%s", r.Code, r.Out, r.Err)
	}
	if !strings.Contains(r.Err, setup+": ok, 84 commands") {
		t.Errorf("stderr: %s", r.Err)
	}
	// The result: (AmuletApp, Users, ContractId SubscriptionRequest).
	var res map[string]json.RawMessage
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("result %s: %v", b, err)
	}
	var requestCid string
	var users struct {
		Alice struct {
			PrimaryParty string `json:"primaryParty"`
		} `json:"alice"`
	}
	if json.Unmarshal(res["_3"], &requestCid) != nil || json.Unmarshal(res["_2"], &users) != nil || users.Alice.PrimaryParty == "" {
		t.Fatalf("result: %s", b)
	}
	// What the script created is on the node.
	c := runCLI(t, "contracts", "--url", url, "--party", users.Alice.PrimaryParty,
		"--template", "#splice-wallet-payments:Splice.Wallet.Subscriptions:SubscriptionRequest", "-o", "json")
	if c.Code != 0 {
		t.Fatalf("ledger contracts: exit %d\n%s%s", c.Code, c.Out, c.Err)
	}
	var events []struct {
		ContractID string `json:"contractId"`
	}
	for _, line := range strings.Split(strings.TrimSpace(c.Out), "\n") { // -o json: one contract per line
		var ev struct {
			ContractID string `json:"contractId"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%v: %s", err, c.Out)
		}
		events = append(events, ev)
	}
	if len(events) != 1 || events[0].ContractID != requestCid {
		t.Errorf("contracts %+v, want the request %s", events, requestCid)
	}
}

// TestScriptTimeNeedsStaticTime: against a node on wall-clock time, a
// script's time commands fail saying what node they need.
func TestScriptTimeNeedsStaticTime(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	url := startNode(t, false)
	r := runCLI(t, "script", dar, "--script-name", setup, "--url", url, "--upload-dar")
	if r.Code != 1 || !strings.Contains(r.Err, "time commands (getTime, setTime, passTime) need a node started with ledger serve --static-time") {
		t.Errorf("exit %d\n%s%s", r.Code, r.Out, r.Err)
	}
}

func TestScriptUsage(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"script", dar}, "give the script to run with --script-name Module:name"},
		{[]string{"script", dar, "--script-name", "Nope:x"}, "--script-name: script \"Nope:x\": the main package splice-wallet-test has no module Nope"},
		{[]string{"script", dar, "--script-name", setup, "--input-file", "x.json"}, "--input-file: script " + setup + " takes no argument"},
	} {
		r := runCLI(t, c.args...)
		if r.Code != 2 || !strings.Contains(r.Err, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.Code, r.Err, c.want)
		}
	}
}

// TestScriptNeedsTheDar: without --upload-dar, a node that lacks the DAR
// is named as such before any command runs.
func TestScriptNeedsTheDar(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	url := startNode(t, true)
	r := runCLI(t, "script", dar, "--script-name", setup, "--url", url)
	if r.Code != 1 || !strings.Contains(r.Err, "the node does not have "+dar+"'s main package 3d2f18d0bf2d75d2aa491665065a176910a5fce5150539d2072b2e3a49984ef5: upload it") {
		t.Errorf("exit %d\n%s%s", r.Code, r.Out, r.Err)
	}
}
