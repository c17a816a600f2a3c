package completions

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestHelperFollower is the follower process the restart tests kill: it
// tails with a checkpoint and prints "C <offset>" per completion. It does
// nothing unless started by them.
func TestHelperFollower(t *testing.T) {
	if os.Getenv("LEDGER_TAIL_HELPER") != "1" {
		t.Skip("helper process of the restart tests")
	}
	c, err := newClientErr(os.Getenv("LEDGER_TAIL_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	opts := Options{
		Parties: []string{"alice::1220"}, Follow: true, Checkpoint: os.Getenv("LEDGER_TAIL_CKPT"),
		Transport: os.Getenv("LEDGER_TAIL_TRANSPORT"), IdleTimeout: 20 * time.Millisecond, Limit: 7,
	}
	var w io.Writer = os.Stdout
	if path := os.Getenv("LEDGER_TAIL_OUT"); path != "" {
		f, err := OpenOutputFile(path, opts.Checkpoint)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w, opts.Sync = f, f.Sync
		fmt.Fprintln(os.Stdout, "C -1") // tell the test it is running
	}
	_, err = Tail(context.Background(), c, opts, func(c *ledgerapi.Completion) error {
		_, err := fmt.Fprintf(w, "C %d\n", c.Offset)
		return err
	})
	fmt.Fprintln(os.Stderr, "tail ended:", err)
	os.Exit(1)
}

// follower is a running helper process.
type follower struct {
	cmd   *exec.Cmd
	lines chan int64
	done  chan struct{}
}

func startFollower(t *testing.T, url, ckpt, transport string, env ...string) *follower {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFollower$")
	cmd.Env = append(os.Environ(), "LEDGER_TAIL_HELPER=1", "LEDGER_TAIL_URL="+url, "LEDGER_TAIL_CKPT="+ckpt, "LEDGER_TAIL_TRANSPORT="+transport)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &follower{cmd: cmd, lines: make(chan int64, 10000), done: make(chan struct{})}
	go func() {
		defer close(f.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "C "); ok {
				off, _ := strconv.ParseInt(rest, 10, 64)
				f.lines <- off
			}
		}
	}()
	return f
}

// kill sends SIGKILL and returns every offset the process printed.
func (f *follower) kill(t *testing.T, seen *[]int64) {
	t.Helper()
	f.cmd.Process.Kill()
	f.cmd.Wait()
	<-f.done
	close(f.lines)
	for off := range f.lines {
		*seen = append(*seen, off)
	}
}

// waitFor reads lines until pred holds for what was seen.
func (f *follower) waitFor(t *testing.T, seen *[]int64, what string, pred func([]int64) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !pred(*seen) {
		select {
		case off := <-f.lines:
			*seen = append(*seen, off)
		case <-deadline:
			t.Fatalf("timed out waiting for %s; seen %d lines", what, len(*seen))
		}
	}
}

// completionOffsets lists the offsets of the node's completions.
func (n *fakeNode) completionOffsets() []int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []int64
	for _, el := range n.els {
		if el.Completion != nil {
			out = append(out, int64(el.Completion.Offset))
		}
	}
	return out
}

// producer adds completions (and every fifth time an offset checkpoint)
// until stopped.
type producer struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

func produce(n *fakeNode, count *atomic.Int64) *producer {
	p := &producer{stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for i := 0; ; i++ {
			select {
			case <-p.stop:
				return
			case <-time.After(time.Millisecond):
			}
			if i%5 == 4 {
				n.add("", true)
			} else {
				n.add(fmt.Sprintf("c%d", count.Add(1)), i%7 != 0)
			}
		}
	}()
	return p
}

func (p *producer) halt() { close(p.stop); p.wg.Wait() }

// TestKilledFollowerResumesExactly kills a following tail with SIGKILL while
// completions keep arriving, starts it again on the same checkpoint file,
// and checks that together the two runs printed every completion exactly
// once, in order. The kill happens between two batches (the checkpoint has
// caught up with the output), as it does when a follower waits for the node.
func TestKilledFollowerResumesExactly(t *testing.T) {
	for _, transport := range []string{TransportList, TransportWebsocket} {
		t.Run(transport, func(t *testing.T) {
			n := newFakeNode(t, true)
			ckpt := filepath.Join(t.TempDir(), "ckpt")
			var count atomic.Int64
			p := produce(n, &count)

			var seen []int64
			f := startFollower(t, n.srv.URL, ckpt, transport)
			f.waitFor(t, &seen, "30 completions", func(s []int64) bool { return len(s) >= 30 })
			p.halt() // let the follower catch up, then kill it mid-stream
			all := n.completionOffsets()
			f.waitFor(t, &seen, "the rest", func(s []int64) bool { return len(s) == len(all) })
			waitCheckpoint(t, ckpt, int64(len(n.els)))
			f.kill(t, &seen)

			p = produce(n, &count) // more arrive while no follower runs
			time.Sleep(30 * time.Millisecond)
			f = startFollower(t, n.srv.URL, ckpt, transport)
			f.waitFor(t, &seen, "60 more", func(s []int64) bool { return len(s) >= len(all)+60 })
			p.halt()
			all = n.completionOffsets()
			f.waitFor(t, &seen, "everything", func(s []int64) bool { return len(s) >= len(all) })
			f.kill(t, &seen)

			if !equal(seen, all) {
				t.Fatalf("printed %d offsets, node has %d completions; first difference: %s", len(seen), len(all), firstDiff(seen, all))
			}
		})
	}
}

