package script

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
)

// sharedDar reads a DAR of ../shared/dars, skipping when it is absent.
func sharedDar(t testing.TB, name string) *archive.Dar {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "dars", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found (the shared DARs are beside the repository): %v", path, err)
	}
	dar, err := archive.ReadDarFile(path, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return dar
}

func newRunner(t testing.TB, dar *archive.Dar) *Runner {
	t.Helper()
	r, err := New(dar.Packages, dar.Main, interp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSpliceWalletScripts(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	r := newRunner(t, dar)
	scripts := r.Scripts()
	if len(scripts) != 20 {
		t.Errorf("found %d scripts, want 20: %v", len(scripts), scripts)
	}
	for _, name := range scripts {
		start := time.Now()
		res, err := r.Run(context.Background(), name, NewMemoryLedger(r), Options{})
		if err != nil {
			t.Errorf("%s: %v", name.Module.String()+":"+name.Name.String(), err)
			continue
		}
		t.Logf("%s: ok, %d commands, %d steps, %v", name.Name, res.Commands, res.Steps, time.Since(start))
	}
}
