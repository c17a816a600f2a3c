package ledgerapi

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The package service of the JSON API (/v2/packages, /v2/dars,
// /v2/package-vetting) and the package preferences of the interactive
// submission service (/v2/interactive-submission/preferred-package*).

// Error codes of package uploads, vetting and preferences.
var (
	// CodeDarParseError: the DAR or one of its dalfs does not decode.
	CodeDarParseError = ErrorCode{"DAR_PARSE_ERROR", 8}
	// CodeInvalidDar: the DAR is no zip file or has no readable manifest
	// (Canton's PackageServiceErrors.Reading.InvalidDar, "Dar file is
	// corrupt").
	CodeInvalidDar = ErrorCode{"INVALID_DAR", 8}
	// CodeZipBomb: an entry of the DAR inflates far more than real DARs
	// do (Canton's PackageServiceErrors.Reading.ZipBomb).
	CodeZipBomb = ErrorCode{"ZIP_BOMB", 8}
	// CodeDarDependenciesNotValid: the DAR lacks a package its main package
	// depends on.
	CodeDarDependenciesNotValid = ErrorCode{"DAR_DEPENDENCIES_NOT_VALID", 8}
	// CodeDarValidationError: a package of the DAR is not well formed or
	// not well typed (Canton's PackageServiceErrors.Validation).
	CodeDarValidationError = ErrorCode{"DAR_VALIDATION_ERROR", 8}
	// CodeAllowedLanguageVersions: a package's Daml-LF version is not
	// accepted (2.dev without dev mode).
	CodeAllowedLanguageVersions = ErrorCode{"ALLOWED_LANGUAGE_VERSIONS", 8}
	// CodeNotValidUpgradePackage: a package of the DAR is not a valid
	// upgrade of a vetted package with the same name.
	CodeNotValidUpgradePackage = ErrorCode{"NOT_VALID_UPGRADE_PACKAGE", 8}
	// CodeKnownPackageVersion: two packages of the same name and version.
	CodeKnownPackageVersion = ErrorCode{"KNOWN_PACKAGE_VERSION", 8}
	// CodeTemplatesOrInterfacesNotFound: a command names a template or
	// interface that no uploaded package defines.
	CodeTemplatesOrInterfacesNotFound = ErrorCode{"TEMPLATES_OR_INTERFACES_NOT_FOUND", 11}
	// CodePackageNamesNotFound: a read filter names a package name no
	// uploaded package has.
	CodePackageNamesNotFound = ErrorCode{"PACKAGE_NAMES_NOT_FOUND", 11}
	// CodeNoTemplatesForPackageNameAndQualifiedName: a read filter's
	// template names an uploaded package name none of whose packages
	// defines it.
	CodeNoTemplatesForPackageNameAndQualifiedName = ErrorCode{"NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME", 11}
	// CodeNoInterfaceForPackageNameAndQualifiedName: a read filter's
	// interface "#name:Module:Entity" names a known package name none of
	// whose packages defines that interface.
	CodeNoInterfaceForPackageNameAndQualifiedName = ErrorCode{"NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME", 11}
	// CodeNoVettedInterfaceImplementationPackage: an interface view cannot
	// be computed because no vetted package of the contract's package name
	// implements the interface (reported in the view's status).
	CodeNoVettedInterfaceImplementationPackage = ErrorCode{"NO_VETTED_INTERFACE_IMPLEMENTATION_PACKAGE", 9}
	// CodeNoPreferredPackagesFound: no vetted package satisfies the
	// requirements of a preferred-packages request.
	CodeNoPreferredPackagesFound = ErrorCode{"NO_PREFERRED_PACKAGES_FOUND", 9}
	// CodeTopologyDependenciesNotVetted: a vetting change leaves a vetted
	// package whose dependency is not vetted.
	CodeTopologyDependenciesNotVetted = ErrorCode{"TOPOLOGY_DEPENDENCIES_NOT_VETTED", 9}
	// CodeUnresolvedVettingReference: a vetting change names no stored
	// package.
	CodeUnresolvedVettingReference = ErrorCode{"UNRESOLVED_VETTING_REFERENCE", 11}
	// CodeAmbiguousVettingReference: a Vet change matches more than one
	// package.
	CodeAmbiguousVettingReference = ErrorCode{"AMBIGUOUS_VETTING_REFERENCE", 9}
	// CodeTopologySerialMismatch: the expected topology serial of a vetting
	// change is not the current one.
	CodeTopologySerialMismatch = ErrorCode{"TOPOLOGY_SERIAL_MISMATCH", 9}
)

// Package statuses (GetPackageStatusResponse.packageStatus).
const (
	PackageStatusUnspecified = "PACKAGE_STATUS_UNSPECIFIED"
	PackageStatusRegistered  = "PACKAGE_STATUS_REGISTERED"
)

// PackageHashHeader is the response header of GET /v2/packages/{id}: the
// package's hash (its id).
const PackageHashHeader = "Canton-Package-Hash"

// ListPackagesResponse is GET /v2/packages.
type ListPackagesResponse struct {
	PackageIDs List[string] `json:"packageIds"`
}

// GetPackageStatusResponse is GET /v2/packages/{id}/status.
type GetPackageStatusResponse struct {
	PackageStatus string `json:"packageStatus"`
}

// UploadDarFileResponse is the (empty) answer of POST /v2/dars and
// POST /v2/packages.
type UploadDarFileResponse struct{}

// ValidateDarFileResponse is the (empty) answer of POST /v2/dars/validate.
type ValidateDarFileResponse struct{}

// PackageReference names a package by id, name and version.
type PackageReference struct {
	PackageID      string `json:"packageId"`
	PackageName    string `json:"packageName"`
	PackageVersion string `json:"packageVersion"`
}

// PackagePreference is a preferred package on a synchronizer.
type PackagePreference struct {
	PackageReference PackageReference `json:"packageReference"`
	SynchronizerID   string           `json:"synchronizerId"`
}

// GetPreferredPackageVersionResponse is GET
// /v2/interactive-submission/preferred-package-version.
type GetPreferredPackageVersionResponse struct {
	PackagePreference *PackagePreference `json:"packagePreference"`
}

// PackageVettingRequirement asks for the preferred package of a name that
// all the parties' participants vetted.
type PackageVettingRequirement struct {
	Parties     []string `json:"parties"`
	PackageName string   `json:"packageName"`
}

// GetPreferredPackagesRequest is POST
// /v2/interactive-submission/preferred-packages.
type GetPreferredPackagesRequest struct {
	PackageVettingRequirements []PackageVettingRequirement `json:"packageVettingRequirements"`
	SynchronizerID             string                      `json:"synchronizerId"`
	VettingValidAt             *Timestamp                  `json:"vettingValidAt"`
}

// GetPreferredPackagesResponse answers GetPreferredPackagesRequest.
type GetPreferredPackagesResponse struct {
	PackageReferences List[PackageReference] `json:"packageReferences"`
	SynchronizerID    string                 `json:"synchronizerId"`
}

// VettedPackage is one vetted package, with its name and version when the
// package was uploaded here.
type VettedPackage struct {
	PackageID           string     `json:"packageId"`
	ValidFromInclusive  *Timestamp `json:"validFromInclusive"`
	ValidUntilExclusive *Timestamp `json:"validUntilExclusive"`
	PackageName         string     `json:"packageName"`
	PackageVersion      string     `json:"packageVersion"`
}

// VettedPackages are the packages a participant vetted on a synchronizer.
type VettedPackages struct {
	Packages       List[VettedPackage] `json:"packages"`
	ParticipantID  string              `json:"participantId"`
	SynchronizerID string              `json:"synchronizerId"`
	TopologySerial Int32               `json:"topologySerial"`
}

// PackageMetadataFilter selects vetted packages by id or name prefix; an
// empty filter selects all.
type PackageMetadataFilter struct {
	PackageIDs          []string `json:"packageIds"`
	PackageNamePrefixes []string `json:"packageNamePrefixes"`
}

// TopologyStateFilter selects vetted packages by participant and
// synchronizer; empty lists match any.
type TopologyStateFilter struct {
	ParticipantIDs  []string `json:"participantIds"`
	SynchronizerIDs []string `json:"synchronizerIds"`
}

// ListVettedPackagesRequest is POST /v2/package-vetting/list (and the
// deprecated GET /v2/package-vetting).
type ListVettedPackagesRequest struct {
	PackageMetadataFilter *PackageMetadataFilter `json:"packageMetadataFilter"`
	TopologyStateFilter   *TopologyStateFilter   `json:"topologyStateFilter"`
	PageToken             string                 `json:"pageToken"`
	PageSize              Int32                  `json:"pageSize"`
}

// ListVettedPackagesResponse answers ListVettedPackagesRequest.
type ListVettedPackagesResponse struct {
	VettedPackages List[VettedPackages] `json:"vettedPackages"`
	NextPageToken  string               `json:"nextPageToken"`
}

// VettedPackagesRef matches packages by id, name and version; an empty
// attribute matches any.
type VettedPackagesRef struct {
	PackageID      string `json:"packageId"`
	PackageName    string `json:"packageName"`
	PackageVersion string `json:"packageVersion"`
}

// VettedPackagesChange is one change of UpdateVettedPackagesRequest: Vet
// (set the bounds of packages, each reference matching exactly one) or
// Unvet. Wire: {"operation":{"Vet":{"value":{...}}}} |
// {"operation":{"Unvet":{"value":{"packages":[...]}}}}.
type VettedPackagesChange struct {
	Vet   *VetPackages
	Unvet *UnvetPackages
}

// VetPackages vets packages with new bounds.
type VetPackages struct {
	Packages               []VettedPackagesRef `json:"packages"`
	NewValidFromInclusive  *Timestamp          `json:"newValidFromInclusive,omitempty"`
	NewValidUntilExclusive *Timestamp          `json:"newValidUntilExclusive,omitempty"`
}

// UnvetPackages removes packages from the vetted set.
type UnvetPackages struct {
	Packages []VettedPackagesRef `json:"packages"`
}

var vettingArms = []string{"Vet", "Unvet"}

func (c VettedPackagesChange) MarshalJSON() ([]byte, error) {
	var op []byte
	var err error
	switch {
	case c.Vet != nil && c.Unvet != nil:
		return nil, errors.New("vetted packages change: both Vet and Unvet are set")
	case c.Vet != nil:
		op, err = encodeValueArm("Vet", c.Vet)
	case c.Unvet != nil:
		op, err = encodeValueArm("Unvet", c.Unvet)
	default:
		op = emptyArm
	}
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"operation":`), op...), '}'), nil
}

func (c *VettedPackagesChange) UnmarshalJSON(b []byte) error {
	*c = VettedPackagesChange{}
	var w struct {
		Operation json.RawMessage `json:"operation"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("changes: %w", unwrapJSONError(err))
	}
	arm, body, err := decodeOneof(w.Operation, "operation", vettingArms)
	if err != nil || arm == "" {
		return err
	}
	v, err := unwrapValue(body, "operation."+arm)
	if err != nil {
		return err
	}
	switch arm {
	case "Vet":
		c.Vet = &VetPackages{}
		err = json.Unmarshal(v, c.Vet)
	case "Unvet":
		c.Unvet = &UnvetPackages{}
		err = json.Unmarshal(v, c.Unvet)
	}
	if err != nil {
		return fmt.Errorf("operation.%s.value: %w", arm, unwrapJSONError(err))
	}
	return nil
}