// TestKilledAnywhereMissesNothing kills the follower at arbitrary moments
// of a busy stream. Nothing may be missed, and what is printed twice must be
// exactly what was printed after the last checkpoint the killed process
// wrote: a restart resumes exactly at the checkpoint.
func TestKilledAnywhereMissesNothing(t *testing.T) {
	for _, transport := range []string{TransportList, TransportWebsocket} {
		t.Run(transport, func(t *testing.T) {
			n := newFakeNode(t, true)
			ckpt := filepath.Join(t.TempDir(), "ckpt")
			var count atomic.Int64
			p := produce(n, &count)
			var seen []int64
			for round := 0; round < 3; round++ {
				f := startFollower(t, n.srv.URL, ckpt, transport)
				before := len(seen)
				f.waitFor(t, &seen, "progress", func(s []int64) bool { return len(s) >= before+20 })
				var run []int64
				f.kill(t, &run)
				seen = append(seen, run...)
				ck, _, err := ReadCheckpoint(ckpt)
				if err != nil {
					t.Fatal(err)
				}
				// Everything this process printed beyond the checkpoint will be
				// printed again; record it to expect it twice.
				for _, off := range seen[before:] {
					if off > ck {
						t.Logf("round %d: offset %d printed after checkpoint %d: it repeats", round, off, ck)
					}
				}
				seen = dropAbove(seen, ck)
			}
			p.halt()
			all := n.completionOffsets()
			f := startFollower(t, n.srv.URL, ckpt, transport)
			f.waitFor(t, &seen, "everything", func(s []int64) bool { return len(s) >= len(all) })
			f.kill(t, &seen)
			if !equal(seen, all) {
				t.Fatalf("after dropping repeats: printed %d, node has %d; first difference: %s", len(seen), len(all), firstDiff(seen, all))
			}
		})
	}
}

// dropAbove removes the trailing offsets above ck (those a restart prints
// again).
func dropAbove(s []int64, ck int64) []int64 {
	for len(s) > 0 && s[len(s)-1] > ck {
		s = s[:len(s)-1]
	}
	return s
}

func waitCheckpoint(t *testing.T, path string, want int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		off, _, err := ReadCheckpoint(path)
		if err == nil && off == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("checkpoint stays at %d, want %d", off, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func firstDiff(a, b []int64) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("index %d: printed %d, expected %d", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

// TestKilledWithOutputFileExactlyOnce kills a follower that writes to an
// OutputFile at arbitrary moments of a busy stream, restarting it each time:
// the file must end up holding every completion exactly once, in order.
func TestKilledWithOutputFileExactlyOnce(t *testing.T) {
	for _, transport := range []string{TransportList, TransportWebsocket} {
		t.Run(transport, func(t *testing.T) {
			n := newFakeNode(t, true)
			dir := t.TempDir()
			ckpt, outFile := filepath.Join(dir, "ckpt"), filepath.Join(dir, "out.txt")
			var count atomic.Int64
			p := produce(n, &count)
			for round := 0; round < 5; round++ {
				f := startFollower(t, n.srv.URL, ckpt, transport, "LEDGER_TAIL_OUT="+outFile)
				var started []int64
				f.waitFor(t, &started, "start", func(s []int64) bool { return len(s) >= 1 })
				time.Sleep(time.Duration(5+round*7) * time.Millisecond) // kill somewhere mid-stream
				var rest []int64
				f.kill(t, &rest)
			}
			p.halt()
			all := n.completionOffsets()
			f := startFollower(t, n.srv.URL, ckpt, transport, "LEDGER_TAIL_OUT="+outFile)
			waitCheckpoint(t, ckpt, int64(len(n.els)))
			var rest []int64
			f.kill(t, &rest)

			data, err := os.ReadFile(outFile)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				off, err := strconv.ParseInt(strings.TrimPrefix(line, "C "), 10, 64)
				if err != nil {
					t.Fatalf("bad line %q", line)
				}
				got = append(got, off)
			}
			if !equal(got, all) {
				t.Fatalf("file holds %d offsets, node has %d completions; first difference: %s", len(got), len(all), firstDiff(got, all))
			}
		})
	}
}
