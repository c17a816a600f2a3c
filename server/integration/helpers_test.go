// Package integration runs `ledger serve` over real HTTP against a real
// SQLite file: in process through local.Open and server.Start, and as a
// subprocess for the crash test.
package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

var testSecret = []byte("integration-test-secret-0123456789")

// testNode is a started node with helpers to call it.
type testNode struct {
	t       *testing.T
	run     *server.Running
	url     string
	dbPath  string
	admin   string // token of participant_admin ("" in wildcard mode)
	mode    string
	partyNS string // namespace fingerprint of local parties
}

// serve opens a node with nc on a SQLite file (a new one in a temp dir
// unless nc.DBPath names one) and serves it with sc on a free loopback port
// unless sc.Addr names one. The node is closed when the test ends.
func serve(tb testing.TB, nc local.Config, sc server.Config) *server.Running {
	tb.Helper()
	if nc.DBPath == "" {
		nc.DBPath = filepath.Join(tb.TempDir(), "ledger.db")
	}
	if sc.Addr == "" {
		sc.Addr = "127.0.0.1:0"
	}
	n, err := local.Open(context.Background(), nc)
	if err != nil {
		tb.Fatalf("open node: %v", err)
	}
	run, err := server.Start(context.Background(), n, sc)
	if err != nil {
		tb.Fatalf("start: %v", err)
	}
	tb.Cleanup(func() {
		if err := run.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return run
}

// start starts a node with nc and sc on a SQLite file in a temp dir; mode
// is auth.ModeHS256 or auth.ModeNone.
func start(t *testing.T, mode string, nc node.Config, sc server.Config) *testNode {
	t.Helper()
	n := &testNode{t: t, mode: mode, dbPath: filepath.Join(t.TempDir(), "ledger.db")}
	sc.Auth = auth.Config{Mode: mode, Secret: testSecret}
	n.run = serve(t, local.Config{DBPath: n.dbPath, Node: nc}, sc)
	n.url = n.run.URL()
	n.partyNS = n.run.Server.Node.Identity().NamespaceFingerprint
	if mode != auth.ModeNone {
		n.admin = n.token(ledger.AdminUserID)
	}
	return n
}

// startNode starts a node with a 64 KiB request limit; mode is
// auth.ModeHS256 or auth.ModeNone.
func startNode(t *testing.T, mode string) *testNode {
	t.Helper()
	return start(t, mode, node.Config{}, server.Config{MaxRequestBytes: 64 << 10})
}

// identity is who the test node is.
func (n *testNode) identity() ledger.Identity { return n.run.Server.Node.Identity() }

// token mints an HS256 user token for user.
func (n *testNode) token(user string) string {
	n.t.Helper()
	tok, err := auth.Mint(testSecret, user, time.Hour, "", auth.DefaultParticipantID, time.Now())
	if err != nil {
		n.t.Fatal(err)
	}
	return tok
}

// response is one HTTP answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// call sends a request; body is marshalled unless it is a string or []byte.
func (n *testNode) call(method, path, token string, body any) response {
	n.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			n.t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, n.url+path, rd)
	if err != nil {
		n.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		n.t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

// ok calls and expects 200, decoding the body into out (if not nil).
func (n *testNode) ok(method, path, token string, body, out any) {
	n.t.Helper()
	r := n.call(method, path, token, body)
	if r.status != http.StatusOK {
		n.t.Fatalf("%s %s: status %d, want 200: %s", method, path, r.status, r.body)
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero() // a reused value must not keep old map entries
		if err := json.Unmarshal(r.body, out); err != nil {
			n.t.Fatalf("%s %s: decode %s: %v", method, path, r.body, err)
		}
	}
}

// fail calls, expects status and a JSON error body with code, and returns it.
func (n *testNode) fail(method, path, token string, body any, status int, code string) *ledgerapi.JsCantonError {
	n.t.Helper()
	r := n.call(method, path, token, body)
	if r.status != status {
		n.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		n.t.Fatalf("%s %s: Content-Type %q, want application/json", method, path, ct)
	}
	e, err := ledgerapi.DecodeError(r.body)
	if err != nil {
		n.t.Fatalf("%s %s: %v", method, path, err)
	}
	if e.Code != code {
		n.t.Fatalf("%s %s: code %q, want %q: %s", method, path, e.Code, code, r.body)
	}
	checkAllErrorKeys(n.t, r.body)
	return e
}

// checkAllErrorKeys asserts every key of Canton's error body is present.
func checkAllErrorKeys(t *testing.T, body []byte) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"code", "cause", "correlationId", "traceId", "context", "resources",
		"errorCategory", "grpcCodeValue", "retryInfo", "definiteAnswer"} {
		if _, ok := m[k]; !ok {
			t.Errorf("error body lacks %q: %s", k, body)
		}
	}
}

// allocate allocates a local party by hint and returns its details.
func (n *testNode) allocate(hint string) ledgerapi.PartyDetails {
	n.t.Helper()
	var resp ledgerapi.AllocatePartyResponse
	n.ok("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": hint}, &resp)
	return resp.PartyDetails
}

// createUser creates a user with rights.
func (n *testNode) createUser(id string, rights ...ledgerapi.Right) {
	n.t.Helper()
	n.ok("POST", "/v2/users", n.admin, ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: id}, Rights: rights}, nil)
}

func adminRight(kind ledgerapi.RightKind) ledgerapi.Right { return ledgerapi.Right{Kind: kind} }

// partyPath is /v2/parties/{party} with the party escaped.
func partyPath(p string) string { return "/v2/parties/" + url.PathEscape(p) }

func urlPathEscape(s string) string { return url.QueryEscape(s) }

func timeNow() time.Time { return time.Now() }
