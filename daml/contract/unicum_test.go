package contract

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
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

// TestViewParticipantDataSalt pins the salt chain's indices of our view
// mapping: root view 0 takes index 4, view 1 index 6.
func TestViewParticipantDataSalt(t *testing.T) {
	seed := []byte("0123456789abcdef")
	if ViewParticipantDataSalt(seed, 0) != DeriveSalt(seed, 4) || ViewParticipantDataSalt(seed, 1) != DeriveSalt(seed, 6) {
		t.Error("root views' participant-data salts are not at indices 4 and 6")
	}
}

// TestParseID reads and prints local and suffixed ids and refuses the
// others, each case named by its outcome.
func TestParseID(t *testing.T) {
	disc := "00" + strings.Repeat("ab", 32)
	unicum := strings.Repeat("cd", 32)
	for _, tc := range []struct {
		name, id, want string
		local          bool
		version        Version
	}{
		{"good_local", disc, "", true, 0},
		{"good_ca10", disc + "ca101220" + unicum, "", false, V10},
		{"good_ca11", disc + "ca111220" + unicum, "", false, V11},
		{"good_ca12", disc + "ca121220" + unicum, "", false, V12},
		{"fail_upper_case", strings.ToUpper(disc), "not lower-case hex", false, 0},
		{"fail_odd", disc + "c", "not lower-case hex", false, 0},
		{"fail_v2", "01" + disc[2:], "not a V1 contract id", false, 0},
		{"fail_short", disc[:64], "at least 33 bytes", false, 0},
		{"fail_ca09", disc + "ca091220" + unicum, "not a Canton V1 suffix", false, 0},
		{"fail_v2_relative_suffix", disc + "00" + unicum, "not a Canton V1 suffix", false, 0},
		{"fail_no_multihash", disc + "ca12" + unicum + "0000", "malformed suffix", false, 0},
		{"fail_long", disc + "ca121220" + unicum + "00", "malformed suffix", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := ParseID(value.ContractID(tc.id))
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if id.IsLocal() != tc.local || id.Version != tc.version || string(id.ContractID()) != tc.id {
				t.Errorf("parsed %+v, prints %s", id, id)
			}
		})
	}
}

// TestSaltsAllocateNothing: deriving a transaction's salts, once per
// create at commit, allocates nothing (crypto/hmac allocated its state
// each time).
func TestSaltsAllocateNothing(t *testing.T) {
	seed := make([]byte, SaltSeedLen)
	positions := RootViewPositions(3)
	allocs := testing.AllocsPerRun(100, func() {
		view := ViewParticipantDataSalt(seed, 1)
		ContractSaltV1(SaltInput{ViewParticipantDataSalt: view, CreateIndex: 2, ViewPosition: positions[1],
			TransactionUUID: "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d", SynchronizerID: "da::1220aa"})
	})
	if allocs > 0 {
		t.Errorf("%.0f allocations per salt", allocs)
	}
}
