package completions

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// fakeNode answers the completion endpoints like Canton: the list with
// limit, idle timeout and a maximum (413 above it), and optionally the
// websocket. Its ledger is a list of completions with offsets 1, 2, 3, …
type fakeNode struct {
	mu        sync.Mutex
	changed   chan struct{}
	els       []ledgerapi.CompletionStreamResponse
	maxList   int
	websocket bool
	listCalls int
	wsCalls   int
	srv       *httptest.Server
}

func newFakeNode(t *testing.T, websocketOffered bool) *fakeNode {
	n := &fakeNode{changed: make(chan struct{}), maxList: 200, websocket: websocketOffered}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v2/commands/completions", n.list)
	mux.HandleFunc("GET /v2/commands/completions", n.ws)
	mux.HandleFunc("GET /v2/state/ledger-end", func(w http.ResponseWriter, r *http.Request) {
		n.mu.Lock()
		end := len(n.els)
		n.mu.Unlock()
		fmt.Fprintf(w, `{"offset":%d}`, end)
	})
	n.srv = httptest.NewServer(mux)
	t.Cleanup(n.srv.Close)
	return n
}

// add appends a completion for command id cmd (rejected when ok is false)
// or, with cmd "", an offset checkpoint.
func (n *fakeNode) add(cmd string, ok bool) int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	off := int64(len(n.els) + 1)
	var el ledgerapi.CompletionStreamResponse
	if cmd == "" {
		el.OffsetCheckpoint = &ledgerapi.OffsetCheckpoint{Offset: ledgerapi.Int64(off)}
	} else {
		st := ledgerapi.StatusOK()
		upd := "upd-" + strconv.FormatInt(off, 10)
		if !ok {
			st = ledgerapi.NewError(ledgerapi.CodeLocalVerdictMaxRecordTimeExceeded, "too late", nil).Status()
			upd = ""
		}
		el.Completion = &ledgerapi.Completion{
			CommandID: cmd, Status: st, UpdateID: upd, UserID: "alice", ActAs: []string{"alice::1220"},
			SubmissionID: "sub-" + cmd, Offset: ledgerapi.Int64(off),
			SynchronizerTime: ledgerapi.SynchronizerTime{SynchronizerID: "s::1", RecordTime: ledgerapi.NewTimestamp(time.Unix(1_780_000_000+off, 0))},
			PaidTrafficCost:  ledgerapi.Int64(100 * off),
		}
	}
	n.els = append(n.els, el)
	close(n.changed)
	n.changed = make(chan struct{})
	return off
}

// after returns the elements after begin and a channel closed on change.
func (n *fakeNode) after(begin int64) ([]ledgerapi.CompletionStreamResponse, <-chan struct{}) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []ledgerapi.CompletionStreamResponse
	if begin < int64(len(n.els)) {
		out = append(out, n.els[begin:]...)
	}
	return out, n.changed
}

func (n *fakeNode) list(w http.ResponseWriter, r *http.Request) {
	n.mu.Lock()
	n.listCalls++
	max := n.maxList
	n.mu.Unlock()
	var req ledgerapi.CompletionStreamRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(400)
		fmt.Fprintf(w, "Invalid value for: body (%v)", err)
		return
	}
	take := max + 1
	if l, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && l > 0 && l < take {
		take = l
	}
	idle := 100 * time.Millisecond
	if ms, err := strconv.Atoi(r.URL.Query().Get("stream_idle_timeout_ms")); err == nil {
		idle = time.Duration(ms) * time.Millisecond
	}
	els, changed := n.after(int64(req.BeginExclusive))
	if len(els) == 0 {
		select {
		case <-changed:
			els, _ = n.after(int64(req.BeginExclusive))
		case <-time.After(idle):
		case <-r.Context().Done():
			return
		}
	}
	if len(els) > take {
		els = els[:take]
	}
	if len(els) > max {
		e := ledgerapi.NewError(ledgerapi.CodeJSONAPIMaximumListElementsReached, "more than the maximum", nil)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.HTTPStatus())
		json.NewEncoder(w).Encode(e)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ledgerapi.List[ledgerapi.CompletionStreamResponse](els))
}

func (n *fakeNode) ws(w http.ResponseWriter, r *http.Request) {
	if !n.websocket {
		http.NotFound(w, r)
		return
	}
	n.mu.Lock()
	n.wsCalls++
	n.mu.Unlock()
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"daml.ws.auth"}})
	if err != nil {
		return
	}
	defer conn.CloseNow()
	ctx := r.Context()
	_, frame, err := conn.Read(ctx)
	if err != nil {
		return
	}
	var req ledgerapi.CompletionStreamRequest
	if err := json.Unmarshal(frame, &req); err != nil {
		return
	}
	next := int64(req.BeginExclusive)
	ctx = conn.CloseRead(ctx)
	for {
		els, changed := n.after(next)
		for _, el := range els {
			b, _ := json.Marshal(el)
			if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
				return
			}
			next = el.Offset()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}
