package value

import (
	"encoding/hex"
	"errors"
	"fmt"
)

// ContractID is a contract identifier in Canton's text form: the lower-case
// hex of its bytes. Two versions exist (contract-id.rst):
//
//   - V1: 0x00, a 32-byte discriminator, then a suffix of 0 to 94 bytes;
//   - V2: 0x01, a 12-byte local part (5-byte time prefix and 7 bytes of the
//     node seed), then a suffix of 0 to 33 bytes.
//
// A contract id without suffix is local: the transaction being interpreted
// created it. Ordering and equality are those of the bytes, which the hex
// text preserves, subject to the comparability rule (see Compare).
type ContractID string

// Kind returns KindContractID.
func (ContractID) Kind() Kind { return KindContractID }

func (c ContractID) String() string { return string(c) }

// Lengths of contract-id parts, in bytes.
const (
	v1PrefixLen    = 1 + 32 // version byte and discriminator
	v1MaxSuffixLen = 94
	v2PrefixLen    = 1 + 12 // version byte, time prefix and seed part
	v2MaxSuffixLen = 33
)

// ParseContractID checks that s is a V1 or V2 contract id in lower-case hex
// and returns it.
func ParseContractID(s string) (ContractID, error) {
	if len(s)%2 != 0 {
		return "", fmt.Errorf("contract id %q: odd number of hex digits", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", fmt.Errorf("contract id %q: %q is not a lower-case hex digit", s, c)
		}
	}
	n := len(s) / 2
	switch {
	case len(s) >= 2 && s[:2] == "00":
		if n < v1PrefixLen || n > v1PrefixLen+v1MaxSuffixLen {
			return "", fmt.Errorf("contract id %q: a V1 id has %d to %d bytes, not %d", s, v1PrefixLen, v1PrefixLen+v1MaxSuffixLen, n)
		}
	case len(s) >= 2 && s[:2] == "01":
		if n < v2PrefixLen || n > v2PrefixLen+v2MaxSuffixLen {
			return "", fmt.Errorf("contract id %q: a V2 id has %d to %d bytes, not %d", s, v2PrefixLen, v2PrefixLen+v2MaxSuffixLen, n)
		}
	default:
		return "", fmt.Errorf("contract id %q: unknown version prefix (00 for V1, 01 for V2)", s)
	}
	return ContractID(s), nil
}

// ContractIDV1 returns the local (unsuffixed) V1 contract id of a
// discriminator: 0x00 ‖ discriminator.
func ContractIDV1(discriminator [32]byte) ContractID {
	return ContractID("00" + hex.EncodeToString(discriminator[:]))
}

// Version returns 1 or 2, or 0 when c is not a contract id.
func (c ContractID) Version() int {
	if len(c) < 2 {
		return 0
	}
	switch c[:2] {
	case "00":
		return 1
	case "01":
		return 2
	}
	return 0
}

// split returns the prefix (version byte and discriminator or local part)
// and the suffix, both in hex.
func (c ContractID) split() (prefix, suffix string) {
	n := 0
	switch c.Version() {
	case 1:
		n = 2 * v1PrefixLen
	case 2:
		n = 2 * v2PrefixLen
	}
	if n > len(c) {
		n = len(c)
	}
	return string(c[:n]), string(c[n:])
}

// Suffix returns the hex of the suffix; "" for a local contract id.
func (c ContractID) Suffix() string {
	_, s := c.split()
	return s
}

// IsLocal reports whether c has no suffix.
func (c ContractID) IsLocal() bool { return c.Suffix() == "" }

// isAbsoluteV2 reports whether a V2 id has a suffix whose first bit is set.
func (c ContractID) isAbsoluteV2() bool {
	s := c.Suffix()
	return s != "" && s[0] >= '8'
}

// ComparabilityError is Canton's ContractIdComparability: a local contract
// id compared with a suffixed one of the same prefix (or, for V2, two
// relative ids of the same prefix and different suffixes). Global is the
// suffixed id of the two.
type ComparabilityError struct{ Global ContractID }

func (e *ComparabilityError) Error() string {
	return fmt.Sprintf("The global contract ID %s conflicts with a local contract ID", e.Global)
}

// compareContractIDs orders two contract ids as Canton does: V1 before V2;
// within a version by prefix, then by suffix, failing when only one of two
// ids with the same prefix has a suffix (and, for V2, when two different
// suffixes are not both absolute).
func compareContractIDs(a, b ContractID) (int, error) {
	va, vb := a.Version(), b.Version()
	if va != vb {
		if va < vb {
			return -1, nil
		}
		return 1, nil
	}
	pa, sa := a.split()
	pb, sb := b.split()
	if c := cmpString(pa, pb); c != 0 {
		return c, nil
	}
	switch {
	case sa == "" && sb == "":
		return 0, nil
	case sa == "":
		return 0, &ComparabilityError{Global: b}
	case sb == "":
		return 0, &ComparabilityError{Global: a}
	}
	c := cmpString(sa, sb)
	if c != 0 && va == 2 && !(a.isAbsoluteV2() && b.isAbsoluteV2()) {
		return 0, &ComparabilityError{Global: a}
	}
	return c, nil
}

// equalContractIDs is compareContractIDs for equality, as Canton's Equality
// checks it: equal ids are equal; ids with different prefixes are different;
// with the same prefix the comparability rule applies.
func equalContractIDs(a, b ContractID) (bool, error) {
	if a == b {
		return true, nil
	}
	if a.Version() != b.Version() {
		return false, nil
	}
	pa, sa := a.split()
	pb, sb := b.split()
	if pa != pb {
		return false, nil
	}
	switch {
	case sa == "":
		return false, &ComparabilityError{Global: b}
	case sb == "":
		return false, &ComparabilityError{Global: a}
	case a.Version() == 2 && !(a.isAbsoluteV2() && b.isAbsoluteV2()):
		return false, &ComparabilityError{Global: a}
	}
	return false, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ErrNotComparable is Canton's NonComparableValues: functions (closures,
// partially applied builtins, updates) were compared.
var ErrNotComparable = errors.New("functions are not comparable")
