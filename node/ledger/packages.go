package ledger

import "time"

// Package is a Daml-LF package the node has stored: one dalf of an
// uploaded DAR, with what the node needs to know of it without decoding.
type Package struct {
	// ID is the package id: the lower-case hex SHA-256 of the archive's
	// payload.
	ID string
	// Name and Version come from the package metadata.
	Name    string
	Version string
	// LanguageVersion is the Daml-LF version ("2.1", "2.dev").
	LanguageVersion string
	// Archive is the dalf: a Daml-LF Archive message (hash function,
	// payload, hash). Listing calls leave it nil.
	Archive []byte
	// UploadedAt is when the node first stored the package.
	UploadedAt time.Time
}

// Vetting is a package's vetting state on the node's synchronizer: vetted
// or not, and the bounds of its validity (nil when unbounded).
type Vetting struct {
	Vetted     bool
	ValidFrom  *time.Time
	ValidUntil *time.Time
}

// VettingChange sets the vetting of one package. The store applies a list
// of them, with the topology serial they were computed against, atomically.
type VettingChange struct {
	PackageID string
	Vetting   Vetting
}
