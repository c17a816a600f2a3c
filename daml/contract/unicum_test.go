package contract

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/ledger-cli/ledger/daml/value"
)

func hexBytes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestContractSaltV1 pins the message ContractSalt.createV1 authenticates,
// byte by byte (Canton publishes no vector for it; the layout is read from
// ContractSalt.scala, ViewPosition.scala and DeterministicEncoding.scala):
// int32 create index, the view position (int32 count of Merkle-sequence
// indices, each an int32 count of directions and a byte per direction),
// then the UUID, the synchronizer id and "MGR::<group>" as int32-length
// strings.
func TestContractSaltV1(t *testing.T) {
	vpd := DeriveSalt([]byte("0123456789abcdef"), 4)
	in := SaltInput{
		ViewParticipantDataSalt: vpd,
		CreateIndex:             2,
		ViewPosition:            ViewPosition{{true, false}},
		TransactionUUID:         "a5e6c0b2-5b84-4e5f-9a39-6f3f5c1f1d3b",
		SynchronizerID:          "sync::1220ab",
		MediatorGroup:           0,
	}
	msg := hexBytes(t, "00000002"+"00000001"+"00000002"+"0100") // index, position [[R, L]]
	msg = append(msg, hexBytes(t, "00000024")...)
	msg = append(msg, in.TransactionUUID...)
	msg = append(msg, hexBytes(t, "0000000c")...)
	msg = append(msg, in.SynchronizerID...)
	msg = append(msg, hexBytes(t, "00000006")...)
	msg = append(msg, "MGR::0"...)
	m := hmac.New(sha256.New, vpd[:])
	m.Write(msg)
	if got := ContractSaltV1(in); hex.EncodeToString(got[:]) != hex.EncodeToString(m.Sum(nil)) {
		t.Errorf("salt %x, want %x", got, m.Sum(nil))
	}

	seed := hmac.New(sha256.New, []byte("0123456789abcdef"))
	seed.Write([]byte{0, 0, 0, 4})
	if hex.EncodeToString(vpd[:]) != hex.EncodeToString(seed.Sum(nil)) {
		t.Errorf("DeriveSalt(seed, 4) = %x, want HMAC(seed, int32(4))", vpd)
	}
	if mediatorGroupRecipient(12) != "MGR::12" {
		t.Errorf("mediator group 12 is %q", mediatorGroupRecipient(12))
	}
}

// TestEpochSecondNanos checks the creation time's split as Java's Instant
// makes it, before the epoch too.
func TestEpochSecondNanos(t *testing.T) {
	for _, tc := range []struct {
		us    int64
		sec   int64
		nanos int32
	}{{1765068805921013, 1765068805, 921013000}, {0, 0, 0}, {-1, -1, 999999000}, {-1000000, -1, 0}} {
		s, n := epochSecondNanos(value.Timestamp(tc.us))
		if s != tc.sec || n != tc.nanos {
			t.Errorf("%d µs: %d s %d ns, want %d s %d ns", tc.us, s, n, tc.sec, tc.nanos)
		}
	}
}
