package cmd

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

// runAt runs ledger at a fixed clock, with standard input a terminal when
// tty is set.
func runAt(t *testing.T, now time.Time, stdin string, tty bool, args ...string) cliResult {
	t.Helper()
	ios, in, out, errOut := cmdutil.Test()
	in.WriteString(stdin)
	ios.SetTTY(tty, false)
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: func() time.Time { return now }}
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.Execute()
	return cliResult{out: out.String(), err: errOut.String(), code: cmdutil.ExitCode(err)}
}

// TestOneReviewEverywhere: prepare --show, show and sign (before it asks)
// print the same review of the same envelope — origin and all — because
// all three build it with wallet.ReviewEnvelope and draw it with
// display.RenderText.
func TestOneReviewEverywhere(t *testing.T) {
	n := startLiveNode(t)
	party, _, keyFile, tok := n.externalParty("reviewer")
	now := time.Now().Add(time.Minute).Truncate(time.Second)
	tx := filepath.Join(t.TempDir(), "tx.json")
	conn := []string{"--url", n.url, "--token", tok}

	prepared := runAt(t, now, "", false, append([]string{"prepare", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + party + `"}`,
		"--act-as", party, "--max-record-time", "10m", "--show", "--out", tx}, conn...)...)
	shown := runAt(t, now, "", false, "show", tx)
	signing := runAt(t, now, "n\n", true, "sign", tx, "--key", keyFile, "--out", filepath.Join(t.TempDir(), "s.json"))
	if prepared.code != 0 || shown.code != 0 || signing.code != 1 {
		t.Fatalf("exits %d, %d, %d:\n%s\n%s\n%s", prepared.code, shown.code, signing.code, prepared.err, shown.err, signing.err)
	}

	review := shown.out
	if !strings.Contains(review, "FROM THE FILE") || !strings.Contains(review, n.url) {
		t.Fatalf("show's review lacks the envelope's origin:\n%s", review)
	}
	if got, _, _ := strings.Cut(prepared.out, "Prepared command "); got != review {
		t.Errorf("prepare --show differs from show:\n%s", firstLineDiff(review, got))
	}
	if got, _, _ := strings.Cut(signing.err, "\nSign as "); got != review {
		t.Errorf("sign's review differs from show:\n%s", firstLineDiff(review, got))
	}
}

func firstLineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d: want %q\n        got  %q", i+1, wl, gl)
		}
	}
	return "(same lines)"
}
