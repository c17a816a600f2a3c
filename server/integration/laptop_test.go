package integration

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestSecondServeOnOneDatabase: a second `ledger serve` on a database in use
// refuses to start and names the process that holds it; once the holder is
// killed with SIGKILL the database is free again.
func TestSecondServeOnOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ledger serve as a process")
	}
	db, secretFile := processFiles(t)
	dir := filepath.Dir(db)
	holder := startProcess(t, db, secretFile)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "serve", "--db", db, "--addr", "127.0.0.1:0",
		"--port-file", filepath.Join(dir, "port2")).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("second ledger serve on %s: %v (it should refuse at once); output:\n%s", db, err, out)
	}
	if want := fmt.Sprintf("pid %d", holder.cmd.Process.Pid); !strings.Contains(string(out), want) {
		t.Errorf("the refusal does not name the holder (%s):\n%s", want, out)
	}

	if err := holder.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = holder.cmd.Wait()
	after := startProcess(t, db, secretFile)
	if err := after.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = after.cmd.Wait()
}

// callAs sends a JSON body (a string as is) with the request changed by
// edit: headers, Host.
func (n *testNode) callAs(method, path string, body string, edit func(r *http.Request)) response {
	n.t.Helper()
	req, err := http.NewRequest(method, n.url+path, strings.NewReader(body))
	if err != nil {
		n.t.Fatal(err)
	}
	if edit != nil {
		edit(req)
	}
	return n.do(req)
}

// refused checks a guard refusal: status and Canton's error body, not
// redacted, whose cause mentions what.
func refused(t *testing.T, r response, status int, what string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	e, err := ledgerapi.DecodeError(r.body)
	if err != nil || e.Code != "INVALID_ARGUMENT" || e.CorrelationID == nil || !strings.Contains(e.Cause, what) {
		t.Fatalf("refusal body %s (%v), want INVALID_ARGUMENT naming %q", r.body, err, what)
	}
	checkAllErrorKeys(t, r.body)
}

func header(k, v string) func(*http.Request) { return func(r *http.Request) { r.Header.Set(k, v) } }

