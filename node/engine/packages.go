package engine

import damlengine "github.com/ledger-cli/ledger/daml/engine"

// The package set is daml/engine's; these names keep the node's callers
// as they were while the engine moves there.
type (
	PackageSet    = damlengine.PackageSet
	VettedPackage = damlengine.VettedPackage
)

// NewPackageSet is damlengine.NewPackageSet.
var NewPackageSet = damlengine.NewPackageSet

// PackageSetOf is damlengine.PackageSetOf.
var PackageSetOf = damlengine.PackageSetOf
