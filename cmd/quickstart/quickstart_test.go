package quickstart_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/quickstart"
)

// TestQuickstart runs the whole walk-through against its in-process node and
// checks what each step must show.
func TestQuickstart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	ios, _, out, _ := cmdutil.Test()
	t.Setenv("LEDGER_URL", "http://127.0.0.1:1") // must be ignored: quickstart uses its own node
	err := quickstart.Run(context.Background(), &quickstart.Options{IO: ios, Now: time.Now, Root: cmd.NewCmdRoot, Dir: dir})
	text := out.String()
	if err != nil {
		t.Fatalf("quickstart: %v\n%s", err, text)
	}
	for _, want := range []string{
		"$ ledger keys generate --out alice.key",
		"$ ALICE=Alice::1220",
		"$ ledger prepare --act-as \"$ALICE\"",
		"OK: the node's hash matches the local recomputation (HASHING_SCHEME_VERSION_V3)",
		"create Iou",
		"signed as Alice::1220",
		"Committed command quickstart-iou-1",
		"OK      quickstart-iou-1", // STATUS as wide as its header; columns as wide as their content (issue 25 item 12)
		"example.com/desk=fx",
		"$ BANK=Bank::1220",
		"#0 create Iou:Iou",
		"Done: 12 steps",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if os.Getenv("LEDGER_URL") != "http://127.0.0.1:1" {
		t.Error("quickstart did not restore LEDGER_URL")
	}
	for _, f := range []string{"ledger.db", "alice.key", "tx.json", "tx.signed.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--dir lacks %s: %v", f, err)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

// TestQuickstartKeepsItsDirectory: --dir takes a relative path to a
// directory that need not exist, and a second run in it starts over; a
// directory of someone else's files is refused (issue 12, item 21).
func TestQuickstartKeepsItsDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	for run := 1; run <= 2; run++ {
		ios, _, out, _ := cmdutil.Test()
		if err := quickstart.Run(context.Background(), &quickstart.Options{IO: ios, Now: time.Now, Root: cmd.NewCmdRoot, Dir: "demo/keep"}); err != nil {
			t.Fatalf("run %d in ./demo/keep: %v\n%s", run, err, out)
		}
		if run == 2 && !strings.Contains(out.String(), "Starting over in demo/keep") {
			t.Errorf("run 2 does not say it starts over:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join("demo", "keep", "ledger.db")); err != nil {
			t.Errorf("run %d: %v", run, err)
		}
	}
	if err := os.WriteFile("notes.txt", []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := cmdutil.Test()
	err := quickstart.Run(context.Background(), &quickstart.Options{IO: ios, Now: time.Now, Root: cmd.NewCmdRoot, Dir: "."})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "files quickstart did not make") {
		t.Errorf("a directory of other files: %v", err)
	}
	if b, _ := os.ReadFile("notes.txt"); string(b) != "mine" {
		t.Error("notes.txt changed")
	}
}

// tokenDars returns the folder of the token demo's DARs beside the
// repository, or skips.
func tokenDars(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "dars"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "my-exercise-app.dar")); err != nil {
		t.Skipf("the token DARs are not at %s (the shared folder beside the repository); skipping", dir)
	}
	return dir
}

