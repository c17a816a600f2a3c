package serve_test

// The flags of ledger serve, parsed by the root command as the binary
// does (the root adds the usage-error exit code), so this is an external
// test: package cmd imports serve.

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/serve"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// parseServe runs `ledger serve args…` with runF capturing the options.
func parseServe(t *testing.T, args ...string) (*serve.Options, int, string) {
	t.Helper()
	ios, _, _, errOut := cmdutil.Test()
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: time.Now}
	var got *serve.Options
	root := cmd.NewCmdRoot(f)
	for i, c := range root.Commands() {
		if c.Name() == "serve" {
			root.RemoveCommand(root.Commands()[i])
			break
		}
	}
	root.AddCommand(serve.NewCmdServe(f, func(o *serve.Options) error { got = o; return nil }))
	root.SetArgs(append([]string{"serve"}, args...))
	err := root.Execute()
	if err != nil {
		return nil, cmdutil.ExitCode(err), err.Error() + errOut.String()
	}
	return got, 0, ""
}

func TestServeFlags(t *testing.T) {
	o, code, msg := parseServe(t)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if o.Addr != server.DefaultAddr || o.DB != "" || o.ParticipantID != "" || o.AuthMode != auth.ModeNone ||
		o.MaxRequestBytes != server.DefaultMaxRequestBytes || o.LogFormat != "text" {
		t.Errorf("defaults %+v", o)
	}
	o, code, msg = parseServe(t, "--participant-id", "p2", "--auth", "HS256", "--auth-secret-file", "s", "--db", ":memory:",
		"--max-request-bytes", "1000", "--log-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if o.ParticipantID != "p2" || o.AuthMode != auth.ModeHS256 || o.MaxRequestBytes != 1000 || o.DB != ":memory:" {
		t.Errorf("parsed %+v", o)
	}
	// The budgets of a command's Daml code: the interpreter's defaults, or
	// what the flags say (sizes with units).
	o, code, msg = parseServe(t)
	if code != 0 || o.MaxCommandSteps != interp.DefaultSteps || int64(o.MaxCommandMemory) != interp.DefaultMemory {
		t.Errorf("budgets by default: exit %d (%s), steps %d, memory %d", code, msg, o.MaxCommandSteps, o.MaxCommandMemory)
	}
	o, code, msg = parseServe(t, "--max-command-steps", "5000", "--max-command-memory", "64MiB")
	if code != 0 || o.MaxCommandSteps != 5000 || o.MaxCommandMemory != 64<<20 {
		t.Errorf("budgets set: exit %d (%s), steps %d, memory %d", code, msg, o.MaxCommandSteps, o.MaxCommandMemory)
	}
}

func TestServeUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--auth", "magic"}, "--auth"},
		{[]string{"--auth", "hs256"}, "--auth-secret-file"},
		{[]string{"--auth", "rs256"}, "--auth-public-key"},
		{[]string{"--auth", "jwks"}, "--auth-jwks"},
		{[]string{"--tls-cert", "c.pem"}, "--tls-key"},
		{[]string{"--tls-key", "k.pem"}, "--tls-cert"},
		{[]string{"--tls-min-version", "1.1"}, "--tls-min-version"},
		{[]string{"--log-format", "xml"}, "--log-format"},
		{[]string{"--max-request-bytes", "0"}, "--max-request-bytes"},
		{[]string{"--max-command-steps", "0"}, "--max-command-steps"},
		{[]string{"--max-command-memory", "0"}, "--max-command-memory"},
		{[]string{"--max-command-memory", "lots"}, "--max-command-memory"},
		{[]string{"--auth-audience", "a", "--auth-scope", "s"}, "not both"},
		{[]string{"extra"}, "arg"},
	} {
		_, code, msg := parseServe(t, tc.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, message %q (want %q)", tc.args, code, msg, tc.want)
		}
	}
}
