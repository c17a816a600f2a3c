package node

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

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
	defer n.issuers.invalidate()
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
	defer n.issuers.invalidate()
	p, err := n.store.UpdateIdentityProvider(ctx, id, upd)
	q := ledger.IdentityProvider{ID: id}
	if upd.Issuer != nil {
		q.Issuer = *upd.Issuer
	}
	return p, idpError("updating identity provider config", q, err)
}

// DeleteIdentityProvider removes provider id (IDP_CONFIG_NOT_FOUND).
func (n *Node) DeleteIdentityProvider(ctx context.Context, id string) error {
	defer n.issuers.invalidate()
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
		return ofAnotherProvider(id)
	}
	_, err = n.UpdateUser(ctx, id, ledger.UserUpdate{IdentityProviderID: &target})
	return err
}

// UserOfIdentityProvider returns user id if it belongs to identity provider
// idp. Canton's user store scopes every lookup by provider and answers a
// user of another provider with PermissionDenied, which its user management
// service reports as PERMISSION_DENIED ("User … belongs to another
// Identity Provider"; PersistentUserManagementStore.withUser,
// services/admin/Utils.handleResult); an unknown user is USER_NOT_FOUND.
func (n *Node) UserOfIdentityProvider(ctx context.Context, id, idp string) (ledger.User, error) {
	u, err := n.User(ctx, id)
	if err != nil {
		return u, err
	}
	if u.IdentityProviderID != idp {
		return ledger.User{}, ofAnotherProvider(id)
	}
	return u, nil
}

// ofAnotherProvider is Canton's answer to an operation on user id through
// an identity provider the user does not belong to.
func ofAnotherProvider(id string) error {
	return ledgerapi.Errorf(ledgerapi.CodePermissionDenied, "User %s belongs to another Identity Provider", id)
}

// IdentityProviderOfIssuer returns the identity provider whose issuer is
// issuer, deactivated or not; found is false when there is none. Canton's
// IdentityProviderAwareAuthService picks a token's provider this way, by
// the token's iss, before it verifies the token. The providers are read
// from the store once and again after each change made through the node,
// so a change takes effect for the next request.
func (n *Node) IdentityProviderOfIssuer(ctx context.Context, issuer string) (p ledger.IdentityProvider, found bool, err error) {
	if byIssuer, ok := n.issuers.get(); ok {
		p, found = byIssuer[issuer]
		return p, found, nil
	}
	gen := n.issuers.gen.Load()
	all, err := n.store.ListIdentityProviders(ctx)
	if err != nil {
		return ledger.IdentityProvider{}, false, fmt.Errorf("list identity providers: %w", err)
	}
	byIssuer := make(map[string]ledger.IdentityProvider, len(all))
	for _, q := range all {
		byIssuer[q.Issuer] = q
	}
	n.issuers.put(gen, byIssuer)
	p, found = byIssuer[issuer]
	return p, found, nil
}

// issuerCache holds the identity providers by issuer. Every change bumps
// gen once it is written (or has failed); a map read under an older
// generation is not used, so a list read around a change is read again.
type issuerCache struct {
	gen      atomic.Int64
	mu       sync.Mutex
	byIssuer map[string]ledger.IdentityProvider
	readAt   int64 // the generation byIssuer was read under
}

func (c *issuerCache) invalidate() { c.gen.Add(1) }

func (c *issuerCache) get() (map[string]ledger.IdentityProvider, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byIssuer, c.byIssuer != nil && c.readAt == c.gen.Load()
}

func (c *issuerCache) put(gen int64, byIssuer map[string]ledger.IdentityProvider) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byIssuer, c.readAt = byIssuer, gen
}
