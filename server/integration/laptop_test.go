package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSecondServeOnOneDatabase: a second `ledger serve` on a database in use
// refuses to start and names the process that holds it; once the holder is
// killed with SIGKILL the database is free again.
func TestSecondServeOnOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ledger serve as a process")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ledger.db")
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, testSecret, 0o600); err != nil {
		t.Fatal(err)
	}
	holder := startProcess(t, db, secretFile)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "serve", "--db", db, "--addr", "127.0.0.1:0",
		"--port-file", filepath.Join(dir, "port2")).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("second ledger serve on %s: %v (it should refuse at once); output:\n%s", db, err, out)
	}
	if want := fmt.Sprintf("pid %d", holder.cmd.Process.Pid); !strings.Contains(string(out), want) {
		t.Errorf("the refusal does not name the holder (%s):\n%s", want, out)
	}

	if err := holder.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = holder.cmd.Wait()
	after := startProcess(t, db, secretFile)
	if err := after.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = after.cmd.Wait()
}
