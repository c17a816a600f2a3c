package cmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestConnectionTroubleHints: a node that cannot be reached gets a hint
// naming the URL, where it came from and what to check (issue 12, item 25).
func TestConnectionTroubleHints(t *testing.T) {
	n := startLiveNode(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"connection refused", []string{"parties", "list", "--url", "http://127.0.0.1:1"},
			[]string{"nothing listens at http://127.0.0.1:1 (url from flag --url, profile default)", "ledger serve"}},
		{"https to an http node", []string{"parties", "list", "--url", strings.Replace(n.url, "http:", "https:", 1), "--token", n.admin},
			[]string{"the node speaks plain HTTP: write the URL with http://"}},
		{"wrong path prefix", []string{"parties", "list", "--url", n.url + "/api", "--token", n.admin},
			[]string{"path prefix included?", "url from flag --url"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, "", tc.args...).must(t, 1)
			for _, w := range tc.want {
				if !strings.Contains(r.err, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.err)
				}
			}
		})
	}
	t.Setenv("LEDGER_URL", "http://127.0.0.1:1")
	r := runCLI(t, "", "users", "list").must(t, 1)
	if !strings.Contains(r.err, "url from env LEDGER_URL") {
		t.Errorf("the hint names the environment variable:\n%s", r.err)
	}
}

// TestTimeoutBoundsTheCommand: --timeout is the time the command may take,
// retries included (issue 12, item 25: --timeout 2s took 9 s).
func TestTimeoutBoundsTheCommand(t *testing.T) {
	isolateConfig(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(500 * time.Millisecond)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer slow.Close()
	start := time.Now()
	r := runCLI(t, "", "parties", "list", "--url", slow.URL, "--timeout", "1s").must(t, 1)
	if elapsed := time.Since(start); elapsed > 1800*time.Millisecond { // four attempts of 500ms and their backoff took 2.5s and more
		t.Errorf("took %s with --timeout 1s", elapsed)
	}
	if !strings.Contains(r.err, "HTTP 503") || !strings.Contains(r.err, "sent ") {
		t.Errorf("stderr should give the node's answer and how often it was sent:\n%s", r.err)
	}
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer hang.Close()
	start = time.Now()
	r = runCLI(t, "", "users", "list", "--url", hang.URL, "--timeout", "500ms").must(t, 1)
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("took %s with --timeout 500ms", elapsed)
	}
	if !strings.Contains(r.err, "no answer within 500ms (timeout from flag --timeout") {
		t.Errorf("stderr:\n%s", r.err)
	}
}

// TestUnauthenticatedSaysWhy: a 401 says whether a token was sent, and when
// it expired (issue 12, item 26).
func TestUnauthenticatedSaysWhy(t *testing.T) {
	n := startLiveNode(t)
	expired, err := auth.Mint(onlineSecret, ledger.AdminUserID, time.Hour, "", auth.DefaultParticipantID, time.Now().Add(-time.Hour-3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := auth.Mint([]byte("another-secret-another-secret-0123456789"), ledger.AdminUserID, time.Hour, "", auth.DefaultParticipantID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		token []string
		want  string
	}{
		{"no token", nil, "no token was sent: this node needs one (set --token, --token-file, LEDGER_TOKEN or a profile's token"},
		{"expired", []string{"--token", expired}, "the token expired 3m ago"},
		{"not accepted", []string{"--token", foreign}, "the node did not accept the token (token from flag --token, profile default)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, "", append([]string{"parties", "list", "--url", n.url}, tc.token...)...).must(t, 1)
			if !strings.Contains(r.err, "HTTP 401") || !strings.Contains(r.err, "hint: "+tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, r.err)
			}
		})
	}
}

// TestNodeFailureIsNotARejection: a 500 is the node failing, not the ledger
// refusing the command: exit 1 with the correlation id, never 4 (issue 12,
// item 27).
func TestNodeFailureIsNotARejection(t *testing.T) {
	isolateConfig(t)
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"code":"INTERNAL_ERROR","cause":"the store failed","correlationId":"corr-1234","errorCategory":4,"grpcCodeValue":13,"context":{},"resources":[],"definiteAnswer":false}`)
	}))
	defer node.Close()
	r := runCLI(t, "", "submit", "--create", "#p:M:T", "--args", "{}", "--act-as", "alice::1220", "--url", node.URL, "--user", "u").must(t, 1)
	if !strings.Contains(r.err, "corr-1234") || strings.Contains(r.err, "rejected") {
		t.Errorf("stderr:\n%s", r.err)
	}
}
