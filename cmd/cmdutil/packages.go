package cmdutil

import (
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
)

// DecodePackagePayload decodes what GET /v2/packages/{id} sends, a
// package's archive payload, checked against its id; 2.dev packages are
// read, since a node may hold them.
func DecodePackagePayload(id string, payload []byte) (*lf.Package, error) {
	return archive.DecodePayload(id, payload, archive.Options{AllowDev: true})
}

// IsPackageID reports whether s is a Daml-LF package id: 64 lower-case hex
// digits (and so not a #name reference or a file name).
func IsPackageID(s string) bool { return lf.IsHashPackageID(s) }
