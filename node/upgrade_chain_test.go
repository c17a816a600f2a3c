package node_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
)

// TestAmuletChainUploads uploads Canton Coin's real chain — splice-amulet
// 0.1.6, 0.1.8 (inside splice-wallet-test-0.1.8.dar) and 0.1.14 — in every
// order, vetting each. Canton 3.5 accepts 0.1.6 with either (they keep
// exceptions and interfaces, which its checker does not refuse), and
// refuses to have 0.1.8 and 0.1.14 both vetted: 0.1.14's Amulet no longer
// implements the Holding interface of splice-api-token-holding-v1 0.0.1
// that the wallet test's 0.1.8 implements (it implements 1.0.0's), and
// Canton compares instances by exact interface id. A refused upload stores
// nothing.
func TestAmuletChainUploads(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "dars")
	names := []string{"splice-amulet-0.1.6.dar", "splice-wallet-test-0.1.8.dar", "splice-amulet-0.1.14.dar"}
	dars := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Skipf("real DARs not found at %s (the shared folder beside the repository); skipping", dir)
		}
		dars[n] = b
	}
	conflict := map[string]bool{"splice-wallet-test-0.1.8.dar": true, "splice-amulet-0.1.14.dar": true}
	for _, order := range permutations(names) {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			n, err := local.Open(context.Background(), local.Config{DBPath: ":memory:", Node: node.Config{}})
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			haveConflict := false
			for _, name := range order {
				before := n.ListPackages()
				_, err := n.UploadDar(context.Background(), dars[name], true)
				refused := conflict[name] && haveConflict
				switch {
				case !refused && err != nil:
					t.Fatalf("%s: %v", name, err)
				case refused && (err == nil || !strings.Contains(err.Error(), "NOT_VALID_UPGRADE_PACKAGE") ||
					!strings.Contains(err.Error(), "Splice.Api.Token.HoldingV1:Holding by template Amulet")):
					t.Fatalf("%s: %v, want NOT_VALID_UPGRADE_PACKAGE for Amulet's Holding instance", name, err)
				case refused && !slices.Equal(before, n.ListPackages()):
					t.Fatalf("%s: the refused upload changed the packages", name)
				}
				if !refused {
					haveConflict = haveConflict || conflict[name]
				}
			}
		})
	}
}

func permutations(xs []string) [][]string {
	if len(xs) <= 1 {
		return [][]string{append([]string{}, xs...)}
	}
	var out [][]string
	for i := range xs {
		rest := append(append([]string{}, xs[:i]...), xs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{xs[i]}, p...))
		}
	}
	return out
}
