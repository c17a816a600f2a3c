package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
)

func apiUser(u ledger.User) ledgerapi.User {
	return ledgerapi.User{
		ID:                 u.ID,
		PrimaryParty:       u.PrimaryParty,
		IsDeactivated:      u.IsDeactivated,
		Metadata:           ledgerapi.ObjectMeta{ResourceVersion: strconv.FormatInt(u.ResourceVersion, 10), Annotations: u.Annotations},
		IdentityProviderID: u.IdentityProviderID,

		PrimaryPartyAuthentication: u.PrimaryPartyAuthentication,
	}
}

func apiRights(rs []ledger.Right) ledgerapi.List[ledgerapi.Right] {
	out := make(ledgerapi.List[ledgerapi.Right], 0, len(rs))
	for _, r := range rs {
		out = append(out, ledgerapi.Right{Kind: ledgerapi.RightKind(r.Kind), Party: r.Party})
	}
	return out
}

// ledgerRights checks the rights of a request and converts them: every right
// has a kind, and the party kinds a valid party id.
func ledgerRights(rs []ledgerapi.Right) ([]ledger.Right, error) {
	out := make([]ledger.Right, 0, len(rs))
	for i, r := range rs {
		field := fmt.Sprintf("rights[%d]", i)
		if r.Kind == "" {
			return nil, ledgerapi.InvalidArgument("unknown kind of right - check that the Ledger API version of the server is recent enough")
		}
		k := ledger.RightKind(r.Kind)
		if k.HasParty() {
			// Canton reads the party as a Daml-LF party (requireParty):
			// INVALID_ARGUMENT with its reason, no field.
			if reason := ledgerapi.DamlLFPartyReason(r.Party); reason != "" {
				return nil, ledgerapi.InvalidArgument("%s", reason)
			}
			if err := ledgerapi.ValidatePartyID(field+".party", r.Party); err != nil {
				return nil, ledgerapi.InvalidField(field+".party", fieldReason(err))
			}
			out = append(out, ledger.Right{Kind: k, Party: r.Party})
		} else {
			out = append(out, ledger.Right{Kind: k})
		}
	}
	return out, nil
}

// pathUserID reads and checks the {userID} path segment.
func pathUserID(req *Request) (string, error) {
	id := req.PathValue("userID")
	if err := ledgerapi.ValidateUserID("user_id", id); err != nil {
		return "", ledgerapi.InvalidArgument("Malformed user-id: %s", fieldReason(err))
	}
	return id, nil
}

// checkIDP checks an identity provider id: "" (the default provider) or
// one created through /v2/idps.
func (s *Server) checkIDP(ctx context.Context, idp string) error {
	if idp == "" {
		return nil
	}
	if err := ledgerapi.ValidateLedgerString("identity_provider_id", idp); err != nil {
		return ledgerapi.InvalidField("identity_provider_id", fieldReason(err))
	}
	if ok, err := s.Node.IdentityProviderExists(ctx, idp); err != nil || ok {
		return err
	}
	return ledgerapi.InvalidArgument("Provided identity_provider_id %s has not been found.", idp)
}

// pageToken encodes the last id of a page as an opaque token.
func pageToken(last string) string {
	if last == "" {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(last))
}

// parsePageToken reads a token of pageToken: the last id of the page before,
// which valid checks (a user or party id). Like Canton, which decodes its
// tokens as protobuf, anything else is INVALID_ARGUMENT "Invalid page token".
func parsePageToken(tok string, valid func(field, s string) error) (string, error) {
	if tok == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) == 0 || valid("pageToken", string(b)) != nil {
		return "", ledgerapi.InvalidArgument("Invalid page token")
	}
	return string(b), nil
}

// pageSize reads pageSize: 0 means the maximum; above it is clamped, or
// refused when refuseAbove (Canton's party list refuses, its user list
// clamps).
func pageSize(req *Request, max int, refuseAbove bool) (int, error) {
	n, err := queryInt(req.Request, "pageSize")
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, ledgerapi.InvalidArgument("Page size must be non-negative")
	}
	if n > max && refuseAbove {
		return 0, ledgerapi.InvalidArgument("Page size must not exceed the server's maximum of %d", max)
	}
	if n == 0 || n > max {
		n = max
	}
	return n, nil
}

