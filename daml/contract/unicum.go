package contract

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// Salt is a contract salt: the 32-byte blinding factor of a unicum, kept in
// the contract's authentication data.
type Salt [32]byte

// SaltSeedLen is the length of a transaction's random salt seed
// (Canton's SaltSeed.defaultLength).
const SaltSeedLen = 16

// DeriveSalt derives the index-th salt of a transaction from its random
// seed (Canton's Salt.deriveSalt): HMAC-SHA256(seed, int32BE(index)).
func DeriveSalt(seed []byte, index int) Salt {
	var msg [4]byte
	binary.BigEndian.PutUint32(msg[:], uint32(int32(index)))
	return Salt(hmacSum(seed, msg[:]))
}

// Direction is a step in a Merkle sequence: false left, true right.
type Direction = bool

// ViewPosition is the position of a view in a transaction tree: for each
// Merkle sequence on the path from the view up to the root, the
// directions from the leaf up to the sequence's root (Canton's
// ViewPosition of MerkleSeqIndex elements, both listed leaf first).
type ViewPosition [][]Direction

// encode appends the position's deterministic encoding: int32 count of
// elements, each an int32 count of directions then a byte 0 (left) or 1.
func (p ViewPosition) encode(b []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
	for _, dirs := range p {
		b = binary.BigEndian.AppendUint32(b, uint32(len(dirs)))
		for _, d := range dirs {
			b = append(b, boolByte(d))
		}
	}
	return b
}

// RootViewPositions returns the positions of n root views, in order, as
// Canton's MerkleSeq arranges them: a balanced tree built bottom-up by
// pairing neighbours (an odd one out moves up a level), each leaf's path
// read from the leaf to the root.
func RootViewPositions(n int) []ViewPosition {
	if n <= 0 {
		return nil
	}
	// Build the tree as nested index ranges, level by level.
	type node struct{ left, right *node }
	level := make([]*node, n)
	for i := range level {
		level[i] = &node{}
	}
	for len(level) > 1 {
		next := make([]*node, 0, (len(level)+1)/2)
		for i := 0; i < len(level); i += 2 {
			if i+1 < len(level) {
				next = append(next, &node{left: level[i], right: level[i+1]})
			} else {
				next = append(next, level[i])
			}
		}
		level = next
	}
	out := make([]ViewPosition, 0, n)
	var walk func(nd *node, fromRoot []Direction)
	walk = func(nd *node, fromRoot []Direction) {
		if nd.left == nil {
			path := slices.Clone(fromRoot)
			slices.Reverse(path)
			out = append(out, ViewPosition{path})
			return
		}
		walk(nd.left, append(fromRoot, false))
		walk(nd.right, append(fromRoot, true))
	}
	walk(level[0], make([]Direction, 0, 32))
	return out
}

// SaltInput is what a V1 contract salt commits to (ContractSalt.createV1):
// the salt of the view's participant data, the create's index among the
// creates of the view's core, the view's position, the transaction's UUID,
// the synchronizer id and the mediator group.
type SaltInput struct {
	ViewParticipantDataSalt Salt
	CreateIndex             int
	ViewPosition            ViewPosition
	TransactionUUID         string
	SynchronizerID          string
	MediatorGroup           int
}

// ContractSaltV1 derives a contract's salt (ContractSalt.createV1):
//
//	HMAC-SHA256(view participant data salt,
//	  int32(createIndex) ‖ viewPosition ‖ str(uuid) ‖ str(synchronizerId) ‖ str("MGR::" + group))
func ContractSaltV1(in SaltInput) Salt {
	var buf [256]byte
	b := binary.BigEndian.AppendUint32(buf[:0], uint32(int32(in.CreateIndex)))
	b = in.ViewPosition.encode(b)
	b = appendStr(b, in.TransactionUUID)
	b = appendStr(b, in.SynchronizerID)
	// str(mediatorGroupRecipient(group)), without building the string.
	var group [24]byte
	mgr := strconv.AppendInt(append(group[:0], "MGR::"...), int64(in.MediatorGroup), 10)
	b = binary.BigEndian.AppendUint32(b, uint32(len(mgr)))
	b = append(b, mgr...)
	return Salt(hmacSum(in.ViewParticipantDataSalt[:], b))
}

// mediatorGroupRecipient is MediatorGroupRecipient.toProtoPrimitive.
func mediatorGroupRecipient(group int) string {
	return "MGR::" + strconv.Itoa(group)
}

