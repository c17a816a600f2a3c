package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// LFVersion is the Daml-LF serialization version of every node and of the
// transaction: "2.1", which both hashing schemes accept and which carries no
// contract keys.
const LFVersion = "2.1"

// contractIDPrefix is the version byte of Canton's V1 contract ids.
const contractIDPrefix = "00"

// template is a template identifier the generic contract model resolved.
type template struct {
	id          *damlpb.Identifier // package id form
	packageName string
}

// String prints pkg:Module:Entity.
func (t template) String() string {
	return identifierString(t.id)
}

func identifierString(id *damlpb.Identifier) string {
	return id.GetPackageId() + ":" + id.GetModuleName() + ":" + id.GetEntityName()
}

// PackageIDForName is the package id the node gives a package named by name
// ("#name:Module:Entity"): the lower-case hex SHA-256 of the name.
func PackageIDForName(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

// resolveTemplate turns a template id of a command into the package-id form
// and its package name. "#name:M:E" has package name name and package id
// PackageIDForName(name), unless the preference list holds a package id the
// configuration maps to that name. "pkg:M:E" has package id pkg and the
// package name the configuration gives pkg, else pkg itself.
func (e *Engine) resolveTemplate(s string, preference []string) (template, error) {
	t, err := ledgerapi.ParseTemplateID(s)
	if err != nil {
		return template{}, err
	}
	if t.ByName() {
		pkgID := PackageIDForName(t.PackageName)
		for _, p := range preference {
			if e.cfg.PackageNames[p] == t.PackageName {
				pkgID = p
				break
			}
		}
		return template{
			id:          &damlpb.Identifier{PackageId: pkgID, ModuleName: t.Module, EntityName: t.Entity},
			packageName: t.PackageName,
		}, nil
	}
	name := t.PackageID
	if n, ok := e.cfg.PackageNames[t.PackageID]; ok {
		name = n
	}
	return template{
		id:          &damlpb.Identifier{PackageId: t.PackageID, ModuleName: t.Module, EntityName: t.Entity},
		packageName: name,
	}, nil
}

// matchesTemplate reports whether a command's template id names the
// template of an existing contract: the same module and entity, and the same
// package id (pkg form) or package name (#name form).
func matchesTemplate(cmdTemplate string, c *ledger.Contract) bool {
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

// ContractIDFromSeed derives the contract id of the contract a create node
// with this 32-byte seed makes: "00" followed by the lower-case hex of the
// discriminator SHA-256("ledger-serve/contract-id" ‖ seed), no suffix.
func ContractIDFromSeed(seed []byte) string {
	h := sha256.New()
	h.Write([]byte("ledger-serve/contract-id"))
	h.Write(seed)
	return contractIDPrefix + hex.EncodeToString(h.Sum(nil))
}

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
