package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/server/auth"
)

// Caller is who sent a request and what they may do: the token's claims and,
// for a user token, the user's identity provider and rights as stored when
// the request arrived. In auth mode none the caller is a wildcard: every
// check passes, and requests name their user themselves.
type Caller struct {
	Claims auth.Claims
	// UserID is the token's user; "" for a wildcard caller.
	UserID string
	// IdentityProviderID is the identity provider of the token and its
	// user ("" = default): what an IdentityProviderAdmin administers.
	IdentityProviderID string
	Rights             []ledger.Right

	admin, idpAdmin, readAny, executeAny bool
	actAs, readAs, executeAs             map[string]bool
}

// Wildcard reports whether the node runs without authentication.
func (c *Caller) Wildcard() bool { return c.Claims.Wildcard }

// authenticate verifies the request's token and loads its user: a missing or
// invalid token is 401, a token for an unknown or deactivated user, or for
// a user of another identity provider than the token's, 403.
//
// As in Canton (AuthInterceptor over the configured auth services, then
// IdentityProviderAwareAuthService), the node's own verifier is tried
// first; a token it does not verify is tried with the active identity
// provider whose issuer is the token's iss. Its user is then looked up in
// that provider (UserBasedClaimResolver).
func (s *Server) authenticate(r *http.Request) (*Caller, error) {
	header := r.Header.Get("Authorization")
	claims, err := s.Verifier.Authenticate(header)
	var ae *auth.Error
	if errors.As(err, &ae) && ae.Kind == auth.Unauthenticated && header != "" {
		claims, err = s.authenticateWithProvider(r.Context(), header, ae)
	}
	if err != nil {
		if errors.As(err, &ae) && ae.Kind == auth.Unauthenticated {
			return nil, &authFailure{code: ledgerapi.CodeUnauthenticated, reason: ae.Reason,
				tokenResolution: header != ""}
		}
		return nil, err
	}
	if claims.Wildcard {
		return &Caller{Claims: claims}, nil
	}
	if ledgerapi.ValidateUserID("sub", claims.UserID) != nil {
		return nil, invalidSubject(claims.UserID)
	}
	u, rights, err := s.Node.UserAndRights(r.Context(), claims.UserID)
	if err == nil && u.IdentityProviderID != claims.IdentityProviderID {
		// Canton's user store answers a lookup in another provider like
		// one of an unknown user; both are PERMISSION_DENIED here.
		err = fmt.Errorf("the user belongs to identity provider %q, the token to %q: %w",
			u.IdentityProviderID, claims.IdentityProviderID, ledger.ErrNotFound)
	}
	if errors.Is(err, ledger.ErrNotFound) {
		return nil, &authFailure{code: ledgerapi.CodePermissionDenied,
			reason: fmt.Sprintf("the token's user %q does not exist: %v", claims.UserID, err), tokenResolution: true}
	}
	if err != nil {
		return nil, fmt.Errorf("load user %q of the token and its rights: %w", claims.UserID, err)
	}
	if u.IsDeactivated {
		return nil, &authFailure{code: ledgerapi.CodePermissionDenied,
			reason: fmt.Sprintf("the token's user %q is deactivated", claims.UserID), tokenResolution: true}
	}
	return newCaller(claims, u, rights), nil
}

// authenticateWithProvider verifies a token that the node's own verifier
// refused (because of refused) with the identity provider of its issuer.
// Like Canton, it refuses the token (401) when no provider has that
// issuer, when the provider is deactivated, when its JWK set cannot be
// fetched, and when the token does not verify; the reasons of both
// verifiers go to the log.
func (s *Server) authenticateWithProvider(ctx context.Context, header string, refused *auth.Error) (auth.Claims, error) {
	fail := func(reason string) (auth.Claims, error) {
		return auth.Claims{}, &auth.Error{Kind: auth.Unauthenticated,
			Reason: "the node's verifier: " + refused.Reason + "; " + reason}
	}
	token := auth.BearerToken(header)
	iss := auth.UnverifiedIssuer(token)
	if iss == "" {
		return auth.Claims{}, refused
	}
	p, found, err := s.Node.IdentityProviderOfIssuer(ctx, iss)
	switch {
	case err != nil:
		return auth.Claims{}, fmt.Errorf("look up the identity provider of a token's issuer: %w", err)
	case !found:
		return auth.Claims{}, refused
	case p.IsDeactivated:
		return fail(fmt.Sprintf("identity provider %q of the token's issuer is deactivated", p.ID))
	}
	claims, err := s.Providers.Authenticate(ctx, token, auth.IdentityProvider{ID: p.ID, Issuer: p.Issuer,
		JwksURL: p.JwksURL, Audience: p.Audience})
	var ae *auth.Error
	if errors.As(err, &ae) && ae.Kind == auth.Unauthenticated {
		return fail(ae.Reason)
	}
	return claims, err
}