// PriorTopologySerial is the expected serial of a vetting update: unset
// (no check), NoPrior (no vetting state yet) or Prior n. Wire:
// {"serial":{"Prior":{"value":n}}} | {"serial":{"NoPrior":{}}} |
// {"serial":{"Empty":{}}}.
type PriorTopologySerial struct {
	Prior   *int32
	NoPrior bool
}

var serialArms = []string{"Prior", "NoPrior"}

func (s PriorTopologySerial) MarshalJSON() ([]byte, error) {
	var inner []byte
	var err error
	switch {
	case s.Prior != nil:
		inner, err = encodeValueArm("Prior", Int32(*s.Prior))
	case s.NoPrior:
		inner = []byte(`{"NoPrior":{}}`)
	default:
		inner = emptyArm
	}
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"serial":`), inner...), '}'), nil
}

func (s *PriorTopologySerial) UnmarshalJSON(b []byte) error {
	*s = PriorTopologySerial{}
	if isNull(b) {
		return nil
	}
	var w struct {
		Serial json.RawMessage `json:"serial"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("expectedTopologySerial: %w", unwrapJSONError(err))
	}
	arm, body, err := decodeOneof(w.Serial, "expectedTopologySerial.serial", serialArms)
	if err != nil {
		return err
	}
	switch arm {
	case "NoPrior":
		s.NoPrior = true
	case "Prior":
		v, err := unwrapValue(body, "expectedTopologySerial.serial.Prior")
		if err != nil {
			return err
		}
		var n Int32
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("expectedTopologySerial.serial.Prior.value: %w", err)
		}
		p := int32(n)
		s.Prior = &p
	}
	return nil
}

