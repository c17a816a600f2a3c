package hashing_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
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

// Node ids are not hashed, so renumbering them consistently keeps the hash.
// Dense ids are looked up in a slice, sparse ones in a map; both must agree,
// and both must refuse an id used twice.
func TestNodeIDIndexes(t *testing.T) {
	pt := txgen.Generate(rand.New(rand.NewPCG(21, 21)), txgen.Medium())
	want, err := hashing.Sum(marshal(t, pt), hashing.V2)
	if err != nil {
		t.Fatal(err)
	}
	sparse := proto.Clone(pt).(*damlpb.PreparedTransaction)
	renumber(t, sparse, func(id int) int { return id*1000 + 7 })
	if got, err := hashing.Sum(marshal(t, sparse), hashing.V2); err != nil || got != want {
		t.Fatalf("sparse ids: hash %x (err %v), want %x", got, err, want)
	}
	for name, tx := range map[string]*damlpb.PreparedTransaction{"dense": pt, "sparse": sparse} {
		dup := proto.Clone(tx).(*damlpb.PreparedTransaction)
		nodes := dup.Transaction.Nodes
		nodes[len(nodes)-1].NodeId = nodes[0].NodeId
		_, err := hashing.Sum(marshal(t, dup), hashing.V2)
		if err == nil || !strings.Contains(err.Error(), "used by more than one node") {
			t.Errorf("%s ids, one used twice: error %v", name, err)
		}
	}
}

// renumber maps every node id of pt through f.
func renumber(t *testing.T, pt *damlpb.PreparedTransaction, f func(int) int) {
	t.Helper()
	conv := func(s string) string {
		id, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return strconv.Itoa(f(id))
	}
	tx := pt.Transaction
	for i, r := range tx.Roots {
		tx.Roots[i] = conv(r)
	}
	for _, n := range tx.Nodes {
		n.NodeId = conv(n.NodeId)
		if ex := n.GetV1().GetExercise(); ex != nil {
			for i, c := range ex.Children {
				ex.Children[i] = conv(c)
			}
		}
		if rb := n.GetV1().GetRollback(); rb != nil {
			for i, c := range rb.Children {
				rb.Children[i] = conv(c)
			}
		}
	}
	for _, s := range tx.NodeSeeds {
		s.NodeId = int32(f(int(s.NodeId)))
	}
}

// BenchmarkPlanSubtrees measures the part of a parallel hash that the
// workers cannot share: indexing the nodes, weighing the tree and picking
// the subtrees of the large transaction.
func BenchmarkPlanSubtrees(b *testing.B) {
	in := benchInputs(b, hashing.V2)[2]
	cpu := processCPU()
	for b.Loop() {
		if hashing.PlanOnly(in.raw, hashing.V2, 2) == 0 {
			b.Fatal("no subtrees picked")
		}
	}
	reportCPU(b, cpu)
}
