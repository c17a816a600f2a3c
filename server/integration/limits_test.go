package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/engine"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// Each limit test checks two things: the limit answers with a clear error,
// and while it is being hit the node keeps answering other clients.

// startLimitNode starts a node without authentication with sc's limits.
func startLimitNode(t *testing.T, sc server.Config) *testNode {
	t.Helper()
	return start(t, auth.ModeNone, node.Config{}, sc)
}

// serveOthers checks that the node answers ordinary requests: the ledger end,
// a party allocation and a submission.
func serveOthers(n *testNode, alice string, tag string) {
	n.t.Helper()
	n.ok("GET", "/v2/state/ledger-end", "", nil, nil)
	n.ok("POST", "/v2/parties", "", map[string]any{"partyIdHint": "other-" + tag}, nil)
	n.ok("POST", "/v2/commands/submit-and-wait", "", commands("other-"+tag, []string{alice},
		[]map[string]any{create(alice, "1")}, map[string]any{"userId": "u"}), nil)
}

// whileHammered runs attack from 4 goroutines in a loop until the ordinary
// requests of serveOthers have been answered 20 times.
func whileHammered(t *testing.T, n *testNode, alice string, attack func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := attack(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		serveOthers(n, alice, fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), i))
	}
	cancel()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// expectError sends body and requires status and error code; it returns the
// cause.
func expectError(n *testNode, method, path string, body any, status int, code string) error {
	r := rawCall(n.url, method, path, body)
	if r.err != nil {
		return r.err
	}
	if r.status != status {
		return fmt.Errorf("%s %s: status %d, want %d: %.300s", method, path, r.status, status, r.body)
	}
	e, err := ledgerapi.DecodeError(r.body)
	if err != nil || e.Code != code {
		return fmt.Errorf("%s %s: want code %s: %.300s", method, path, code, r.body)
	}
	return nil
}

type rawResponse struct {
	status int
	body   []byte
	err    error
}

