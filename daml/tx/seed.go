package tx

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"

	"github.com/ledger-cli/ledger/daml/value"
)

// Hash is a 32-byte seed or discriminator.
type Hash [32]byte

// String returns the lower-case hex of h.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// ParseHash reads 64 hex digits.
func ParseHash(s string) (Hash, error) {
	var h Hash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("hash %q: want 64 hex digits", s)
	}
	copy(h[:], b)
	return h, nil
}

// The derivations below are HMAC-SHA256 keyed with a seed over a message
// built as Canton's crypto.Hash builder builds it: a string is its UTF-8
// length as a 4-byte big-endian integer then its bytes; an int is 4 bytes
// big-endian, a long 8; a set of strings is its size (4 bytes) then its
// elements sorted, each as a string.

// mac builds the message of an HMAC in a buffer that lives on the stack
// for the usual small messages.
type mac struct {
	buf []byte
	arr [192]byte
}

func (m *mac) init() *mac {
	m.buf = m.arr[:0]
	return m
}

func (m *mac) str(s string) *mac {
	m.int32(int32(len(s)))
	m.buf = append(m.buf, s...)
	return m
}

func (m *mac) int32(i int32) *mac {
	m.buf = binary.BigEndian.AppendUint32(m.buf, uint32(i))
	return m
}

func (m *mac) int64(i int64) *mac {
	m.buf = binary.BigEndian.AppendUint64(m.buf, uint64(i))
	return m
}

func (m *mac) sum(key Hash) Hash { return hmacSHA256(&key, m.buf) }

// hmacSHA256 is HMAC-SHA256 with a 32-byte key.
func hmacSHA256(key *Hash, msg []byte) Hash { return HMACSHA256(key[:], msg) }

// HMACSHA256 is HMAC-SHA256 (RFC 2104), written out so that a key of at
// most 64 bytes and a short message allocate nothing:
// H(key⊕opad ‖ H(key⊕ipad ‖ msg)). Canton's seeds, salts and their
// derivations all go through it. A longer key is replaced by its hash, as
// the RFC says.
func HMACSHA256(key, msg []byte) [32]byte {
	if len(key) > 64 {
		h := sha256.Sum256(key)
		key = h[:]
	}
	var buf [64 + 256]byte
	b := buf[:64]
	if 64+len(msg) > len(buf) {
		b = make([]byte, 64, 64+len(msg))
	}
	for i := 0; i < 64; i++ {
		b[i] = 0x36
	}
	for i, k := range key {
		b[i] ^= k
	}
	inner := sha256.Sum256(append(b, msg...))
	var outer [64 + sha256.Size]byte
	for i := 0; i < 64; i++ {
		outer[i] = 0x5c
	}
	for i, k := range key {
		outer[i] ^= k
	}
	copy(outer[64:], inner[:])
	return sha256.Sum256(outer[:])
}

// DeriveTransactionSeed derives the transaction seed of a submission (Canton's
// Hash.deriveTransactionSeed): HMAC(submissionSeed, participantId ‖
// preparationTime).
func DeriveTransactionSeed(submissionSeed Hash, participantID string, preparationTime value.Timestamp) Hash {
	var m mac
	return m.init().str(participantID).int64(int64(preparationTime)).sum(submissionSeed)
}

// DeriveNodeSeed derives the seed of the index-th action child of a node (or of
// the index-th root, from the transaction seed): HMAC(parent, index), index
// a 4-byte big-endian integer as in Canton's Hash.deriveNodeSeed (the
// specification's prose says 8 bytes; Canton's code, which ledgers run,
// writes an Int).
func DeriveNodeSeed(parent Hash, index int) Hash {
	var m mac
	return m.init().int32(int32(index)).sum(parent)
}

// DeriveDiscriminator derives the discriminator of a contract created by the node
// with seed nodeSeed (Canton's Hash.deriveContractDiscriminator):
// HMAC(nodeSeed, preparationTime ‖ stakeholders), the stakeholders as a
// sorted set.
func DeriveDiscriminator(nodeSeed Hash, preparationTime value.Timestamp, stakeholders []string) Hash {
	var m mac
	m.init().int64(int64(preparationTime))
	set := sortedSet(stakeholders)
	m.int32(int32(len(set)))
	for _, p := range set {
		m.str(p)
	}
	return m.sum(nodeSeed)
}

// ContractIDV1 returns the local V1 contract id of a create node with seed
// nodeSeed: 0x00 ‖ DeriveDiscriminator(nodeSeed, preparationTime, stakeholders).
func ContractIDV1(nodeSeed Hash, preparationTime value.Timestamp, stakeholders []string) value.ContractID {
	return value.ContractIDV1(DeriveDiscriminator(nodeSeed, preparationTime, stakeholders))
}

// sortedSet returns the distinct elements of ps, sorted.
func sortedSet(ps []string) []string {
	out := append([]string(nil), ps...)
	sort.Strings(out)
	n := 0
	for i, p := range out {
		if i == 0 || p != out[n-1] {
			out[n] = p
			n++
		}
	}
	return out[:n]
}
