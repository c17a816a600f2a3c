package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// submitN submits n creates as user for actAs and returns nothing; each gets
// its own command id prefix-i.
func (n *testNode) submitN(token, prefix string, count int, actAs ...string) {
	n.t.Helper()
	for i := 0; i < count; i++ {
		n.ok("POST", "/v2/commands/submit-and-wait", token,
			commands(fmt.Sprintf("%s-%d", prefix, i), actAs, []map[string]any{create(actAs[0], "1")}, nil), nil)
	}
}

// listRaw calls the completions list and returns the elements.
func (n *testNode) listRaw(token, query string, body any) []ledgerapi.CompletionStreamResponse {
	n.t.Helper()
	var els []ledgerapi.CompletionStreamResponse
	n.ok("POST", "/v2/commands/completions"+query, token, body, &els)
	return els
}

// TestCompletionsList: limit, the 413 above --completions-max, the idle
// timeout, waiting at the ledger end, the user and party filters, offset
// validation.
func TestCompletionsList(t *testing.T) {
	n := start(t, auth.ModeHS256, node.Config{}, server.Config{CompletionsMax: 5})
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party
	n.createUser("u1", ledgerapi.CanActAs(alice), ledgerapi.CanActAs(bob))
	n.createUser("u2", ledgerapi.CanActAs(bob))
	u1, u2 := n.token("u1"), n.token("u2")
	n.submitN(u1, "a", 4, alice)
	n.submitN(u1, "ab", 2, alice, bob)
	n.submitN(u2, "b", 3, bob)
	quick := "stream_idle_timeout_ms=30"

	// u1 as Alice: six completions, more than the maximum of five
	e := n.fail("POST", "/v2/commands/completions?"+quick, u1, map[string]any{"parties": []string{alice}}, 413, "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED")
	if e.ErrorCategory != 2 {
		t.Errorf("413 category %d", e.ErrorCategory)
	}
	n.fail("POST", "/v2/commands/completions?limit=50&"+quick, u1, map[string]any{"parties": []string{alice}}, 413, "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED")
	if els := n.listRaw(u1, "?limit=5&"+quick, map[string]any{"parties": []string{alice}}); len(els) != 5 {
		t.Errorf("limit 5: %d elements", len(els))
	}
	page := n.listRaw(u1, "?limit=2&"+quick, map[string]any{"parties": []string{alice}})
	if len(page) != 2 || page[0].Completion.CommandID != "a-0" || page[1].Completion.CommandID != "a-1" {
		t.Fatalf("first page %+v", page)
	}
	rest := n.listRaw(u1, "?limit=5&"+quick, map[string]any{"parties": []string{alice}, "beginExclusive": page[1].Offset()})
	if len(rest) != 4 || rest[0].Completion.CommandID != "a-2" || rest[3].Completion.CommandID != "ab-1" {
		t.Errorf("second page %+v", rest)
	}
	if els := n.listRaw(u1, "?limit=0&"+quick, map[string]any{"parties": []string{alice}}); len(els) != 0 {
		t.Errorf("limit 0: %d elements", len(els))
	}
	// u1 as Bob: the two joint commands, actAs cut to the requested parties
	cs := n.completions(u1, "", []string{bob}, 0, "")
	if len(cs) != 2 || cs[0].CommandID != "ab-0" || len(cs[0].ActAs) != 1 || cs[0].ActAs[0] != bob {
		t.Errorf("u1 as Bob %+v", cs)
	}
	if cs := n.completions(u1, "u1", []string{alice, bob}, 4, ""); len(cs) != 2 || len(cs[0].ActAs) != 2 {
		t.Errorf("u1 as Alice and Bob after 4: %+v", cs)
	}
	// u2 sees its own three only, and may not read u1's
	if cs := n.completions(u2, "", []string{bob}, 0, ""); len(cs) != 3 || cs[0].UserID != "u2" {
		t.Errorf("u2 as Bob %+v", cs)
	}
	n.fail("POST", "/v2/commands/completions?"+quick, u2, map[string]any{"userId": "u1", "parties": []string{bob}}, 403, ledgerapi.RedactedCode)

	// validation
	end := n.ledgerEnd()
	n.fail("POST", "/v2/commands/completions", u1, map[string]any{"parties": []string{alice}, "beginExclusive": -1}, 400, "NEGATIVE_OFFSET")
	n.fail("POST", "/v2/commands/completions", u1, map[string]any{"parties": []string{alice}, "beginExclusive": end + 1}, 400, "OFFSET_AFTER_LEDGER_END")
	n.fail("POST", "/v2/commands/completions", u1, map[string]any{"parties": []string{}}, 400, "MISSING_FIELD")
	// a malformed party is one u1 may not read: authorization comes first, as in Canton
	n.fail("POST", "/v2/commands/completions", u1, map[string]any{"parties": []string{"bad*party"}}, 403, ledgerapi.RedactedCode)
	for _, q := range []string{"?limit=abc", "?stream_idle_timeout_ms=x", "?stream_idle_timeout_ms=-1"} {
		r := n.call("POST", "/v2/commands/completions"+q, u1, map[string]any{"parties": []string{alice}})
		if r.status != 400 || !strings.HasPrefix(string(r.body), "Invalid value for: query parameter") {
			t.Errorf("%s: %d %s", q, r.status, r.body)
		}
	}

	// at the ledger end with nothing new: the idle timeout ends the list empty
	if els := n.listRaw(u1, "?"+quick, map[string]any{"parties": []string{alice}, "beginExclusive": end}); len(els) != 0 {
		t.Errorf("idle list %+v", els)
	}
	// at the ledger end, a list waits for the next completion
	got := make(chan []ledgerapi.CompletionStreamResponse, 1)
	go func() {
		status, body := post(http.DefaultClient, "POST", n.url+"/v2/commands/completions?limit=1&stream_idle_timeout_ms=60000", u1,
			map[string]any{"parties": []string{alice}, "beginExclusive": end})
		var els []ledgerapi.CompletionStreamResponse
		if status != 200 || json.Unmarshal(body, &els) != nil {
			t.Errorf("waiting list: %d %s", status, body)
		}
		got <- els
	}()
	n.submitN(u1, "late", 1, alice)
	if els := <-got; len(els) != 1 || els[0].Completion.CommandID != "late-0" || int64(els[0].Completion.Offset) != end+1 {
		t.Errorf("waiting list got %+v", els)
	}
	// other users' commits do not count as elements: the idle timer still ends it
	other := make(chan int, 1)
	go func() {
		status, _ := post(http.DefaultClient, "POST", n.url+"/v2/commands/submit-and-wait", u2,
			commands("other-0", []string{bob}, []map[string]any{create(bob, "1")}, nil))
		other <- status
	}()
	if els := n.listRaw(u1, "?stream_idle_timeout_ms=200", map[string]any{"parties": []string{alice}, "beginExclusive": end + 1}); len(els) != 0 {
		t.Errorf("list of u1 saw %+v", els)
	}
	if status := <-other; status != 200 {
		t.Errorf("u2's submission: %d", status)
	}
}

