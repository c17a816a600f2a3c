package ledgerapi

// ObjectMeta is the metadata of a party or user record. ResourceVersion is
// an opaque decimal string used for compare-and-set ("" = no check).
type ObjectMeta struct {
	ResourceVersion string      `json:"resourceVersion"`
	Annotations     Map[string] `json:"annotations"`
}

// PartyDetails describes a party known to the node.
type PartyDetails struct {
	Party              string     `json:"party"`
	IsLocal            bool       `json:"isLocal"`
	LocalMetadata      ObjectMeta `json:"localMetadata"`
	IdentityProviderID string     `json:"identityProviderId"`
}

// AllocatePartyRequest is the body of POST /v2/parties.
type AllocatePartyRequest struct {
	PartyIDHint        string      `json:"partyIdHint"`
	LocalMetadata      *ObjectMeta `json:"localMetadata"`
	IdentityProviderID string      `json:"identityProviderId"`
	SynchronizerID     string      `json:"synchronizerId"` // 3.4+
	UserID             string      `json:"userId"`         // 3.4+
}

// AllocatePartyResponse is POST /v2/parties's answer.
type AllocatePartyResponse struct {
	PartyDetails PartyDetails `json:"partyDetails"`
}

// ListPartiesResponse is GET /v2/parties's answer (schema
// ListKnownPartiesResponse); an empty NextPageToken marks the last page.
type ListPartiesResponse struct {
	PartyDetails  List[PartyDetails] `json:"partyDetails"`
	NextPageToken string             `json:"nextPageToken"`
}

// GetPartiesResponse is GET /v2/parties/{party}'s answer.
type GetPartiesResponse struct {
	PartyDetails List[PartyDetails] `json:"partyDetails"`
}

// UpdatePartyDetailsRequest is the body of PATCH /v2/parties/{party}. The
// mask paths are snake_case (local_metadata.annotations). Both fields are
// pointers so that a server can tell "absent" (MISSING_FIELD) from "empty".
type UpdatePartyDetailsRequest struct {
	PartyDetails *PartyDetails `json:"partyDetails"`
	UpdateMask   *FieldMask    `json:"updateMask"`
}

// UpdatePartyDetailsResponse is PATCH /v2/parties/{party}'s answer.
type UpdatePartyDetailsResponse struct {
	PartyDetails PartyDetails `json:"partyDetails"`
}

// GetParticipantIDResponse is GET /v2/parties/participant-id's answer.
type GetParticipantIDResponse struct {
	ParticipantID string `json:"participantId"`
}

// SigningPublicKey is a public key with its encoding and curve.
type SigningPublicKey struct {
	Format  CryptoKeyFormat `json:"format"`
	KeyData Bytes           `json:"keyData"`
	KeySpec SigningKeySpec  `json:"keySpec"`
}

// GenerateExternalPartyTopologyRequest is the body of POST
// /v2/parties/external/generate-topology.
type GenerateExternalPartyTopologyRequest struct {
	Synchronizer                    string           `json:"synchronizer"`
	PartyHint                       string           `json:"partyHint"`
	PublicKey                       SigningPublicKey `json:"publicKey"`
	LocalParticipantObservationOnly bool             `json:"localParticipantObservationOnly"`
	OtherConfirmingParticipantUIDs  List[string]     `json:"otherConfirmingParticipantUids"`
	ConfirmationThreshold           Int32            `json:"confirmationThreshold"`
	ObservingParticipantUIDs        List[string]     `json:"observingParticipantUids"`
}

// GenerateExternalPartyTopologyResponse carries the onboarding topology
// transactions (binary protobuf) and the multi-hash to sign over them.
type GenerateExternalPartyTopologyResponse struct {
	PartyID              string      `json:"partyId"`
	PublicKeyFingerprint string      `json:"publicKeyFingerprint"`
	TopologyTransactions List[Bytes] `json:"topologyTransactions"`
	MultiHash            Bytes       `json:"multiHash"`
}

// SignedTransaction is one topology transaction with optional signatures.
type SignedTransaction struct {
	Transaction Bytes           `json:"transaction"`
	Signatures  List[Signature] `json:"signatures"`
}

// AllocateExternalPartyRequest is the body of POST
// /v2/parties/external/allocate. WaitForAllocation (nil means true) and
// UserID are 3.5+; WaitForAllocation is omitted when nil.
type AllocateExternalPartyRequest struct {
	Synchronizer           string                  `json:"synchronizer"`
	OnboardingTransactions List[SignedTransaction] `json:"onboardingTransactions"`
	MultiHashSignatures    List[Signature]         `json:"multiHashSignatures"`
	IdentityProviderID     string                  `json:"identityProviderId"`
	WaitForAllocation      *bool                   `json:"waitForAllocation,omitempty"`
	UserID                 string                  `json:"userId"`
}

// AllocateExternalPartyResponse is the allocated party id.
type AllocateExternalPartyResponse struct {
	PartyID string `json:"partyId"`
}

// User is a participant user.
type User struct {
	ID                         string     `json:"id"`
	PrimaryParty               string     `json:"primaryParty"`
	IsDeactivated              bool       `json:"isDeactivated"`
	Metadata                   ObjectMeta `json:"metadata"`
	IdentityProviderID         string     `json:"identityProviderId"`
	PrimaryPartyAuthentication bool       `json:"primaryPartyAuthentication"` // 3.5+
}

