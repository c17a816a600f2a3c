package ledgertime_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
)

// startNode starts ledger serve in process without authentication, with
// static time when static.
func startNode(t *testing.T, static bool) string {
	t.Helper()
	t.Setenv(cmdutil.ConfigEnv, filepath.Join(t.TempDir(), "config.yaml"))
	for _, k := range append(cmdutil.ConnectionKeys, "profile") {
		t.Setenv(cmdutil.EnvName(k), "")
	}
	nc := local.Config{DBPath: filepath.Join(t.TempDir(), "ledger.db")}
	sc := server.Config{Addr: "127.0.0.1:0"}
	if static {
		clock := node.NewStaticClock(time.Unix(0, 0))
		nc.Node.Now, sc.Clock = clock.Now, clock
	}
	n, err := local.Open(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	run, err := server.Start(context.Background(), n, sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	return run.URL()
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ios, _, out, errOut := cmdutil.Test()
	root := cmd.NewCmdRoot(&cmdutil.Factory{IO: ios, Config: viper.New(), Now: time.Now})
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		var ee *cmdutil.ExitError
		if !errors.As(err, &ee) || ee.Err != nil {
			fmt.Fprintf(errOut, "error: %s\n", err)
		}
	}
	return out.String(), errOut.String(), cmdutil.ExitCode(err)
}

func TestTimeGetSetAdvance(t *testing.T) {
	url := startNode(t, true)
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{"time", "get"}, "1970-01-01T00:00:00Z\n"},
		{[]string{"time", "set", "2026-01-01T00:00:00Z"}, "2026-01-01T00:00:00Z\n"},
		{[]string{"time", "advance", "36h"}, "2026-01-02T12:00:00Z\n"},
		{[]string{"time", "get", "-o", "json"}, "{\n  \"currentTime\": \"2026-01-02T12:00:00Z\"\n}\n"},
	} {
		out, errOut, code := runCLI(t, append(c.args, "--url", url)...)
		if code != 0 || out != c.out {
			t.Errorf("%v: exit %d, %q (stderr %q), want %q", c.args, code, out, errOut, c.out)
		}
	}
	// Never back.
	_, errOut, code := runCLI(t, "time", "set", "2025-01-01T00:00:00Z", "--url", url)
	if code != 1 || !strings.Contains(errOut, "static time only moves forward") {
		t.Errorf("set back: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "time", "advance", "--url", url, "--", "-1h")
	if code != 2 || !strings.Contains(errOut, "give a duration that is not negative") {
		t.Errorf("advance -1h: exit %d, %q", code, errOut)
	}
}

func TestTimeOnWallClockNode(t *testing.T) {
	url := startNode(t, false)
	_, errOut, code := runCLI(t, "time", "get", "--url", url)
	if code != 1 || !strings.Contains(errOut, "the node has no settable clock (GET /v2/testing/time answered 404): start it with ledger serve --static-time") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}
