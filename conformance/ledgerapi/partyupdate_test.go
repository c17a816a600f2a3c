package ledgerapi

import (
	"net/url"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// PartyManagementServiceUpdateRpcIT.scala: PATCH /v2/parties/{party}.
// FailingUpdateRequestsWhenPartyDetailsFieldIsUnset is GrpcOnly.
func TestPartyManagementServiceUpdateRpcIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	// fresh allocates a party with annotations and answers its details.
	fresh := func(t *testing.T, annotations map[string]string) ledgerapi.PartyDetails {
		t.Helper()
		if annotations == nil {
			annotations = map[string]string{}
		}
		var resp ledgerapi.AllocatePartyResponse
		p.ok(t, "POST", "/v2/parties", map[string]any{"partyIdHint": p.next("party"),
			"localMetadata": map[string]any{"annotations": annotations}}, &resp)
		return resp.PartyDetails
	}
	path := func(party string) string { return "/v2/parties/" + url.PathEscape(party) }
	update := func(party string, isLocal bool, annotations map[string]string, paths ...string) map[string]any {
		if annotations == nil {
			annotations = map[string]string{}
		}
		return map[string]any{"partyDetails": map[string]any{"party": party, "isLocal": isLocal,
			"localMetadata": map[string]any{"resourceVersion": "", "annotations": annotations}, "identityProviderId": ""},
			"updateMask": map[string]any{"paths": paths}}
	}
	// same compares details without their resource versions.
	same := func(t *testing.T, what string, got, want ledgerapi.PartyDetails) {
		t.Helper()
		got.LocalMetadata.ResourceVersion, want.LocalMetadata.ResourceVersion = "", ""
		if len(got.LocalMetadata.Annotations) == 0 && len(want.LocalMetadata.Annotations) == 0 {
			got.LocalMetadata.Annotations, want.LocalMetadata.Annotations = nil, nil
		}
		same := got.Party == want.Party && got.IsLocal == want.IsLocal && got.IdentityProviderID == want.IdentityProviderID &&
			len(got.LocalMetadata.Annotations) == len(want.LocalMetadata.Annotations)
		for k, v := range want.LocalMetadata.Annotations {
			same = same && got.LocalMetadata.Annotations[k] == v
		}
		if !same {
			t.Errorf("%s: got %+v, want %+v", what, got, want)
		}
	}

	t.Run("PMUpdateAllUpdatableFields", func(t *testing.T) {
		d := fresh(t, map[string]string{"k1": "v1", "k2": "v2", "k3": "v3"})
		var resp ledgerapi.UpdatePartyDetailsResponse
		p.ok(t, "PATCH", path(d.Party), update(d.Party, d.IsLocal,
			map[string]string{"k1": "v1a", "k3": "", "k4": "v4", "k5": ""}, "local_metadata.annotations"), &resp)
		want := d
		want.LocalMetadata.Annotations = map[string]string{"k1": "v1a", "k2": "v2", "k4": "v4"}
		same(t, "updating user 1", resp.PartyDetails, want)
	})

	t.Run("PMFailAttemptingToUpdateIsLocal", func(t *testing.T) {
		d := fresh(t, nil)
		p.mustFail(t, "PATCH", path(d.Party), update(d.Party, !d.IsLocal, nil, "is_local"),
			failure{code: "INVALID_PARTY_DETAILS_UPDATE_REQUEST"})
	})

	t.Run("PMAllowSpecifyingIsLocalAndDisplayNameIfMatchingTheRealValues", func(t *testing.T) {
		d := fresh(t, nil)
		var resp ledgerapi.UpdatePartyDetailsResponse
		p.ok(t, "PATCH", path(d.Party), update(d.Party, d.IsLocal, nil, "is_local"), &resp)
		same(t, "updating user", resp.PartyDetails, d)
	})

	t.Run("UpdatePartyDetailsEvenIfMetadataIsNotSetInUpdateRequest", func(t *testing.T) {
		d := fresh(t, nil)
		var resp ledgerapi.UpdatePartyDetailsResponse
		p.ok(t, "PATCH", path(d.Party), map[string]any{"partyDetails": map[string]any{"party": d.Party, "isLocal": false,
			"identityProviderId": ""}, "updateMask": map[string]any{"paths": []string{"party"}}}, &resp)
		same(t, "update with the metadata not set in the request", resp.PartyDetails,
			ledgerapi.PartyDetails{Party: d.Party, IsLocal: true})
	})

	t.Run("FailUpdateNonExistentParty", func(t *testing.T) {
		// a party id of this node's namespace that was never allocated
		known := p.allocate(t, "known")
		party := p.next("party") + known[strings.Index(known, "::"):]
		p.mustFail(t, "PATCH", path(party), update(party, true, map[string]string{"k1": "v1"}, "local_metadata.annotations"),
			failure{code: "PARTY_NOT_FOUND"})
	})
}
