package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// syncBuffer is an output shared between a running follower and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestCompletionsFollowWithCheckpointAgainstServe follows a real node's
// completions (websocket and list), stops, and resumes from the checkpoint.
func TestCompletionsFollowWithCheckpointAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "teller", "--act-as", bank}, conn...)...).must(t, 0)
	tok := n.token("teller")
	submit := func(id string) {
		runCLI(t, "", "submit", "--create", "#iou:Iou:Iou", "--args", "{}", "--act-as", bank, "--command-id", id, "--url", n.url, "--token", tok).must(t, 0)
	}
	for _, transport := range []string{"websocket", "list"} {
		t.Run(transport, func(t *testing.T) {
			ckpt := filepath.Join(t.TempDir(), "ckpt")
			follow := func(ctx context.Context, out *syncBuffer) error {
				ios, _, _, _ := cmdutil.Test()
				ios.Out = out
				f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: time.Now}
				f.Config.Set("output", "json")
				cmd := NewCmdCompletions(f, func(o *CompletionsOptions) error { o.Context = ctx; return completionsRun(o) })
				cmd.SetArgs([]string{"--party", bank, "--follow", "--checkpoint", ckpt, "--transport", transport, "--idle-timeout", "50ms", "--url", n.url, "--token", tok})
				return cmd.Execute()
			}
			ids := func(out string) []string {
				var got []string
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					var c ledgerapi.Completion
					if l != "" && json.Unmarshal([]byte(l), &c) == nil && strings.HasPrefix(c.CommandID, transport) {
						got = append(got, c.CommandID)
					}
				}
				return got
			}
			waitFor := func(out *syncBuffer, want int) {
				deadline := time.Now().Add(20 * time.Second)
				for len(ids(out.String())) < want {
					if time.Now().After(deadline) {
						t.Fatalf("waited for %d completions, have: %s", want, out.String())
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			var first, second syncBuffer
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error)
			go func() { done <- follow(ctx, &first) }()
			for i := 0; i < 3; i++ {
				submit(fmt.Sprintf("%s-%d", transport, i))
			}
			waitFor(&first, 3)
			stop()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			for i := 3; i < 6; i++ {
				submit(fmt.Sprintf("%s-%d", transport, i))
			}
			ctx, stop = context.WithCancel(context.Background())
			go func() { done <- follow(ctx, &second) }()
			waitFor(&second, 3)
			stop()
			<-done
			all := append(ids(first.String()), ids(second.String())...)
			want := []string{transport + "-0", transport + "-1", transport + "-2", transport + "-3", transport + "-4", transport + "-5"}
			if strings.Join(all, ",") != strings.Join(want, ",") {
				t.Errorf("printed %v, want %v", all, want)
			}
		})
	}
	// Without --follow: everything up to the ledger end, as text.
	r := runCLI(t, "", "completions", "--party", bank, "--url", n.url, "--token", tok).must(t, 0)
	if strings.Count(r.out, " OK ") != 12 {
		t.Errorf("once:\n%s", r.out)
	}
	runCLI(t, "", "completions", "--url", n.url).must(t, 2)
	runCLI(t, "", "completions", "--party", bank, "--begin", "later", "--url", n.url).must(t, 2)
}

// TestCompletionsOutFileWithCheckpoint runs the tail twice against a real
// node with --out and --checkpoint: the file gets each completion once, and
// a truncated or edited file is refused rather than silently continued.
func TestCompletionsOutFileWithCheckpoint(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "teller", "--act-as", bank}, conn...)...).must(t, 0)
	tok := n.token("teller")
	dir := t.TempDir()
	ckpt, out := filepath.Join(dir, "ckpt"), filepath.Join(dir, "out.ndjson")
	tail := func() {
		runCLI(t, "", "completions", "--party", bank, "--checkpoint", ckpt, "-o", "json", "--out", out, "--url", n.url, "--token", tok).must(t, 0)
	}
	for i := 0; i < 3; i++ {
		runCLI(t, "", "submit", "--create", "#iou:Iou:Iou", "--args", "{}", "--act-as", bank, "--command-id", fmt.Sprintf("c%d", i), "--url", n.url, "--token", tok).must(t, 0)
		tail()
		tail() // nothing new: nothing appended
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), data)
	}
	for i, l := range lines {
		var c ledgerapi.Completion
		if err := json.Unmarshal([]byte(l), &c); err != nil || c.CommandID != fmt.Sprintf("c%d", i) {
			t.Errorf("line %d: %s (%v)", i, l, err)
		}
	}
	if err := os.WriteFile(out, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "completions", "--party", bank, "--checkpoint", ckpt, "--out", out, "--url", n.url, "--token", tok)
	if r.code != 1 || !strings.Contains(r.err, "shorter") {
		t.Errorf("edited output file: exit %d, %s", r.code, r.err)
	}
}
