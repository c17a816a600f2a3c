package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

func TestServeRunsAndStops(t *testing.T) {
	dir := t.TempDir()
	secret := secretFile(t, "serve-test-secret\n")
	opts := &Options{Addr: "127.0.0.1:0", DB: filepath.Join(dir, "node.db"),
		MaxRequestBytes: server.DefaultMaxRequestBytes, AuthMode: auth.ModeHS256, AuthSecretFile: secret}
	port, stop := runServe(t, opts)
	url := "http://127.0.0.1:" + port
	tok, err := auth.Mint([]byte("serve-test-secret"), "participant_admin", time.Hour, "", auth.DefaultParticipantID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", url+"/v2/users", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"participant_admin"`) {
		t.Errorf("GET /v2/users: %d %s", resp.StatusCode, body)
	}
	log := stop()
	for _, want := range []string{`"msg":"ledger serve listening"`, `"url":"` + url + `"`, `"msg":"stopped"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	// a restart with another participant name is refused, naming the fix
	opts.ParticipantID = "other"
	opts.Context = context.Background()
	if err := serveRun(opts); err == nil || !strings.Contains(err.Error(), "--participant-id participant1") {
		t.Errorf("restart as another participant: %v", err)
	}
}

func TestServeDefaultDatabase(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	cfg, err := serveConfig(&Options{AuthMode: auth.ModeNone})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(data, "ledger", "ledger.db"); cfg.DBPath != want {
		t.Errorf("default db %s, want %s", cfg.DBPath, want)
	}
	fi, err := os.Stat(filepath.Join(data, "ledger"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir: %v %v", fi.Mode(), err)
	}
	if _, err := serveConfig(&Options{AuthSecretFile: filepath.Join(data, "missing")}); err == nil ||
		!strings.Contains(err.Error(), "--auth-secret-file") {
		t.Errorf("missing secret file: %v", err)
	}
}

// runServe runs serveRun with opts (logging JSON to a buffer, the port to a
// file in a temp dir) until the port file appears. stop ends the node and
// returns its log.
func runServe(t *testing.T, opts *Options) (port string, stop func() string) {
	t.Helper()
	ios, _, _, errOut := cmdutil.Test()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts.IO, opts.Context, opts.LogFormat, opts.LogLevel = ios, ctx, "json", "info"
	opts.PortFile = filepath.Join(t.TempDir(), "port")
	done := make(chan error, 1)
	go func() { done <- serveRun(opts) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(opts.PortFile)
		if err == nil {
			port = strings.TrimSpace(string(b))
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended early: %v; log:\n%s", err, errOut)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no port file; log:\n%s", errOut)
		}
	}
	return port, func() string {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop")
		}
		return errOut.String()
	}
}

// TestServeNoAuthStaysOnLoopback: without authentication the node refuses
// an address other machines can reach unless --insecure-no-auth is given,
// and then logs a URL that works, not the wildcard address.
func TestServeNoAuthStaysOnLoopback(t *testing.T) {
	opts := &Options{Addr: "0.0.0.0:0", DB: ":memory:", MaxRequestBytes: server.DefaultMaxRequestBytes,
		AuthMode: auth.ModeNone, IO: func() *cmdutil.IOStreams { ios, _, _, _ := cmdutil.Test(); return ios }(),
		LogFormat: "text", LogLevel: "info", Context: context.Background()}
	err := serveRun(opts)
	if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "--insecure-no-auth") {
		t.Fatalf("0.0.0.0 with --auth none: %v, want a usage error naming --insecure-no-auth", err)
	}
	for addr, host := range map[string]string{"0.0.0.0:0": "127.0.0.1", ":0": "127.0.0.1"} {
		opts := &Options{Addr: addr, DB: ":memory:", MaxRequestBytes: server.DefaultMaxRequestBytes,
			AuthMode: auth.ModeNone, InsecureNoAuth: true}
		port, stop := runServe(t, opts)
		log := stop()
		if want := `"url":"http://` + host + ":" + port + `"`; !strings.Contains(log, want) {
			t.Errorf("--addr %s: log lacks %s:\n%s", addr, want, log)
		}
	}
}

// `ledger serve --dar` uploads DARs before serving: the Ping's packages
// are listed at once; a restart with the same flag on the same database
// keeps them (nothing uploaded twice); a missing file or an ill-formed DAR
// stops the start, naming the file.
func TestServeDarsAtStart(t *testing.T) {
	dir := t.TempDir()
	ping := filepath.Join("..", "..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar")
	opts := func() *Options {
		return &Options{Addr: "127.0.0.1:0", DB: filepath.Join(dir, "node.db"), MaxRequestBytes: server.DefaultMaxRequestBytes,
			AuthMode: auth.ModeNone, Dars: []string{ping}}
	}
	packages := func(port string) string {
		resp, err := http.Get("http://127.0.0.1:" + port + "/v2/packages")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	port, stop := runServe(t, opts())
	first := packages(port)
	var list struct {
		PackageIDs []string `json:"packageIds"`
	}
	if err := json.Unmarshal([]byte(first), &list); err != nil || len(list.PackageIDs) < 2 {
		t.Fatalf("packages after --dar: %v %s", err, first)
	}
	if log := stop(); !strings.Contains(log, "DAR uploaded at start") {
		t.Errorf("the log does not say the DAR was uploaded:\n%s", log)
	}
	port, stop = runServe(t, opts())
	if again := packages(port); again != first {
		t.Errorf("after a restart with the same --dar: %s, want %s", again, first)
	}
	stop()

	for _, c := range []struct{ dar, want string }{
		{filepath.Join(dir, "missing.dar"), "--dar"},
		{filepath.Join("..", "..", "..", "shared", "dars", "illformed.dar"), "illformed.dar"},
	} {
		o := opts()
		o.Dars = []string{c.dar}
		o.IO, _, _, _ = cmdutil.Test()
		o.Context = context.Background()
		o.LogFormat, o.LogLevel = "json", "info"
		if c.want == "illformed.dar" {
			if _, err := os.Stat(c.dar); err != nil {
				continue // the shared DARs are absent
			}
		}
		if err := serveRun(o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--dar %s: %v, want an error naming %s", c.dar, err, c.want)
		}
	}
}

func secretFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
