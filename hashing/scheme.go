package hashing

import (
	"fmt"
	"strings"
)

// Scheme is a hashing scheme version, numbered as in the HashingSchemeVersion enum.
type Scheme int32

// The schemes this package computes.
const (
	V2 Scheme = 2
	V3 Scheme = 3
)

// String returns the enum name the JSON API uses.
func (s Scheme) String() string {
	switch s {
	case 0:
		return "HASHING_SCHEME_VERSION_UNSPECIFIED"
	case V2, V3, 4:
		return fmt.Sprintf("HASHING_SCHEME_VERSION_V%d", int32(s))
	}
	return fmt.Sprintf("HASHING_SCHEME_VERSION(%d)", int32(s))
}

// Short returns "v2" or "v3".
func (s Scheme) Short() string { return fmt.Sprintf("v%d", int32(s)) }

// SignsMaxRecordTime reports whether the hash covers the metadata's
// max_record_time and global key mapping: V3 does, V2 does not (whoever
// submits a V2 transaction may change them).
func (s Scheme) SignsMaxRecordTime() bool { return s >= V3 }

// Supported reports whether the scheme can be computed.
func (s Scheme) Supported() bool { return s == V2 || s == V3 }

// ParseScheme accepts "v2", "V3", "2", or the enum names
// "HASHING_SCHEME_VERSION_V2" and "HASHING_SCHEME_VERSION_V3".
func ParseScheme(text string) (Scheme, error) {
	t := strings.ToUpper(strings.TrimSpace(text))
	t = strings.TrimPrefix(t, "HASHING_SCHEME_VERSION_")
	switch t {
	case "V2", "2":
		return V2, nil
	case "V3", "3":
		return V3, nil
	case "UNSPECIFIED", "", "0":
		return 0, fmt.Errorf("hashing scheme version is unspecified: use HASHING_SCHEME_VERSION_V2 or HASHING_SCHEME_VERSION_V3")
	case "V1", "1":
		return 0, fmt.Errorf("hashing scheme V1 was removed in Canton 3.3 and cannot be verified: use V2 or V3")
	case "V4", "4":
		return 0, fmt.Errorf("hashing scheme V4 exists only on Canton development builds and is not supported: use V2 or V3")
	}
	return 0, fmt.Errorf("unknown hashing scheme %q: use v2 or v3", text)
}

// lfVersion is a Daml-LF serialization version as it appears in lf_version.
// "2.1" is the older one (SerializationVersion.V1), "2" the newer (V2, keys).
type lfVersion int

const (
	lfUnknown lfVersion = iota
	lf21                // "2.1"
	lf2                 // "2"
)

func parseLFVersion(b []byte) lfVersion {
	switch string(b) {
	case "2.1":
		return lf21
	case "2":
		return lf2
	}
	return lfUnknown
}

// maxLF returns the newest node version the scheme can hash.
func (s Scheme) maxLF() lfVersion {
	if s == V3 {
		return lf2
	}
	return lf21
}
