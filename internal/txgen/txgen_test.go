package txgen

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

func marshal(t testing.TB, pt *damlpb.PreparedTransaction) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x7478)) }

// TestGeneratedTransactionsHash is the generator's contract: whatever it
// makes, the strict hasher accepts.
func TestGeneratedTransactionsHash(t *testing.T) {
	cases := []struct {
		name    string
		opts    Options
		n       int
		schemes []hashing.Scheme
	}{
		{"small", Small(), 1000, []hashing.Scheme{hashing.V2, hashing.V3}},
		{"few nodes", Options{Nodes: 6}, 1500, []hashing.Scheme{hashing.V2, hashing.V3}},
		{"medium", Medium(), 300, []hashing.Scheme{hashing.V2, hashing.V3}},
		{"safe int64", Options{Nodes: 20, SafeInt64: true}, 300, []hashing.Scheme{hashing.V2}},
		{"deep", Options{Nodes: 10, MaxDepth: 100}, 100, []hashing.Scheme{hashing.V2}},
		{"v3 small", Options{Nodes: 1, V3Features: true}, 300, []hashing.Scheme{hashing.V3}},
		{"v3 features", Options{Nodes: 30, MaxDepth: 6, V3Features: true}, 700, []hashing.Scheme{hashing.V3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i := range c.n {
				pt := Generate(rng(uint64(i)), c.opts)
				b := marshal(t, pt)
				for _, s := range c.schemes {
					if _, err := hashing.Sum(b, s); err != nil {
						t.Fatalf("seed %d, %s: %v", i, s.Short(), err)
					}
				}
				if c.opts.V3Features && usesV3(pt) {
					if _, err := hashing.Sum(b, hashing.V2); err == nil {
						t.Fatalf("seed %d: a transaction with V3 features hashed under V2", i)
					}
				}
			}
		})
	}
}

// usesV3 reports whether pt has a node V2 cannot hash.
func usesV3(pt *damlpb.PreparedTransaction) bool {
	for _, n := range pt.GetTransaction().GetNodes() {
		v1 := n.GetV1()
		if v1.GetCreate().GetLfVersion() == lfV2 || v1.GetFetch().GetLfVersion() == lfV2 ||
			v1.GetExercise().GetLfVersion() == lfV2 || v1.GetQueryByKey() != nil {
			return true
		}
	}
	return false
}

func TestPresets(t *testing.T) {
	t.Run("small is one create node", func(t *testing.T) {
		for i := range 50 {
			tx := Generate(rng(uint64(i)), Small()).GetTransaction()
			if len(tx.Nodes) != 1 || len(tx.Roots) != 1 || tx.Nodes[0].GetV1().GetCreate() == nil {
				t.Fatalf("seed %d: want one create node, got %d nodes", i, len(tx.Nodes))
			}
		}
	})
	for _, c := range []struct {
		name     string
		opts     Options
		min, max int
	}{
		{"medium", Medium(), 100, 100},
		{"large", Large(), 5000, 5000},
	} {
		t.Run(c.name, func(t *testing.T) {
			pt := Generate(rng(1), c.opts)
			if n := len(pt.GetTransaction().GetNodes()); n < c.min || n > c.max {
				t.Errorf("%d nodes, want %d to %d", n, c.min, c.max)
			}
			if d := ValueDepth(pt); d != c.opts.MaxDepth {
				t.Errorf("deepest value has depth %d, want MaxDepth %d", d, c.opts.MaxDepth)
			}
			if _, err := hashing.Sum(marshal(t, pt), hashing.V2); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSizedBytes(t *testing.T) {
	for _, n := range []int{50_000, 1 << 20, 10 << 20} {
		if n > 1<<20 && testing.Short() {
			continue
		}
		b := marshal(t, Generate(rng(7), SizedBytes(n)))
		if got := len(b); math.Abs(float64(got-n)) > 0.05*float64(n) {
			t.Errorf("SizedBytes(%d) serialized to %d bytes, more than 5%% off", n, got)
		}
		if _, err := hashing.Sum(b, hashing.V2); err != nil {
			t.Errorf("SizedBytes(%d): %v", n, err)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, opts := range []Options{Small(), Medium(), {Nodes: 40, V3Features: true}, SizedBytes(100_000)} {
		a := marshal(t, Generate(rng(42), opts))
		b := marshal(t, Generate(rng(42), opts))
		c := marshal(t, Generate(rng(43), opts))
		if !bytes.Equal(a, b) {
			t.Errorf("%+v: the same seed gave different transactions", opts)
		}
		if bytes.Equal(a, c) {
			t.Errorf("%+v: different seeds gave the same transaction", opts)
		}
	}
}

// TestCoverage checks that a modest batch exercises every Value kind, every
// node kind, the int64 edges and multi-byte text.
func TestCoverage(t *testing.T) {
	kinds := map[string]bool{}
	var minInt, maxInt, unsafe, fourByte, emptyOptional bool
	nodes := map[string]bool{}
	for i := range 200 {
		pt := Generate(rng(uint64(i)), Options{Nodes: 30, V3Features: i%2 == 0})
		WalkValues(pt, func(v *damlpb.Value) {
			switch s := v.Sum.(type) {
			case *damlpb.Value_Int64:
				minInt = minInt || s.Int64 == math.MinInt64
				maxInt = maxInt || s.Int64 == math.MaxInt64
				unsafe = unsafe || s.Int64 > maxSafe || s.Int64 < -maxSafe
			case *damlpb.Value_Text:
				for _, r := range s.Text {
					fourByte = fourByte || utf8.RuneLen(r) == 4
				}
			case *damlpb.Value_Optional:
				emptyOptional = emptyOptional || s.Optional.Value == nil
			}
			kinds[string(v.ProtoReflect().WhichOneof(v.ProtoReflect().Descriptor().Oneofs().ByName("sum")).Name())] = true
		})
		for _, n := range pt.GetTransaction().GetNodes() {
			v1 := n.GetV1().ProtoReflect()
			nodes[string(v1.WhichOneof(v1.Descriptor().Oneofs().ByName("node_type")).Name())] = true
		}
	}
	if len(kinds) != 16 {
		t.Errorf("saw %d of 16 Value kinds: %v", len(kinds), kinds)
	}
	if len(nodes) != 5 {
		t.Errorf("saw %d of 5 node kinds: %v", len(nodes), nodes)
	}
	if !minInt || !maxInt || !unsafe || !fourByte || !emptyOptional {
		t.Errorf("int64 min %v, max %v, beyond 2^53 %v, 4-byte UTF-8 %v, empty optional %v", minInt, maxInt, unsafe, fourByte, emptyOptional)
	}
}

func TestSafeInt64(t *testing.T) {
	for i := range 300 {
		pt := Generate(rng(uint64(i)), Options{Nodes: 20, SafeInt64: true})
		if HasUnsafeInt64(pt) {
			t.Fatalf("seed %d: SafeInt64 transaction has an int64 beyond 2^53", i)
		}
	}
}

func BenchmarkGenerateMedium(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Generate(rng(uint64(i)), Medium())
	}
}
