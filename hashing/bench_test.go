package hashing_test

import (
	"crypto/sha256"
	"math/rand/v2"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/txgen"
)

type benchInput struct {
	name string
	raw  []byte
	pre  int // preimage bytes per hash
}

var benchInputs = func() func(testing.TB, hashing.Scheme) []benchInput {
	return func(tb testing.TB, s hashing.Scheme) []benchInput {
		var out []benchInput
		for _, c := range []struct {
			name string
			opts txgen.Options
		}{{"small", txgen.Small()}, {"medium", txgen.Medium()}, {"large", txgen.Large()}} {
			opts := c.opts
			opts.V3Features = s == hashing.V3
			pt := txgen.Generate(rand.New(rand.NewPCG(42, 42)), opts)
			raw, err := proto.Marshal(pt)
			if err != nil {
				tb.Fatal(err)
			}
			res, err := hashing.Compute(raw, s, hashing.Options{})
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, benchInput{c.name, raw, res.PreimageBytes})
		}
		// Collect the generator's garbage now, not inside a timed loop.
		runtime.GC()
		return out
	}
}()

func benchHash(b *testing.B, s hashing.Scheme) {
	for _, in := range benchInputs(b, s) {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(in.pre))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if _, err := hashing.Sum(in.raw, s); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(len(in.raw)), "proto-bytes")
		})
	}
}

// BenchmarkHashV2 reports throughput in preimage bytes/s.
func BenchmarkHashV2(b *testing.B) { benchHash(b, hashing.V2) }

// BenchmarkHashV3 reports throughput in preimage bytes/s.
func BenchmarkHashV3(b *testing.B) { benchHash(b, hashing.V3) }

// BenchmarkSHA256 is plain SHA-256 over as many bytes as the V2 preimages of
// each input: the floor the encoder is measured against.
func BenchmarkSHA256(b *testing.B) {
	for _, in := range benchInputs(b, hashing.V2) {
		buf := make([]byte, in.pre)
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(in.pre))
			cpu := processCPU()
			for b.Loop() {
				sha256.Sum256(buf)
			}
			reportCPU(b, cpu)
		})
	}
}

// reportCPU adds the process CPU time per operation since start, in
// nanoseconds: with -cpu 1 on a machine shared with other jobs it is a
// steadier measure than ns/op, which also counts time spent waiting for a
// core.
func reportCPU(b *testing.B, start int64) {
	if end := processCPU(); end > start && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// TestMemoryBound10MB checks that hashing a 10 MB prepared transaction
// allocates less than three times its size, so that with the input itself
// the peak stays under four times the size.
func TestMemoryBound10MB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10 MB transaction")
	}
	pt := txgen.Generate(rand.New(rand.NewPCG(7, 7)), txgen.SizedBytes(10<<20))
	raw, err := proto.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	pt = nil
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := hashing.Sum(raw, hashing.V2); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("input %d bytes, allocated while hashing %d bytes (%.2fx)", len(raw), allocated, float64(allocated)/float64(len(raw)))
	if allocated > 3*uint64(len(raw)) {
		t.Fatalf("hashing allocated %d bytes for a %d-byte input: over 3x", allocated, len(raw))
	}
}
