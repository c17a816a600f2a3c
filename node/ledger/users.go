package ledger

import "fmt"

// AdminUserID is the bootstrap user a new node creates, with ParticipantAdmin.
const AdminUserID = "participant_admin"

// User is a Ledger API user.
type User struct {
	ID                 string
	PrimaryParty       string
	IsDeactivated      bool
	Annotations        map[string]string // never nil when read
	ResourceVersion    int64             // bumped by every update
	IdentityProviderID string            // "" = the default identity provider
	// PrimaryPartyAuthentication lets the user authenticate with a JWT its
	// primary party signs (Canton 3.5). The node stores and reports it; it
	// takes no party-signed tokens, so the flag grants nothing here.
	PrimaryPartyAuthentication bool
}

// RightKind is a kind of user right, spelled as the JSON variant names it.
type RightKind string

// The user right kinds.
const (
	CanActAs              RightKind = "CanActAs"
	CanReadAs             RightKind = "CanReadAs"
	CanExecuteAs          RightKind = "CanExecuteAs"
	ParticipantAdmin      RightKind = "ParticipantAdmin"
	IdentityProviderAdmin RightKind = "IdentityProviderAdmin"
	CanReadAsAnyParty     RightKind = "CanReadAsAnyParty"
	CanExecuteAsAnyParty  RightKind = "CanExecuteAsAnyParty"
)

// HasParty reports whether rights of this kind name a party.
func (k RightKind) HasParty() bool {
	return k == CanActAs || k == CanReadAs || k == CanExecuteAs
}

// Known reports whether k is one of the right kinds above.
func (k RightKind) Known() bool {
	switch k {
	case CanActAs, CanReadAs, CanExecuteAs, ParticipantAdmin, IdentityProviderAdmin,
		CanReadAsAnyParty, CanExecuteAsAnyParty:
		return true
	}
	return false
}

// Right is one user right; Party is set exactly for the party kinds.
type Right struct {
	Kind  RightKind
	Party string
}

// Validate checks that the kind is known and that Party is set exactly for
// the kinds that name one (ErrInvalidArgument).
func (r Right) Validate() error {
	switch {
	case !r.Kind.Known():
		return fmt.Errorf("%w: unknown right kind %q", ErrInvalidArgument, r.Kind)
	case r.Kind.HasParty() && r.Party == "":
		return fmt.Errorf("%w: right %s needs a party", ErrInvalidArgument, r.Kind)
	case !r.Kind.HasParty() && r.Party != "":
		return fmt.Errorf("%w: right %s takes no party", ErrInvalidArgument, r.Kind)
	}
	return nil
}

// UserUpdate lists the changes an update makes; nil fields stay unchanged.
type UserUpdate struct {
	// ExpectedVersion, when set, must equal the stored resource version.
	ExpectedVersion *int64
	PrimaryParty    *string
	IsDeactivated   *bool
	// Annotations are merged into the stored ones ("" deletes a key), or
	// replace them when ReplaceAnnotations is set. nil leaves them alone.
	Annotations                map[string]string
	ReplaceAnnotations         bool
	IdentityProviderID         *string
	PrimaryPartyAuthentication *bool
}

// UserQuery selects a page of users in id order.
type UserQuery struct {
	After string // page token: the last id of the previous page ("" = first page)
	Limit int    // page size (default 1000)
	// IdentityProviderID, when set, keeps only users of that identity provider.
	IdentityProviderID *string
}