// TestQuickstartToken runs the token demo end to end (issue 16, item 6):
// my-exercise-app's token moved between two external parties through the
// token-standard interfaces, the holdings before and after, and -o json's
// summary of it.
func TestQuickstartToken(t *testing.T) {
	dars := tokenDars(t)
	ios, _, out, errOut := cmdutil.Test()
	err := quickstart.Run(context.Background(), &quickstart.Options{IO: ios, Now: time.Now, Root: cmd.NewCmdRoot, Token: true, Dars: dars, Format: cmdutil.FormatJSON})
	text := errOut.String()
	if err != nil {
		t.Fatalf("quickstart --token: %v\n%s", err, text)
	}
	for _, want := range []string{
		`$ ledger dars upload "$DARS"/splice-api-token-metadata-v1-1.0.0.dar`,
		"$ ADMIN=Admin::1220",
		"$ BOB=Bob::1220",
		"$ ledger prepare --act-as \"$ALICE\" --exercise '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory' --contract-id \"$FACTORY\"",
		"What will be signed: the HASHING_SCHEME_VERSION_V3 hash",
		"OK: the node's hash matches the local recomputation (HASHING_SCHEME_VERSION_V3)",
		"interface    Splice.Api.Token.TransferInstructionV1:TransferFactory",
		"signed as Alice::1220",
		"Committed command token-transfer-1",
		"$ INSTRUCTION=00",
		"--choice TransferInstruction_Update",
		"$ALICE  60.0    TOK",
		"$BOB    40.0    TOK",
		"Done: 18 steps",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(text, "prepare request differs") {
		t.Errorf("a warning that the transfer is not what was asked for")
	}
	var sum quickstart.TokenDemo
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatalf("-o json: %v\n%s", err, out)
	}
	owned := func(hs []quickstart.DemoHolding) map[string]string {
		m := map[string]string{}
		for _, h := range hs {
			m[h.Owner] += h.Amount
		}
		return m
	}
	if got := owned(sum.HoldingsBefore); len(got) != 1 || got[sum.Sender] != "100.0000000000" {
		t.Errorf("holdings before: %+v", sum.HoldingsBefore)
	}
	if got := owned(sum.HoldingsAfter); len(got) != 2 || got[sum.Sender] != "60.0000000000" || got[sum.Receiver] != "40.0000000000" {
		t.Errorf("holdings after: %+v", sum.HoldingsAfter)
	}
	if len(sum.Transfer.Hash) != 64 || sum.Transfer.SignedBy != sum.Sender || sum.Transfer.UpdateID == "" || sum.Instruction == "" {
		t.Errorf("transfer: %+v", sum)
	}
	if t.Failed() {
		t.Log(text)
	}
}

// TestQuickstartTokenWithoutDars: without the DARs the demo says where it
// looked and where to get them, before it starts anything.
func TestQuickstartTokenWithoutDars(t *testing.T) {
	empty := t.TempDir()
	ios, _, out, _ := cmdutil.Test()
	err := quickstart.Run(context.Background(), &quickstart.Options{IO: ios, Now: time.Now, Root: cmd.NewCmdRoot, Token: true, Dars: empty})
	if err == nil {
		t.Fatal("no error without the DARs")
	}
	for _, want := range []string{"needs my-exercise-app.dar, which is in none of " + empty, "my-exercise-app.dar is in github.com/hyperledger-labs/splice-wallet-kernel", "--dars DIR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	// The one DAR it needs is named once, the interface DARs it does not
	// need not at all (issue 25, item 15).
	if n := strings.Count(err.Error(), "needs"); n != 1 || strings.Contains(err.Error(), "splice-api-token-metadata-v1-1.0.0.dar") {
		t.Errorf("the missing DAR is not said once (%d times), or an optional DAR is asked for: %v", n, err)
	}
	if out.Len() != 0 {
		t.Errorf("the walk-through started: %s", out)
	}
}

// TestQuickstartTokenWithOnlyTheAppDar: my-exercise-app.dar carries the
// token standard's interface packages, so the demo runs with it alone
// (issue 25, item 15).
func TestQuickstartTokenWithOnlyTheAppDar(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(tokenDars(t), "my-exercise-app.dar"), filepath.Join(dir, "my-exercise-app.dar")); err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := cmdutil.Test()
	if err := quickstart.Run(context.Background(), &quickstart.Options{IO: ios, Now: time.Now, Root: cmd.NewCmdRoot, Token: true, Dars: dir}); err != nil {
		t.Fatalf("quickstart --token with my-exercise-app.dar alone: %v\n%s", err, out)
	}
	text := out.String()
	for _, want := range []string{`$ ledger dars upload "$DARS"/my-exercise-app.dar`, "its DAR carries their packages", "$BOB    40.0    TOK", "Done: 18 steps"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q\n%s", want, text)
		}
	}
	if strings.Contains(text, "splice-api-token-metadata-v1-1.0.0.dar") {
		t.Errorf("the demo asked for an interface DAR it was not given")
	}
}

// TestQuickstartTokenFlags: -o and --dars belong to the token demo.
func TestQuickstartTokenFlags(t *testing.T) {
	for _, args := range [][]string{{"quickstart", "-o", "json"}, {"quickstart", "--dars", "x"}} {
		ios, _, _, _ := cmdutil.Test()
		root := cmd.NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New(), Now: time.Now})
		root.SetArgs(args)
		if err := root.Execute(); cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--token") {
			t.Errorf("%v: %v", args, err)
		}
	}
}
