package script_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
)

func sharedDar(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "dars", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found (the shared DARs are beside the repository): %v", path, err)
	}
	return path
}

// startNode starts ledger serve in process on loopback without
// authentication, on static time when static.
func startNode(t *testing.T, static bool) string {
	t.Helper()
	t.Setenv(cmdutil.ConfigEnv, filepath.Join(t.TempDir(), "config.yaml"))
	for _, k := range append(cmdutil.ConnectionKeys, "profile") {
		t.Setenv(cmdutil.EnvName(k), "")
	}
	nc := local.Config{DBPath: filepath.Join(t.TempDir(), "ledger.db")}
	sc := server.Config{Addr: "127.0.0.1:0"}
	if static {
		clock := node.NewStaticClock(time.Unix(0, 0))
		nc.Node.Now, sc.Clock = clock.Now, clock
	}
	n, err := local.Open(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	run, err := server.Start(context.Background(), n, sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	return run.URL()
}

type result struct {
	out, err string
	code     int
}

func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	ios, _, out, errOut := cmdutil.Test()
	root := cmd.NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New(), Now: time.Now})
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		var ee *cmdutil.ExitError
		if !errors.As(err, &ee) || ee.Err != nil {
			fmt.Fprintf(errOut, "error: %s\n", err)
		}
	}
	return result{out: out.String(), err: errOut.String(), code: cmdutil.ExitCode(err)}
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
	if r.code != 0 {
		t.Fatalf("ledger script: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if !strings.Contains(r.err, setup+": ok, 84 commands") {
		t.Errorf("stderr: %s", r.err)
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
	if c.code != 0 {
		t.Fatalf("ledger contracts: exit %d\n%s%s", c.code, c.out, c.err)
	}
	var events []struct {
		ContractID string `json:"contractId"`
	}
	if err := json.Unmarshal([]byte(c.out), &events); err != nil {
		t.Fatalf("%v: %s", err, c.out)
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
	if r.code != 1 || !strings.Contains(r.err, "time commands (getTime, setTime, passTime) need a node started with ledger serve --static-time") {
		t.Errorf("exit %d\n%s%s", r.code, r.out, r.err)
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
		if r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.err, c.want)
		}
	}
}
