package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A second node on a database in use is refused, naming the holder's pid;
// closing the first releases the database.
func TestOneNodePerDatabase(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "ledger.db")
	first, err := Open(ctx, Config{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, Config{DBPath: db})
	var locked *LockedError
	if !errors.As(err, &locked) || locked.PID != os.Getpid() || locked.DB != db {
		t.Fatalf("second open: %v, want a LockedError naming pid %d", err, os.Getpid())
	}
	if msg := err.Error(); !strings.Contains(msg, db) || !strings.Contains(msg, "pid") {
		t.Errorf("message %q names neither the database nor the pid", msg)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ctx, Config{DBPath: db})
	if err != nil {
		t.Fatalf("open after the first node closed: %v", err)
	}
	_ = again.Close()
	// In-memory databases are private to their node: nothing to lock.
	for range 2 {
		n, err := Open(ctx, Config{DBPath: ":memory:"})
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
	}
}
