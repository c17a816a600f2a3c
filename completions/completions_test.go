package completions

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
)

func newClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{URL: url, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// collect is an Output gathering command ids with their offsets.
type collect struct{ offsets []int64 }

func (c *collect) out(comp *ledgerapi.Completion) error {
	c.offsets = append(c.offsets, int64(comp.Offset))
	return nil
}

func TestOnceReadsToLedgerEndInPagesAndShrinksOn413(t *testing.T) {
	n := newFakeNode(t, true)
	n.maxList = 3
	for i := 0; i < 10; i++ {
		if i == 4 {
			n.add("", true) // an offset checkpoint at 5
			continue
		}
		n.add("cmd", true)
	}
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	var got collect
	res, err := Tail(context.Background(), newClient(t, n.srv.URL), Options{Parties: []string{"alice::1220"}, Limit: 50, Checkpoint: ckpt, IdleTimeout: 20 * time.Millisecond}, got.out)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{1, 2, 3, 4, 6, 7, 8, 9, 10}
	if !equal(got.offsets, want) || res.Last != 10 || res.Transport != TransportList {
		t.Fatalf("offsets %v, last %d via %s; want %v", got.offsets, res.Last, res.Transport, want)
	}
	if off, ok, _ := ReadCheckpoint(ckpt); !ok || off != 10 {
		t.Errorf("checkpoint %d, %v", off, ok)
	}
	if n.wsCalls != 0 {
		t.Error("reading once used the websocket, which never ends")
	}
	// A second run resumes from the checkpoint: nothing new, nothing output.
	got = collect{}
	n.add("later", true)
	if _, err := Tail(context.Background(), newClient(t, n.srv.URL), Options{Parties: []string{"alice::1220"}, Checkpoint: ckpt, IdleTimeout: 20 * time.Millisecond}, got.out); err != nil {
		t.Fatal(err)
	}
	if !equal(got.offsets, []int64{11}) {
		t.Errorf("resumed run output %v, want [11]", got.offsets)
	}
}

func TestFiltersAndUntil(t *testing.T) {
	n := newFakeNode(t, false)
	n.add("a", true)
	n.add("b", false)
	n.add("a", true)
	var got collect
	_, err := Tail(context.Background(), newClient(t, n.srv.URL), Options{Parties: []string{"alice::1220"}, CommandID: "a", IdleTimeout: 10 * time.Millisecond}, got.out)
	if err != nil || !equal(got.offsets, []int64{1, 3}) {
		t.Fatalf("--command-id a: %v, %v", got.offsets, err)
	}
	got = collect{}
	_, err = Tail(context.Background(), newClient(t, n.srv.URL), Options{Parties: []string{"alice::1220"}, SubmissionID: "sub-b", IdleTimeout: 10 * time.Millisecond}, got.out)
	if err != nil || !equal(got.offsets, []int64{2}) {
		t.Fatalf("--submission-id: %v, %v", got.offsets, err)
	}

	// Until waits for a command that completes later, over the list endpoint
	// (no websocket offered), and reports its rejection.
	got = collect{}
	go func() {
		time.Sleep(50 * time.Millisecond)
		n.add("other", true)
		n.add("late", false)
		n.add("after", true)
	}()
	ckpt := filepath.Join(t.TempDir(), "ckpt")
	res, err := Tail(context.Background(), newClient(t, n.srv.URL), Options{Parties: []string{"alice::1220"}, UntilCommandID: "late", Checkpoint: ckpt, IdleTimeout: 10 * time.Millisecond}, got.out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Until == nil || res.Until.Succeeded() || !equal(got.offsets, []int64{5}) || res.Transport != TransportList {
		t.Fatalf("until: %+v, output %v", res, got.offsets)
	}
	if off, _, _ := ReadCheckpoint(ckpt); off != 5 {
		t.Errorf("checkpoint %d after the until-command at 5: a restart must see offset 6", off)
	}
}

func TestFollowOverWebsocket(t *testing.T) {
	n := newFakeNode(t, true)
	n.add("x", true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got collect
	done := make(chan error, 1)
	var res *Result
	go func() {
		var err error
		res, err = Tail(ctx, newClient(t, n.srv.URL), Options{Parties: []string{"alice::1220"}, UntilCommandID: "stop", CommandID: "", Follow: true}, func(c *ledgerapi.Completion) error {
			return got.out(c)
		})
		done <- err
	}()
	time.Sleep(30 * time.Millisecond)
	n.add("y", true)
	n.add("stop", true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if res.Transport != TransportWebsocket || res.Until == nil || !res.Until.Succeeded() || n.listCalls != 0 {
		t.Fatalf("result %+v, list calls %d", res, n.listCalls)
	}
}

func TestCheckpointFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c")
	if _, ok, err := ReadCheckpoint(p); ok || err != nil {
		t.Fatal("missing file")
	}
	if err := WriteCheckpoint(p, 42); err != nil {
		t.Fatal(err)
	}
	if off, ok, err := ReadCheckpoint(p); !ok || err != nil || off != 42 {
		t.Fatalf("%d %v %v", off, ok, err)
	}
	os.WriteFile(p, []byte("forty"), 0o600)
	if _, _, err := ReadCheckpoint(p); err == nil {
		t.Error("garbage accepted")
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func newClientErr(url string) (*client.Client, error) {
	return client.New(client.Config{URL: url, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})
}