// TestWebPagesCannotDriveTheNode: with --auth none any web page could reach
// the node; what a page may send without a CORS preflight (text/plain, form
// and multipart bodies), other origins and foreign Host names (DNS
// rebinding) are refused, over real HTTP.
func TestWebPagesCannotDriveTheNode(t *testing.T) {
	n := startNode(t, auth.ModeNone)
	user := func(id string) string { return fmt.Sprintf(`{"user":{"id":%q}}`, id) }
	_, port, _ := strings.Cut(strings.TrimPrefix(n.url, "http://"), ":")

	for _, ct := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
		"multipart/form-data; boundary=x", "application/octet-stream", "garbage/"} {
		refused(t, n.callAs("POST", "/v2/users", user("csrf"), header("Content-Type", ct)), 415, ct)
	}
	n.fail("GET", "/v2/users/csrf", "", nil, 404, "USER_NOT_FOUND")
	for i, ct := range []string{"", "application/json", "application/json; charset=utf-8", "application/vnd.api+json"} {
		edit := header("Content-Type", ct)
		if ct == "" { // Canton's TypeScript client sends its POSTs without one
			edit = nil
		}
		if r := n.callAs("POST", "/v2/users", user(fmt.Sprintf("ok-%d", i)), edit); r.status != 200 {
			t.Errorf("Content-Type %q: %d %s", ct, r.status, r.body)
		}
	}

	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port, "192.168.1.20:" + port} {
		refused(t, n.callAs("GET", "/v2/users", "", func(r *http.Request) { r.Host = host }), 403, host)
	}
	for _, host := range []string{"localhost:" + port, "LOCALHOST.", "app.localhost:" + port, "127.0.0.2:" + port, "[::1]:" + port} {
		if r := n.callAs("GET", "/v2/users", "", func(r *http.Request) { r.Host = host }); r.status != 200 {
			t.Errorf("Host %s: %d %s", host, r.status, r.body)
		}
	}

	evil := header("Origin", "https://evil.example")
	refused(t, n.callAs("POST", "/v2/users", user("cors"), evil), 403, "https://evil.example")
	refused(t, n.callAs("GET", "/v2/users", "", header("Origin", "null")), 403, "null")
	pre := n.callAs("OPTIONS", "/v2/users", "", func(r *http.Request) {
		evil(r)
		r.Header.Set("Access-Control-Request-Method", "POST")
	})
	refused(t, pre, 403, "evil.example")
	if r := n.callAs("POST", "/v2/users", user("same-origin"), header("Origin", n.url)); r.status != 200 {
		t.Errorf("same origin: %d %s", r.status, r.body)
	}
	_, resp, err := websocket.Dial(t.Context(), wsURL(n), &websocket.DialOptions{
		Subprotocols: []string{"daml.ws.auth"}, HTTPHeader: http.Header{"Origin": {"https://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("websocket from another origin: %v, %v", resp, err)
	}
}

// TestAllowedOriginsAndHosts: --cors-origin lets a web app use the node,
// with proper CORS answers; --allowed-host adds a Host name.
func TestAllowedOriginsAndHosts(t *testing.T) {
	app := "http://localhost:5173"
	n := start(t, auth.ModeNone, node.Config{}, server.Config{CORSOrigins: []string{app}, AllowedHosts: []string{"mybox.lan"}})
	pre := n.callAs("OPTIONS", "/v2/users", "", func(r *http.Request) {
		r.Header.Set("Origin", app)
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
	})
	h := pre.header
	if pre.status != 204 || h.Get("Access-Control-Allow-Origin") != app || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), "content-type") || h.Get("Vary") == "" {
		t.Errorf("preflight: %d %v", pre.status, h)
	}
	r := n.callAs("POST", "/v2/users", `{"user":{"id":"from-app"}}`, func(r *http.Request) {
		r.Header.Set("Origin", app)
		r.Header.Set("Content-Type", "application/json")
	})
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != app {
		t.Errorf("request from the allowed origin: %d %v %s", r.status, r.header, r.body)
	}
	refused(t, n.callAs("GET", "/v2/users", "", header("Origin", "http://localhost:5174")), 403, "5174")
	if r := n.callAs("GET", "/v2/users", "", func(r *http.Request) { r.Host = "MyBox.lan:7575" }); r.status != 200 {
		t.Errorf("allowed host: %d %s", r.status, r.body)
	}
	conn, resp, err := websocket.Dial(t.Context(), wsURL(n), &websocket.DialOptions{
		Subprotocols: []string{"daml.ws.auth"}, HTTPHeader: http.Header{"Origin": {app}}})
	if err != nil {
		t.Fatalf("websocket from the allowed origin: %v %v", resp, err)
	}
	_ = conn.Close(websocket.StatusNormalClosure, "")
}

// TestOneUserCannotTakeEveryStream: a user with read rights on one party
// gets at most --max-streams-per-user streams; others still get theirs. A
// completions list asking for an idle timeout of an hour waits at most the
// server's maximum.
func TestOneUserCannotTakeEveryStream(t *testing.T) {
	n := start(t, auth.ModeHS256, node.Config{MaxStreams: 10, MaxStreamsPerUser: 2},
		server.Config{CompletionsMaxWait: 300 * time.Millisecond})
	alice := n.allocate("Alice").Party
	n.createUser("greedy", ledgerapi.CanReadAs(alice))
	n.createUser("other", ledgerapi.CanReadAs(alice))
	greedy := n.token("greedy")
	for range 2 {
		conn, _, err := dialCompletions(t, n, greedy, map[string]any{"parties": []string{alice}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
	}
	// The node counts a websocket from its upgrade on: wait until both are.
	body := map[string]any{"parties": []string{alice}}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := n.call("POST", "/v2/commands/completions?stream_idle_timeout_ms=10", greedy, body)
		if r.status == 409 {
			e, _ := ledgerapi.DecodeError(r.body)
			if e == nil || e.Code != "MAXIMUM_NUMBER_OF_STREAMS" || !strings.Contains(e.Cause, "greedy") {
				t.Fatalf("third stream of one user: %s", r.body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a third stream of one user was still served: %d %s", r.status, r.body)
		}
		time.Sleep(10 * time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	began := time.Now()
	r := n.callAs("POST", "/v2/commands/completions?stream_idle_timeout_ms=3600000", `{"parties":["`+alice+`"]}`,
		func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+n.token("other"))
			*r = *r.WithContext(ctx)
		})
	if r.status != 200 || string(r.body) != "[]" {
		t.Fatalf("another user's list: %d %s", r.status, r.body)
	}
	if waited := time.Since(began); waited > 10*time.Second {
		t.Errorf("an idle timeout of an hour waited %v; the server's maximum is 300ms", waited)
	}
}
