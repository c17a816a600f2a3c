package server

import (
	"fmt"
	"strconv"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// Party update mask paths (snake_case proto names). Only the annotations are
// modifiable; the others are accepted when they do not change anything.
var partyUpdatePaths = []string{
	"party", "is_local", "local_metadata", "local_metadata.annotations",
	"local_metadata.resource_version", "identity_provider_id",
}

// parseResourceVersion reads a resource version: "" means no
// compare-and-set (nil), otherwise a decimal integer.
func parseResourceVersion(field, s string) (*int64, error) {
	if s == "" {
		return nil, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return nil, ledgerapi.InvalidField(field, "Invalid resource version number: "+strconv.Quote(s))
	}
	return &v, nil
}

// checkMask checks an update mask: at least one path, no duplicates, every
// path a known one (camelCase paths are unknown). Errors carry code.
func checkMask(paths, known []string, code ledgerapi.ErrorCode, kind, id string) ([]string, error) {
	fail := func(reason string) error {
		return ledgerapi.Errorf(code, "Update operation for %s id '%s' failed due to: %s", kind, id, reason)
	}
	if len(paths) == 0 {
		return nil, fail("The update mask contains no entries")
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			return nil, fail(fmt.Sprintf("The update path: '%s' is duplicated.", p))
		}
		seen[p] = true
		ok := false
		for _, k := range known {
			ok = ok || p == k
		}
		if !ok {
			return nil, fail(fmt.Sprintf("The update path: '%s' points to an unknown field.", p))
		}
	}
	return paths, nil
}

// updatePartyDetails is PATCH /v2/parties/{party}, in the order of checks of
// docs/json-api.md §6.
func (s *Server) updatePartyDetails(req *Request) (any, error) {
	var body ledgerapi.UpdatePartyDetailsRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	party := req.PathValue("party")
	// 1. The JSON layer: body party must be the path party.
	if body.PartyDetails == nil || body.PartyDetails.Party != party {
		got := ""
		if body.PartyDetails != nil {
			got = body.PartyDetails.Party
		}
		return nil, ledgerapi.InvalidArgument("partyDetails.party %q does not match the party %q in the path", got, party)
	}
	pd := body.PartyDetails
	// 2. Rights: participant admin, or admin of the (implied) identity provider.
	c := req.Caller
	idp := c.impliedIDP(pd.IdentityProviderID)
	if err := c.RequireAdminOf(idp); err != nil {
		return nil, err
	}
	// 3. Field validation.
	if _, _, err := ledgerapi.SplitParty(party); err != nil {
		return nil, ledgerapi.InvalidArgument("Invalid party: %s", fieldReason(err))
	}
	expected, err := parseResourceVersion("party_details.local_metadata.resource_version", pd.LocalMetadata.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if err := ledgerapi.ValidateAnnotations(pd.LocalMetadata.Annotations, true); err != nil {
		return nil, annotationsError(err, pd.LocalMetadata.Annotations, "party_details.local_metadata.annotations")
	}
	if body.UpdateMask == nil {
		return nil, ledgerapi.MissingField("update_mask")
	}
	// 4. The identity provider must exist.
	if err := s.checkIDP(req.Context(), idp); err != nil {
		return nil, err
	}
	// 5. The mask.
	paths, err := checkMask(body.UpdateMask.Paths, partyUpdatePaths, ledgerapi.CodeInvalidPartyDetailsUpdateRequest, "party", party)
	if err != nil {
		return nil, err
	}
	// 6. The party must be known.
	stored, err := s.Node.Party(req.Context(), party)
	if err != nil {
		return nil, err
	}
	badUpdate := func(field string) error {
		return ledgerapi.Errorf(ledgerapi.CodeInvalidPartyDetailsUpdateRequest,
			"Update operation for party id '%s' failed due to: attempted to modify not-modifiable '%s'", party, field).
			WithResource("PARTY", party)
	}
	var change map[string]string
	for _, p := range paths {
		switch p {
		case "is_local":
			if pd.IsLocal != stored.IsLocal {
				return nil, badUpdate("is_local")
			}
		case "identity_provider_id":
			if pd.IdentityProviderID != stored.IdentityProviderID {
				return nil, badUpdate("identity_provider_id")
			}
		case "local_metadata.annotations":
			// The exact path applies the annotations even when empty.
			change = pd.LocalMetadata.Annotations
			if change == nil {
				change = map[string]string{}
			}
		case "local_metadata":
			// The coarse path: an empty map means no change.
			if len(pd.LocalMetadata.Annotations) > 0 {
				change = pd.LocalMetadata.Annotations
			}
		}
	}
	// 7. The record must belong to the caller's identity provider.
	if err := c.RequireAdminOf(stored.IdentityProviderID); err != nil {
		return nil, err
	}
	// 8–9. Compare-and-set, merge, size after the merge: one store transaction.
	updated, err := s.Node.UpdatePartyAnnotations(req.Context(), party, expected, change)
	if err != nil {
		return nil, err
	}
	return ledgerapi.UpdatePartyDetailsResponse{PartyDetails: apiParty(updated)}, nil
}
