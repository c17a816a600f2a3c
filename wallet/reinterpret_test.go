package wallet

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/tamper"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// goldenPackages are the golden transfer's packages, from its DARs.
func goldenPackages(t testing.TB) *Packages {
	t.Helper()
	ps, err := LoadPackages(&Envelope{}, []string{goldenDarDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestReinterpretRefusesEveryChange is the property: one field of one node
// of the golden transfer changed at random — ids, parties, flags,
// versions, children, one leaf of a value — is refused every time: as a
// difference, as code that fails, or (a package id changed) as a package
// nobody can give. Seeded and bounded.
func TestReinterpretRefusesEveryChange(t *testing.T) {
	pt := goldenPrepared(t)
	ps := goldenPackages(t)
	r, err := Reinterpret(context.Background(), pt, ps, hashing.V2)
	if err != nil || !r.Matches() {
		t.Fatalf("the golden transfer: %v %v", err, r.Difference)
	}
	iterations := 150
	if testing.Short() {
		iterations = 20
	}
	start := time.Now()
	refused := 0
	for seed := uint64(1); refused < iterations; seed++ {
		v := proto.Clone(pt).(*damlpb.PreparedTransaction)
		what := tamper.Random(rand.New(rand.NewPCG(seed, 23)), v)
		if what == "" {
			continue
		}
		r, err := Reinterpret(context.Background(), v, ps, hashing.V2)
		var missing *MissingPackagesError
		switch {
		case errors.As(err, &missing):
		case err != nil:
			t.Errorf("seed %d, %s: %v", seed, what, err)
		case r.Matches():
			t.Errorf("seed %d, %s: re-interpreted without a difference", seed, what)
		}
		refused++
	}
	t.Logf("%d random changes refused in %s", refused, time.Since(start).Round(time.Millisecond))
}

// BenchmarkReinterpretGolden re-runs and compares the golden Canton Coin
// transfer with its packages already decoded: authenticating the five
// input contracts, the interpretation, the comparison and the hash.
func BenchmarkReinterpretGolden(b *testing.B) {
	pt := goldenPrepared(b)
	ps := goldenPackages(b)
	if _, err := ps.For(pt); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := Reinterpret(context.Background(), pt, ps, hashing.V2)
		if err != nil || !r.Matches() {
			b.Fatalf("%v %v", err, r.Difference)
		}
	}
}

// BenchmarkVerifyGoldenFromDisk is what ledger verify --dar DIR spends on
// the golden transfer in one process: the DARs read and decoded, the code
// resolved, re-run and compared.
func BenchmarkVerifyGoldenFromDisk(b *testing.B) {
	pt := goldenPrepared(b)
	dir := goldenDarDir(b)
	b.ReportAllocs()
	for b.Loop() {
		ps, err := LoadPackages(&Envelope{}, []string{dir})
		if err != nil {
			b.Fatal(err)
		}
		r, err := Reinterpret(context.Background(), pt, ps, hashing.V2)
		if err != nil || !r.Matches() {
			b.Fatalf("%v %v", err, r.Difference)
		}
	}
}

// TestReinterpretChecksTheHash: the transaction the code made must hash to
// the hash about to be signed; one that does not is a difference, whatever
// the comparison found, and nothing of it is kept for the review.
func TestReinterpretChecksTheHash(t *testing.T) {
	r, err := Reinterpret(context.Background(), goldenPrepared(t), goldenPackages(t), hashing.V2)
	if err != nil || !r.Matches() {
		t.Fatalf("%v %v", err, r.Difference)
	}
	signed := r.Hash
	r.checkHash(signed)
	if !r.Matches() {
		t.Fatalf("the same hash: %v", r.Difference)
	}
	signed[0] ^= 1
	r.checkHash(signed)
	if r.Matches() || r.Transaction != nil || !strings.Contains(r.Difference.String(), "hashes to "+hashing.Hex(r.Hash)) {
		t.Fatalf("another hash: %v", r.Difference)
	}
}
