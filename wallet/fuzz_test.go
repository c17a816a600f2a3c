package wallet

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// FuzzReinterpret feeds prepared transactions made from the golden
// transfer's bytes to the signer's re-interpretation with its packages:
// it must never panic, and whatever it finds exact must hash, re-encoded,
// as the bytes given (the hash signed is the hash of what the code made).
func FuzzReinterpret(f *testing.F) {
	pt := goldenPrepared(f)
	seed, err := proto.Marshal(pt)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	ps := goldenPackages(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var v damlpb.PreparedTransaction
		if proto.Unmarshal(b, &v) != nil {
			return
		}
		// Code that runs long is bounded by interp's budget; the fuzzer
		// gives it a second.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r, err := Reinterpret(ctx, &v, ps, hashing.V2)
		var missing *MissingPackagesError
		if errors.As(err, &missing) || err != nil {
			return
		}
		if !r.Matches() {
			return
		}
		sum, err := hashing.Sum(b, hashing.V2)
		if err != nil {
			// The hasher refuses what the comparison let through: the
			// signer refuses it at the hash check.
			return
		}
		if sum != r.Hash {
			t.Fatalf("re-interpreted exactly, but the code's transaction hashes to %x and the bytes to %x", r.Hash, sum)
		}
	})
}
