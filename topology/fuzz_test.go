package topology

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode and to the checks built on it.
// None may panic; every failure must be ErrMalformed; whatever decodes must
// decode the same after being written back out.
func FuzzDecode(f *testing.F) {
	txs, _ := loadWalletVector(f)
	for _, tx := range txs {
		f.Add(tx)
	}
	pub, _ := testKey(20)
	for _, layout := range []Layout{LayoutPartyToParticipant, LayoutThreeTransactions} {
		o, err := GenerateExternalParty(OnboardingRequest{PartyHint: "alice", PublicKey: pub, ParticipantUID: participant1, Layout: layout})
		if err != nil {
			f.Fatal(err)
		}
		for _, tx := range o.Transactions {
			f.Add(tx)
		}
	}
	f.Add([]byte{})
	f.Add([]byte{0x10, 30})
	f.Add([]byte{0x0a, 0x08, 0x08, 0x01, 0x10, 0x01, 0x1a, 0x02, 0x42, 0x00, 0x10, 30})

	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = CheckExternalPartyOnboarding([][]byte{b}, pub, "")
		_, _ = VerifyAllocation(AllocationRequest{Transactions: []SignedTransaction{{Transaction: b}}, ParticipantUID: participant1})

		tx, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		msg, _, err := unmarshal(b)
		if err != nil {
			t.Fatalf("Decode accepted what unmarshal refuses: %v", err)
		}
		again, err := serialize(msg)
		if err != nil {
			t.Fatal(err)
		}
		tx2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded transaction does not decode: %v", err)
		}
		tx.Hash, tx2.Hash = nil, nil
		if !reflect.DeepEqual(tx, tx2) {
			t.Fatalf("round trip changed the transaction:\n%+v\n%+v", tx, tx2)
		}
	})
}
