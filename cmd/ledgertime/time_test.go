package ledgertime_test

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/cmd"
	"github.com/ledger-cli/ledger/cmd/internal/cmdtest"
)

// startNode starts ledger serve in process without authentication, in
// memory, on static time when static.
func startNode(t *testing.T, static bool) string {
	t.Helper()
	if static {
		return cmdtest.StartStaticTimeNode(t)
	}
	return cmdtest.StartOpenNode(t)
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmd.NewCmdRoot, "", args...)
	return r.Out, r.Err, r.Code
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
