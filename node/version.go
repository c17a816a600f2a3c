package node

import (
	"runtime/debug"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// APIVersion is the Canton release whose JSON Ledger API the node speaks.
// /v2/version starts with it because clients choose their behaviour by that
// prefix (3.4 and 3.5 differ); ledger's own version follows as semver build
// metadata, which does not change how versions compare.
const APIVersion = "3.5.1"

// Version is ledger's own version. Release builds set it with
// -ldflags "-X github.com/ledger-cli/ledger/node.Version=1.2.3"; otherwise
// it comes from the module's build information.
var Version = ""

// Limits the node advertises in /v2/version and applies.
const (
	MaxUsersPageSize   = 1000
	MaxPartiesPageSize = 10000
	MaxRightsPerUser   = 1000
	// MaxPartiesPerRequest bounds the parties one request may list in
	// actAs, readAs, a completions request, a transaction filter or a party
	// lookup (the parties page size). Canton has no such count; the bound
	// keeps one request from costing thousands of lookups.
	MaxPartiesPerRequest      = MaxPartiesPageSize
	maxVettedPackagesPageSize = 100
	// offset checkpoints: 15 s cache refresh + 60 s idle emission, as Canton.
	maxOffsetCheckpointEmissionDelay = 75 * time.Second
)

// version returns what /v2/version reports: APIVersion+ledger.<version>.
func version() string {
	v := Version
	if v == "" {
		v = "0.0.0-dev"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = strings.TrimPrefix(bi.Main.Version, "v")
		}
	}
	return APIVersion + "+ledger." + strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, v)
}

// VersionInfo is what /v2/version answers: the version and the features
// and limits of this node.
func VersionInfo() ledgerapi.GetVersionResponse {
	return ledgerapi.GetVersionResponse{
		Version: version(),
		Features: ledgerapi.FeaturesDescriptor{
			UserManagement: ledgerapi.UserManagementFeature{
				Supported: true, MaxRightsPerUser: MaxRightsPerUser, MaxUsersPageSize: MaxUsersPageSize,
			},
			PartyManagement:  ledgerapi.PartyManagementFeature{MaxPartiesPageSize: MaxPartiesPageSize},
			OffsetCheckpoint: ledgerapi.OffsetCheckpointFeature{MaxOffsetCheckpointEmissionDelay: ledgerapi.DurationOf(maxOffsetCheckpointEmissionDelay)},
			PackageFeature:   ledgerapi.PackageFeature{MaxVettedPackagesPageSize: maxVettedPackagesPageSize},
		},
	}
}
