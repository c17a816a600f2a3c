package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Identity provider errors (Canton's IdentityProviderConfigServiceErrors).
var (
	CodeIDPConfigAlreadyExists       = ledgerapi.ErrorCode{ID: "IDP_CONFIG_ALREADY_EXISTS", Category: 10}
	CodeIDPConfigIssuerAlreadyExists = ledgerapi.ErrorCode{ID: "IDP_CONFIG_ISSUER_ALREADY_EXISTS", Category: 10}
	CodeInvalidIDPUpdateRequest      = ledgerapi.ErrorCode{ID: "INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST", Category: 8}
)

// idpError is Canton's error for what the store answered about provider
// p during operation (nil for nil).
func idpError(operation string, p ledger.IdentityProvider, err error) error {
	switch {
	case errors.Is(err, ledger.ErrNotFound):
		return ledgerapi.Errorf(ledgerapi.CodeIDPConfigNotFound, "%s failed for unknown identity provider id=%q", operation, p.ID)
	case errors.Is(err, ledger.ErrAlreadyExists):
		return ledgerapi.Errorf(CodeIDPConfigAlreadyExists, "%s failed, as identity provider %q already exists", operation, p.ID)
	case errors.Is(err, ledger.ErrIssuerTaken):
		return ledgerapi.Errorf(CodeIDPConfigIssuerAlreadyExists, "%s failed, as identity provider with issuer %q already exists", operation, p.Issuer)
	}
	return err
}

// CreateIdentityProvider records p (IDP_CONFIG_ALREADY_EXISTS,
// IDP_CONFIG_ISSUER_ALREADY_EXISTS).
func (n *Node) CreateIdentityProvider(ctx context.Context, p ledger.IdentityProvider) (ledger.IdentityProvider, error) {
	return p, idpError("creating identity provider config", p, n.store.CreateIdentityProvider(ctx, p))
}

// IdentityProvider returns provider id (IDP_CONFIG_NOT_FOUND).
func (n *Node) IdentityProvider(ctx context.Context, id string) (ledger.IdentityProvider, error) {
	p, err := n.store.IdentityProvider(ctx, id)
	return p, idpError("getting identity provider config", ledger.IdentityProvider{ID: id}, err)
}

// IdentityProviderExists reports whether id names a provider; "" (the
// default provider) always exists.
func (n *Node) IdentityProviderExists(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return true, nil
	}
	_, err := n.store.IdentityProvider(ctx, id)
	if errors.Is(err, ledger.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// ListIdentityProviders returns every provider.
func (n *Node) ListIdentityProviders(ctx context.Context) ([]ledger.IdentityProvider, error) {
	return n.store.ListIdentityProviders(ctx)
}

// UpdateIdentityProvider applies upd to provider id (IDP_CONFIG_NOT_FOUND,
// IDP_CONFIG_ISSUER_ALREADY_EXISTS).
func (n *Node) UpdateIdentityProvider(ctx context.Context, id string, upd ledger.IdentityProviderUpdate) (ledger.IdentityProvider, error) {
	p, err := n.store.UpdateIdentityProvider(ctx, id, upd)
	q := ledger.IdentityProvider{ID: id}
	if upd.Issuer != nil {
		q.Issuer = *upd.Issuer
	}
	return p, idpError("updating identity provider config", q, err)
}

// DeleteIdentityProvider removes provider id (IDP_CONFIG_NOT_FOUND).
func (n *Node) DeleteIdentityProvider(ctx context.Context, id string) error {
	return idpError("deleting identity provider config", ledger.IdentityProvider{ID: id}, n.store.DeleteIdentityProvider(ctx, id))
}

// MoveUserToIdentityProvider moves user id from provider source to target
// (both must exist; the user must belong to source), as Canton's
// UpdateUserIdentityProviderId does.
func (n *Node) MoveUserToIdentityProvider(ctx context.Context, id, source, target string) error {
	for _, idp := range []string{source, target} {
		ok, err := n.IdentityProviderExists(ctx, idp)
		if err != nil {
			return err
		}
		if !ok {
			return ledgerapi.InvalidArgument("Provided identity_provider_id %s has not been found.", idp)
		}
	}
	u, err := n.User(ctx, id)
	if err != nil {
		return err
	}
	if u.IdentityProviderID != source {
		return userError(id, fmt.Errorf("user %q belongs to identity provider %q: %w", id, u.IdentityProviderID, ledger.ErrNotFound))
	}
	_, err = n.UpdateUser(ctx, id, ledger.UserUpdate{IdentityProviderID: &target})
	return err
}

// UserOfIdentityProvider returns user id if it belongs to identity provider
// idp; a user of another provider is USER_NOT_FOUND, as Canton's user store
// scopes every lookup by provider.
func (n *Node) UserOfIdentityProvider(ctx context.Context, id, idp string) (ledger.User, error) {
	u, err := n.User(ctx, id)
	if err != nil {
		return u, err
	}
	if u.IdentityProviderID != idp {
		return ledger.User{}, userError(id, fmt.Errorf("user %q belongs to identity provider %q: %w", id, u.IdentityProviderID, ledger.ErrNotFound))
	}
	return u, nil
}
