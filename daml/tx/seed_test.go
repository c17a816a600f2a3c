package tx

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"github.com/ledger-cli/ledger/daml/value"
)

func seedFromBase64(t *testing.T, s string) Hash {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("seed %q: %v", s, err)
	}
	var h Hash
	copy(h[:], b)
	return h
}

// TestContractIDFromCanton checks the discriminator derivation against
// PreparedTransactions that Canton participants produced (the node seed,
// preparation time, stakeholders and contract id of their create nodes),
// kept in ../shared/spec/vectors/wallet-tx-visualizer/*.derived_details.json.
func TestContractIDFromCanton(t *testing.T) {
	for _, c := range []struct {
		name         string
		seed         string // base64, as in the PreparedTransaction's node_seeds
		prepTime     value.Timestamp
		stakeholders []string
		want         value.ContractID
	}{
		{
			name:     "create_ping (Canton 3.3/3.4 participant)",
			seed:     "a9qiU1EUUZ11qestRMl0IgevXH3udJCcNHmDdVBd/Z4=",
			prepTime: 1754534109899822,
			stakeholders: []string{
				"participant1::1220d44fc1c3ba0b5bdf7b956ee71bc94ebe2d23258dc268fdf0824fbaeff2c61424",
				"operator::1220d44fc1c3ba0b5bdf7b956ee71bc94ebe2d23258dc268fdf0824fbaeff2c61424",
			},
			want: "00550802ddb16371f5fc6d364e6cd4b3283a9eb5c0ccb121ae368cdebbad0fbf56",
		},
		{
			name:     "transfer_preapproval_proposal (Splice LocalNet)",
			seed:     "wc3jXIKi77LLAcYTce8D/aSu9U7AKa4M/mvI2oPy290=",
			prepTime: 1758831019406201,
			stakeholders: []string{
				"bob::12205be3b9d177573fffb68eb245986f88b9df58d44ce575819078970580d87d1dc0",
				"app_user_localnet-localparty-1::12203a52fe5af3b87e0696182ac668a6cb315dab4bdc30da9e5b6dda9eb728784216",
				"bob::12205be3b9d177573fffb68eb245986f88b9df58d44ce575819078970580d87d1dc0", // a set: duplicates count once
			},
			want: "001687778107572beeecc438972d18483ead250d1d50bb6357f7fb8f67dce7d635",
		},
	} {
		got := ContractIDV1(seedFromBase64(t, c.seed), c.prepTime, c.stakeholders)
		if got != c.want {
			t.Errorf("%s: contract id %s, want %s", c.name, got, c.want)
		}
	}
}

// TestSeedDerivations pins the transaction and node seed derivations.
// Canton's test suites have no vectors for them, so these were computed
// independently with Python's hmac module, following Canton's
// Hash.deriveTransactionSeed and Hash.deriveNodeSeed byte for byte:
//
//	HMAC-SHA256(sub, be32(len(pid)) ‖ pid ‖ be64(time))
//	HMAC-SHA256(parent, be32(i))
func TestSeedDerivations(t *testing.T) {
	var sub Hash
	for i := range sub {
		sub[i] = byte(i)
	}
	pid := "participant1::1220d44fc1c3ba0b5bdf7b956ee71bc94ebe2d23258dc268fdf0824fbaeff2c61424"
	txSeed := DeriveTransactionSeed(sub, pid, 1754534109899822)
	root1 := DeriveNodeSeed(txSeed, 1)
	for _, c := range []struct {
		name string
		got  Hash
		want string
	}{
		{"transaction seed", txSeed, "a326c9c30b0c4219d9290ad3cbdb237a47c76687a3509ecc294a912dc72434a2"},
		{"root 0", DeriveNodeSeed(txSeed, 0), "06ba2fe41396b316d8b50ae6c88943723983cd1d04e4488d3312cc7324816b48"},
		{"root 1", root1, "8d34cb94a81c33e1b5313866a995e07c046ee57e9530b78008653d72de392298"},
		{"root 1, child 2", DeriveNodeSeed(root1, 2), "988640ab97f527334f1a7dc4da7a74d0bbda5c3108299dbf94ad8e5131b2a7ca"},
		{"transaction seed at the minimum time", DeriveTransactionSeed(sub, pid, value.MinTimestamp), "50b265f1bc9359117b8bdad9e1d05e2954fca1ae8c8976f8cf80f9ddc60026d6"},
	} {
		if c.got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}
	h, err := ParseHash(txSeed.String())
	if err != nil || h != txSeed {
		t.Errorf("ParseHash: %v", err)
	}
}

func TestWalkAndObservers(t *testing.T) {
	tr := &Transaction{
		Roots: []NodeID{0, 3},
		Nodes: []Node{
			&Exercise{Children: []NodeID{1, 2}},
			&Create{},
			&Fetch{},
			&Create{},
		},
	}
	var order []NodeID
	var parents []NodeID
	tr.Walk(func(id NodeID, _ Node, parent NodeID) {
		order = append(order, id)
		parents = append(parents, parent)
	})
	if len(order) != 4 || order[0] != 0 || order[1] != 1 || order[2] != 2 || order[3] != 3 || parents[1] != 0 || parents[3] != -1 {
		t.Errorf("walk order %v parents %v", order, parents)
	}
	c := &Contract{Signatories: []string{"a", "c"}, Stakeholders: []string{"a", "b", "c", "d"}}
	if obs := c.Observers(); len(obs) != 2 || obs[0] != "b" || obs[1] != "d" {
		t.Errorf("observers %v", obs)
	}
}

// TestHMAC checks the hand-written HMAC against crypto/hmac, for short and
// long messages.
func TestHMAC(t *testing.T) {
	var key Hash
	for i := range key {
		key[i] = byte(200 - i)
	}
	for _, n := range []int{0, 1, 55, 56, 64, 255, 256, 257, 1000} {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(i * 7)
		}
		h := hmac.New(sha256.New, key[:])
		h.Write(msg)
		if got := hmacSHA256(&key, msg); !bytes.Equal(got[:], h.Sum(nil)) {
			t.Errorf("message of %d bytes: HMAC differs", n)
		}
	}
}

// TestHMACSHA256AgreesWithCryptoHMAC: the allocation-free HMAC is
// crypto/hmac's, for keys of every length up to past the block size and
// messages shorter and longer than its stack buffer.
func TestHMACSHA256AgreesWithCryptoHMAC(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 23))
	for klen := 0; klen <= 80; klen++ {
		for _, mlen := range []int{0, 1, 4, 63, 64, 65, 255, 256, 257, 1000} {
			key, msg := make([]byte, klen), make([]byte, mlen)
			for i := range key {
				key[i] = byte(r.Uint32())
			}
			for i := range msg {
				msg[i] = byte(r.Uint32())
			}
			m := hmac.New(sha256.New, key)
			m.Write(msg)
			if got, want := HMACSHA256(key, msg), m.Sum(nil); !bytes.Equal(got[:], want) {
				t.Fatalf("key of %d bytes, message of %d: %x, crypto/hmac %x", klen, mlen, got, want)
			}
		}
	}
}
