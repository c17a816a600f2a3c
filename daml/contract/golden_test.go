package contract

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"testing"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// goldenTransaction is the real Canton Coin transfer of
// vectors.LedgerHQTransfer.
func goldenTransaction(t testing.TB) *damlpb.PreparedTransaction {
	t.Helper()
	pt, err := vectors.FirstPrepared("../../" + vectors.LedgerHQTransfer)
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

func goldenBlobs(t testing.TB) [][]byte {
	var out [][]byte
	for _, ic := range goldenTransaction(t).GetMetadata().GetInputContracts() {
		out = append(out, ic.GetEventBlob())
	}
	if len(out) != 5 {
		t.Fatalf("golden vector has %d input contracts, want 5", len(out))
	}
	return out
}

// TestGoldenBlobsAuthenticate decodes each input contract's blob, checks
// that it encodes back to the same bytes, that the metadata's createdAt is
// the blob's, and that its suffix recomputes (hash by its prefix, unicum,
// suffix) — the five suffixes Canton made.
func TestGoldenBlobsAuthenticate(t *testing.T) {
	pt := goldenTransaction(t)
	versions := map[Version]int{}
	for i, ic := range pt.GetMetadata().GetInputContracts() {
		blob := ic.GetEventBlob()
		c, err := DecodeBlob(blob)
		if err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		again, err := EncodeBlob(c)
		if err != nil {
			t.Fatalf("input %d: encode: %v", i, err)
		}
		if !bytes.Equal(again, blob) {
			t.Errorf("input %d (%s): re-encoded blob differs from Canton's:\n got %x\nwant %x", i, c.TemplateID.EntityName, again, blob)
		}
		if uint64(c.CreatedAt) != ic.GetCreatedAt() {
			t.Errorf("input %d: blob created_at %d, metadata %d", i, c.CreatedAt, ic.GetCreatedAt())
		}
		if len(c.AuthenticationData) != 42 {
			t.Errorf("input %d: authentication data has %d bytes, want 42", i, len(c.AuthenticationData))
		}
		salt, err := ParseAuthenticationDataV1(c.AuthenticationData)
		if err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		if !bytes.Equal(AuthenticationDataV1(salt), c.AuthenticationData) {
			t.Errorf("input %d: authentication data does not re-encode", i)
		}
		id, err := ParseID(c.ID)
		if err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		versions[id.Version]++
		if err := Authenticate(c, nil, ""); err != nil {
			t.Errorf("input %d (%s, %s): %v", i, c.TemplateID.EntityName, id.Version, err)
		}
		if id.ContractID() != c.ID {
			t.Errorf("input %d: id prints as %s, want %s", i, id.ContractID(), c.ID)
		}
	}
	if versions[V10] != 1 || versions[V11] != 4 {
		t.Errorf("versions %v, want one ca10 and four ca11", versions)
	}
}

// TestGoldenLocalIDs checks the four contracts the golden transfer
// creates: each local id (no suffix) is 0x00 ‖ the discriminator derived
// from its create node's seed, the preparation time and its stakeholders
// (tx.ContractIDV1), and parses as a local id.
func TestGoldenLocalIDs(t *testing.T) {
	pt := goldenTransaction(t)
	seeds := map[string][]byte{}
	for _, s := range pt.GetTransaction().GetNodeSeeds() {
		seeds[strconv.Itoa(int(s.GetNodeId()))] = s.GetSeed()
	}
	prep := value.Timestamp(pt.GetMetadata().GetPreparationTime())
	n := 0
	for _, node := range pt.GetTransaction().GetNodes() {
		create := node.GetV1().GetCreate()
		if create == nil {
			continue
		}
		n++
		id, err := ParseID(value.ContractID(create.GetContractId()))
		if err != nil {
			t.Fatalf("node %s: %v", node.GetNodeId(), err)
		}
		if !id.IsLocal() {
			t.Errorf("node %s: created id %s has a suffix", node.GetNodeId(), create.GetContractId())
		}
		seed, err := tx.ParseHash(hex.EncodeToString(seeds[node.GetNodeId()]))
		if err != nil {
			t.Fatalf("node %s: seed: %v", node.GetNodeId(), err)
		}
		if got := tx.ContractIDV1(seed, prep, create.GetStakeholders()); got != value.ContractID(create.GetContractId()) {
			t.Errorf("node %s: derived id %s, want %s", node.GetNodeId(), got, create.GetContractId())
		}
		if LocalID(id.Discriminator).ContractID() != value.ContractID(create.GetContractId()) {
			t.Errorf("node %s: local id does not print back", node.GetNodeId())
		}
	}
	if n != 4 {
		t.Errorf("%d created contracts, want 4", n)
	}
}
