package engine

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// LFVersion is the Daml-LF serialization version of every node and of the
// transaction: "2.1", which both hashing schemes accept and which carries no
// contract keys.
const LFVersion = "2.1"

func identifierString(id *damlpb.Identifier) string {
	return id.GetPackageId() + ":" + id.GetModuleName() + ":" + id.GetEntityName()
}

// parseIdentifier reads "pkg:Module:Entity" (package id form only).
func parseIdentifier(s string) (*damlpb.Identifier, error) {
	t, err := ledgerapi.ParseTemplateID(s)
	if err != nil {
		return nil, err
	}
	if t.ByName() {
		return nil, fmt.Errorf("template id %q names its package by name; stored ids use the package id", s)
	}
	return &damlpb.Identifier{PackageId: t.PackageID, ModuleName: t.Module, EntityName: t.Entity}, nil
}

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
