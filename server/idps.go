package server

import (
	"fmt"
	"net/url"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Identity providers (/v2/idps) are the participant admin's, as in
// Canton's IdentityProviderConfigServiceAuthorization; so is moving a user
// between providers. A change takes effect for the next request: the node
// reads the providers again, and the cached JWK sets are dropped (Canton
// invalidates its provider-by-issuer cache the same way).

func apiIDP(p ledger.IdentityProvider) ledgerapi.IdentityProviderConfig {
	return ledgerapi.IdentityProviderConfig{IdentityProviderID: p.ID, IsDeactivated: p.IsDeactivated,
		Issuer: p.Issuer, JwksURL: p.JwksURL, Audience: p.Audience}
}

// checkIDPID is Canton's requireIdentityProviderId: a non-empty ledger string.
func checkIDPID(id string) error {
	if id == "" {
		return ledgerapi.MissingField("identity_provider_id")
	}
	if err := ledgerapi.ValidateLedgerString("identity_provider_id", id); err != nil {
		return ledgerapi.InvalidField("identity_provider_id", fieldReason(err))
	}
	return nil
}

// checkJwksURL is Canton's requireJwksUrl: an absolute URL.
func checkJwksURL(v string) error {
	if v == "" {
		return ledgerapi.MissingField("jwks_url")
	}
	if u, err := url.Parse(v); err != nil || !u.IsAbs() || u.Host == "" {
		return ledgerapi.InvalidField("jwks_url", fmt.Sprintf("%q is not a valid URL", v))
	}
	return nil
}

func (s *Server) createIDP(req *Request) (any, error) {
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	var body ledgerapi.IdentityProviderConfigRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	cfg := body.IdentityProviderConfig
	if cfg == nil {
		return nil, ledgerapi.MissingField("identity_provider_config")
	}
	if err := checkIDPID(cfg.IdentityProviderID); err != nil {
		return nil, err
	}
	if err := checkJwksURL(cfg.JwksURL); err != nil {
		return nil, err
	}
	if cfg.Issuer == "" {
		return nil, ledgerapi.MissingField("issuer")
	}
	p, err := s.Node.CreateIdentityProvider(req.Context(), ledger.IdentityProvider{ID: cfg.IdentityProviderID,
		Issuer: cfg.Issuer, JwksURL: cfg.JwksURL, Audience: cfg.Audience, IsDeactivated: cfg.IsDeactivated})
	s.Providers.ForgetKeys()
	if err != nil {
		return nil, err
	}
	return ledgerapi.IdentityProviderConfigResponse{IdentityProviderConfig: apiIDP(p)}, nil
}

func (s *Server) listIDPs(req *Request) (any, error) {
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	ps, err := s.Node.ListIdentityProviders(req.Context())
	if err != nil {
		return nil, err
	}
	resp := ledgerapi.ListIdentityProviderConfigsResponse{IdentityProviderConfigs: ledgerapi.List[ledgerapi.IdentityProviderConfig]{}}
	for _, p := range ps {
		resp.IdentityProviderConfigs = append(resp.IdentityProviderConfigs, apiIDP(p))
	}
	return resp, nil
}

func (s *Server) getIDP(req *Request) (any, error) {
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	id := req.PathValue("idpID")
	if err := checkIDPID(id); err != nil {
		return nil, err
	}
	p, err := s.Node.IdentityProvider(req.Context(), id)
	if err != nil {
		return nil, err
	}
	return ledgerapi.IdentityProviderConfigResponse{IdentityProviderConfig: apiIDP(p)}, nil
}

func (s *Server) deleteIDP(req *Request) (any, error) {
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	id := req.PathValue("idpID")
	if err := checkIDPID(id); err != nil {
		return nil, err
	}
	err := s.Node.DeleteIdentityProvider(req.Context(), id)
	s.Providers.ForgetKeys()
	return struct{}{}, err
}

// idpUpdatePaths are the update mask paths of an identity provider.
var idpUpdatePaths = []string{"is_deactivated", "jwks_url", "issuer", "audience"}

func (s *Server) updateIDP(req *Request) (any, error) {
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	var body ledgerapi.IdentityProviderConfigRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	cfg := body.IdentityProviderConfig
	if cfg == nil {
		return nil, ledgerapi.MissingField("identity_provider_config")
	}
	id := req.PathValue("idpID")
	if cfg.IdentityProviderID != id {
		return nil, ledgerapi.InvalidArgument("the identity provider id of the body (%q) differs from the path's (%q)", cfg.IdentityProviderID, id)
	}
	if err := checkIDPID(id); err != nil {
		return nil, err
	}
	if cfg.JwksURL != "" {
		if err := checkJwksURL(cfg.JwksURL); err != nil {
			return nil, err
		}
	}
	if body.UpdateMask == nil {
		return nil, ledgerapi.MissingField("update_mask")
	}
	paths, err := checkMask(body.UpdateMask.Paths, idpUpdatePaths, node.CodeInvalidIDPUpdateRequest, "identity provider config", id)
	if err != nil {
		return nil, err
	}
	var upd ledger.IdentityProviderUpdate
	for _, p := range paths {
		switch p {
		case "is_deactivated":
			upd.IsDeactivated = &cfg.IsDeactivated
		case "jwks_url":
			if cfg.JwksURL == "" {
				return nil, ledgerapi.Errorf(node.CodeInvalidIDPUpdateRequest,
					"Update operation for identity provider config '%s' failed due to: jwks_url must not be empty", id)
			}
			upd.JwksURL = &cfg.JwksURL
		case "issuer":
			if cfg.Issuer == "" {
				return nil, ledgerapi.Errorf(node.CodeInvalidIDPUpdateRequest,
					"Update operation for identity provider config '%s' failed due to: issuer must not be empty", id)
			}
			upd.Issuer = &cfg.Issuer
		case "audience":
			upd.Audience = &cfg.Audience
		}
	}
	p, err := s.Node.UpdateIdentityProvider(req.Context(), id, upd)
	s.Providers.ForgetKeys()
	if err != nil {
		return nil, err
	}
	return ledgerapi.IdentityProviderConfigResponse{IdentityProviderConfig: apiIDP(p)}, nil
}

// updateUserIDP answers PATCH /v2/users/{id}/identity-provider-id: the
// participant admin moves a user from one provider to another.
func (s *Server) updateUserIDP(req *Request) (any, error) {
	id, err := pathUserID(req)
	if err != nil {
		return nil, err
	}
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	var body ledgerapi.UpdateUserIdentityProviderIDRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if body.UserID != id {
		return nil, ledgerapi.InvalidArgument("the user id of the body (%q) differs from the path's (%q)", body.UserID, id)
	}
	for _, idp := range []string{body.SourceIdentityProviderID, body.TargetIdentityProviderID} {
		if idp != "" {
			if err := ledgerapi.ValidateLedgerString("identity_provider_id", idp); err != nil {
				return nil, ledgerapi.InvalidField("identity_provider_id", fieldReason(err))
			}
		}
	}
	if err := s.Node.MoveUserToIdentityProvider(req.Context(), id, body.SourceIdentityProviderID, body.TargetIdentityProviderID); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}
