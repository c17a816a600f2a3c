package upgrade_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/archive/archivetest"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/upgrade"
)

// doublingVersion decodes the main package of Ping made to double forty
// times (archivetest.Doubling) at version.
func doublingVersion(t *testing.T, version string) *lf.Package {
	t.Helper()
	dar := archivetest.Doubling(t, archivetest.SharedDar(t, archivetest.PingDar), 40, version)
	d, err := archive.DecodeDar(dar, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := d.MainPackage()
	if dt := p.Module("Canton.Internal.Ping").DataType("Doubling"); dt == nil || !dt.Serializable {
		t.Fatalf("no serializable Doubling in %s", p.ID)
	}
	return p
}

// TestCheckDoublingTypes: two versions of a package whose record Doubling
// has a field of type t40 (t(i+1) = GenMap t(i) t(i), shared) compare in
// the time of their 82 type nodes; compared as trees, 2^41 leaves each.
func TestCheckDoublingTypes(t *testing.T) {
	past, present := doublingVersion(t, "3.4.0"), doublingVersion(t, "3.4.1")
	start := time.Now()
	if err := upgrade.Check(past, present, nil); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("the check took %v", el)
	}
}

// TestCheckCancelled: a check under an ended context stops with its error.
func TestCheckCancelled(t *testing.T) {
	past, present := doublingVersion(t, "3.4.0"), doublingVersion(t, "3.4.1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := upgrade.CheckContext(ctx, past, present, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}
