package ledgerapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// participant is one started node, shared by the cases of a suite, and
// the test tool's ParticipantTestContext over JSON.
type participant struct {
	t     *testing.T
	run   *server.Running
	url   string
	admin string // a token for the calls of the test tool (none: no authentication)
	user  string // the user commands are submitted as
	seq   atomic.Int64
}

// startParticipant starts a node on a SQLite file in a temp dir, without
// authentication as the test tool runs against a sandbox; it stops when the
// suite's test ends.
func startParticipant(t *testing.T, nc node.Config) *participant {
	t.Helper()
	return startParticipantOn(t, nc, nil)
}

// startParticipantOn starts a node as startParticipant does, on static
// time when clock is not nil (ledger serve --static-time).
func startParticipantOn(t *testing.T, nc node.Config, clock *node.StaticClock) *participant {
	t.Helper()
	return startParticipantWith(t, nc, clock, nil)
}

// startParticipantWith starts a node as startParticipantOn does, with
// edit applied to the server's configuration (when not nil).
func startParticipantWith(t *testing.T, nc node.Config, clock *node.StaticClock, edit func(*server.Config)) *participant {
	t.Helper()
	if clock != nil {
		nc.Now = clock.Now
	}
	n, err := local.Open(context.Background(), local.Config{DBPath: filepath.Join(t.TempDir(), "ledger.db"), Node: nc})
	if err != nil {
		t.Fatalf("open node: %v", err)
	}
	sc := server.Config{
		Addr:   "127.0.0.1:0",
		Auth:   auth.Config{Mode: auth.ModeNone},
		Clock:  clock,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	}
	if edit != nil {
		edit(&sc)
	}
	run, err := server.Start(context.Background(), n, sc)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		if err := run.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &participant{t: t, run: run, url: run.URL(), user: ledger.AdminUserID}
}

// next is a fresh name with prefix, unique on this node.
func (p *participant) next(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, p.seq.Add(1))
}

// answer is one HTTP answer.
type answer struct {
	status int
	body   []byte
}

// do sends body (marshalled unless a string) with method to path as the
// holder of token.
func (p *participant) do(t *testing.T, method, path, token string, body any) answer {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, p.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, b}
}

// ok calls as admin, wants 200 and decodes the answer into out (when not nil).
func (p *participant) ok(t *testing.T, method, path string, body, out any) {
	t.Helper()
	a := p.do(t, method, path, p.admin, body)
	if a.status != http.StatusOK {
		t.Fatalf("%s %s: status %d, want 200: %s", method, path, a.status, a.body)
	}
	if out != nil {
		if err := json.Unmarshal(a.body, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, a.body, err)
		}
	}
}

// failure is what mustFail expects of an error: Canton's error id, a
// fragment of its cause (may be empty) and whether the test tool checks
// the definite answer (checkDefiniteAnswerMetadata).
type failure struct {
	code     string
	cause    string
	definite bool
}

// mustFail calls as admin and checks the error body against f: the test
// tool's mustFailWith / assertGrpcError.
func (p *participant) mustFail(t *testing.T, method, path string, body any, f failure) *ledgerapi.JsCantonError {
	t.Helper()
	return p.mustFailAs(t, p.admin, method, path, body, f)
}

func (p *participant) mustFailAs(t *testing.T, token, method, path string, body any, f failure) *ledgerapi.JsCantonError {
	t.Helper()
	a := p.do(t, method, path, token, body)
	if a.status == http.StatusOK {
		t.Fatalf("%s %s: succeeded, want %s: %s", method, path, f.code, a.body)
	}
	e, err := ledgerapi.DecodeError(a.body)
	if err != nil {
		t.Fatalf("%s %s: status %d, not an error body (want %s): %s", method, path, a.status, f.code, a.body)
	}
	checkError(t, e, f)
	return e
}

// checkError is the test tool's assertGrpcError on a JSON error body.
func checkError(t *testing.T, e *ledgerapi.JsCantonError, f failure) {
	t.Helper()
	if e.Code != f.code {
		t.Errorf("error %s, want %s: %s", e.Code, f.code, e.Error())
	}
	if f.cause != "" && !strings.Contains(e.Cause, f.cause) {
		t.Errorf("%s: cause %q lacks %q", e.Code, e.Cause, f.cause)
	}
	if f.definite {
		// The test tool reads definite_answer from the error's metadata,
		// which over JSON is the context key or the definiteAnswer field.
		v, ok := e.Context["definite_answer"]
		if !ok && e.DefiniteAnswer != nil {
			v, ok = fmt.Sprint(*e.DefiniteAnswer), true
		}
		if !ok || (v != "true" && v != "false") {
			t.Errorf("%s: no definite answer (context %v, definiteAnswer %v)", e.Code, e.Context, e.DefiniteAnswer)
		}
	}
}

// allocate allocates a fresh party whose id starts with hint.
func (p *participant) allocate(t *testing.T, hint string) string {
	t.Helper()
	var resp ledgerapi.AllocatePartyResponse
	p.ok(t, "POST", "/v2/parties", map[string]any{"partyIdHint": p.next(hint)}, &resp)
	return resp.PartyDetails.Party
}

// sharedDar reads a DAR of ../shared/dars, or skips.
func sharedDar(t *testing.T, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars", name))
	if err != nil {
		t.Skipf("real DAR %s not found in ../shared/dars beside the repository; skipping", name)
	}
	return b
}

// upload uploads a DAR.
func (p *participant) upload(t *testing.T, dar []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", p.url+"/v2/dars", bytes.NewReader(dar))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.admin)
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
}