// wsURL is the websocket address of the completion stream.
func wsURL(n *testNode) string {
	return "ws" + strings.TrimPrefix(n.url, "http") + "/v2/commands/completions"
}

// dialCompletions opens the websocket with the token in the subprotocols
// and sends the request frame.
func dialCompletions(t *testing.T, n *testNode, token string, req any) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	protos := []string{"daml.ws.auth"}
	if token != "" {
		protos = append(protos, "jwt.token."+token)
	}
	conn, resp, err := websocket.Dial(t.Context(), wsURL(n), &websocket.DialOptions{Subprotocols: protos})
	if err != nil {
		return nil, resp, err
	}
	b, _ := json.Marshal(req)
	if err := conn.Write(t.Context(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
	return conn, resp, nil
}

// readFrame reads one frame: a completion, or an error body.
func readFrame(t *testing.T, conn *websocket.Conn) (*ledgerapi.Completion, *ledgerapi.JsCantonError) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, data, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("read frame: %v", err)
	}
	if strings.Contains(string(data), `"completionResponse"`) {
		var el ledgerapi.CompletionStreamResponse
		mustUnmarshal(t, data, &el)
		if el.OffsetCheckpoint != nil {
			// A caught-up stream's checkpoint (TestOffsetCheckpoints):
			// skipped, as a client waiting for completions does.
			return readFrame(t, conn)
		}
		if el.Completion == nil {
			t.Fatalf("frame without completion: %s", data)
		}
		return el.Completion, nil
	}
	e, err := ledgerapi.DecodeError(data)
	if err != nil {
		t.Fatalf("frame is neither a completion nor an error: %s", data)
	}
	return nil, e
}

