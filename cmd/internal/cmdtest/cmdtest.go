// Package cmdtest is what the tests of ledger's commands share: an
// in-process `ledger serve` to run them against, a configuration kept
// apart from the user's, and a run of the command tree on buffers as the
// binary does it. The command tree is a parameter (cmd.NewCmdRoot), so the
// tests of package cmd and of the command packages it imports can all use
// this package.
package cmdtest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/serve"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// Secret is the HS256 secret of the nodes StartNode runs.
var Secret = []byte("online-commands-test-secret-0123456789")

// Node is an in-process `ledger serve` with HS256 tokens signed with
// Secret, on a database in a temporary directory.
type Node struct {
	t       testing.TB
	URL     string
	Admin   string // a token of the participant admin
	Running *server.Running
}

// StartNode starts a Node, stopped when the test ends; the configuration
// is isolated first (IsolateConfig).
func StartNode(t testing.TB) *Node {
	t.Helper()
	return StartNodeWith(t, node.Config{})
}

// StartNodeWith is StartNode with the ledger service configured by nc
// (AllowDevPackages, as ledger serve --allow-lf-dev, …).
func StartNodeWith(t testing.TB, nc node.Config) *Node {
	t.Helper()
	IsolateConfig(t)
	run, err := serve.Start(context.Background(), serve.Setup{
		Config: local.Config{DBPath: filepath.Join(t.TempDir(), "ledger.db"), Node: nc},
		Server: server.Config{Addr: "127.0.0.1:0", Auth: auth.Config{Mode: auth.ModeHS256, Secret: Secret}},
	})
	if err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { run.Close() })
	n := &Node{t: t, URL: run.URL(), Running: run}
	n.Admin = n.Token(ledger.AdminUserID)
	return n
}

// StartOpenNode starts an in-process `ledger serve` without
// authentication, the default of ledger serve, in memory; it returns the
// node's URL.
func StartOpenNode(t testing.TB) string {
	t.Helper()
	IsolateConfig(t)
	run, err := serve.Start(context.Background(), serve.Setup{
		Config: local.Config{DBPath: ":memory:"},
		Server: server.Config{Addr: "127.0.0.1:0"},
	})
	if err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { run.Close() })
	return run.URL()
}

// StartStaticTimeNode starts an in-process `ledger serve --static-time`
// without authentication, in memory: its clock stands at the epoch until
// set. It returns the node's URL.
func StartStaticTimeNode(t testing.TB) string {
	t.Helper()
	IsolateConfig(t)
	clock := node.NewStaticClock(time.Unix(0, 0))
	run, err := serve.Start(context.Background(), serve.Setup{
		Config: local.Config{DBPath: ":memory:", Node: node.Config{Now: clock.Now}},
		Server: server.Config{Addr: "127.0.0.1:0", Clock: clock},
	})
	if err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { run.Close() })
	return run.URL()
}

// Token is a token of user for n, valid for an hour.
func (n *Node) Token(user string) string {
	n.t.Helper()
	tok, err := auth.Mint(Secret, user, time.Hour, "", auth.DefaultParticipantID, time.Now())
	if err != nil {
		n.t.Fatal(err)
	}
	return tok
}

// IsolateConfig keeps the user's profiles and LEDGER_* variables out.
func IsolateConfig(t testing.TB) {
	t.Helper()
	t.Setenv(cmdutil.ConfigEnv, filepath.Join(t.TempDir(), "config.yaml"))
	for _, k := range append(cmdutil.ConnectionKeys, "profile", "key-passphrase") {
		t.Setenv(cmdutil.EnvName(k), "")
	}
}

// Result is one run of the CLI.
type Result struct {
	Out, Err string
	Code     int
}

// Run runs the command tree root builds with args and stdin as the binary
// does, on buffers: an error is printed to Err unless it only carries an
// exit code.
func Run(t testing.TB, root func(*cmdutil.Factory) *cobra.Command, stdin string, args ...string) Result {
	t.Helper()
	ios, in, out, errOut := cmdutil.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: time.Now}
	c := root(f)
	c.SetArgs(args)
	err := c.Execute()
	if err != nil {
		var ee *cmdutil.ExitError
		if !errors.As(err, &ee) || ee.Err != nil {
			fmt.Fprintf(errOut, "error: %s\n", err)
		}
	}
	return Result{Out: out.String(), Err: errOut.String(), Code: cmdutil.ExitCode(err)}
}

// Must fails the test unless the run exited with code.
func (r Result) Must(t testing.TB, code int) Result {
	t.Helper()
	if r.Code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.Code, code, r.Out, r.Err)
	}
	return r
}