func appendStr(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// hmacSum is HMAC-SHA256, without the allocations of crypto/hmac.
func hmacSum(key, msg []byte) [32]byte { return tx.HMACSHA256(key, msg) }

// Metadata is what a unicum commits to besides the salt, the creation time
// and the contract hash: the parties and the key.
type Metadata struct {
	Signatories  []string // any order; duplicates ignored
	Stakeholders []string // signatories and observers; any order
	// KeyHash and Maintainers are set for a contract with a key.
	KeyHash     *[32]byte
	Maintainers []string
}

// hashPurposeUnicum is Canton's HashPurpose.Unicum.
const hashPurposeUnicum = 29

// ComputeUnicum computes a V1 unicum (UnicumGenerator.computeUnicumHash):
//
//	SHA-256(int32(29) ‖ salt ‖ int64(epoch seconds) ‖ int32(nanos) of createdAt
//	  ‖ L(seq(sorted signatories)) ‖ L(seq(sorted stakeholders − signatories))
//	  ‖ (0x00 | 0x01 ‖ keyHash) ‖ L(0x00 | 0x01 ‖ seq(sorted maintainers))
//	  ‖ contractHash)
//
// where seq(ps) is int32(count) then each party as int32(length) ‖ UTF-8,
// and L(b) is int32(len(b)) ‖ b.
func ComputeUnicum(salt Salt, createdAt value.Timestamp, md Metadata, contractHash Hash) [32]byte {
	sigs := sortedSet(md.Signatories)
	var others []string
	for _, p := range sortedSet(md.Stakeholders) {
		if _, found := slices.BinarySearch(sigs, p); !found {
			others = append(others, p)
		}
	}
	b := make([]byte, 0, 256)
	b = binary.BigEndian.AppendUint32(b, hashPurposeUnicum)
	b = append(b, salt[:]...)
	sec, nanos := epochSecondNanos(createdAt)
	b = binary.BigEndian.AppendUint64(b, uint64(sec))
	b = binary.BigEndian.AppendUint32(b, uint32(nanos))
	b = appendLengthPrefixed(b, func(b []byte) []byte { return appendParties(b, sigs) })
	b = appendLengthPrefixed(b, func(b []byte) []byte { return appendParties(b, others) })
	if md.KeyHash == nil {
		b = append(b, 0)
		b = appendLengthPrefixed(b, func(b []byte) []byte { return append(b, 0) })
	} else {
		b = append(b, 1)
		b = append(b, md.KeyHash[:]...)
		maint := sortedSet(md.Maintainers)
		b = appendLengthPrefixed(b, func(b []byte) []byte { return appendParties(append(b, 1), maint) })
	}
	b = append(b, contractHash[:]...)
	return sha256.Sum256(b)
}

// epochSecondNanos splits µs since the epoch as Java's Instant does:
// seconds rounded down, and a non-negative nano adjustment.
func epochSecondNanos(t value.Timestamp) (int64, int32) {
	us := int64(t)
	sec := us / 1e6
	rem := us % 1e6
	if rem < 0 {
		sec--
		rem += 1e6
	}
	return sec, int32(rem * 1000)
}

func appendParties(b []byte, ps []string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(ps)))
	for _, p := range ps {
		b = appendStr(b, p)
	}
	return b
}

// appendLengthPrefixed appends what body writes, preceded by its length as
// an int32.
func appendLengthPrefixed(b []byte, body func([]byte) []byte) []byte {
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	b = body(b)
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

// sortedSet returns the distinct elements of ps, sorted.
func sortedSet(ps []string) []string {
	out := slices.Clone(ps)
	slices.Sort(out)
	return slices.Compact(out)
}

// The salts of a transaction, derived from its seed in Canton's order:
// submitter metadata, common metadata, participant metadata, then per view
// in pre-order its common data and its participant data. A
// one-participant node has one view per root action and no subviews
// (docs/contract-ids.md), so root view i's participant-data salt has
// index 4 + 2i.
const (
	saltIndexFirstView = 3
	saltsPerView       = 2
)

// ViewParticipantDataSalt returns the participant-data salt of the
// transaction's root view i: the key of the contract salts of the creates
// under root action i.
func ViewParticipantDataSalt(seed []byte, rootView int) Salt {
	return DeriveSalt(seed, saltIndexFirstView+saltsPerView*rootView+1)
}
