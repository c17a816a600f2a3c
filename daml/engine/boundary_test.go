package engine

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportBoundary: the engine runs where no node runs (an offline
// signer), so it stands on nothing of the node, the server, the commands
// or the wallet, and on no HTTP or SQL.
func TestImportBoundary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const module = "github.com/ledger-cli/ledger/"
	forbidden := []string{module + "node", module + "server", module + "cmd", module + "wallet", module + "ledgerapi", "net/http", "database/sql"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("daml/engine depends on %s", dep)
			}
		}
	}
}
