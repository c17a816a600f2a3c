package hashing_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/txgen"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// largeTransaction is big enough for Compute to split it across cores.
func largeTransaction(t *testing.T, seed uint64, v3 bool) *damlpb.PreparedTransaction {
	t.Helper()
	opts := txgen.SizedBytes(1 << 20)
	opts.V3Features = v3
	return txgen.Generate(rand.New(rand.NewPCG(seed, seed)), opts)
}

func marshal(t *testing.T, pt *damlpb.PreparedTransaction) []byte {
	t.Helper()
	raw, err := proto.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// sequential hashes in one goroutine: asking for node hashes turns the
// parallel path off.
func sequential(t *testing.T, raw []byte, s hashing.Scheme) (*hashing.Result, error) {
	t.Helper()
	return hashing.Compute(raw, s, hashing.Options{NodeHashes: true})
}

// withProcs runs f with GOMAXPROCS set to n, so that the parallel path is
// taken even on a one-core machine.
func withProcs(t *testing.T, n int) {
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

func TestParallelMatchesSequential(t *testing.T) {
	withProcs(t, 4)
	for _, s := range []hashing.Scheme{hashing.V2, hashing.V3} {
		for seed := uint64(1); seed <= 3; seed++ {
			raw := marshal(t, largeTransaction(t, seed, s == hashing.V3))
			split, err := hashing.SplitsSubtrees(raw, s, 4)
			if err != nil || !split {
				t.Fatalf("%s seed %d: the transaction was not split across workers (err %v)", s, seed, err)
			}
			want, err := sequential(t, raw, s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := hashing.Compute(raw, s, hashing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Hash != want.Hash || got.TransactionHash != want.TransactionHash || got.MetadataHash != want.MetadataHash {
				t.Errorf("%s seed %d: parallel hash %x, sequential %x", s, seed, got.Hash, want.Hash)
			}
			if got.PreimageBytes != want.PreimageBytes {
				t.Errorf("%s seed %d: parallel counted %d preimage bytes, sequential %d", s, seed, got.PreimageBytes, want.PreimageBytes)
			}
		}
	}
}

// A fault deep in one subtree must give the error the sequential hasher
// gives, whichever worker meets it first.
func TestParallelErrorsAreSequentialErrors(t *testing.T) {
	withProcs(t, 4)
	pt := largeTransaction(t, 9, false)
	var creates []*damlpb.DamlTransaction_Node
	for _, n := range pt.Transaction.Nodes {
		if n.GetV1().GetCreate() != nil {
			creates = append(creates, n)
		}
	}
	if len(creates) < 3 {
		t.Fatalf("generated transaction has %d create nodes", len(creates))
	}
	// Break two nodes far apart, so that two workers may fail at once.
	creates[1].GetV1().GetCreate().ContractId = "not-hex"
	creates[len(creates)-1].GetV1().GetCreate().ContractId = "00abc"
	raw := marshal(t, pt)
	_, want := sequential(t, raw, hashing.V2)
	if want == nil {
		t.Fatal("the sequential hasher accepted a broken transaction")
	}
	for range 20 {
		_, err := hashing.Compute(raw, hashing.V2, hashing.Options{})
		if err == nil || err.Error() != want.Error() {
			t.Fatalf("parallel error %v, sequential error %v", err, want)
		}
	}
}

// Shapes that are not a proper tree are left to the sequential hasher, with
// its warnings and errors.
func TestParallelLeavesNonTreesToSequential(t *testing.T) {
	withProcs(t, 4)

	t.Run("node reached twice", func(t *testing.T) {
		pt := largeTransaction(t, 11, false)
		pt.Transaction.Roots = append(pt.Transaction.Roots, pt.Transaction.Roots[0])
		raw := marshal(t, pt)
		if split, _ := hashing.SplitsSubtrees(raw, hashing.V2, 4); split {
			t.Fatal("a transaction with a node reached twice was split")
		}
		want, err := sequential(t, raw, hashing.V2)
		if err != nil {
			t.Fatal(err)
		}
		got, err := hashing.Compute(raw, hashing.V2, hashing.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Hash != want.Hash || !slices.Equal(got.Warnings, want.Warnings) || len(got.Warnings) == 0 {
			t.Fatalf("hash %x warnings %q; sequential: hash %x warnings %q", got.Hash, got.Warnings, want.Hash, want.Warnings)
		}
	})

	t.Run("unreachable node", func(t *testing.T) {
		pt := largeTransaction(t, 12, false)
		pt.Transaction.Roots = pt.Transaction.Roots[1:]
		raw := marshal(t, pt)
		_, want := sequential(t, raw, hashing.V2)
		_, err := hashing.Compute(raw, hashing.V2, hashing.Options{})
		if want == nil || err == nil || err.Error() != want.Error() {
			t.Fatalf("parallel error %v, sequential error %v", err, want)
		}
	})
}

// The metadata is hashed beside the subtrees; a fault in it, or in it and a
// node at once, must still give the sequential hasher's error.
func TestParallelMetadataErrors(t *testing.T) {
	withProcs(t, 4)
	for _, alsoNode := range []bool{false, true} {
		pt := largeTransaction(t, 13, false)
		inputs := pt.Metadata.GetInputContracts()
		if len(inputs) == 0 {
			t.Fatal("generated transaction has no input contracts")
		}
		inputs[len(inputs)-1].GetV1().ContractId = "0"
		if alsoNode {
			for _, n := range pt.Transaction.Nodes {
				if c := n.GetV1().GetCreate(); c != nil {
					c.ContractId = "xy"
				}
			}
		}
		raw := marshal(t, pt)
		_, want := sequential(t, raw, hashing.V2)
		if want == nil {
			t.Fatal("the sequential hasher accepted a broken input contract")
		}
		for range 10 {
			if _, err := hashing.Compute(raw, hashing.V2, hashing.Options{}); err == nil || err.Error() != want.Error() {
				t.Fatalf("node fault too: %v: parallel error %v, sequential error %v", alsoNode, err, want)
			}
		}
	}
}