// rawCall is node.call for goroutines other than the test's.
func rawCall(base, method, path string, body any) rawResponse {
	req, err := newRequest(base, method, path, "", body)
	if err != nil {
		return rawResponse{err: err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return rawResponse{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rawResponse{resp.StatusCode, b, err}
}

func submitBody(id, party string, args map[string]any) map[string]any {
	return commands(id, []string{party}, []map[string]any{{"CreateCommand": map[string]any{
		"templateId": iouTemplate, "createArguments": args}}}, map[string]any{"userId": "u"})
}

// TestLimitRequestBody: a body over the limit is 413 with Canton's error
// body naming the limit; while a client is slowly sending one, others are
// answered.
func TestLimitRequestBody(t *testing.T) {
	n := startLimitNode(t, server.Config{MaxRequestBytes: 64 << 10})
	alice := n.allocate("Alice").Party

	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", n.url+"/v2/parties", pr)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan rawResponse, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- rawResponse{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- rawResponse{resp.StatusCode, b, err}
	}()
	chunk := []byte(`{"partyIdHint":"x","localMetadata":{"annotations":{"k":"` + strings.Repeat("a", 16<<10))
	if _, err := pw.Write(chunk); err != nil { // under the limit: the node waits for more
		t.Fatal(err)
	}
	serveOthers(n, alice, "during-upload") // meanwhile
	go func() {
		for i := 0; i < 8; i++ {
			if _, err := pw.Write([]byte(strings.Repeat("a", 16<<10))); err != nil {
				return // the node has answered and stopped reading
			}
		}
		_ = pw.Close()
	}()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	e, err := ledgerapi.DecodeError(r.body)
	if r.status != 413 || err != nil || !strings.Contains(e.Cause, "65536 bytes") {
		t.Fatalf("oversized body: %d %s", r.status, r.body)
	}
	whileHammered(t, n, alice, func() error {
		return expectError(n, "POST", "/v2/parties", map[string]any{"partyIdHint": strings.Repeat("b", 70<<10)}, 413, "INVALID_ARGUMENT")
	})
}

// nested is a JSON value of depth lists inside each other.
func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// TestLimitValueNesting: Daml's limit of 100 nested values holds in create
// arguments (the record itself is level 0); one more is
// COMMAND_PREPROCESSING_FAILED saying so.
func TestLimitValueNesting(t *testing.T) {
	n := startLimitNode(t, server.Config{})
	alice := n.allocate("Alice").Party
	arg := func(depth int) map[string]any {
		return map[string]any{"owner": alice, "deep": json.RawMessage(nested(depth))}
	}
	n.ok("POST", "/v2/commands/submit-and-wait", "", submitBody("deep-100", alice, arg(engine.MaxValueNesting)), nil)
	e := n.fail("POST", "/v2/commands/submit-and-wait", "", submitBody("deep-101", alice, arg(engine.MaxValueNesting+1)), 400, "COMMAND_PREPROCESSING_FAILED")
	if !strings.Contains(e.Cause, "nested deeper than Daml's limit of 100") {
		t.Errorf("cause %q", e.Cause)
	}
	// far deeper (encoding/json's own limit is 10000): the same answer
	whileHammered(t, n, alice, func() error {
		return expectError(n, "POST", "/v2/commands/submit-and-wait", submitBody("deep", alice, arg(5_000)), 400, "COMMAND_PREPROCESSING_FAILED")
	})
}

// TestLimitValueElements: the values of one request may hold
// engine.DefaultMaxValueNodes values in all; a longer list is refused before
// it costs the node memory, with an error saying what to do.
func TestLimitValueElements(t *testing.T) {
	n := startLimitNode(t, server.Config{})
	alice := n.allocate("Alice").Party
	list := func(k int) json.RawMessage {
		return json.RawMessage("[" + strings.Repeat("0,", k-1) + "0]")
	}
	// record + owner + list = 3 values besides the elements
	n.ok("POST", "/v2/commands/submit-and-wait", "", submitBody("long-ok", alice,
		map[string]any{"owner": alice, "l": list(engine.DefaultMaxValueNodes - 3)}), nil)
	e := n.fail("POST", "/v2/commands/submit-and-wait", "", submitBody("long", alice,
		map[string]any{"owner": alice, "l": list(engine.DefaultMaxValueNodes - 2)}), 400, "COMMAND_PREPROCESSING_FAILED")
	if !strings.Contains(e.Cause, "more elements than this node accepts in one request") {
		t.Errorf("cause %q", e.Cause)
	}
	// the budget is per request, not per command
	half := map[string]any{"CreateCommand": map[string]any{"templateId": iouTemplate,
		"createArguments": map[string]any{"owner": alice, "l": list(engine.DefaultMaxValueNodes / 2)}}}
	n.fail("POST", "/v2/commands/submit-and-wait", "", commands("two-halves", []string{alice},
		[]map[string]any{half, half}, map[string]any{"userId": "u"}), 400, "COMMAND_PREPROCESSING_FAILED")
	big := submitBody("huge", alice, map[string]any{"owner": alice, "l": list(300_000)})
	whileHammered(t, n, alice, func() error {
		return expectError(n, "POST", "/v2/commands/submit-and-wait", big, 400, "COMMAND_PREPROCESSING_FAILED")
	})
}

// TestLimitPartiesPerRequest: actAs, readAs, completion parties, transaction
// filters and party lookups take at most node.MaxPartiesPerRequest parties.
func TestLimitPartiesPerRequest(t *testing.T) {
	n := startLimitNode(t, server.Config{})
	alice := n.allocate("Alice").Party
	many := make([]string, node.MaxPartiesPerRequest+1)
	filters := map[string]any{}
	for i := range many {
		many[i] = fmt.Sprintf("p%d::%s", i, n.partyNS)
		filters[many[i]] = map[string]any{}
	}
	cases := []struct {
		path string
		body any
	}{
		{"/v2/commands/submit-and-wait", commands("many-act", many, []map[string]any{create(alice, "1")}, map[string]any{"userId": "u"})},
		{"/v2/commands/submit-and-wait", commands("many-read", []string{alice}, []map[string]any{create(alice, "1")}, map[string]any{"userId": "u", "readAs": many})},
		{"/v2/interactive-submission/prepare", map[string]any{"commandId": "p", "userId": "u", "actAs": many,
			"commands": []any{create(alice, "1")}, "synchronizerId": "", "packageIdSelectionPreference": []string{}}},
		{"/v2/commands/completions?stream_idle_timeout_ms=10", map[string]any{"userId": "u", "parties": many}},
		{"/v2/commands/submit-and-wait-for-transaction", map[string]any{
			"commands": commands("many-filter", []string{alice}, []map[string]any{create(alice, "1")}, map[string]any{"userId": "u"}),
			"transactionFormat": map[string]any{"transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
				"eventFormat": map[string]any{"filtersByParty": filters, "verbose": false}}}},
	}
	for _, c := range cases {
		e := n.fail("POST", c.path, "", c.body, 400, "INVALID_ARGUMENT")
		if !strings.Contains(e.Cause, fmt.Sprintf("lists %d parties; this node accepts at most %d", len(many), node.MaxPartiesPerRequest)) {
			t.Errorf("%s: cause %q", c.path, e.Cause)
		}
	}
	q := strings.Repeat("&parties="+urlPathEscape(alice), node.MaxPartiesPerRequest)
	n.fail("GET", partyPath(alice)+"?"+q[1:], "", nil, 400, "INVALID_ARGUMENT")
	n.ok("GET", partyPath(alice)+"?"+strings.Repeat("&parties="+urlPathEscape(alice), 100)[1:], "", nil, nil)
	whileHammered(t, n, alice, func() error {
		return expectError(n, "POST", cases[0].path, cases[0].body, 400, "INVALID_ARGUMENT")
	})
}

// slowWriter sends s to addr one byte every interval until the node closes
// the connection; it returns how many bytes it got to send and what the node
// answered (if anything) when it cut the client off.
func slowWriter(addr, s string, interval time.Duration) (sent int, answer string) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, "dial: " + err.Error()
	}
	defer conn.Close()
	closed := make(chan string, 1)
	go func() {
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		b, _ := io.ReadAll(conn)
		closed <- string(b)
	}()
	for sent = 0; sent < len(s); sent++ {
		select {
		case answer = <-closed:
			return sent, answer
		case <-time.After(interval):
		}
		if _, err := conn.Write([]byte{s[sent]}); err != nil {
			return sent, <-closed
		}
	}
	return sent, <-closed
}

