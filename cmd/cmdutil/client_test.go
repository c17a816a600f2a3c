package cmdutil

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/cobra"
)

// newConnCmd builds a command with the connection flags parsed from args.
func newConnCmd(t *testing.T, args ...string) *ConnFlags {
	t.Helper()
	cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	cf := AddConnFlags(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return cf
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ConfigEnv, p)
	return p
}

func TestPrecedenceFlagEnvProfile(t *testing.T) {
	writeConfig(t, `current-profile: dev
profiles:
  dev:
    url: http://profile:1
    user: profile-user
    token: profile-token
  prod:
    url: https://prod:443
`)
	t.Setenv("LEDGER_PROFILE", "")
	t.Setenv("LEDGER_URL", "")
	t.Setenv("LEDGER_USER", "env-user")
	t.Setenv("LEDGER_TOKEN", "")

	s, err := newConnCmd(t).ResolveSettings()
	if err != nil {
		t.Fatal(err)
	}
	// profile < env
	if s.Profile != "dev" || s.Get(KeyURL) != "http://profile:1" || s.Sources[KeyURL] != "profile dev" {
		t.Errorf("url = %q from %q (profile %s)", s.Get(KeyURL), s.Sources[KeyURL], s.Profile)
	}
	if s.Get(KeyUser) != "env-user" || s.Sources[KeyUser] != "env LEDGER_USER" {
		t.Errorf("user = %q from %q", s.Get(KeyUser), s.Sources[KeyUser])
	}
	// env < flag
	s, err = newConnCmd(t, "--user", "flag-user", "--url", "http://flag:2").ResolveSettings()
	if err != nil {
		t.Fatal(err)
	}
	if s.Get(KeyUser) != "flag-user" || s.Sources[KeyUser] != "flag --user" || s.Get(KeyURL) != "http://flag:2" {
		t.Errorf("flags lost: %+v", s.Values)
	}
	if s.Get(KeyTimeout) != "30s" || s.Sources[KeyTimeout] != "default" {
		t.Errorf("timeout %q from %q", s.Get(KeyTimeout), s.Sources[KeyTimeout])
	}
	// --profile and LEDGER_PROFILE choose another profile
	s, _ = newConnCmd(t, "--profile", "prod").ResolveSettings()
	if s.Get(KeyURL) != "https://prod:443" || s.Get(KeyToken) != "" {
		t.Errorf("--profile prod: %+v", s.Values)
	}
	t.Setenv("LEDGER_PROFILE", "prod")
	s, _ = newConnCmd(t).ResolveSettings()
	if s.Profile != "prod" {
		t.Errorf("LEDGER_PROFILE ignored: %s", s.Profile)
	}
	if _, err := newConnCmd(t, "--profile", "nope").ResolveSettings(); err == nil || !strings.Contains(err.Error(), "dev, prod") {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestTokenMethodFromHighestLevel(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		w.Write([]byte(`{"offset":1}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "tok")
	os.WriteFile(tokFile, []byte("from-file\n"), 0o600)
	writeConfig(t, "profiles:\n  default:\n    url: "+srv.URL+"\n    token: from-profile\n")
	t.Setenv("LEDGER_PROFILE", "")
	t.Setenv("LEDGER_TOKEN", "")
	t.Setenv("LEDGER_TOKEN_FILE", "")

	call := func(args ...string) string {
		t.Helper()
		conn, err := newConnCmd(t, args...).Connect()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Client.LedgerEnd(context.Background()); err != nil {
			t.Fatal(err)
		}
		return got.Load().(string)
	}
	if a := call(); a != "Bearer from-profile" {
		t.Errorf("profile token: %q", a)
	}
	// A token file on the command line beats a token in the profile.
	if a := call("--token-file", tokFile); a != "Bearer from-file" {
		t.Errorf("--token-file: %q", a)
	}
	t.Setenv("LEDGER_TOKEN", "from-env")
	if a := call(); a != "Bearer from-env" {
		t.Errorf("LEDGER_TOKEN: %q", a)
	}
	if a := call("--token", "from-flag"); a != "Bearer from-flag" {
		t.Errorf("--token: %q", a)
	}
}

func TestOAuthClientCredentials(t *testing.T) {
	var fetches atomic.Int32
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		id, secret, _ := r.BasicAuth()
		if r.Form.Get("grant_type") != "client_credentials" || id != "cli" || secret != "s3cret" || r.Form.Get("audience") != "aud-x" || r.Form.Get("scope") != "daml_ledger_api" {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "oauth-tok", "token_type": "Bearer", "expires_in": 3600})
	}))
	defer idp.Close()
	var got atomic.Value
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		w.Write([]byte(`{"offset":1}`))
	}))
	defer node.Close()
	secretFile := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secretFile, []byte("s3cret\n"), 0o600)
	writeConfig(t, "")
	t.Setenv("LEDGER_TOKEN", "")
	conn, err := newConnCmd(t, "--url", node.URL, "--oauth-token-url", idp.URL, "--oauth-client-id", "cli",
		"--oauth-client-secret-file", secretFile, "--oauth-audience", "aud-x", "--oauth-scope", "daml_ledger_api").Connect()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := conn.Client.LedgerEnd(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got.Load() != "Bearer oauth-tok" || fetches.Load() != 1 {
		t.Errorf("Authorization %q after %d token fetches (want 1: the token is reused until it expires)", got.Load(), fetches.Load())
	}
	// Wrong secret: the error says the endpoint refused.
	os.WriteFile(secretFile, []byte("wrong"), 0o600)
	conn, _ = newConnCmd(t, "--url", node.URL, "--oauth-token-url", idp.URL, "--oauth-client-id", "cli",
		"--oauth-client-secret-file", secretFile, "--oauth-audience", "aud-x", "--oauth-scope", "daml_ledger_api").Connect()
	if _, err := conn.Client.LedgerEnd(context.Background()); err == nil || !strings.Contains(err.Error(), "refused the client credentials") {
		t.Errorf("err = %v", err)
	}
}

func TestConfigFileSaveIs0600(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "config.yaml")
	cf, err := LoadConfigFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cf.Set("local", KeyURL, "http://x")
	cf.CurrentProfile = "local"
	if err := cf.Save(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	back, err := LoadConfigFile(p)
	if err != nil || back.Profile("local")[KeyURL] != "http://x" || back.CurrentProfile != "local" {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	os.WriteFile(p, []byte("profiles:\n  x:\n    uri: http://typo\n"), 0o600)
	if _, err := LoadConfigFile(p); err == nil || !strings.Contains(err.Error(), `"uri"`) {
		t.Errorf("unknown key: %v", err)
	}
}