// userIDRegex is how Canton's Daml-LF Ref.UserId words the rule a user id
// breaks (IdString.scala, Canton 3.5).
const userIDRegex = "[a-zA-Z0-9@^$.!`\\-#+'~_|:\\(\\)]{1,128}"

// invalidSubject is Canton's answer to a token whose sub is no valid user
// id: UserBasedClaimResolver.getUserId fails with INVALID_TOKEN
// (MissingUserId, "token " + the Ref.UserId error), a 400 that is not
// redacted, before the user is looked up.
func invalidSubject(sub string) error {
	e := ledgerapi.NewError(ledgerapi.CodeInvalidToken,
		`The submitted request is missing a user-id: token User ID "`+sub+`" does not match regex "`+userIDRegex+`"`,
		map[string]string{"definite_answer": "false"})
	return &authFailure{code: ledgerapi.CodeInvalidToken, reason: e.Cause, tokenResolution: true, err: e}
}

func newCaller(claims auth.Claims, u ledger.User, rights []ledger.Right) *Caller {
	c := &Caller{Claims: claims, UserID: u.ID, IdentityProviderID: claims.IdentityProviderID, Rights: rights,
		actAs: map[string]bool{}, readAs: map[string]bool{}, executeAs: map[string]bool{}}
	for _, rt := range rights {
		switch rt.Kind {
		case ledger.ParticipantAdmin:
			c.admin = true
		case ledger.IdentityProviderAdmin:
			c.idpAdmin = true
		case ledger.CanReadAsAnyParty:
			c.readAny = true
		case ledger.CanExecuteAsAnyParty:
			c.executeAny = true
		case ledger.CanActAs:
			c.actAs[rt.Party] = true
		case ledger.CanReadAs:
			c.readAs[rt.Party] = true
		case ledger.CanExecuteAs:
			c.executeAs[rt.Party] = true
		}
	}
	return c
}

// IsParticipantAdmin reports the ParticipantAdmin right.
func (c *Caller) IsParticipantAdmin() bool { return c.Wildcard() || c.admin }

// IsAdminOf reports whether the caller administers identity provider idp:
// a participant admin, or an identity-provider admin of that provider.
func (c *Caller) IsAdminOf(idp string) bool {
	return c.IsParticipantAdmin() || c.idpAdmin && c.IdentityProviderID == idp
}

// CanActAs reports CanActAs for party.
func (c *Caller) CanActAs(party string) bool { return c.Wildcard() || c.actAs[party] }

// CanReadAs reports read rights for party: CanReadAs, CanActAs or
// CanReadAsAnyParty.
func (c *Caller) CanReadAs(party string) bool {
	return c.Wildcard() || c.readAny || c.readAs[party] || c.actAs[party]
}

// CanExecuteAs reports execute rights for party: CanExecuteAs, CanActAs or
// CanExecuteAsAnyParty.
func (c *Caller) CanExecuteAs(party string) bool {
	return c.Wildcard() || c.executeAny || c.executeAs[party] || c.actAs[party]
}

// CanReadAsAnyParty reports CanReadAsAnyParty.
func (c *Caller) CanReadAsAnyParty() bool { return c.Wildcard() || c.readAny }

// hasAnyPartyRight reports any act, read or execute right for party.
func (c *Caller) hasAnyPartyRight(party string) bool {
	return c.CanReadAs(party) || c.CanExecuteAs(party)
}

// UserIDFor resolves the user id of a request that carries requested
// (possibly ""), as Canton does: "" takes the token's user; a wildcard caller
// must name one (400 INVALID_TOKEN); naming another user than the token's is
// 403.
func (c *Caller) UserIDFor(requested string) (string, error) {
	id, err := c.Claims.UserIDFor(requested)
	if err != nil {
		var ae *auth.Error
		if errors.As(err, &ae) && ae.Kind == auth.PermissionDenied {
			return "", permissionDenied("%s", ae.Reason)
		}
		return "", err
	}
	return id, nil
}

// RequireParticipantAdmin is 403 unless the caller is a participant admin.
func (c *Caller) RequireParticipantAdmin() error {
	if !c.IsParticipantAdmin() {
		return permissionDenied("user %q lacks ParticipantAdmin", c.UserID)
	}
	return nil
}

// RequireAdminOf is 403 unless the caller administers identity provider idp.
func (c *Caller) RequireAdminOf(idp string) error {
	if !c.IsAdminOf(idp) {
		return permissionDenied("user %q is neither ParticipantAdmin nor IdentityProviderAdmin of identity provider %q", c.UserID, idp)
	}
	return nil
}

// impliedIDP is the identity provider a request means: as given, or, when
// empty and the caller is not a participant admin, the caller's own (§4.5).
func (c *Caller) impliedIDP(requested string) string {
	if requested == "" && !c.IsParticipantAdmin() {
		return c.IdentityProviderID
	}
	return requested
}
