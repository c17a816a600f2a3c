package scriptledger

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
)

// A transaction of the node may hold templates of packages the script's
// DAR lacks (a command by package name run with a newer version the node
// has): the ledger fetches them, with their dependencies, from the node.
func TestFetchesPackagesTheDarLacks(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "dars", "splice-wallet-test-0.1.8.dar")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s not found (the shared DARs are beside the repository): %v", path, err)
	}
	ctx := context.Background()
	clock := node.NewStaticClock(time.Unix(0, 0))
	n, err := local.Open(ctx, local.Config{DBPath: ":memory:", Node: node.Config{Now: clock.Now}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := server.Start(ctx, n, server.Config{Addr: "127.0.0.1:0", Clock: clock})
	if err != nil {
		n.Close()
		t.Fatal(err)
	}
	defer run.Close()
	c, err := client.New(client.Config{URL: run.URL(), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.UploadDar(ctx, b, client.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	dar, err := archive.DecodeDar(b, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The script's packages lack splice-amulet and splice-util, which
	// splice-amulet depends on.
	var amulet, util lf.PackageID
	var some []*lf.Package
	for _, p := range dar.Packages {
		switch p.Name {
		case "splice-amulet":
			amulet = p.ID
		case "splice-util":
			util = p.ID
		default:
			some = append(some, p)
		}
	}
	l := New(c, some, "")
	tree := &ledgerapi.TransactionTree{EventsByID: map[string]ledgerapi.TreeEvent{
		"0": {Created: &ledgerapi.CreatedEvent{TemplateID: string(amulet) + ":Splice.Amulet:FeaturedAppRight"}}}}
	if err := l.loadPackages(ctx, tree); err != nil {
		t.Fatal(err)
	}
	if l.types().Package(amulet) == nil || l.types().Package(util) == nil {
		t.Errorf("after loadPackages: splice-amulet %v, splice-util %v", l.types().Package(amulet) != nil, l.types().Package(util) != nil)
	}
	if _, ok := l.types().Template(lf.TypeConName{Package: amulet, Module: lf.SplitDotted("Splice.Amulet"), Name: lf.SplitDotted("FeaturedAppRight")}); !ok {
		t.Error("FeaturedAppRight is not known after loadPackages")
	}
}
