package token_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/token"
	"github.com/ledger-cli/ledger/server/auth"
)

var tokenNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func runToken(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ios, _, out, errOut := cmdutil.Test()
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: func() time.Time { return tokenNow }}
	root := cmd.NewCmdRoot(f)
	root.SetArgs(append([]string{"token"}, args...))
	err := root.Execute()
	return out.String(), errOut.String(), cmdutil.ExitCode(err)
}

func secretFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTokenPrintsOnlyAVerifiableToken(t *testing.T) {
	secret := secretFile(t, "dev-secret\n")
	out, _, code := runToken(t, "--secret-file", secret, "--user", "alice", "--ttl", "15m")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || strings.Count(out, ".") != 2 {
		t.Fatalf("stdout is not one token line: %q", out)
	}
	v, err := auth.New(auth.Config{Mode: auth.ModeHS256, Secret: []byte("dev-secret"),
		ParticipantID: auth.DefaultParticipantID, Now: func() time.Time { return tokenNow }})
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Authenticate("Bearer " + strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("node rejects the token: %v", err)
	}
	if c.UserID != "alice" || !c.ExpiresAt.Equal(tokenNow.Add(15*time.Minute)) {
		t.Errorf("claims %+v", c)
	}
}

func TestTokenAudienceAndParticipant(t *testing.T) {
	secret := secretFile(t, "dev-secret")
	for _, tt := range []struct {
		args []string
		cfg  auth.Config
	}{
		{[]string{"--participant-id", "p2"}, auth.Config{ParticipantID: "p2"}},
		{[]string{"--audience", "https://ledger.example"}, auth.Config{Audience: "https://ledger.example"}},
	} {
		out, _, code := runToken(t, append([]string{"--secret-file", secret, "--user", "bob"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d", tt.args, code)
		}
		cfg := tt.cfg
		cfg.Mode, cfg.Secret, cfg.Now = auth.ModeHS256, []byte("dev-secret"), func() time.Time { return tokenNow }
		v, err := auth.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.AuthenticateToken(strings.TrimSpace(out)); err != nil {
			t.Errorf("%v: %v", tt.args, err)
		}
	}
}

func TestTokenJSON(t *testing.T) {
	out, _, code := runToken(t, "--secret-file", secretFile(t, "s"), "--user", "alice", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		Token     string    `json:"token"`
		UserID    string    `json:"userId"`
		ExpiresAt time.Time `json:"expiresAt"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	if got.Token == "" || got.UserID != "alice" || !got.ExpiresAt.Equal(tokenNow.Add(time.Hour)) {
		t.Errorf("got %+v", got)
	}
}

func TestTokenErrors(t *testing.T) {
	secret := secretFile(t, "s")
	empty := secretFile(t, "\n")
	shared := secretFile(t, "s")
	if err := os.Chmod(shared, 0o640); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no secret file", []string{"--user", "alice"}, cmdutil.ExitUsage, "--secret-file is required"},
		{"no user", []string{"--secret-file", secret}, cmdutil.ExitUsage, "--user is required"},
		{"zero ttl", []string{"--secret-file", secret, "--user", "a", "--ttl", "0s"}, cmdutil.ExitUsage, "--ttl"},
		{"bad ttl", []string{"--secret-file", secret, "--user", "a", "--ttl", "soon"}, cmdutil.ExitUsage, "ttl"},
		{"empty participant", []string{"--secret-file", secret, "--user", "a", "--participant-id", ""}, cmdutil.ExitUsage, "--participant-id"},
		{"positional arg", []string{"--secret-file", secret, "--user", "a", "extra"}, cmdutil.ExitUsage, "arg"},
		{"missing file", []string{"--secret-file", filepath.Join(t.TempDir(), "nope"), "--user", "a"}, cmdutil.ExitFailure, "--secret-file"},
		{"empty secret", []string{"--secret-file", empty, "--user", "a"}, cmdutil.ExitFailure, "empty"},
		{"secret readable by others", []string{"--secret-file", shared, "--user", "a"}, cmdutil.ExitFailure, "may be read by other users (mode 0640); run: chmod 600 " + shared},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := cmdutil.Test()
			f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: func() time.Time { return tokenNow }}
			root := cmd.NewCmdRoot(f)
			root.SetArgs(append([]string{"token"}, tt.args...))
			err := root.Execute()
			if got := cmdutil.ExitCode(err); got != tt.code {
				t.Fatalf("exit %d (%v), want %d", got, err, tt.code)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v does not mention %q", err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q on error", out.String())
			}
		})
	}
}

func TestTokenRunF(t *testing.T) {
	ios, _, _, _ := cmdutil.Test()
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: time.Now}
	var got *token.Options
	c := token.NewCmdToken(f, func(o *token.Options) error { got = o; return nil })
	c.SetArgs([]string{"--secret-file", "f", "--user", "u"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.TTL != time.Hour || got.ParticipantID != auth.DefaultParticipantID || got.Audience != "" || got.Format != cmdutil.FormatTable {
		t.Errorf("defaults %+v", got)
	}
}
