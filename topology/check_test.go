package topology

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/signer"
	pb "github.com/ledger-cli/ledger/topology/topologypb"
)

// tamper decodes a serialized transaction, lets edit change it and
// serializes it again.
func tamper(t *testing.T, b []byte, edit func(*pb.TopologyTransaction)) []byte {
	t.Helper()
	msg, _, err := unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	msg = proto.Clone(msg).(*pb.TopologyTransaction)
	edit(msg)
	out, err := serialize(msg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheckRejects(t *testing.T) {
	pub, _ := testKey(7)
	other, _ := testKey(8)
	three := generate(t, LayoutThreeTransactions, pub).Transactions
	one := generate(t, LayoutPartyToParticipant, pub).Transactions
	foreign := generate(t, LayoutThreeTransactions, other).Transactions
	p2p := func(m *pb.TopologyTransaction) *pb.PartyToParticipant { return m.Mapping.GetPartyToParticipant() }

	tests := []struct {
		name string
		txs  [][]byte
		key  ed25519.PublicKey
		hint string
		want string
	}{
		{"nothing", nil, pub, "alice", "no topology transactions"},
		{"not our key", one, other, "alice", "want alice::"},
		{"wrong hint", one, pub, "bob", "want bob::"},
		{"foreign namespace delegation", [][]byte{foreign[0], three[1], three[2]}, pub, "alice", "namespace delegation is for namespace"},
		{"foreign key mapping", [][]byte{three[0], foreign[1], three[2]}, pub, "alice", "party is alice::" + signer.Fingerprint(other)},
		{"no party to participant", three[:2], pub, "alice", "found 0 party-to-participant"},
		{"two party to participant", [][]byte{one[0], one[0]}, pub, "alice", "found 2"},
		{"keys twice", [][]byte{three[1], one[0]}, pub, "alice", "set 2 times"},
		{"keys never", [][]byte{three[2]}, pub, "alice", "set 0 times"},
		{"malformed", [][]byte{{0x01}}, pub, "alice", "transaction 0: malformed"},
		{"remove", [][]byte{tamper(t, one[0], func(m *pb.TopologyTransaction) { m.Operation = pb.Enums_TOPOLOGY_CHANGE_OP_REMOVE })}, pub, "alice", "operation is REMOVE"},
		{"submission", [][]byte{tamper(t, one[0], func(m *pb.TopologyTransaction) {
			p2p(m).Participants[0].Permission = pb.Enums_PARTICIPANT_PERMISSION_SUBMISSION
		})}, pub, "alice", "Submission"},
		{"extra key", [][]byte{tamper(t, one[0], func(m *pb.TopologyTransaction) {
			p2p(m).PartySigningKeys.Keys = append(p2p(m).PartySigningKeys.Keys, onboardingKey(other))
		})}, pub, "alice", "2 signing keys"},
		{"swapped key", [][]byte{tamper(t, one[0], func(m *pb.TopologyTransaction) {
			p2p(m).PartySigningKeys.Keys[0] = onboardingKey(other)
		})}, pub, "alice", "is not your key"},
		{"signing threshold 2", [][]byte{tamper(t, one[0], func(m *pb.TopologyTransaction) { p2p(m).PartySigningKeys.Threshold = 2 })}, pub, "alice", "threshold is 2"},
		{"confirmation threshold 3", [][]byte{tamper(t, one[0], func(m *pb.TopologyTransaction) { p2p(m).Threshold = 3 })}, pub, "alice", "confirmation threshold is 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CheckExternalPartyOnboarding(tt.txs, tt.key, tt.hint)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if _, err := CheckExternalPartyOnboarding(one, pub[:5], "alice"); err == nil {
		t.Error("short expected key accepted")
	}
}

func TestVerifyMultiHashMismatch(t *testing.T) {
	pub, _ := testKey(9)
	o := generate(t, LayoutThreeTransactions, pub)
	if err := VerifyMultiHash(o.Transactions[:2], o.MultiHash); err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("err = %v", err)
	}
}

func sign(priv ed25519.PrivateKey, hash []byte) Signature {
	return Signature{SignedBy: signer.Fingerprint(priv.Public().(ed25519.PublicKey)), Signature: ed25519.Sign(priv, hash)}
}

func TestVerifyAllocation(t *testing.T) {
	pub, priv := testKey(10)
	_, otherPriv := testKey(11)
	for _, layout := range []Layout{LayoutPartyToParticipant, LayoutThreeTransactions} {
		o := generate(t, layout, pub)
		unsigned := func() []SignedTransaction {
			out := make([]SignedTransaction, len(o.Transactions))
			for i, b := range o.Transactions {
				out[i] = SignedTransaction{Transaction: b}
			}
			return out
		}
		t.Run(layout.String()+"/multi-hash signature", func(t *testing.T) {
			p, err := VerifyAllocation(AllocationRequest{Transactions: unsigned(), MultiHashSignatures: []Signature{sign(priv, o.MultiHash)}, ParticipantUID: participant1})
			if err != nil {
				t.Fatal(err)
			}
			if p.PartyID != o.PartyID || p.Hint != "alice" || p.Namespace != o.Fingerprint || len(p.SigningKeys) != 1 ||
				!p.SigningKeys[0].Ed25519.Equal(pub) || p.SigningThreshold != 1 || p.ConfirmationThreshold != 1 || len(p.Hosting) != 1 {
				t.Errorf("party %+v", p)
			}
		})
		t.Run(layout.String()+"/per-transaction signatures", func(t *testing.T) {
			txs := unsigned()
			for i := range txs {
				txs[i].Signatures = []Signature{sign(priv, o.TransactionHashes[i])}
			}
			if _, err := VerifyAllocation(AllocationRequest{Transactions: txs, ParticipantUID: participant1}); err != nil {
				t.Fatal(err)
			}
		})

		fails := []struct {
			name string
			req  AllocationRequest
			want string
			bad  bool // wraps ErrBadSignature
		}{
			{"unsigned", AllocationRequest{Transactions: unsigned(), ParticipantUID: participant1}, "is not signed by key", false},
			{"signed the 32-byte digest", AllocationRequest{Transactions: unsigned(), ParticipantUID: participant1,
				MultiHashSignatures: []Signature{sign(priv, o.MultiHash[2:])}}, "does not verify", true},
			{"stranger's key", AllocationRequest{Transactions: unsigned(), ParticipantUID: participant1,
				MultiHashSignatures: []Signature{sign(otherPriv, o.MultiHash)}}, "not the fingerprint of a key", false},
			{"short signature", AllocationRequest{Transactions: unsigned(), ParticipantUID: participant1,
				MultiHashSignatures: []Signature{{SignedBy: o.Fingerprint, Signature: []byte{1, 2}}}}, "64 bytes", true},
			{"other participant", AllocationRequest{Transactions: unsigned(), ParticipantUID: "p9::1220ff",
				MultiHashSignatures: []Signature{sign(priv, o.MultiHash)}}, "does not host the party on this participant", false},
			{"no transactions", AllocationRequest{ParticipantUID: participant1}, "empty", false},
		}
		for _, f := range fails {
			t.Run(layout.String()+"/"+f.name, func(t *testing.T) {
				_, err := VerifyAllocation(f.req)
				if err == nil || !strings.Contains(err.Error(), f.want) || errors.Is(err, ErrBadSignature) != f.bad {
					t.Fatalf("err = %v, want it to mention %q (bad signature: %v)", err, f.want, f.bad)
				}
			})
		}
	}
}

func TestVerifyAllocationRules(t *testing.T) {
	pub, priv := testKey(12)
	other, _ := testKey(13)
	three := generate(t, LayoutThreeTransactions, pub).Transactions
	one := generate(t, LayoutPartyToParticipant, pub).Transactions
	p2p := func(m *pb.TopologyTransaction) *pb.PartyToParticipant { return m.Mapping.GetPartyToParticipant() }
	signedAll := func(txs ...[]byte) AllocationRequest {
		req := AllocationRequest{ParticipantUID: participant1}
		for _, b := range txs {
			req.Transactions = append(req.Transactions, SignedTransaction{Transaction: b, Signatures: []Signature{sign(priv, TransactionHash(b))}})
		}
		return req
	}
	tests := []struct {
		name string
		req  AllocationRequest
		want string
	}{
		{"keys twice", signedAll(three[0], three[1], one[0]), "in both"},
		{"no keys", signedAll(three[0], three[2]), "no signing keys"},
		{"no namespace key", signedAll(three[1], three[2]), "no key for the party's namespace"},
		{"two delegations", signedAll(three[0], three[0], one[0]), "a second namespace_delegation"},
		{"no party to participant", signedAll(three[0], three[1]), "no party_to_participant"},
		{"no protocol usage", signedAll(tamper(t, one[0], func(m *pb.TopologyTransaction) {
			p2p(m).PartySigningKeys.Keys[0].Usage = []pb.SigningKeyUsage{pb.SigningKeyUsage_SIGNING_KEY_USAGE_NAMESPACE}
		})), "lacks usage PROTOCOL"},
		{"no namespace usage", signedAll(tamper(t, one[0], func(m *pb.TopologyTransaction) {
			p2p(m).PartySigningKeys.Keys[0].Usage = []pb.SigningKeyUsage{pb.SigningKeyUsage_SIGNING_KEY_USAGE_PROTOCOL}
		})), "lacks usage NAMESPACE"},
		{"observer only host", signedAll(tamper(t, one[0], func(m *pb.TopologyTransaction) {
			p2p(m).Participants[0].Permission = pb.Enums_PARTICIPANT_PERMISSION_OBSERVATION
		})), "Confirmation"},
		{"new key did not sign", signedAll(tamper(t, one[0], func(m *pb.TopologyTransaction) {
			p2p(m).PartySigningKeys.Keys = append(p2p(m).PartySigningKeys.Keys, onboardingKey(other))
		})), "is not signed by key " + signer.Fingerprint(other)},
		{"p256 key", signedAll(tamper(t, one[0], func(m *pb.TopologyTransaction) {
			p2p(m).PartySigningKeys.Keys[0].KeySpec = pb.SigningKeySpec_SIGNING_KEY_SPEC_EC_P256
		})), "Ed25519 only"},
		{"removal", signedAll(tamper(t, one[0], func(m *pb.TopologyTransaction) { m.Operation = pb.Enums_TOPOLOGY_CHANGE_OP_REMOVE })), "only adds"},
		{"non-root delegation", signedAll(tamper(t, three[0], func(m *pb.TopologyTransaction) {
			m.Mapping.GetNamespaceDelegation().TargetKey = onboardingKey(other)
		}), one[0]), "not a root delegation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := VerifyAllocation(tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}
