package ledger

import "time"

// DefaultMaxDeduplication is the maximum deduplication duration of a new
// node (Canton's default max-deduplication-duration, 7 days).
const DefaultMaxDeduplication = 7 * 24 * time.Hour

// Identity is who the node is. It is fixed at the first start.
type Identity struct {
	ParticipantID        string // e.g. "participant1::1220…"
	NamespaceFingerprint string // fingerprint of the node's namespace key
	NamespaceKey         []byte // the node's secret key material; opaque to the store
	SynchronizerID       string
	MaxDeduplication     time.Duration // DefaultMaxDeduplication when zero at creation
	CreatedAt            time.Time     // set by the store when it records the identity
}

// DefaultParticipantName is the participant name of a node created without
// one; its participant id is DefaultParticipantName::fingerprint.
const DefaultParticipantName = "participant1"