// Force flags of UpdateVettedPackagesRequest.
const (
	ForceAllowVetIncompatibleUpgrades = "UPDATE_VETTED_PACKAGES_FORCE_FLAG_ALLOW_VET_INCOMPATIBLE_UPGRADES"
	ForceAllowUnvettedDependencies    = "UPDATE_VETTED_PACKAGES_FORCE_FLAG_ALLOW_UNVETTED_DEPENDENCIES"
)

// UpdateVettedPackagesRequest is POST /v2/package-vetting/update (and the
// deprecated POST /v2/package-vetting).
type UpdateVettedPackagesRequest struct {
	Changes                        []VettedPackagesChange `json:"changes"`
	DryRun                         bool                   `json:"dryRun"`
	SynchronizerID                 string                 `json:"synchronizerId"`
	ExpectedTopologySerial         *PriorTopologySerial   `json:"expectedTopologySerial"`
	UpdateVettedPackagesForceFlags []string               `json:"updateVettedPackagesForceFlags"`
}

// UpdateVettedPackagesResponse answers UpdateVettedPackagesRequest.
type UpdateVettedPackagesResponse struct {
	PastVettedPackages *VettedPackages `json:"pastVettedPackages"`
	NewVettedPackages  VettedPackages  `json:"newVettedPackages"`
}
