package hashing_test

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/internal/txgen"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// BenchmarkProtoUnmarshal decodes the large transaction with protobuf-go:
// the cost of only reading what the hasher reads and encodes.
func BenchmarkProtoUnmarshal(b *testing.B) {
	raw, _ := proto.Marshal(txgen.Generate(rand.New(rand.NewPCG(42, 42)), txgen.Large()))
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		var pt damlpb.PreparedTransaction
		if err := proto.Unmarshal(raw, &pt); err != nil {
			b.Fatal(err)
		}
	}
}