// getUserFor loads a user the caller may see: a participant admin, an
// admin of the user's identity provider, or the user itself.
func (s *Server) getUserFor(req *Request, id string) (ledger.User, error) {
	c := req.Caller
	self := !c.Wildcard() && c.UserID == id
	if !self && !c.IsParticipantAdmin() && !c.IsAdminOf(c.IdentityProviderID) {
		return ledger.User{}, permissionDenied("user %q may not read user %q", c.UserID, id)
	}
	u, err := s.Node.UserOfIdentityProvider(req.Context(), id, c.impliedIDP(req.URL.Query().Get("identity-provider-id")))
	if err != nil {
		return ledger.User{}, err
	}
	if !self && !c.IsAdminOf(u.IdentityProviderID) {
		return ledger.User{}, permissionDenied("user %q does not administer the identity provider of user %q", c.UserID, id)
	}
	return u, nil
}

func (s *Server) getAuthenticatedUser(req *Request) (any, error) {
	if err := s.checkIDP(req.Context(), req.URL.Query().Get("identity-provider-id")); err != nil {
		return nil, err
	}
	id, err := req.Caller.UserIDFor("")
	if err != nil {
		return nil, err
	}
	u, err := s.Node.User(req.Context(), id)
	if err != nil {
		return nil, err
	}
	return ledgerapi.GetUserResponse{User: apiUser(u)}, nil
}

func (s *Server) getUser(req *Request) (any, error) {
	id, err := pathUserID(req)
	if err != nil {
		return nil, err
	}
	if err := s.checkIDP(req.Context(), req.URL.Query().Get("identity-provider-id")); err != nil {
		return nil, err
	}
	u, err := s.getUserFor(req, id)
	if err != nil {
		return nil, err
	}
	return ledgerapi.GetUserResponse{User: apiUser(u)}, nil
}

func (s *Server) listUsers(req *Request) (any, error) {
	c := req.Caller
	idp := c.impliedIDP(req.URL.Query().Get("identity-provider-id"))
	if err := c.RequireAdminOf(idp); err != nil {
		return nil, err
	}
	if err := s.checkIDP(req.Context(), idp); err != nil {
		return nil, err
	}
	size, err := pageSize(req, node.MaxUsersPageSize, false)
	if err != nil {
		return nil, err
	}
	after, err := parsePageToken(req.URL.Query().Get("pageToken"), ledgerapi.ValidateUserID)
	if err != nil {
		return nil, err
	}
	// Canton lists the users of one identity provider, the default one
	// ("") when none is named, also for a participant admin.
	q := ledger.UserQuery{After: after, Limit: size, IdentityProviderID: &idp}
	users, next, err := s.Node.ListUsers(req.Context(), q)
	if err != nil {
		return nil, err
	}
	resp := ledgerapi.ListUsersResponse{Users: make([]ledgerapi.User, 0, len(users)), NextPageToken: pageToken(next)}
	for _, u := range users {
		resp.Users = append(resp.Users, apiUser(u))
	}
	return resp, nil
}

