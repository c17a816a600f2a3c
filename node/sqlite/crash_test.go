package sqlite

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/node/ledger"
)

// A handle that is never closed (as after a crash) loses nothing: a new
// store on the same file sees every acknowledged write.
func TestAbandonedHandleKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Init(ctx, testIdentity); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AllocateParty(ctx, ledger.PartyAllocation{Party: ledger.Party{ID: "A::1", IsLocal: true}}); err != nil {
		t.Fatal(err)
	}
	c, err := s.Commit(ctx, withContracts(accepted("u", "cmd", "A::1"), []string{"00aa"}))
	if err != nil {
		t.Fatal(err)
	}
	// No s.Close(): the handle is abandoned with its WAL un-checkpointed.

	s2, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("reopen beside an abandoned handle: %v", err)
	}
	defer s2.Close()
	if s2.LedgerEnd() != c.Offset {
		t.Errorf("ledger end after reopen = %d, want %d", s2.LedgerEnd(), c.Offset)
	}
	if _, err := s2.Party(ctx, "A::1"); err != nil {
		t.Errorf("party after reopen: %v", err)
	}
	if _, err := s2.Contract(ctx, "00aa"); err != nil {
		t.Errorf("contract after reopen: %v", err)
	}
	if _, err := s2.Commit(ctx, accepted("u", "cmd", "A::1")); err == nil {
		t.Error("the dedup record did not survive the reopen")
	}
	if c2, err := s2.Commit(ctx, accepted("u", "cmd2", "A::1")); err != nil || c2.Offset != c.Offset+1 {
		t.Errorf("next commit after reopen: offset %d, err %v; want %d", c2.Offset, err, c.Offset+1)
	}
}

const crashChildEnv = "LEDGER_STORE_CRASH_CHILD_DB"

// TestCrashChild is the process TestKillDuringCommitsLosesNothing kills: it
// commits from several goroutines and prints every acknowledged commit.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("helper process for TestKillDuringCommitsLosesNothing")
	}
	s, err := Open(path, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				cmd := fmt.Sprintf("w%d-%d", w, i)
				e := withContracts(accepted("u", cmd, "A"), []string{"00" + cmd})
				c, err := s.Commit(context.Background(), e)
				mu.Lock()
				if err != nil {
					fmt.Fprintln(out, "error", err)
				} else {
					fmt.Fprintln(out, "ack", c.Offset, cmd)
				}
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// kill -9 during a stream of commits, then reopen: every acknowledged commit
// is there at its offset, offsets are gap-free, every transaction has its
// completion and its contract.
func TestKillDuringCommitsLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	path := filepath.Join(t.TempDir(), "ledger.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[int64]string{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && len(acked) < 500 {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "ack" {
			off, _ := strconv.ParseInt(f[1], 10, 64)
			acked[off] = f[2]
		} else if len(f) > 0 && f[0] == "error" {
			t.Fatalf("child: %s", sc.Text())
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no cleanup runs
		t.Fatal(err)
	}
	cmd.Wait()
	if len(acked) < 500 {
		t.Fatalf("child acknowledged only %d commits before its output ended", len(acked))
	}

	ctx := context.Background()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	for off, command := range acked {
		c, err := s.CompletionAt(ctx, off)
		if err != nil || c.CommandID != command {
			t.Fatalf("acknowledged %s at offset %d; after restart: %+v, %v", command, off, c, err)
		}
		if _, err := s.Contract(ctx, "00"+command); err != nil {
			t.Fatalf("contract of acknowledged %s: %v", command, err)
		}
	}
	checkGapFree(t, s)
	t.Logf("%d acknowledged before kill, ledger end %d after restart", len(acked), s.LedgerEnd())
}
