package cmd

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive/archivetest"
)

// TestDarsInspectHostile: inspecting a DAR whose choice argument and
// record field have a type that doubles forty times prints at once, in
// bounded text and memory (written out, the type has 2^41 leaves); a zero
// bomb is refused naming the limit, with the node's limits.
func TestDarsInspectHostile(t *testing.T) {
	isolateConfig(t)
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	dir := t.TempDir()
	doubling := filepath.Join(dir, "doubling.dar")
	if err := os.WriteFile(doubling, archivetest.Doubling(t, ping, 40, "3.5.0"), 0o600); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for _, format := range []string{"table", "json"} {
		r := runCLI(t, "", "dars", "inspect", doubling, "-o", format).must(t, 0)
		if len(r.out) > 64<<10 || !strings.Contains(r.out, "Respond") {
			t.Errorf("-o %s: %d bytes of output", format, len(r.out))
		}
	}
	runtime.ReadMemStats(&after)
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("inspect took %v", el)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("inspect allocated %d bytes", alloc)
	}

	bomb := filepath.Join(dir, "bomb.dar")
	if err := os.WriteFile(bomb, archivetest.ZeroBomb(t, ping, 256<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "dars", "inspect", bomb).must(t, 1)
	if !strings.Contains(r.err, "MaxCompressionRatio") {
		t.Errorf("the zero bomb's error: %s", r.err)
	}
}