func (s *Server) createUser(req *Request) (any, error) {
	var body ledgerapi.CreateUserRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	c := req.Caller
	if body.User == nil {
		return nil, ledgerapi.MissingField("user")
	}
	u := body.User
	idp := c.impliedIDP(u.IdentityProviderID)
	if err := c.RequireAdminOf(idp); err != nil {
		return nil, err
	}
	if err := ledgerapi.ValidateUserID("user.id", u.ID); err != nil {
		if u.ID == "" {
			return nil, ledgerapi.MissingField("user.id")
		}
		return nil, ledgerapi.InvalidField("user.id", fieldReason(err))
	}
	// primaryParty is only checked to be a party id, as Canton's
	// ApiUserManagementService does (its verifyPartiesExistInIdp looks at
	// the rights alone): it grants nothing, and an identity provider's
	// admin gets the same answer for any party, its provider's or not.
	if u.Metadata.ResourceVersion != "" {
		return nil, ledgerapi.InvalidArgument("field user.metadata.resource_version must be not set")
	}
	if err := ledgerapi.ValidateAnnotations(u.Metadata.Annotations, false); err != nil {
		return nil, annotationsError(err, u.Metadata.Annotations, "user.metadata.annotations")
	}
	if u.PrimaryParty != "" {
		if reason := ledgerapi.DamlLFPartyReason(u.PrimaryParty); reason != "" {
			return nil, ledgerapi.InvalidArgument("%s", reason)
		}
	}
	if err := s.checkIDP(req.Context(), idp); err != nil {
		return nil, err
	}
	rights, err := ledgerRights(body.Rights)
	if err != nil {
		return nil, err
	}
	if err := c.requireGrantable(rights); err != nil {
		return nil, err
	}
	if err := s.requirePartiesInIDP(req.Context(), c, rights, idp); err != nil {
		return nil, err
	}
	created, err := s.Node.CreateUser(req.Context(), ledger.User{
		ID: u.ID, PrimaryParty: u.PrimaryParty, IsDeactivated: u.IsDeactivated,
		Annotations: u.Metadata.Annotations, IdentityProviderID: idp,
		PrimaryPartyAuthentication: u.PrimaryPartyAuthentication,
	}, rights)
	if err != nil {
		return nil, err
	}
	return ledgerapi.CreateUserResponse{User: apiUser(created)}, nil
}

