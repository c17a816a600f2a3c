package contract

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"testing"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// Canton publishes no unicum vector for a contract with a key: its
// UnicumGenerator is tested through SymbolicPureCrypto (not SHA-256) and
// with no expected bytes (ExampleContractFactory, TestEngine in
// digital-asset/canton), and there is no UnicumGeneratorTest at
// 1a7b4a8fc2c0. The golden vectors (golden_test.go) have no key. So the
// keyed unicum is checked here against a second implementation written
// from Canton's byte layout alone, in its own vocabulary, sharing no code
// with ComputeUnicum:
//
//	community/common/src/main/scala/com/digitalasset/canton/protocol/UnicumGenerator.scala
//	  computeUnicumHash: build(HashPurpose.Unicum)
//	    .addWithoutLengthPrefix(salt)
//	    .addWithoutLengthPrefix(encodeInstant(createdAt))
//	    .addByteString(encodeSeqWith(signatories.sorted)(encodeParty))
//	    .addByteString(encodeSeqWith((stakeholders -- signatories).sorted)(encodeParty))
//	    .addWithoutLengthPrefix(encodeOptionWith(key hash)(bytes))
//	    .addByteString(encodeOptionWith(maintainers)(encodeSeqWith(_.sorted)(encodeParty)))
//	    .addWithoutLengthPrefix(contractHash)
//	community/base/src/main/scala/com/digitalasset/canton/serialization/DeterministicEncoding.scala
//	community/base/src/main/scala/com/digitalasset/canton/crypto/HashBuilder.scala (addByteString
//	  writes an int32 length first; build writes the purpose as an int32)

// cantonHashBuilder is HashBuilder over SHA-256, written from its Scala.
type cantonHashBuilder struct{ buf bytes.Buffer }

func buildHash(purpose int32) *cantonHashBuilder {
	h := &cantonHashBuilder{}
	h.buf.Write(encodeInt(purpose))
	return h
}

func (h *cantonHashBuilder) addWithoutLengthPrefix(b []byte) *cantonHashBuilder {
	h.buf.Write(b)
	return h
}

func (h *cantonHashBuilder) addByteString(b []byte) *cantonHashBuilder {
	h.buf.Write(encodeInt(int32(len(b))))
	h.buf.Write(b)
	return h
}

func (h *cantonHashBuilder) finish() [32]byte { return sha256.Sum256(h.buf.Bytes()) }

// DeterministicEncoding, as its Scala writes it.
func encodeInt(i int32) []byte  { return binary.BigEndian.AppendUint32(nil, uint32(i)) }
func encodeLong(l int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(l)) }
func encodeParty(p string) []byte {
	return append(encodeInt(int32(len(p))), p...) // encodeString: encodeBytes of the UTF-8
}
func encodeSeqWith(ps []string) []byte {
	out := encodeInt(int32(len(ps)))
	for _, p := range ps {
		out = append(out, encodeParty(p)...)
	}
	return out
}
func encodeOptionWith(some bool, body []byte) []byte {
	if !some {
		return []byte{0}
	}
	return append([]byte{1}, body...)
}

// encodeInstant of a Daml timestamp (µs): Instant.getEpochSecond, then
// getNano, with the seconds floored as java.time does.
func encodeInstant(us int64) []byte {
	sec := us / 1_000_000
	if us%1_000_000 < 0 {
		sec--
	}
	nano := (us - sec*1_000_000) * 1000
	return append(encodeLong(sec), encodeInt(int32(nano))...)
}

