package ledger

import "errors"

// IdentityProvider is an identity provider configuration: users and
// parties belong to one ("" is the default provider, which has no record).
type IdentityProvider struct {
	ID            string
	Issuer        string
	JwksURL       string
	Audience      string
	IsDeactivated bool
}

// IdentityProviderUpdate lists the changes an update makes; nil fields stay.
type IdentityProviderUpdate struct {
	Issuer        *string
	JwksURL       *string
	Audience      *string
	IsDeactivated *bool
}

// ErrIssuerTaken: another identity provider has this issuer.
var ErrIssuerTaken = errors.New("issuer already used by another identity provider")
