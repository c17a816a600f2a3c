package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

// TestQuickstart runs the whole walk-through against its in-process node and
// checks what each step must show.
func TestQuickstart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	ios, _, out, _ := cmdutil.Test()
	t.Setenv("LEDGER_URL", "http://127.0.0.1:1") // must be ignored: quickstart uses its own node
	err := quickstartRun(context.Background(), &QuickstartOptions{IO: ios, Now: time.Now, Dir: dir})
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
		"OK        quickstart-iou-1",
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
		if err := quickstartRun(context.Background(), &QuickstartOptions{IO: ios, Now: time.Now, Dir: "demo/keep"}); err != nil {
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
	err := quickstartRun(context.Background(), &QuickstartOptions{IO: ios, Now: time.Now, Dir: "."})
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "files quickstart did not make") {
		t.Errorf("a directory of other files: %v", err)
	}
	if b, _ := os.ReadFile("notes.txt"); string(b) != "mine" {
		t.Error("notes.txt changed")
	}
}
