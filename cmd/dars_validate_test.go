package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/internal/dalfedit"
)

// TestDarsValidateOffline type-checks DARs with no node: the real Ping DAR
// is well typed; the same DAR with Respond declared to return Int64 is
// refused with DAR_VALIDATION_ERROR and the checker's message; a 2.dev DAR
// needs --allow-lf-dev, as on a node.
func TestDarsValidateOffline(t *testing.T) {
	isolateConfig(t)
	r := runCLI(t, "", "dars", "validate", "--offline", pingDarPath).must(t, 0)
	if !strings.Contains(r.out, "well typed (canton-builtin-admin-workflow-ping 3.4.0") {
		t.Errorf("ping: %s", r.out)
	}
	ping, err := os.ReadFile(pingDarPath)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := dalfedit.EditMainDalf(ping, func(p *dalfedit.Package) error {
		return p.SetChoiceReturnType("Canton.Internal.Ping", "Ping", "Respond", dalfedit.Builtin(dalfedit.BuiltinInt64))
	})
	if err != nil {
		t.Fatal(err)
	}
	badPath := filepath.Join(t.TempDir(), "bad.dar")
	if err := os.WriteFile(badPath, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", "dars", "validate", "--offline", badPath).must(t, 1)
	for _, want := range []string{"bad.dar", "DAR_VALIDATION_ERROR", "validation error in", "type mismatch"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("refusal lacks %q: %s", want, r.err)
		}
	}
	runCLI(t, "", "dars", "validate", "--allow-lf-dev", pingDarPath).must(t, 2)

	dev := filepath.Join("..", "..", "shared", "dars", "DamlDefinitionsServiceMain.dar")
	if _, err := os.Stat(dev); err != nil {
		t.Skipf("real DARs not found beside the repository (%s); skipping the 2.dev case", dev)
	}
	r = runCLI(t, "", "dars", "validate", "--offline", dev).must(t, 1)
	if !strings.Contains(r.err, "--allow-lf-dev") {
		t.Errorf("2.dev without the flag: %s", r.err)
	}
	runCLI(t, "", "dars", "validate", "--offline", "--allow-lf-dev", dev).must(t, 0)
}
