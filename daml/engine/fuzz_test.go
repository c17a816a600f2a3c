package engine

import (
	"context"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

var (
	fuzzOnce sync.Once
	fuzzSet  *PackageSet
)

// FuzzReinterpret: whatever prepared transaction a preparing node sends —
// here the Ping flow and the golden Canton Coin transfer, mutated — its
// input contracts are authenticated and its roots re-interpreted with an
// answer or an error, never a panic, within the interpreter's limits.
func FuzzReinterpret(f *testing.F) {
	set, ping := pingFlow(f)
	amulet := amuletSet(f)
	fuzzOnce.Do(func() {
		var pkgs []*lf.Package
		pkgs = append(pkgs, set.Env.Packages()...)
		pkgs = append(pkgs, amulet.Env.Packages()...)
		fuzzSet = PackageSetOf(pkgs...)
	})
	for _, pt := range []*damlpb.PreparedTransaction{ping, golden(f)} {
		b, err := proto.Marshal(pt)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pt := &damlpb.PreparedTransaction{}
		if proto.Unmarshal(b, pt) != nil {
			return
		}
		inputs, err := InputContracts(pt.GetMetadata(), fuzzSet)
		if err != nil {
			inputs = nil
		}
		r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: fuzzSet, Inputs: inputs,
			Limits: interp.Limits{Steps: 1_000_000, Memory: 64 << 20}})
		if err == nil && r.Difference != nil {
			_ = r.Difference.String() + r.Difference.Reason()
		}
	})
}