// requirePartiesInIDP: a caller that is not a participant admin (an
// identity provider's admin) may only grant or revoke rights over parties
// of the identity provider idp, so that it cannot hand its users the
// parties of another provider. Canton's
// ApiUserManagementService.verifyPartiesExistInIdp answers the others as
// UNKNOWN_RESOURCE, listing them.
func (s *Server) requirePartiesInIDP(ctx context.Context, c *Caller, rights []ledger.Right, idp string) error {
	if c.IsParticipantAdmin() {
		return nil
	}
	var parties []string
	for _, r := range rights {
		if r.Kind.HasParty() && !slices.Contains(parties, r.Party) {
			parties = append(parties, r.Party)
		}
	}
	if len(parties) == 0 {
		return nil
	}
	known, err := s.Node.Parties(ctx, parties)
	if err != nil {
		return err
	}
	inIDP := map[string]bool{}
	for _, p := range known {
		if p.IdentityProviderID == idp {
			inIDP[p.ID] = true
		}
	}
	var missing []string
	for _, p := range parties {
		if !inIDP[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	e := ledgerapi.Errorf(ledgerapi.CodeUnknownResource,
		"The submitted request refers to a non-existing PARTIES: Provided parties have not been found in identity_provider_id=`%s`: [%s].",
		idp, strings.Join(missing, ","))
	for _, p := range missing {
		e = e.WithResource("PARTIES", p)
	}
	return e
}

// requireGrantable: only participant admins create users with, grant or
// revoke ParticipantAdmin, CanReadAsAnyParty and CanExecuteAsAnyParty, the
// rights that reach beyond one identity provider. An identity-provider
// admin may hand out IdentityProviderAdmin and party rights in its provider
// (UserManagementServiceAuthorization.needsParticipantAdmin, Canton 3.5).
func (c *Caller) requireGrantable(rights []ledger.Right) error {
	if c.IsParticipantAdmin() {
		return nil
	}
	for _, r := range rights {
		switch r.Kind {
		case ledger.ParticipantAdmin, ledger.CanReadAsAnyParty, ledger.CanExecuteAsAnyParty:
			return permissionDenied("user %q may not grant or revoke %s", c.UserID, r.Kind)
		}
	}
	return nil
}

// annotationsError maps a ValidateAnnotations failure: the size limit has its
// own error id, anything else is INVALID_ARGUMENT.
// annotationsError is Canton's refusal of a request's annotations
// (FieldValidator.verifyMetadataAnnotations): INVALID_ARGUMENT with the
// validator's reason, or for too large annotations one naming field. The
// limit checked again after an update's merge is the node's
// MAX_*_ANNOTATIONS_SIZE_EXCEEDED.
func annotationsError(err error, m map[string]string, field string) error {
	if ledgerapi.AnnotationsSize(m) > ledgerapi.MaxAnnotationsSize {
		return ledgerapi.InvalidArgument("annotations from field '%s' are larger than the limit of 256kb", field)
	}
	var fe *ledgerapi.FieldError
	if errors.As(err, &fe) {
		return ledgerapi.InvalidArgument("%s", fe.Reason)
	}
	return ledgerapi.InvalidArgument("%s", err.Error())
}

func (s *Server) deleteUser(req *Request) (any, error) {
	id, err := pathUserID(req)
	if err != nil {
		return nil, err
	}
	c := req.Caller
	idp := c.impliedIDP(req.URL.Query().Get("identity-provider-id"))
	if err := c.RequireAdminOf(idp); err != nil {
		return nil, err
	}
	// Canton (ApiUserManagementService.deleteUser) refuses only the caller
	// itself: an identity-provider admin may delete any user of its
	// provider, participant admins such as participant_admin included.
	if !c.Wildcard() && c.UserID == id {
		return nil, ledgerapi.InvalidArgument("Requesting user cannot delete itself")
	}
	u, err := s.Node.UserOfIdentityProvider(req.Context(), id, idp)
	if err != nil {
		return nil, err
	}
	if err := c.RequireAdminOf(u.IdentityProviderID); err != nil {
		return nil, err
	}
	if err := s.Node.DeleteUser(req.Context(), id); err != nil {
		return nil, err
	}
	return ledgerapi.DeleteUserResponse{}, nil
}

// User update mask paths (snake_case proto names).
var userUpdatePaths = []string{
	"id", "primary_party", "is_deactivated", "metadata", "metadata.annotations",
	"metadata.resource_version", "identity_provider_id", "primary_party_authentication",
}

func (s *Server) updateUser(req *Request) (any, error) {
	// Canton's JSON layer passes the path's user id on unparsed when it is
	// the body's, so the user service's check of user.id answers a
	// malformed one (INVALID_FIELD), not the path's INVALID_ARGUMENT.
	id := req.PathValue("userID")
	var body ledgerapi.UpdateUserRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if body.User == nil || body.User.ID != id {
		got := ""
		if body.User != nil {
			got = body.User.ID
		}
		return nil, ledgerapi.InvalidArgument("user.id %q does not match the user id %q in the path", got, id)
	}
	u := body.User
	if err := ledgerapi.ValidateUserID("user.id", u.ID); err != nil {
		return nil, ledgerapi.InvalidField("user.id", fieldReason(err))
	}
	c := req.Caller
	idp := c.impliedIDP(u.IdentityProviderID)
	if err := c.RequireAdminOf(idp); err != nil {
		return nil, err
	}
	expected, err := parseResourceVersion("user.metadata.resource_version", u.Metadata.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if u.PrimaryParty != "" {
		if err := ledgerapi.ValidatePartyID("user.primary_party", u.PrimaryParty); err != nil {
			return nil, ledgerapi.InvalidField("user.primary_party", fieldReason(err))
		}
	}
	if err := ledgerapi.ValidateAnnotations(u.Metadata.Annotations, true); err != nil {
		return nil, annotationsError(err, u.Metadata.Annotations, "user.metadata.annotations")
	}
	if body.UpdateMask == nil {
		return nil, ledgerapi.MissingField("update_mask")
	}
	if err := s.checkIDP(req.Context(), idp); err != nil {
		return nil, err
	}
	paths, err := checkMask(body.UpdateMask.Paths, userUpdatePaths, ledgerapi.CodeInvalidUserUpdateRequest, "user", id)
	if err != nil {
		return nil, err
	}
	stored, err := s.Node.UserOfIdentityProvider(req.Context(), id, idp)
	if err != nil {
		return nil, err
	}
	if err := c.RequireAdminOf(stored.IdentityProviderID); err != nil {
		return nil, err
	}
	upd := ledger.UserUpdate{ExpectedVersion: expected}
	badUpdate := func(format string, args ...any) error {
		return ledgerapi.Errorf(ledgerapi.CodeInvalidUserUpdateRequest,
			"Update operation for user id '%s' failed due to: "+format, append([]any{id}, args...)...).WithResource("USER", id)
	}
	for _, p := range paths {
		switch p {
		case "primary_party":
			upd.PrimaryParty = &u.PrimaryParty
		case "is_deactivated":
			if u.IsDeactivated && !c.Wildcard() && c.UserID == id {
				return nil, ledgerapi.InvalidArgument("Requesting user cannot self-deactivate")
			}
			upd.IsDeactivated = &u.IsDeactivated
		case "metadata.annotations":
			upd.Annotations = u.Metadata.Annotations
			if upd.Annotations == nil {
				upd.Annotations = map[string]string{}
			}
		case "metadata":
			if len(u.Metadata.Annotations) > 0 {
				upd.Annotations = u.Metadata.Annotations
			}
		case "identity_provider_id":
			if u.IdentityProviderID != stored.IdentityProviderID {
				return nil, badUpdate("attempted to modify not-modifiable 'identity_provider_id'")
			}
		case "primary_party_authentication":
			upd.PrimaryPartyAuthentication = &u.PrimaryPartyAuthentication
		}
	}
	updated, err := s.Node.UpdateUser(req.Context(), id, upd)
	if err != nil {
		return nil, err
	}
	return ledgerapi.UpdateUserResponse{User: apiUser(updated)}, nil
}

func (s *Server) listUserRights(req *Request) (any, error) {
	id, err := pathUserID(req)
	if err != nil {
		return nil, err
	}
	if _, err := s.getUserFor(req, id); err != nil {
		return nil, err
	}
	rights, err := s.Node.UserRights(req.Context(), id)
	if err != nil {
		return nil, err
	}
	return ledgerapi.ListUserRightsResponse{Rights: apiRights(rights)}, nil
}

// rightsRequest is the common part of grant and revoke: path and body user
// id agree, the caller administers the user's identity provider, the rights
// are well formed and the caller may hand them out.
func (s *Server) rightsRequest(req *Request, bodyUserID, bodyIDP string, rs []ledgerapi.Right) (string, []ledger.Right, error) {
	id, err := pathUserID(req)
	if err != nil {
		return "", nil, err
	}
	if bodyUserID != "" && bodyUserID != id {
		return "", nil, ledgerapi.InvalidArgument("userId %q does not match the user id %q in the path", bodyUserID, id)
	}
	c := req.Caller
	idp := c.impliedIDP(bodyIDP)
	if err := c.RequireAdminOf(idp); err != nil {
		return "", nil, err
	}
	if err := s.checkIDP(req.Context(), idp); err != nil {
		return "", nil, err
	}
	rights, err := ledgerRights(rs)
	if err != nil {
		return "", nil, err
	}
	if err := c.requireGrantable(rights); err != nil {
		return "", nil, err
	}
	if err := s.requirePartiesInIDP(req.Context(), c, rights, idp); err != nil {
		return "", nil, err
	}
	u, err := s.Node.UserOfIdentityProvider(req.Context(), id, idp)
	if err != nil {
		return "", nil, err
	}
	if err := c.RequireAdminOf(u.IdentityProviderID); err != nil {
		return "", nil, err
	}
	return id, slices.Clip(rights), nil
}

func (s *Server) grantUserRights(req *Request) (any, error) {
	var body ledgerapi.GrantUserRightsRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	id, rights, err := s.rightsRequest(req, body.UserID, body.IdentityProviderID, body.Rights)
	if err != nil {
		return nil, err
	}
	granted, err := s.Node.GrantRights(req.Context(), id, rights)
	if err != nil {
		return nil, err
	}
	return ledgerapi.GrantUserRightsResponse{NewlyGrantedRights: apiRights(granted)}, nil
}

func (s *Server) revokeUserRights(req *Request) (any, error) {
	var body ledgerapi.RevokeUserRightsRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	id, rights, err := s.rightsRequest(req, body.UserID, body.IdentityProviderID, body.Rights)
	if err != nil {
		return nil, err
	}
	// ApiUserManagementService.verifyNotRemovingOwnAdminRights
	if c := req.Caller; !c.Wildcard() && c.UserID == id && slices.ContainsFunc(rights, func(r ledger.Right) bool { return r.Kind == ledger.ParticipantAdmin }) {
		return nil, ledgerapi.InvalidArgument("Requesting user cannot remove own admin rights")
	}
	revoked, err := s.Node.RevokeRights(req.Context(), id, rights)
	if err != nil {
		return nil, err
	}
	return ledgerapi.RevokeUserRightsResponse{NewlyRevokedRights: apiRights(revoked)}, nil
}
