package topology

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/signer"
)

const participant1 = "participant1::12202e95d2f61efe7b232b6d163fe006188af3b6b05885bd59d47e52e176501b56cd"

// testKey derives a deterministic key pair from a one-byte seed.
func testKey(seed byte) (ed25519.PublicKey, ed25519.PrivateKey) {
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	return priv.Public().(ed25519.PublicKey), priv
}

func generate(t *testing.T, layout Layout, pub ed25519.PublicKey) *Onboarding {
	t.Helper()
	o, err := GenerateExternalParty(OnboardingRequest{PartyHint: "alice", PublicKey: pub, ParticipantUID: participant1, Layout: layout})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestFingerprintVector(t *testing.T) {
	raw, _ := base64.StdEncoding.DecodeString("2RwUiIHVUVdulxzD8NKtPmIaaBqMer1A90rDjoklJPY=")
	if got, want := signer.Fingerprint(raw), "1220205057e331cc8929dd217e2f8e63f503b7081773de60d01fb46839700bc5caaa"; got != want {
		t.Fatalf("Fingerprint = %s, want %s", got, want)
	}
}

func TestGenerateLayouts(t *testing.T) {
	pub, _ := testKey(1)
	fp := signer.Fingerprint(pub)
	tests := []struct {
		layout Layout
		kinds  []MappingKind
	}{
		{LayoutPartyToParticipant, []MappingKind{KindPartyToParticipant}},
		{LayoutThreeTransactions, []MappingKind{KindNamespaceDelegation, KindPartyToKeyMapping, KindPartyToParticipant}},
	}
	for _, tt := range tests {
		t.Run(tt.layout.String(), func(t *testing.T) {
			o := generate(t, tt.layout, pub)
			if o.PartyID != "alice::"+fp || o.Fingerprint != fp {
				t.Fatalf("party %s fingerprint %s", o.PartyID, o.Fingerprint)
			}
			if len(o.Transactions) != len(tt.kinds) {
				t.Fatalf("%d transactions, want %d", len(o.Transactions), len(tt.kinds))
			}
			for i, b := range o.Transactions {
				tx, err := Decode(b)
				if err != nil {
					t.Fatal(err)
				}
				if tx.Mapping.Kind != tt.kinds[i] || tx.Operation != OpAddReplace || tx.Serial != 1 || tx.Version != 30 {
					t.Errorf("tx %d = %+v", i, tx)
				}
				if !bytes.Equal(tx.Hash, o.TransactionHashes[i]) || len(tx.Hash) != 34 {
					t.Errorf("tx %d hash %x, onboarding says %x", i, tx.Hash, o.TransactionHashes[i])
				}
				// Serialize(decoded proto) must give the same bytes back.
				msg, _, err := unmarshal(b)
				if err != nil {
					t.Fatal(err)
				}
				again, err := serialize(msg)
				if err != nil || !bytes.Equal(again, b) {
					t.Errorf("tx %d does not re-encode to itself: %v", i, err)
				}
			}
			if err := VerifyMultiHash(o.Transactions, o.MultiHash); err != nil {
				t.Error(err)
			}
			b64 := o.TransactionsBase64()
			if dec, _ := base64.StdEncoding.DecodeString(b64[0]); !bytes.Equal(dec, o.Transactions[0]) {
				t.Error("TransactionsBase64 does not round trip")
			}
			if !strings.HasPrefix(o.MultiHashBase64(), "EiA") { // 12 20 …
				t.Errorf("multi-hash base64 %s lacks the 1220 header", o.MultiHashBase64())
			}
			id, err := CheckExternalPartyOnboarding(o.Transactions, pub, "alice")
			if err != nil || id != o.PartyID {
				t.Errorf("check: %s, %v", id, err)
			}
			if id, err := CheckExternalPartyOnboarding(o.Transactions, pub, ""); err != nil || id != o.PartyID {
				t.Errorf("check without hint: %s, %v", id, err)
			}
		})
	}
}

func TestGenerateSelfSignedContent(t *testing.T) {
	pub, _ := testKey(2)
	o, err := GenerateExternalParty(OnboardingRequest{
		PartyHint: "bob", PublicKey: pub, ParticipantUID: "PAR::" + participant1,
		OtherConfirmingParticipantUIDs: []string{"p2::1220aa"}, ObservingParticipantUIDs: []string{"p3::1220bb"},
		ConfirmationThreshold: 0,
	})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := Decode(o.Transactions[0])
	if err != nil {
		t.Fatal(err)
	}
	p := tx.Mapping.PartyToParticipant
	want := []HostingParticipant{
		{ParticipantUID: participant1, Permission: PermissionConfirmation},
		{ParticipantUID: "p2::1220aa", Permission: PermissionConfirmation},
		{ParticipantUID: "p3::1220bb", Permission: PermissionObservation},
	}
	if len(p.Participants) != 3 {
		t.Fatalf("participants %+v", p.Participants)
	}
	for i := range want {
		if p.Participants[i] != want[i] {
			t.Errorf("participant %d = %+v, want %+v", i, p.Participants[i], want[i])
		}
	}
	if p.Threshold != 2 {
		t.Errorf("threshold %d, want 2 (all confirmers)", p.Threshold)
	}
	k := p.SigningKeys[0]
	if !p.HasSigningKeys || p.SigningThreshold != 1 || len(p.SigningKeys) != 1 ||
		k.Format != "DER_X509_SUBJECT_PUBLIC_KEY_INFO" || k.Spec != "EC_CURVE25519" ||
		strings.Join(k.Usage, ",") != "NAMESPACE,PROOF_OF_OWNERSHIP,PROTOCOL" ||
		!k.Ed25519.Equal(pub) || k.Fingerprint != o.Fingerprint {
		t.Errorf("signing keys %+v", p)
	}
}

func TestGenerateRejects(t *testing.T) {
	pub, _ := testKey(3)
	base := OnboardingRequest{PartyHint: "alice", PublicKey: pub, ParticipantUID: participant1}
	tests := []struct {
		name string
		edit func(*OnboardingRequest)
		want string
	}{
		{"short key", func(r *OnboardingRequest) { r.PublicKey = pub[:31] }, "32 bytes, got 31"},
		{"empty hint", func(r *OnboardingRequest) { r.PartyHint = "" }, "party hint is empty"},
		{"delimiter in hint", func(r *OnboardingRequest) { r.PartyHint = "a::b" }, "reserved delimiter"},
		{"bad char in hint", func(r *OnboardingRequest) { r.PartyHint = "al!ce" }, `'!'`},
		{"long hint", func(r *OnboardingRequest) { r.PartyHint = strings.Repeat("a", 186) }, "at most 185"},
		{"participant without namespace", func(r *OnboardingRequest) { r.ParticipantUID = "participant1" }, "hosting participant"},
		{"bad synchronizer", func(r *OnboardingRequest) { r.SynchronizerID = "sync" }, "synchronizer id"},
		{"self listed again", func(r *OnboardingRequest) { r.OtherConfirmingParticipantUIDs = []string{participant1} }, "hosting participant itself"},
		{"duplicate", func(r *OnboardingRequest) {
			r.OtherConfirmingParticipantUIDs = []string{"p2::1220aa"}
			r.ObservingParticipantUIDs = []string{"p2::1220aa"}
		}, "already listed"},
		{"threshold too high", func(r *OnboardingRequest) { r.ConfirmationThreshold = 2 }, "exceeds"},
		{"negative threshold", func(r *OnboardingRequest) { r.ConfirmationThreshold = -1 }, "negative"},
		{"nobody confirms", func(r *OnboardingRequest) { r.LocalObservationOnly = true }, "no participant confirms"},
		{"unknown layout", func(r *OnboardingRequest) { r.Layout = 7 }, "unknown layout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			tt.edit(&r)
			_, err := GenerateExternalParty(r)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestEd25519FromAPI(t *testing.T) {
	pub, _ := testKey(4)
	for _, c := range []struct {
		format, spec string
		data         []byte
		ok           bool
	}{
		{"CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO", "SIGNING_KEY_SPEC_EC_CURVE25519", spki(pub), true},
		{"CRYPTO_KEY_FORMAT_RAW", "SIGNING_KEY_SPEC_EC_CURVE25519", pub, true},
		{"RAW", "EC_CURVE25519", pub, true},
		{"CRYPTO_KEY_FORMAT_RAW", "SIGNING_KEY_SPEC_EC_P256", pub, false},
		{"CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO", "SIGNING_KEY_SPEC_EC_CURVE25519", pub, false},
		{"CRYPTO_KEY_FORMAT_DER", "SIGNING_KEY_SPEC_EC_CURVE25519", pub, false},
		{"", "SIGNING_KEY_SPEC_EC_CURVE25519", pub, false},
		{"CRYPTO_KEY_FORMAT_RAW", "", pub, false},
	} {
		got, err := Ed25519FromAPI(c.format, c.data, c.spec)
		if c.ok != (err == nil) || c.ok && !got.Equal(pub) {
			t.Errorf("%s/%s: key %x err %v", c.format, c.spec, got, err)
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	pub, _ := testKey(5)
	good := generate(t, LayoutThreeTransactions, pub)
	inner := func(b []byte) []byte { // the TopologyTransaction inside a wrapper
		msg, _, err := unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := serialize(msg)
		return out[3 : len(out)-2] // tag, 2-byte length … tag, version
	}
	wrap := func(data []byte, version byte) []byte {
		b := []byte{0x0a}
		b = appendLen(b, len(data))
		return append(append(b, data...), 0x10, version)
	}
	p2p := inner(good.Transactions[2])
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "no bytes"},
		{"garbage", []byte{0xff, 0xff, 0xff}, "wrapper"},
		{"truncated", good.Transactions[0][:len(good.Transactions[0])-5], "wrapper"},
		{"version 31", wrap(p2p, 31), "version is 31"},
		{"no data", []byte{0x10, 30}, "no data"},
		{"no mapping", wrap([]byte{0x08, 0x01, 0x10, 0x01}, 30), "no mapping"},
		{"serial 0", wrap(append([]byte{0x08, 0x01}, p2p[4:]...), 30), "serial is 0"},
		{"operation 0", wrap(p2p[2:], 30), "operation is 0"},
		{"operation 9", wrap(append([]byte{0x08, 0x09}, p2p[2:]...), 30), "operation is 9"},
		{"unknown field in transaction", wrap(append(append([]byte{}, p2p...), 0x20, 0x01), 30), "field 4"},
		{"unknown wrapper field", append(append([]byte{}, good.Transactions[0]...), 0x18, 0x01), "field 3"},
		{"empty mapping", wrap([]byte{0x08, 0x01, 0x10, 0x01, 0x1a, 0x00}, 30), "mapping is empty"},
		{"unknown mapping field", wrap([]byte{0x08, 0x01, 0x10, 0x01, 0x1a, 0x02, 0xa2, 0x01}, 30), "malformed"},
		{"mapping field 40", wrap([]byte{0x08, 0x01, 0x10, 0x01, 0x1a, 0x03, 0xc2, 0x02, 0x00}, 30), "unknown field 40"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(tt.in)
			if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrMalformed mentioning %q", err, tt.want)
			}
		})
	}
}

func TestDecodeOtherKind(t *testing.T) {
	// A vetted_packages mapping (field 8) with an empty body.
	b := []byte{0x0a, 0x08, 0x08, 0x01, 0x10, 0x01, 0x1a, 0x02, 0x42, 0x00, 0x10, 30}
	tx, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if tx.Mapping.Kind != "vetted_packages" || tx.Mapping.PartyToParticipant != nil {
		t.Fatalf("mapping %+v", tx.Mapping)
	}
	pub, _ := testKey(6)
	if _, err := CheckExternalPartyOnboarding([][]byte{b}, pub, "alice"); err == nil || !strings.Contains(err.Error(), "vetted_packages") {
		t.Fatalf("check err = %v", err)
	}
}

func appendLen(b []byte, n int) []byte {
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}
