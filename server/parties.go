package server

import (
	"context"
	"strconv"

	"github.com/google/uuid"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
)

func apiParty(p ledger.Party) ledgerapi.PartyDetails {
	return ledgerapi.PartyDetails{
		Party:              p.ID,
		IsLocal:            p.IsLocal,
		LocalMetadata:      ledgerapi.ObjectMeta{ResourceVersion: strconv.FormatInt(p.ResourceVersion, 10), Annotations: p.Annotations},
		IdentityProviderID: p.IdentityProviderID,
	}
}

// blindParty is p as a request scoped to identity provider idp sees it
// (Canton's ApiPartyManagementService.blindAndConvertToProto): parties of
// other providers are listed too, but without their metadata and provider,
// and, unless idp is the default one, as not local.
func blindParty(p ledger.Party, idp string) ledgerapi.PartyDetails {
	if p.IdentityProviderID == idp {
		return apiParty(p)
	}
	return ledgerapi.PartyDetails{Party: p.ID, IsLocal: p.IsLocal && idp == ""}
}

// checkSynchronizer accepts "" (the node's one synchronizer) or its id.
func (s *Server) checkSynchronizer(field, id string) error {
	own := s.Node.Identity().SynchronizerID
	if id == "" || id == own {
		return nil
	}
	if err := ledgerapi.ValidateLedgerString(field, id); err != nil {
		return ledgerapi.InvalidField(field, fieldReason(err))
	}
	return ledgerapi.InvalidArgument("This node is not connected to synchronizer %s; it is connected to %s only", id, own)
}

// allocateAuth checks who may allocate a party for identity provider idp
// (docs/json-api.md §4.4): an admin of that provider. Self-allocation by a plain
// user is off, as with Canton's default max-self-allocated-parties = 0.
func (s *Server) allocateAuth(req *Request, idp string) (string, error) {
	c := req.Caller
	idp = c.impliedIDP(idp)
	if err := c.RequireAdminOf(idp); err != nil {
		return "", err
	}
	return idp, s.checkIDP(req.Context(), idp)
}

// grantUser checks the userId of an allocate request, which gets CanActAs
// over the new party: a valid id of a user of the party's identity
// provider idp. As Canton's getUserIfUserSpecified looks the user up in
// that provider, an unknown user is USER_NOT_FOUND and a user of another
// provider PERMISSION_DENIED, before anything is allocated — so that an
// identity provider's admin cannot hand its parties to another provider's
// users.
func (s *Server) grantUser(ctx context.Context, userID, idp string) error {
	if userID == "" {
		return nil
	}
	if err := validGrantUser(userID); err != nil {
		return err
	}
	_, err := s.Node.UserOfIdentityProvider(ctx, userID, idp)
	return err
}

// validGrantUser checks the form of an allocate request's userId ("" for
// none), for requests that validate their fields before any lookup.
func validGrantUser(userID string) error {
	if userID == "" {
		return nil
	}
	if err := ledgerapi.ValidateUserID("user_id", userID); err != nil {
		return ledgerapi.InvalidField("user_id", fieldReason(err))
	}
	return nil
}

func (s *Server) allocateParty(req *Request) (any, error) {
	var body ledgerapi.AllocatePartyRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	idp, err := s.allocateAuth(req, body.IdentityProviderID)
	if err != nil {
		return nil, err
	}
	hint := body.PartyIDHint
	if hint == "" {
		hint = "party-" + uuid.NewString()
	}
	// Canton reads the hint as a Daml-LF party, then as the identifier of
	// a unique identifier (at most 185 characters, no "::"); both refusals
	// are INVALID_ARGUMENT (ApiPartyManagementService.allocateParty).
	if reason := ledgerapi.DamlLFPartyReason(hint); reason != "" {
		return nil, ledgerapi.InvalidArgument("%s", reason)
	}
	if err := ledgerapi.ValidatePartyHint("party_id_hint", hint); err != nil {
		return nil, ledgerapi.InvalidArgument("Invalid party ID: %s", fieldReason(err))
	}
	var ann map[string]string
	if body.LocalMetadata != nil {
		ann = body.LocalMetadata.Annotations
		if err := ledgerapi.ValidateAnnotations(ann, false); err != nil {
			return nil, annotationsError(err, ann, "local_metadata.annotations")
		}
	}
	if err := s.checkSynchronizer("synchronizer_id", body.SynchronizerID); err != nil {
		return nil, err
	}
	if err := s.grantUser(req.Context(), body.UserID, idp); err != nil {
		return nil, err
	}
	p, err := s.Node.AllocateParty(req.Context(), hint, ann, idp, body.UserID)
	if err != nil {
		return nil, err
	}
	return ledgerapi.AllocatePartyResponse{PartyDetails: apiParty(p)}, nil
}

func (s *Server) listParties(req *Request) (any, error) {
	c := req.Caller
	q := req.URL.Query()
	idp := c.impliedIDP(q.Get("identity-provider-id"))
	if err := c.RequireAdminOf(idp); err != nil {
		return nil, err
	}
	if err := s.checkIDP(req.Context(), idp); err != nil {
		return nil, err
	}
	size, err := pageSize(req, node.MaxPartiesPageSize, true)
	if err != nil {
		return nil, err
	}
	after, err := parsePageToken(q.Get("pageToken"), ledgerapi.ValidatePartyID)
	if err != nil {
		return nil, err
	}
	// Unlike users, every party is listed; other providers' ones blinded.
	pq := ledger.PartyQuery{After: after, Limit: size, Prefix: q.Get("filter-party")}
	parties, next, err := s.Node.ListParties(req.Context(), pq)
	if err != nil {
		return nil, err
	}
	resp := ledgerapi.ListPartiesResponse{PartyDetails: make([]ledgerapi.PartyDetails, 0, len(parties)), NextPageToken: pageToken(next)}
	for _, p := range parties {
		resp.PartyDetails = append(resp.PartyDetails, blindParty(p, idp))
	}
	return resp, nil
}

// getParties answers GET /v2/parties/{party}?parties=…: the records of the
// named parties this node knows (unknown ones are left out).
func (s *Server) getParties(req *Request) (any, error) {
	ids := append([]string{req.PathValue("party")}, req.URL.Query()["parties"]...)
	if err := checkPartyCount("parties", len(ids)); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := ledgerapi.ValidatePartyID("parties", id); err != nil {
			return nil, ledgerapi.InvalidField("parties", fieldReason(err))
		}
	}
	c := req.Caller
	idp := c.impliedIDP(req.URL.Query().Get("identity-provider-id"))
	if c.IdentityProviderID != "" && idp != c.IdentityProviderID {
		// Canton's Authorizer: a claim of one provider is valid for it only.
		return nil, permissionDenied("identity_provider_id %q does not match the caller's", idp)
	}
	if err := s.checkIDP(req.Context(), idp); err != nil {
		return nil, err
	}
	if !c.IsAdminOf(c.IdentityProviderID) {
		for _, id := range ids {
			if !c.hasAnyPartyRight(id) {
				return nil, permissionDenied("user %q has no right on party %q", c.UserID, id)
			}
		}
	}
	parties, err := s.Node.Parties(req.Context(), ids)
	if err != nil {
		return nil, err
	}
	resp := ledgerapi.GetPartiesResponse{PartyDetails: make([]ledgerapi.PartyDetails, 0, len(parties))}
	for _, p := range parties {
		resp.PartyDetails = append(resp.PartyDetails, blindParty(p, idp))
	}
	return resp, nil
}