// TestLimitSlowHeaders: a client trickling its request headers (slowloris)
// is cut off after the header timeout, while other clients are answered.
func TestLimitSlowHeaders(t *testing.T) {
	n := startLimitNode(t, server.Config{ReadHeaderTimeout: 500 * time.Millisecond})
	alice := n.allocate("Alice").Party
	addr := strings.TrimPrefix(n.url, "http://")
	head := "GET /v2/state/ledger-end HTTP/1.1\r\nHost: localhost\r\nX-Padding: " + strings.Repeat("p", 40) + "\r\n\r\n"
	type result struct {
		sent   int
		answer string
	}
	results := make(chan result, 8)
	for i := 0; i < 8; i++ {
		go func() {
			sent, answer := slowWriter(addr, head, 200*time.Millisecond)
			results <- result{sent, answer}
		}()
	}
	for i := 0; i < 5; i++ {
		serveOthers(n, alice, fmt.Sprint("slow-headers-", i))
	}
	for i := 0; i < 8; i++ {
		r := <-results
		if r.sent >= len(head) || strings.Contains(r.answer, "200 OK") {
			t.Errorf("a slow client sent %d of %d header bytes and got %q: it was not cut off", r.sent, len(head), r.answer)
		}
	}
}

// TestLimitSlowBody: a client that sends its headers and then trickles the
// body is answered 400 text/plain saying the body did not arrive in time,
// while other clients are answered.
func TestLimitSlowBody(t *testing.T) {
	n := startLimitNode(t, server.Config{BodyReadTimeout: 500 * time.Millisecond})
	alice := n.allocate("Alice").Party
	addr := strings.TrimPrefix(n.url, "http://")
	body := `{"partyIdHint":"slow` + strings.Repeat("x", 40) + `"}`
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v2/parties HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	answered := make(chan *http.Response, 1)
	go func() {
		_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Errorf("no answer to the slow body: %v", err)
			answered <- nil
			return
		}
		answered <- resp
	}()
	sent := 0
	var resp *http.Response