// TestCompletionsWebsocket: subprotocol auth, existing then new completions
// as they commit, error frames, token expiry, the stream cap.
func TestCompletionsWebsocket(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{MaxStreams: 2})
	alice := n.allocate("Alice").Party
	n.createUser("u1", ledgerapi.CanActAs(alice))
	n.createUser("u2")
	u1 := n.token("u1")
	n.submitN(u1, "before", 2, alice)

	conn, resp, err := dialCompletions(t, n, u1, map[string]any{"userId": "u1", "parties": []string{alice}, "beginExclusive": 0})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if conn.Subprotocol() != "daml.ws.auth" || resp.Header.Get("Sec-WebSocket-Protocol") != "daml.ws.auth" {
		t.Errorf("negotiated subprotocol %q", conn.Subprotocol())
	}
	for i := 0; i < 2; i++ {
		c, e := readFrame(t, conn)
		if e != nil || c.CommandID != fmt.Sprintf("before-%d", i) || int64(c.Offset) != int64(i+1) {
			t.Fatalf("existing completion %d: %+v %v", i, c, e)
		}
	}
	go n.submitN(u1, "after", 3, alice)
	for i := 0; i < 3; i++ {
		c, e := readFrame(t, conn)
		if e != nil || c.CommandID != fmt.Sprintf("after-%d", i) || int64(c.Offset) != int64(i+3) || !c.Succeeded() ||
			c.SynchronizerTime.SynchronizerID != n.identity().SynchronizerID {
			t.Fatalf("new completion %d: %+v %v", i, c, e)
		}
	}

	// the stream cap: two streams are open with the client's below
	cl, err := client.New(client.Config{URL: n.url, Tokens: client.StaticToken(u1)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := cl.StreamCompletions(t.Context(), ledgerapi.CompletionStreamRequest{Parties: ledgerapi.List[string]{alice}, BeginExclusive: 4})
	if err != nil {
		t.Fatal(err)
	}
	if el, err := st.Next(t.Context()); err != nil || el.Completion == nil || el.Completion.CommandID != "after-2" {
		t.Errorf("client stream: %+v %v", el, err)
	}
	n.fail("POST", "/v2/commands/completions?stream_idle_timeout_ms=10", u1, map[string]any{"parties": []string{alice}}, 409, "MAXIMUM_NUMBER_OF_STREAMS")
	_, resp, err = dialCompletions(t, n, u1, map[string]any{"parties": []string{alice}})
	if err == nil || resp == nil || resp.StatusCode != 409 {
		t.Errorf("third stream: %v %v", resp, err)
	}
	st.Close()
	conn.Close(websocket.StatusNormalClosure, "")
	// the slots come back once the node notices the closed streams
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := n.call("POST", "/v2/commands/completions?stream_idle_timeout_ms=1", u1, map[string]any{"parties": []string{alice}, "beginExclusive": 5})
		if r.status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream slots not released: %d %s", r.status, r.body)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// errors: without a token the upgrade is refused with 401; a bad
	// request is one error frame, then the stream ends
	if _, resp, err := dialCompletions(t, n, "", nil); err == nil || resp == nil || resp.StatusCode != 401 {
		t.Errorf("no token: %v %v", resp, err)
	}
	for _, tc := range []struct {
		token string
		req   any
		code  string
	}{
		{u1, map[string]any{"parties": []string{alice}, "beginExclusive": 99}, "OFFSET_AFTER_LEDGER_END"},
		{u1, map[string]any{"parties": []string{}}, "MISSING_FIELD"},
		{u1, "not an object", "INVALID_ARGUMENT"},
		{n.token("u2"), map[string]any{"parties": []string{alice}}, ledgerapi.RedactedCode},
	} {
		c, _, err := dialCompletions(t, n, tc.token, tc.req)
		if err != nil {
			t.Fatal(err)
		}
		if _, e := readFrame(t, c); e == nil || e.Code != tc.code {
			t.Errorf("error frame %+v, want %s", e, tc.code)
		}
		if _, _, err := c.Read(t.Context()); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			t.Errorf("after the error frame: %v, want a normal close", err)
		}
		c.CloseNow()
	}

	// a stream ends with ACCESS_TOKEN_EXPIRED when its token expires
	short, err := auth.Mint(testSecret, "u1", 2*time.Second, "", auth.DefaultParticipantID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := dialCompletions(t, n, short, map[string]any{"parties": []string{alice}, "beginExclusive": 5})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if _, e := readFrame(t, c); e == nil || e.Code != "ACCESS_TOKEN_EXPIRED" {
		t.Errorf("expiry frame %+v", e)
	}
	var closeErr websocket.CloseError
	if _, _, err := c.Read(t.Context()); !errors.As(err, &closeErr) {
		t.Errorf("after expiry: %v", err)
	}
}
