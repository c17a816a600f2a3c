package generic

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Template is a template identifier the model resolved.
type Template struct {
	ID          *value.Identifier // package id form
	PackageName string
}

// String prints pkg:Module:Entity.
func (t Template) String() string {
	return t.ID.String()
}

// PackageIDForName is the package id the node gives a package named by name
// ("#name:Module:Entity"): the lower-case hex SHA-256 of the name.
func PackageIDForName(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

// ResolveTemplate turns a parsed template id of a command into the package-id form
// and its package name. "#name:M:E" has package name name and package id
// PackageIDForName(name), unless the preference list holds a package id
// that names (package id → package name, the node's configuration) maps to
// that name. "pkg:M:E" has package id pkg and the package name names gives
// pkg, else pkg itself.
func ResolveTemplate(t ledgerapi.TemplateID, preference []string, names map[string]string) Template {
	if t.ByName() {
		pkgID := PackageIDForName(t.PackageName)
		for _, p := range preference {
			if names[p] == t.PackageName {
				pkgID = p
				break
			}
		}
		return Template{
			ID:          &value.Identifier{PackageID: pkgID, ModuleName: t.Module, EntityName: t.Entity},
			PackageName: t.PackageName,
		}
	}
	name := t.PackageID
	if n, ok := names[t.PackageID]; ok {
		name = n
	}
	return Template{
		ID:          &value.Identifier{PackageID: t.PackageID, ModuleName: t.Module, EntityName: t.Entity},
		PackageName: name,
	}
}

// MatchesTemplate reports whether a command's template id names the
// template of an existing contract: the same module and entity, and the same
// package id (pkg form) or package name (#name form).
func MatchesTemplate(cmdTemplate string, c *ledger.Contract) bool {
	t, err := ledgerapi.ParseTemplateID(cmdTemplate)
	if err != nil {
		return false
	}
	ct, err := ledgerapi.ParseTemplateID(c.TemplateID)
	if err != nil || t.Module != ct.Module || t.Entity != ct.Entity {
		return false
	}
	if t.ByName() {
		return t.PackageName == c.PackageName
	}
	return t.PackageID == ct.PackageID
}

// ContractIDFromSeed derives the contract id of the contract a create node
// with this 32-byte seed makes: "00" followed by the lower-case hex of the
// discriminator SHA-256("ledger-serve/contract-id" ‖ seed), no suffix.
func ContractIDFromSeed(seed []byte) string {
	h := sha256.New()
	h.Write([]byte("ledger-serve/contract-id"))
	h.Write(seed)
	return "00" + hex.EncodeToString(h.Sum(nil))
}

// ParseIdentifier reads "pkg:Module:Entity" (package id form only).
func ParseIdentifier(s string) (*value.Identifier, error) {
	t, err := ledgerapi.ParseTemplateID(s)
	if err != nil {
		return nil, err
	}
	if t.ByName() {
		return nil, fmt.Errorf("template id %q names its package by name; stored ids use the package id", s)
	}
	return &value.Identifier{PackageID: t.PackageID, ModuleName: t.Module, EntityName: t.Entity}, nil
}