trickle:
	for ; sent < len(body); sent++ {
		select {
		case resp = <-answered:
			break trickle
		case <-time.After(200 * time.Millisecond):
		}
		if sent == 1 {
			serveOthers(n, alice, "slow-body") // meanwhile
		}
		if _, err := conn.Write([]byte{body[sent]}); err != nil {
			resp = <-answered
			break
		}
	}
	if resp == nil {
		resp = <-answered
	}
	if resp == nil {
		return
	}
	b, _ := io.ReadAll(resp.Body)
	if sent >= len(body) || resp.StatusCode != 400 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(string(b), "did not arrive within the node's body read timeout") {
		t.Errorf("slow body (%d of %d bytes sent): %d %q", sent, len(body), resp.StatusCode, b)
	}
	// the slow party was not allocated
	var list ledgerapi.ListPartiesResponse
	n.ok("GET", "/v2/parties", "", nil, &list)
	for _, p := range list.PartyDetails {
		if strings.HasPrefix(p.Party, "slow") {
			t.Errorf("party %s allocated from a body that never arrived", p.Party)
		}
	}
}

// TestLimitBodyTimeoutLongList: the body read timeout ends once the body has
// arrived; a completions list that waits longer than it is answered.
func TestLimitBodyTimeoutLongList(t *testing.T) {
	n := startLimitNode(t, server.Config{BodyReadTimeout: 200 * time.Millisecond})
	alice := n.allocate("Alice").Party
	var els []ledgerapi.CompletionStreamResponse
	n.ok("POST", "/v2/commands/completions?stream_idle_timeout_ms=1000", "", map[string]any{"userId": "u", "parties": []string{alice}}, &els)
	if len(els) != 0 {
		t.Errorf("completions %+v", els)
	}
}

// TestLimitIdleTimeout: a keep-alive connection left idle is closed by the
// node after the idle timeout.
func TestLimitIdleTimeout(t *testing.T) {
	n := startLimitNode(t, server.Config{IdleTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(n.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /v2/version HTTP/1.1\r\nHost: localhost\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first request: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	// Idle now; the node closes the connection (the deadline only bounds a
	// test that would otherwise hang).
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = br.ReadByte()
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("idle connection not closed by the node: %v", err)
	}
}

// TestLimitStreamsServeOthers: with the stream cap reached, another stream
// is MAXIMUM_NUMBER_OF_STREAMS while submissions and reads are answered.
func TestLimitStreamsServeOthers(t *testing.T) {
	n := start(t, auth.ModeNone, node.Config{MaxStreams: 2}, server.Config{})
	alice := n.allocate("Alice").Party
	for i := 0; i < 2; i++ {
		conn, _, err := dialCompletions(t, n, "", map[string]any{"userId": "u", "parties": []string{alice}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
	}
	// The node counts a websocket from its upgrade on; a list request that
	// finds both slots taken is refused.
	whileHammered(t, n, alice, func() error {
		return expectError(n, "POST", "/v2/commands/completions?stream_idle_timeout_ms=10",
			map[string]any{"userId": "u", "parties": []string{alice}}, 409, "MAXIMUM_NUMBER_OF_STREAMS")
	})
}

// TestLimitManyConnections: 1000 connections held open without a request
// do not keep the node from answering 100 concurrent clients.
func TestLimitManyConnections(t *testing.T) {
	n := startLimitNode(t, server.Config{})
	alice := n.allocate("Alice").Party
	addr := strings.TrimPrefix(n.url, "http://")
	var idle []net.Conn
	for i := 0; i < 1000; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		idle = append(idle, c)
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := 0; g < 100; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rawCall(n.url, "POST", "/v2/commands/submit-and-wait",
				commands(fmt.Sprint("conc-", g), []string{alice}, []map[string]any{create(alice, "1")}, map[string]any{"userId": "u"}))
			if r.err != nil || r.status != 200 {
				errs <- fmt.Errorf("client %d: %d %s %v", g, r.status, r.body, r.err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
