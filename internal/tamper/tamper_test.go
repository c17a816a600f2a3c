package tamper

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// TestGoldenVariantsPassTheHashCheck: every variant changes the
// transaction and carries the hash of the changed bytes, so recomputing
// the hash finds nothing wrong.
func TestGoldenVariantsPassTheHashCheck(t *testing.T) {
	pt, err := vectors.FirstPrepared(filepath.Join("..", "..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	variants, err := Golden(pt)
	if err != nil {
		t.Fatal(err)
	}
	if len(variants) != 6 {
		t.Fatalf("%d variants, want 6", len(variants))
	}
	for _, v := range variants {
		if proto.Equal(v.Prepared, pt) {
			t.Errorf("%s: the transaction is unchanged", v.Name)
		}
		b, err := PrepareResponse(v.Prepared, hashing.V2)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		var resp struct{ PreparedTransaction, PreparedTransactionHash string }
		if err := json.Unmarshal(b, &resp); err != nil {
			t.Fatal(err)
		}
		raw, _ := base64.StdEncoding.DecodeString(resp.PreparedTransaction)
		var back damlpb.PreparedTransaction
		if err := proto.Unmarshal(raw, &back); err != nil || !proto.Equal(&back, v.Prepared) {
			t.Errorf("%s: the response does not carry the variant: %v", v.Name, err)
		}
		sum, err := hashing.Sum(raw, hashing.V2)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if got := base64.StdEncoding.EncodeToString(sum[:]); got != resp.PreparedTransactionHash {
			t.Errorf("%s: hash %s, recomputed %s", v.Name, resp.PreparedTransactionHash, got)
		}
	}
}

// TestRandomChangesOneField: every change Random reports leaves the
// transaction different, and a seed gives the same change each time.
func TestRandomChangesOneField(t *testing.T) {
	pt, err := vectors.FirstPrepared(filepath.Join("..", "..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i := uint64(0); i < 500; i++ {
		v := proto.Clone(pt).(*damlpb.PreparedTransaction)
		what := Random(rand.New(rand.NewPCG(i, 0)), v)
		if what == "" {
			continue
		}
		changed++
		if proto.Equal(v, pt) {
			t.Errorf("seed %d: %s left the transaction as it was", i, what)
		}
		again := proto.Clone(pt).(*damlpb.PreparedTransaction)
		if Random(rand.New(rand.NewPCG(i, 0)), again) != what || !proto.Equal(again, v) {
			t.Errorf("seed %d: not the same change twice", i)
		}
	}
	if changed < 400 {
		t.Errorf("only %d of 500 seeds changed a field", changed)
	}
}
