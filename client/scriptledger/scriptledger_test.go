package scriptledger

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/ledgerapi"
)

func TestSleep(t *testing.T) {
	l := &Ledger{}
	start := time.Now()
	if err := l.Sleep(context.Background(), 20*time.Millisecond); err != nil || time.Since(start) < 20*time.Millisecond {
		t.Errorf("Sleep(20ms) = %v after %s", err, time.Since(start))
	}
	if err := l.Sleep(context.Background(), 2*time.Hour); err == nil || !strings.Contains(err.Error(), "longer than 1h0m0s") {
		t.Errorf("Sleep(2h) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Sleep(ctx, time.Minute); err != context.Canceled {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
}

// A command the script made by package name (createCmd) goes to the node
// as "#name:Module:Entity"; an exact one keeps its package id.
func TestCommandByPackageName(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "dars", "splice-wallet-test-0.1.8.dar")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found (the shared DARs are beside the repository): %v", path, err)
	}
	dar, err := archive.ReadDarFile(path, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var amulet lf.PackageID
	for _, p := range dar.Packages {
		if p.Name == "splice-amulet" {
			amulet = p.ID
		}
	}
	l := New(nil, dar.Packages, "")
	id := string(amulet) + ":Splice.Amulet:FeaturedAppRight"
	c := ledgerapi.Command{Exercise: &ledgerapi.ExerciseCommand{TemplateID: id}}
	l.byPackageName(&c)
	if c.Exercise.TemplateID != "#splice-amulet:Splice.Amulet:FeaturedAppRight" {
		t.Errorf("by name: %s", c.Exercise.TemplateID)
	}
	c = ledgerapi.Command{Create: &ledgerapi.CreateCommand{TemplateID: "00ab:Unknown:T"}}
	l.byPackageName(&c)
	if c.Create.TemplateID != "00ab:Unknown:T" {
		t.Errorf("a package the runner lacks: %s", c.Create.TemplateID)
	}
}
