package contract

import (
	"encoding/hex"
	"fmt"

	"github.com/ledger-cli/ledger/daml/value"
)

// Version is a Canton V1 contract-id version: the second byte of the
// suffix's "ca1X" prefix. It picks how the contract is hashed.
type Version byte

// The V1 versions Canton 3.5 reads. 3.4 and 3.5 create V12.
const (
	V10 Version = 0x10 // Legacy hash
	V11 Version = 0x11 // UpgradeFriendly hash
	V12 Version = 0x12 // TypedNormalForm hash
)

// Method returns how contracts with ids of version v are hashed.
func (v Version) Method() Method {
	switch v {
	case V10:
		return Legacy
	case V11:
		return UpgradeFriendly
	}
	return TypedNormalForm
}

func (v Version) String() string { return fmt.Sprintf("ca%02x", byte(v)) }

// Sizes of a V1 contract id's parts, in bytes.
const (
	discriminatorLen = 32
	unicumLen        = 32
	// suffixLen is "ca1X", the multihash header 0x12 0x20 (SHA-256, 32
	// bytes) and the unicum.
	suffixLen = 2 + 2 + unicumLen
)

// ID is a V1 contract id taken apart: 0x00 ‖ discriminator ‖ suffix. A
// local id (one a transaction being built or prepared gives its creates)
// has no suffix; a committed one has Canton's suffix "ca1X" ‖ 0x12 0x20 ‖
// unicum.
type ID struct {
	Discriminator [discriminatorLen]byte
	// Version and Unicum are set when the id is suffixed.
	Version Version
	Unicum  [unicumLen]byte
	local   bool
}

// ParseID reads a V1 contract id, local or with a Canton V1 suffix. V2 ids
// (prefix 01) and suffixes other than ca10, ca11 and ca12 are refused: a
// one-participant node neither makes nor authenticates them.
func ParseID(c value.ContractID) (ID, error) {
	var id ID
	b, err := hex.DecodeString(string(c))
	if err != nil || string(c) != hex.EncodeToString(b) {
		return id, fmt.Errorf("contract id %q: not lower-case hex", clip(string(c)))
	}
	if len(b) == 0 || b[0] != 0x00 {
		return id, fmt.Errorf("contract id %q: not a V1 contract id (it must start with 00)", clip(string(c)))
	}
	if len(b) < 1+discriminatorLen {
		return id, fmt.Errorf("contract id %q: a V1 contract id has at least %d bytes, this one %d", clip(string(c)), 1+discriminatorLen, len(b))
	}
	copy(id.Discriminator[:], b[1:1+discriminatorLen])
	suffix := b[1+discriminatorLen:]
	if len(suffix) == 0 {
		id.local = true
		return id, nil
	}
	if len(suffix) < 2 || suffix[0] != 0xca || suffix[1] < byte(V10) || suffix[1] > byte(V12) {
		return id, fmt.Errorf("contract id %q: suffix %x is not a Canton V1 suffix (ca10, ca11 or ca12)", clip(string(c)), suffix[:min(len(suffix), 2)])
	}
	if len(suffix) != suffixLen || suffix[2] != 0x12 || suffix[3] != 0x20 {
		return id, fmt.Errorf("contract id %q: malformed suffix: want %x ‖ 1220 ‖ 32 bytes (%d bytes), got %d bytes", clip(string(c)), suffix[:2], suffixLen, len(suffix))
	}
	id.Version = Version(suffix[1])
	copy(id.Unicum[:], suffix[4:])
	return id, nil
}

// LocalID returns the local id of a discriminator.
func LocalID(discriminator [32]byte) ID { return ID{Discriminator: discriminator, local: true} }

// IsLocal reports whether the id has no suffix.
func (id ID) IsLocal() bool { return id.local }

// Suffixed returns the id with the suffix of version v and unicum u.
func (id ID) Suffixed(v Version, u [32]byte) ID {
	return ID{Discriminator: id.Discriminator, Version: v, Unicum: u}
}

// Bytes returns the id's bytes.
func (id ID) Bytes() []byte {
	b := make([]byte, 0, 1+discriminatorLen+suffixLen)
	b = append(b, 0x00)
	b = append(b, id.Discriminator[:]...)
	if !id.local {
		b = append(b, 0xca, byte(id.Version), 0x12, 0x20)
		b = append(b, id.Unicum[:]...)
	}
	return b
}

// ContractID returns the id in its text form: lower-case hex, 66
// characters when local, 138 when suffixed.
func (id ID) ContractID() value.ContractID { return value.ContractID(hex.EncodeToString(id.Bytes())) }

func (id ID) String() string { return string(id.ContractID()) }

// clip shortens a text quoted in an error message.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
