package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/tamper"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// goldenHash is the hash Canton gave the golden transfer (V2), the second
// column of its vector.
const goldenHash = "d809b25f13b05cc6b4c5a69a513c19245c412b81a22fe223767f4591335650bd"

// TestGoldenReinterpretsExactly is issue 23's heart: the real Canton Coin
// transfer Canton prepared, re-interpreted offline from its root command
// (act_as, the root's seed, the preparation time, the five input
// contracts as their blobs describe them, splice-amulet 0.1.14 with the
// ExternalPartyAmuletRules created under 0.1.6) is the prepared
// transaction node for node and field for field, with the same seeds,
// input contracts and ledger-time bounds, and hashes to Canton's hash.
// Each tampered variant of it (the hash recomputed, so a hash check alone
// passes) is refused, named by node and field.
func TestGoldenReinterpretsExactly(t *testing.T) {
	set, pt := amuletSet(t), golden(t)
	r := reinterpretOffline(t, set, pt)
	if r.err != nil || r.Difference != nil {
		t.Fatalf("the golden transfer: %v %v", r.err, r.Difference)
	}
	again := &damlpb.PreparedTransaction{Transaction: r.Transaction, Metadata: pt.GetMetadata()}
	sum, err := hashing.HashMessage(again, hashing.V2)
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(sum[:]) != goldenHash {
		t.Errorf("the re-interpreted transaction hashes to %x, Canton's hash is %s", sum, goldenHash)
	}

	variants, err := tamper.Golden(pt)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		r := reinterpretOffline(t, set, v.Prepared)
		var said string
		switch {
		case r.err != nil:
			said = r.err.Error()
		case r.Difference != nil:
			said = r.Difference.String()
			if r.Difference.NodeID != v.Node {
				t.Errorf("%s: the difference is at node %q, want node %q: %s", v.Name, r.Difference.NodeID, v.Node, said)
			}
		default:
			t.Errorf("%s: re-interpreted without a difference", v.Name)
			continue
		}
		for _, w := range v.Words {
			if !strings.Contains(said, w) {
				t.Errorf("%s: %q does not say %q", v.Name, said, w)
			}
		}
		t.Logf("%s: %s", v.Name, said)
	}
}

// offlineOutcome is a re-interpretation from the metadata alone, or why
// its input contracts were refused.
type offlineOutcome struct {
	*Reinterpreted
	err error
}

func reinterpretOffline(t testing.TB, set *PackageSet, pt *damlpb.PreparedTransaction) offlineOutcome {
	t.Helper()
	inputs, err := InputContracts(pt.GetMetadata(), set)
	var ie *InputContractError
	if errors.As(err, &ie) {
		return offlineOutcome{err: err}
	}
	if err != nil {
		t.Fatal(err)
	}
	r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: set, Inputs: inputs})
	if err != nil {
		return offlineOutcome{err: err}
	}
	return offlineOutcome{Reinterpreted: r}
}