// CreateUserRequest is the body of POST /v2/users.
type CreateUserRequest struct {
	User   *User       `json:"user"`
	Rights List[Right] `json:"rights"`
}

// CreateUserResponse is POST /v2/users's answer.
type CreateUserResponse struct {
	User User `json:"user"`
}

// GetUserResponse is the answer of GET /v2/users/{id} and
// GET /v2/authenticated-user.
type GetUserResponse struct {
	User User `json:"user"`
}

// GetAuthenticatedUserResponse is GET /v2/authenticated-user's answer.
type GetAuthenticatedUserResponse = GetUserResponse

// ListUsersResponse is GET /v2/users's answer.
type ListUsersResponse struct {
	Users         List[User] `json:"users"`
	NextPageToken string     `json:"nextPageToken"`
}

// UpdateUserRequest is the body of PATCH /v2/users/{id}.
type UpdateUserRequest struct {
	User       *User      `json:"user"`
	UpdateMask *FieldMask `json:"updateMask"`
}

// UpdateUserResponse is PATCH /v2/users/{id}'s answer.
type UpdateUserResponse struct {
	User User `json:"user"`
}

// DeleteUserResponse is DELETE /v2/users/{id}'s answer, {}.
type DeleteUserResponse struct{}

// GrantUserRightsRequest is the body of POST /v2/users/{id}/rights.
type GrantUserRightsRequest struct {
	UserID             string      `json:"userId"`
	Rights             List[Right] `json:"rights"`
	IdentityProviderID string      `json:"identityProviderId"`
}

// GrantUserRightsResponse lists the rights the user did not have before.
type GrantUserRightsResponse struct {
	NewlyGrantedRights List[Right] `json:"newlyGrantedRights"`
}

// RevokeUserRightsRequest is the body of PATCH /v2/users/{id}/rights.
type RevokeUserRightsRequest struct {
	UserID             string      `json:"userId"`
	Rights             List[Right] `json:"rights"`
	IdentityProviderID string      `json:"identityProviderId"`
}

// RevokeUserRightsResponse lists the rights the user had and lost.
type RevokeUserRightsResponse struct {
	NewlyRevokedRights List[Right] `json:"newlyRevokedRights"`
}

// ListUserRightsResponse is GET /v2/users/{id}/rights's answer.
type ListUserRightsResponse struct {
	Rights List[Right] `json:"rights"`
}

// UpdateUserIdentityProviderIDRequest is the body of
// PATCH /v2/users/{id}/identity-provider-id (answer: {}).
type UpdateUserIdentityProviderIDRequest struct {
	UserID                   string `json:"userId"`
	SourceIdentityProviderID string `json:"sourceIdentityProviderId"`
	TargetIdentityProviderID string `json:"targetIdentityProviderId"`
}

// GetLedgerEndResponse is GET /v2/state/ledger-end's answer (0: empty ledger).
type GetLedgerEndResponse struct {
	Offset Int64 `json:"offset"`
}

// ConnectedSynchronizer is one synchronizer the node is connected to.
type ConnectedSynchronizer struct {
	SynchronizerAlias string                `json:"synchronizerAlias"`
	SynchronizerID    string                `json:"synchronizerId"`
	Permission        ParticipantPermission `json:"permission"`
}

// GetConnectedSynchronizersResponse is GET
// /v2/state/connected-synchronizers's answer.
type GetConnectedSynchronizersResponse struct {
	ConnectedSynchronizers List[ConnectedSynchronizer] `json:"connectedSynchronizers"`
}

// GetVersionResponse is GET /v2/version's answer (schema
// GetLedgerApiVersionResponse).
type GetVersionResponse struct {
	Version  string             `json:"version"`
	Features FeaturesDescriptor `json:"features"`
}

// FeaturesDescriptor lists the node's optional features and limits.
type FeaturesDescriptor struct {
	Experimental     ExperimentalFeatures    `json:"experimental"`
	UserManagement   UserManagementFeature   `json:"userManagement"`
	PartyManagement  PartyManagementFeature  `json:"partyManagement"`
	OffsetCheckpoint OffsetCheckpointFeature `json:"offsetCheckpoint"`
	PackageFeature   PackageFeature          `json:"packageFeature"`
}

// FeatureSupport is a {"supported": bool} flag.
type FeatureSupport struct {
	Supported bool `json:"supported"`
}

// ExperimentalFeatures are the experimental feature flags.
type ExperimentalFeatures struct {
	StaticTime               FeatureSupport `json:"staticTime"`
	CommandInspectionService FeatureSupport `json:"commandInspectionService"`
}

// UserManagementFeature gives user-management limits.
type UserManagementFeature struct {
	Supported        bool  `json:"supported"`
	MaxRightsPerUser Int32 `json:"maxRightsPerUser"`
	MaxUsersPageSize Int32 `json:"maxUsersPageSize"`
}

// PartyManagementFeature gives party-management limits.
type PartyManagementFeature struct {
	MaxPartiesPageSize Int32 `json:"maxPartiesPageSize"`
}

// OffsetCheckpointFeature bounds the delay between offset checkpoints.
type OffsetCheckpointFeature struct {
	MaxOffsetCheckpointEmissionDelay Duration `json:"maxOffsetCheckpointEmissionDelay"`
}

// PackageFeature gives package-service limits.
type PackageFeature struct {
	MaxVettedPackagesPageSize Int32 `json:"maxVettedPackagesPageSize"`
}
