package cmdutil

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
)

// DecodePackagePayload decodes what GET /v2/packages/{id} sends, a
// package's archive payload, by wrapping it in the Archive message the
// decoder reads (payload and hash; the hash function SHA-256 is the
// default).
func DecodePackagePayload(id string, payload []byte) (*lf.Package, error) {
	b := protowire.AppendTag(nil, 3, protowire.BytesType)
	b = protowire.AppendBytes(b, payload)
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendString(b, id)
	return archive.DecodeArchive(b, archive.Options{AllowDev: true})
}
