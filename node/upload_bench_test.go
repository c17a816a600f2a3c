package node_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
)

// goodDars reads every DAR of ../shared/dars but the two broken ones and
// the two older Canton Coin versions (splice-amulet 0.1.6 and the wallet
// test's 0.1.8), whose vetting beside 0.1.14 TestAmuletChainUploads covers,
// or skips.
func goodDars(tb testing.TB) map[string][]byte {
	tb.Helper()
	dir := filepath.Join("..", "..", "shared", "dars")
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", dir)
	}
	dars := map[string][]byte{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".dar") || e.Name() == "dummy-1.15.dar" || e.Name() == "illformed.dar" ||
			e.Name() == "splice-amulet-0.1.6.dar" || e.Name() == "splice-wallet-test-0.1.8.dar" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		dars[e.Name()] = b
	}
	return dars
}

// uploadAll uploads every DAR to a fresh node on a SQLite file.
func uploadAll(tb testing.TB, dars map[string][]byte) *node.Node {
	n, err := local.Open(context.Background(), local.Config{DBPath: filepath.Join(tb.TempDir(), "ledger.db"), Node: node.Config{AllowDevPackages: true}})
	if err != nil {
		tb.Fatal(err)
	}
	for name, b := range dars {
		if _, err := n.UploadDar(context.Background(), b, true); err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
	}
	return n
}

// TestUploadSharedDars uploads the seventeen good DARs into a fresh node,
// then reopens it: every package is decoded again from the database.
func TestUploadSharedDars(t *testing.T) {
	dars := goodDars(t)
	if len(dars) != 17 {
		t.Fatalf("%d good DARs, want 17", len(dars))
	}
	// Canton accepts Daml-LF 2.dev only in dev mode; so does the node.
	strict, err := local.Open(context.Background(), local.Config{DBPath: ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer strict.Close()
	if _, err := strict.UploadDar(context.Background(), dars["DamlDefinitionsServiceMain.dar"], true); err == nil ||
		!strings.Contains(err.Error(), "ALLOWED_LANGUAGE_VERSIONS") {
		t.Errorf("a 2.dev DAR without AllowDevPackages: %v", err)
	}

	n := uploadAll(t, dars)
	count := len(n.ListPackages())
	db := n.Database()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n, err = local.Open(context.Background(), local.Config{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got := len(n.ListPackages()); got != count || count < 50 {
		t.Fatalf("after reopening: %d packages, before %d", got, count)
	}
}

// BenchmarkUploadSharedDars uploads the seventeen good DARs into a fresh
// node on a SQLite file: decode, dependency and upgrade checks, storage
// with fsync. cpu-ns/op is the process's CPU time per upload of all 17.
func BenchmarkUploadSharedDars(b *testing.B) {
	dars := goodDars(b)
	total := 0
	for _, d := range dars {
		total += len(d)
	}
	b.SetBytes(int64(total))
	start := cpuNanos()
	for b.Loop() {
		n := uploadAll(b, dars)
		b.StopTimer()
		n.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpuNanos()-start)/float64(b.N), "cpu-ns/op")
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