// sortedParties is a Scala Set's toSeq.sorted: distinct, in code-point order.
func sortedParties(ps ...[]string) []string {
	set := map[string]bool{}
	for _, l := range ps {
		for _, p := range l {
			set[p] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// cantonUnicum is computeUnicumHash; maintainers nil means no key.
func cantonUnicum(salt Salt, createdAtMicros int64, signatories, stakeholders []string, keyHash *[32]byte, maintainers []string, contractHash [32]byte) [32]byte {
	sigs := sortedParties(signatories)
	isSig := map[string]bool{}
	for _, s := range sigs {
		isSig[s] = true
	}
	var nonSig []string
	for _, p := range sortedParties(stakeholders) {
		if !isSig[p] {
			nonSig = append(nonSig, p)
		}
	}
	var keyBytes, maint []byte
	if keyHash != nil {
		keyBytes = keyHash[:]
		maint = encodeSeqWith(sortedParties(maintainers))
	}
	return buildHash(29). // HashPurpose.Unicum
				addWithoutLengthPrefix(salt[:]).
				addWithoutLengthPrefix(encodeInstant(createdAtMicros)).
				addByteString(encodeSeqWith(sigs)).
				addByteString(encodeSeqWith(nonSig)).
				addWithoutLengthPrefix(encodeOptionWith(keyHash != nil, keyBytes)).
				addByteString(encodeOptionWith(keyHash != nil, maint)).
				addWithoutLengthPrefix(contractHash[:]).
				finish()
}

// TestKeyedUnicumCrossCheck: ComputeUnicum agrees with cantonUnicum on
// contracts with and without keys, parties unsorted and repeated, before
// and after the epoch; and a key, its hash or its maintainers changes the
// unicum (the commitment covers them).
func TestKeyedUnicumCrossCheck(t *testing.T) {
	salt := ContractSaltV1(SaltInput{
		ViewParticipantDataSalt: ViewParticipantDataSalt([]byte("0123456789abcdef"), 0),
		CreateIndex:             1, ViewPosition: ViewPosition{{false}},
		TransactionUUID: "a5e6c0b2-5b84-4e5f-9a39-6f3f5c1f1d3b", SynchronizerID: "sync::1220ab",
	})
	var contractHash Hash
	copy(contractHash[:], hexBytes(t, "e1f2b8a0c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e"))
	keyHash, err := tx.KeyHash("my-app", "Main", "Account", value.Text("bank::1220aa/acc-1"))
	if err != nil {
		t.Fatal(err)
	}
	kh := [32]byte(keyHash)
	for _, tc := range []struct {
		name                      string
		us                        int64
		sigs, stakeholders, maint []string
		key                       *[32]byte
	}{
		{"keyed_two_maintainers", 1765068805921013, []string{"owner::1220bb", "bank::1220aa"},
			[]string{"owner::1220bb", "bank::1220aa", "auditor::1220cc"}, []string{"owner::1220bb", "bank::1220aa"}, &kh},
		{"keyed_one_maintainer_no_observers", 1765068805000000, []string{"bank::1220aa"},
			[]string{"bank::1220aa"}, []string{"bank::1220aa"}, &kh},
		{"keyed_repeated_parties_before_epoch", -1, []string{"b::1", "a::1", "b::1"},
			[]string{"c::1", "a::1", "c::1", "b::1"}, []string{"b::1", "a::1", "b::1"}, &kh},
		{"keyed_zero_hash", 0, []string{"a::1"}, []string{"a::1", "z::1"}, []string{"a::1"}, &[32]byte{}},
		{"unkeyed", 1765068805921013, []string{"owner::1220bb"}, []string{"owner::1220bb", "auditor::1220cc"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := Metadata{Signatories: tc.sigs, Stakeholders: tc.stakeholders, KeyHash: tc.key, Maintainers: tc.maint}
			got := ComputeUnicum(salt, value.Timestamp(tc.us), md, contractHash)
			want := cantonUnicum(salt, tc.us, tc.sigs, tc.stakeholders, tc.key, tc.maint, contractHash)
			if got != want {
				t.Fatalf("unicum %x, Canton's layout gives %x", got, want)
			}
		})
	}

	base := Metadata{Signatories: []string{"bank::1220aa"}, Stakeholders: []string{"bank::1220aa", "owner::1220bb"},
		KeyHash: &kh, Maintainers: []string{"bank::1220aa"}}
	u := ComputeUnicum(salt, 0, base, contractHash)
	other := kh
	other[31] ^= 1
	for name, md := range map[string]Metadata{
		"no key":            {Signatories: base.Signatories, Stakeholders: base.Stakeholders},
		"another key hash":  {Signatories: base.Signatories, Stakeholders: base.Stakeholders, KeyHash: &other, Maintainers: base.Maintainers},
		"other maintainers": {Signatories: base.Signatories, Stakeholders: base.Stakeholders, KeyHash: &kh, Maintainers: []string{"owner::1220bb"}},
	} {
		if ComputeUnicum(salt, 0, md, contractHash) == u {
			t.Errorf("%s: same unicum as the keyed contract", name)
		}
	}
}

// TestKeyedContractSuffix suffixes a contract with a key through the
// production path (Suffixer, ca11 and ca12), checks its unicum against
// cantonUnicum over the suffixed contract's own parts, and that its event
// blob, key included, authenticates — and stops authenticating when the
// key's maintainers or hash change.
func TestKeyedContractSuffix(t *testing.T) {
	_, env := pingTypes(t)
	salt := DeriveSalt(make([]byte, SaltSeedLen), 4)
	for _, v := range []Version{V11, V12} {
		c := pingContract(t, "ping-keyed", 9)
		c.Version = SerializationV2
		kv := value.Party("alice::1220")
		kh, err := tx.KeyHash(c.PackageName, c.TemplateID.ModuleName, c.TemplateID.EntityName, kv)
		if err != nil {
			t.Fatal(err)
		}
		c.Key = &Key{Value: kv, Maintainers: []string{"alice::1220"}, Hash: [32]byte(kh)}
		out, err := NewSuffixer(v, env).Suffix(c, salt)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		h, err := ContractHash(out, v.Method(), env, "")
		if err != nil {
			t.Fatal(err)
		}
		want := cantonUnicum(salt, int64(out.CreatedAt), out.Signatories, out.Stakeholders, &c.Key.Hash, c.Key.Maintainers, h)
		if got := string(out.ID[len(out.ID)-64:]); got != hex.EncodeToString(want[:]) {
			t.Fatalf("%s: suffix unicum %s, Canton's layout gives %x", v, got, want)
		}
		blob, err := EncodeBlob(out)
		if err != nil {
			t.Fatal(err)
		}
		back, err := AuthenticateBlob(blob, env, "")
		if err != nil {
			t.Fatalf("%s: keyed blob: %v", v, err)
		}
		if back.Key == nil || back.Key.Hash != c.Key.Hash {
			t.Fatalf("%s: key lost in the blob: %+v", v, back.Key)
		}
		back.Key.Maintainers = []string{"alice::1220", "bob::1220"}
		if err := Authenticate(back, env, ""); err == nil {
			t.Errorf("%s: another maintainer set authenticates", v)
		}
		back.Key.Maintainers = c.Key.Maintainers
		back.Key.Hash[0] ^= 1
		if err := Authenticate(back, env, ""); err == nil {
			t.Errorf("%s: another key hash authenticates", v)
		}
	}
}
