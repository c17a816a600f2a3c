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
		"Allocated external party Alice::1220",
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
