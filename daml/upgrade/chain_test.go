package upgrade

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
)

// amuletChain reads Canton Coin's real upgrade chain from ../shared/dars:
// splice-amulet 0.1.6, 0.1.8 (inside the wallet test DAR) and 0.1.14, with
// a lookup of every package of the three DARs.
func amuletChain(t *testing.T) ([]*lf.Package, func(lf.PackageID) *lf.Package) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", dir)
	}
	all := map[lf.PackageID]*lf.Package{}
	byVersion := map[string]*lf.Package{}
	for _, name := range []string{"splice-amulet-0.1.6.dar", "splice-wallet-test-0.1.8.dar", "splice-amulet-0.1.14.dar"} {
		d, err := archive.ReadDarFile(filepath.Join(dir, name), archive.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d.Packages {
			all[p.ID] = p
			if p.Name == "splice-amulet" {
				byVersion[p.Version] = p
			}
		}
	}
	var chain []*lf.Package
	for _, v := range []string{"0.1.6", "0.1.8", "0.1.14"} {
		p := byVersion[v]
		if p == nil {
			t.Fatalf("no splice-amulet %s in the DARs", v)
		}
		chain = append(chain, p)
	}
	return chain, func(id lf.PackageID) *lf.Package { return all[id] }
}

// TestAmuletChain: Canton 3.5 accepts Canton Coin's real upgrades though
// they keep exceptions (InvalidTransfer, ...) and interfaces, whose upgrade
// Canton's checker builds an error for but does not raise: 0.1.6 → 0.1.8
// and 0.1.6 → 0.1.14. 0.1.8 → 0.1.14 is refused by Canton's own rule on
// interface instances, which compares interface ids exactly: the wallet
// test DAR's 0.1.8 has Amulet implement Holding of
// splice-api-token-holding-v1 0.0.1, 0.1.14 of 1.0.0.
func TestAmuletChain(t *testing.T) {
	chain, lookup := amuletChain(t)
	v6, v8, v14 := chain[0], chain[1], chain[2]
	for _, c := range []struct {
		past, present *lf.Package
		want          string // a part of the refusal, "" when accepted
	}{
		{v6, v8, ""},
		{v6, v14, ""},
		{v8, v14, "Implementation of interface 0c0515e20aa41fc513684876d6dd810a5e18aa98757b468e0011a769b17cac24:Splice.Api.Token.HoldingV1:Holding by template Amulet appears in package that is being upgraded, but does not appear in this package."},
		// A downgrade loses what was added.
		{v14, v6, "appears in package that is being upgraded, but does not appear in the upgrading package."},
	} {
		err := CheckWith(c.past, c.present, lookup)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s → %s: %v", c.past.Version, c.present.Version, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s → %s: %v, want %q", c.past.Version, c.present.Version, err, c.want)
		}
	}
}
