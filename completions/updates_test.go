package completions

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// fakeUpdates answers /v2/updates (list and websocket) and the ledger end
// like Canton: one transaction per offset 1, 2, 3, …, in the shape of the
// JSON API.
type fakeUpdates struct {
	mu      sync.Mutex
	changed chan struct{}
	n       int64
	srv     *httptest.Server
}

func newFakeUpdates(t *testing.T) *fakeUpdates {
	f := &fakeUpdates{changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v2/updates", f.list)
	mux.HandleFunc("GET /v2/updates", f.ws)
	mux.HandleFunc("GET /v2/state/ledger-end", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"offset":%d}`, f.end())
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeUpdates) end() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

func (f *fakeUpdates) add() {
	f.mu.Lock()
	f.n++
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

// element is the update at offset off as Canton's JSON API writes it.
func element(off int64) []byte {
	return []byte(fmt.Sprintf(`{"update":{"Transaction":{"value":{"updateId":"upd-%d","commandId":"","workflowId":"",`+
		`"effectiveAt":"2026-07-24T11:59:02Z","events":[{"ArchivedEvent":{"offset":%d,"nodeId":0,"contractId":"00ab",`+
		`"templateId":"p:M:T","witnessParties":["alice::1220"],"packageName":"p","implementedInterfaces":[]}}],"offset":%d,`+
		`"synchronizerId":"s::1220","traceContext":null,"recordTime":"2026-07-24T11:59:02Z","externalTransactionHash":null,"paidTrafficCost":0}}}}`,
		off, off, off))
}

func (f *fakeUpdates) list(w http.ResponseWriter, r *http.Request) {
	var req ledgerapi.GetUpdatesRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	end := f.end()
	if req.EndInclusive != nil && int64(*req.EndInclusive) < end {
		end = int64(*req.EndInclusive)
	}
	var els [][]byte
	for off := int64(req.BeginExclusive) + 1; off <= end && (limit == 0 || len(els) < limit); off++ {
		els = append(els, element(off))
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, "[%s]", strings.Join(func() []string {
		out := make([]string, len(els))
		for i, e := range els {
			out[i] = string(e)
		}
		return out
	}(), ","))
}

func (f *fakeUpdates) ws(w http.ResponseWriter, r *http.Request) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"daml.ws.auth"}})
	if err != nil {
		return
	}
	defer conn.CloseNow()
	_, frame, err := conn.Read(r.Context())
	if err != nil {
		return
	}
	var req ledgerapi.GetUpdatesRequest
	if json.Unmarshal(frame, &req) != nil {
		return
	}
	next := int64(req.BeginExclusive) + 1
	for {
		f.mu.Lock()
		end, changed := f.n, f.changed
		f.mu.Unlock()
		for ; next <= end; next++ {
			if conn.Write(r.Context(), websocket.MessageText, element(next)) != nil {
				return
			}
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// TestHelperUpdateFollower is the process TestKilledUpdateTailWritesExactlyOnce
// kills: it follows the updates into an output file with a checkpoint.
func TestHelperUpdateFollower(t *testing.T) {
	if os.Getenv("LEDGER_UPDATES_HELPER") != "1" {
		t.Skip("helper process of the update restart test")
	}
	c, err := newClientErr(os.Getenv("LEDGER_TAIL_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	o := UpdateOptions{Parties: []string{"alice::1220"}, Follow: true, Checkpoint: os.Getenv("LEDGER_TAIL_CKPT"),
		Transport: os.Getenv("LEDGER_TAIL_TRANSPORT"), Limit: 7}
	out, err := OpenOutputFile(os.Getenv("LEDGER_TAIL_OUT"), o.Checkpoint)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	o.Sync = out.Sync
	fmt.Println("running")
	_, err = TailUpdates(context.Background(), c, o, func(u *ledgerapi.JsUpdate) error {
		_, err := fmt.Fprintf(out, "U %d\n", u.Offset())
		return err
	})
	fmt.Fprintln(os.Stderr, "tail ended:", err)
	os.Exit(1)
}

// TestKilledUpdateTailWritesExactlyOnce kills a following update tail with
// SIGKILL at arbitrary moments while updates arrive, restarts it on the
// same checkpoint and output file, and checks that the file holds every
// update exactly once, in order.
func TestKilledUpdateTailWritesExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills processes")
	}
	for _, transport := range []string{TransportList, TransportWebsocket} {
		t.Run(transport, func(t *testing.T) {
			f := newFakeUpdates(t)
			dir := t.TempDir()
			ckpt, outPath := filepath.Join(dir, "ckpt"), filepath.Join(dir, "out")
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					case <-time.After(300 * time.Microsecond):
						f.add()
					}
				}
			}()
			for round := 0; round < 5; round++ {
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUpdateFollower$")
				cmd.Env = append(os.Environ(), "LEDGER_UPDATES_HELPER=1", "LEDGER_TAIL_URL="+f.srv.URL, "LEDGER_TAIL_CKPT="+ckpt,
					"LEDGER_TAIL_OUT="+outPath, "LEDGER_TAIL_TRANSPORT="+transport)
				stdout, _ := cmd.StdoutPipe()
				cmd.Stderr = os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				bufio.NewReader(stdout).ReadString('\n') // "running"
				time.Sleep(time.Duration(20+round*17) * time.Millisecond)
				cmd.Process.Kill()
				cmd.Wait()
			}
			close(stop)
			wg.Wait()
			// A last run catches up without following.
			c, err := newClientErr(f.srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			out, err := OpenOutputFile(outPath, ckpt)
			if err != nil {
				t.Fatal(err)
			}
			_, err = TailUpdates(context.Background(), c, UpdateOptions{Parties: []string{"alice::1220"}, Checkpoint: ckpt, Sync: out.Sync},
				func(u *ledgerapi.JsUpdate) error { _, err := fmt.Fprintf(out, "U %d\n", u.Offset()); return err })
			if err != nil {
				t.Fatal(err)
			}
			out.Close()
			b, _ := os.ReadFile(outPath)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if int64(len(lines)) != f.end() {
				t.Fatalf("the output holds %d lines, the node has %d updates", len(lines), f.end())
			}
			for i, l := range lines {
				if l != fmt.Sprintf("U %d", i+1) {
					t.Fatalf("line %d is %q, want U %d", i+1, l, i+1)
				}
			}
		})
	}
}
