package engine

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// LFVersion is the Daml-LF serialization version of the generic model's
// nodes and transactions (generic.LFVersion).
const LFVersion = generic.LFVersion

func identifierString(id *damlpb.Identifier) string {
	return id.GetPackageId() + ":" + id.GetModuleName() + ":" + id.GetEntityName()
}

// parseIdentifier reads "pkg:Module:Entity" (generic.ParseIdentifier).
var parseIdentifier = generic.ParseIdentifier

// contractIDPrefix is the version byte of Canton's V1 contract ids.
const contractIDPrefix = "00"

// ValidateContractID checks Canton's V1 contract id syntax
// (preprocess.ValidateContractID).
var ValidateContractID = preprocess.ValidateContractID

// validatePackageID checks a package id: 1–64 characters of [A-Za-z0-9-_ ].
func validatePackageID(s string) error {
	if s == "" || len(s) > ledgerapi.MaxPackageIDLength {
		return fmt.Errorf("package id %q must have 1 to %d characters", clip(s), ledgerapi.MaxPackageIDLength)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_' || c == ' ') {
			return fmt.Errorf("package id %q has a character outside [A-Za-z0-9-_ ]", clip(s))
		}
	}
	return nil
}

// clip shortens text quoted in an error message.
var clip = preprocess.Clip
