package node_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive/archivetest"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
)

func openNode(t *testing.T) *node.Node {
	t.Helper()
	n, err := local.Open(context.Background(), local.Config{DBPath: filepath.Join(t.TempDir(), "ledger.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// TestUploadCancelled: an upload whose request has ended stops with the
// context's error — while decoding, before the upgrade check, or during
// it — and stores nothing.
func TestUploadCancelled(t *testing.T) {
	n := openNode(t)
	amulet := archivetest.SharedDar(t, "splice-amulet-0.1.14.dar")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := n.UploadDar(ctx, amulet, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if ids := n.ListPackages(); len(ids) != 0 {
		t.Fatalf("%d packages stored", len(ids))
	}
	// A deadline during the decoding of 37 dalfs (about 40 ms of CPU).
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := n.UploadDar(ctx, amulet, true); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want context.DeadlineExceeded (or none, on a very fast machine)", err)
	}
}

// TestUploadSecondDoublingVersion: the second version of a package whose
// record has a field of a type doubling forty times is upgrade-checked at
// once (compared as trees, 2^41 leaves a side).
func TestUploadSecondDoublingVersion(t *testing.T) {
	n := openNode(t)
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	if _, err := n.UploadDar(context.Background(), archivetest.Doubling(t, ping, 40, "3.5.0"), true); err != nil {
		t.Fatal(err)
	}
	v2 := archivetest.Doubling(t, ping, 40, "3.6.0")
	start := time.Now()
	if _, err := n.UploadDar(context.Background(), v2, true); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("the second version took %v", el)
	}
}
