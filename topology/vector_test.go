package topology

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// walletVector is the "topology_multi_hash" entry of the fingerprint vectors:
// three real onboarding transactions (Canton 3.3 layout) and their multi-hash.
type walletVector struct {
	NamespaceDelegation string `json:"namespace_delegation_b64"`
	PartyToKeyMapping   string `json:"party_to_key_mapping_b64"`
	PartyToParticipant  string `json:"party_to_participant_b64"`
	ExpectedMultiHash   string `json:"expected_multi_hash_b64"`
}

func loadWalletVector(t testing.TB) (txs [][]byte, multiHash []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "vectors", "fingerprints", "fingerprints.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Multi walletVector `json:"topology_multi_hash"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{file.Multi.NamespaceDelegation, file.Multi.PartyToKeyMapping, file.Multi.PartyToParticipant, file.Multi.ExpectedMultiHash} {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) == 0 {
			t.Fatalf("vector field %q: %v", s, err)
		}
		txs = append(txs, b)
	}
	return txs[:3], txs[3]
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVectorMultiHash(t *testing.T) {
	txs, want := loadWalletVector(t)
	var hashes [][]byte
	for _, tx := range txs {
		hashes = append(hashes, TransactionHash(tx))
	}
	if got := MultiHash(hashes); !bytes.Equal(got, want) {
		t.Fatalf("multi-hash = %x, want %x", got, want)
	}
	// The order the hashes come in does not matter.
	if got := MultiHash([][]byte{hashes[2], hashes[0], hashes[1]}); !bytes.Equal(got, want) {
		t.Fatalf("multi-hash of reordered hashes = %x, want %x", got, want)
	}
}

// The vector's namespace delegation is for another key than its two party
// mappings (it comes from a test that mixed keys), so no single request
// reproduces all three; two requests reproduce each transaction byte for byte.
func TestVectorReencodes(t *testing.T) {
	txs, _ := loadWalletVector(t)
	const participant = "participant::12202e95d2f61efe7b232b6d163fe006188af3b6b05885bd59d47e52e176501b56cd"

	party, err := GenerateExternalParty(OnboardingRequest{
		PartyHint:      "alice",
		PublicKey:      mustHex(t, "039b9f7948d2082adb615b38162a4944184940815828bfbea84dadf2511c720a"),
		ParticipantUID: participant,
		Layout:         LayoutThreeTransactions,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "alice::12205a50eb9b9d64bb30ac4125afa1aeea7bcae51792ac2d174a6132ceec9290d062"; party.PartyID != want {
		t.Errorf("party id = %s, want %s", party.PartyID, want)
	}
	for i, name := range []string{"", "party_to_key_mapping", "party_to_participant"} {
		if i == 0 {
			continue
		}
		if !bytes.Equal(party.Transactions[i], txs[i]) {
			t.Errorf("%s:\n got %x\nwant %x", name, party.Transactions[i], txs[i])
		}
	}

	ns, err := GenerateExternalParty(OnboardingRequest{
		PartyHint:      "alice",
		PublicKey:      mustHex(t, "fa8ba321f279863edd57e97a08f197d18760f77a8cddec782c63f69b85b44d7b"),
		ParticipantUID: participant,
		Layout:         LayoutThreeTransactions,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ns.Transactions[0], txs[0]) {
		t.Errorf("namespace_delegation:\n got %x\nwant %x", ns.Transactions[0], txs[0])
	}
}

func TestVectorDecodes(t *testing.T) {
	txs, _ := loadWalletVector(t)
	const party = "alice::12205a50eb9b9d64bb30ac4125afa1aeea7bcae51792ac2d174a6132ceec9290d062"
	var decoded []*Transaction
	for i, b := range txs {
		tx, err := Decode(b)
		if err != nil {
			t.Fatalf("tx %d: %v", i, err)
		}
		if tx.Version != 30 || tx.Operation != OpAddReplace || tx.Serial != 1 {
			t.Errorf("tx %d header %+v", i, tx)
		}
		decoded = append(decoded, tx)
	}

	d := decoded[0].Mapping.NamespaceDelegation
	if d == nil || d.Namespace != "1220123087e6bf66d225d047e6af8b0944bc50cc470cb46afd9515a558bf55605441" ||
		!d.IsRoot() || d.Restriction != "CAN_SIGN_ALL_MAPPINGS" || d.RootDelegationFlag ||
		d.Target.Format != "DER_X509_SUBJECT_PUBLIC_KEY_INFO" || d.Target.Spec != "EC_CURVE25519" {
		t.Errorf("namespace delegation %+v", d)
	}

	k := decoded[1].Mapping.PartyToKeyMapping
	if k == nil || k.Party != party || k.Threshold != 1 || len(k.Keys) != 1 ||
		k.Keys[0].Fingerprint != "12205a50eb9b9d64bb30ac4125afa1aeea7bcae51792ac2d174a6132ceec9290d062" ||
		!bytes.Equal(k.Keys[0].Ed25519, mustHex(t, "039b9f7948d2082adb615b38162a4944184940815828bfbea84dadf2511c720a")) {
		t.Errorf("party to key mapping %+v", k)
	}

	p := decoded[2].Mapping.PartyToParticipant
	if p == nil || p.Party != party || p.Threshold != 1 || p.HasSigningKeys || len(p.Participants) != 1 ||
		p.Participants[0] != (HostingParticipant{
			ParticipantUID: "participant::12202e95d2f61efe7b232b6d163fe006188af3b6b05885bd59d47e52e176501b56cd",
			Permission:     PermissionConfirmation,
		}) {
		t.Errorf("party to participant %+v", p)
	}

	// The vector mixes keys: its namespace delegation is not for alice's key.
	if _, err := CheckExternalPartyOnboarding(txs, k.Keys[0].Ed25519, "alice"); err == nil || !strings.Contains(err.Error(), "namespace delegation") {
		t.Errorf("check of the mixed vector: %v", err)
	}
	if id, err := CheckExternalPartyOnboarding(txs[1:], k.Keys[0].Ed25519, "alice"); err != nil || id != party {
		t.Errorf("check of its party mappings: %s %v", id, err)
	}
}
