package topology

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"slices"
)

// Hash purposes: the 4-byte big-endian number Canton puts in front of what it
// hashes, so that a hash made for one use can never be replayed in another.
const (
	purposeTopologyTransaction = 11 // HashPurpose.TopologyTransactionSignature
	purposeMultiTopology       = 55 // HashPurpose.MultiTopologyTransaction
	// 12, HashPurpose.PublicKeyFingerprint, is signer.Fingerprint's.
)

// multihashSHA256 is the multihash header of a SHA-256 digest: algorithm 0x12,
// length 0x20. Canton hashes are always written with it.
var multihashSHA256 = []byte{0x12, 0x20}

// cantonHash returns 12 20 ‖ SHA-256(int32(purpose) ‖ data).
func cantonHash(purpose uint32, data ...[]byte) []byte {
	h := sha256.New()
	var p [4]byte
	binary.BigEndian.PutUint32(p[:], purpose)
	h.Write(p[:])
	for _, d := range data {
		h.Write(d)
	}
	return h.Sum(slices.Clone(multihashSHA256))
}

// TransactionHash returns the 34-byte hash of one serialized topology
// transaction (the bytes including the UntypedVersionedMessage wrapper):
// 12 20 ‖ SHA-256(00 00 00 0B ‖ serialized). These 34 bytes, header included,
// are what a key signs to authorize the transaction alone.
func TransactionHash(serialized []byte) []byte {
	return cantonHash(purposeTopologyTransaction, serialized)
}

// MultiHash combines transaction hashes into the one 34-byte hash a key signs
// to authorize all of them at once:
//
//	12 20 ‖ SHA-256(00 00 00 37 ‖ int32(n) ‖ for each hash: int32(len) ‖ hash)
//
// The hashes are taken as a set, like Canton does: duplicates count once and
// they are sorted by their lowercase hex (the same order as their bytes).
func MultiHash(txHashes [][]byte) []byte {
	sorted := append(make([][]byte, 0, len(txHashes)), txHashes...)
	slices.SortFunc(sorted, bytes.Compare)
	sorted = slices.CompactFunc(sorted, bytes.Equal)

	var buf bytes.Buffer
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(sorted)))
	buf.Write(n[:])
	for _, h := range sorted {
		binary.BigEndian.PutUint32(n[:], uint32(len(h)))
		buf.Write(n[:])
		buf.Write(h)
	}
	return cantonHash(purposeMultiTopology, buf.Bytes())
}
