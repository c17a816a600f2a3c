package ledgerapi

import (
	"net/url"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// UserManagementServiceUpdateRpcIT.scala: PATCH /v2/users/{user-id}.
// InvalidUpdateRequestsUserFieldIsUnset is GrpcOnly.
func TestUserManagementServiceUpdateRpcIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	type fresh struct {
		primaryParty  string
		isDeactivated bool
		annotations   map[string]string
	}
	// newUser creates a user and answers its id.
	newUser := func(t *testing.T, f fresh) string {
		t.Helper()
		if f.annotations == nil {
			f.annotations = map[string]string{}
		}
		id := p.next("user")
		p.ok(t, "POST", "/v2/users", map[string]any{"user": map[string]any{"id": id, "primaryParty": f.primaryParty,
			"isDeactivated": f.isDeactivated, "metadata": map[string]any{"annotations": f.annotations}}, "rights": []any{}}, nil)
		return id
	}
	// update is an UpdateUserRequest of user (with its metadata unless
	// annotations is nil) and mask paths.
	update := func(user map[string]any, annotations map[string]string, paths ...string) map[string]any {
		if annotations != nil {
			user["metadata"] = map[string]any{"resourceVersion": "", "annotations": annotations}
		}
		if paths == nil {
			paths = []string{}
		}
		return map[string]any{"user": user, "updateMask": map[string]any{"paths": paths}}
	}
	patch := func(t *testing.T, id string, body map[string]any) ledgerapi.User {
		t.Helper()
		var resp ledgerapi.UpdateUserResponse
		p.ok(t, "PATCH", "/v2/users/"+url.PathEscape(id), body, &resp)
		return resp.User
	}
	sameUser := func(t *testing.T, what string, got, want ledgerapi.User) {
		t.Helper()
		if got.ID != want.ID || got.PrimaryParty != want.PrimaryParty || got.IsDeactivated != want.IsDeactivated ||
			got.IdentityProviderID != want.IdentityProviderID || got.PrimaryPartyAuthentication != want.PrimaryPartyAuthentication ||
			!sameAnnotations(got.Metadata.Annotations, want.Metadata.Annotations) {
			t.Errorf("%s: got %+v, want %+v", what, got, want)
		}
	}

	t.Run("UpdateAllUpdatableFields", func(t *testing.T) {
		id := newUser(t, fresh{"primaryParty0", true, map[string]string{"k1": "v1", "k2": "v2", "k3": "v3"}})
		got := patch(t, id, update(map[string]any{"id": id, "isDeactivated": false, "primaryParty": "primaryParty1"},
			map[string]string{"k1": "v1a", "k3": "", "k4": "v4", "k5": ""}, "is_deactivated", "primary_party", "metadata"))
		sameUser(t, "updating user 1", got, ledgerapi.User{ID: id, PrimaryParty: "primaryParty1",
			Metadata: ledgerapi.ObjectMeta{Annotations: map[string]string{"k1": "v1a", "k2": "v2", "k4": "v4"}}})
	})

	t.Run("UpdateUserEvenIfMetadataIsNotSetInUpdateRequest", func(t *testing.T) {
		id := newUser(t, fresh{})
		got := patch(t, id, update(map[string]any{"id": id, "primaryParty": "nextPrimaryParty", "isDeactivated": false,
			"identityProviderId": "", "primaryPartyAuthentication": false}, nil, "primary_party"))
		sameUser(t, "update with metadata not set in the request", got, ledgerapi.User{ID: id, PrimaryParty: "nextPrimaryParty",
			Metadata: ledgerapi.ObjectMeta{Annotations: map[string]string{}}})
	})

	t.Run("FailUpdateNonExistentUser", func(t *testing.T) {
		id := p.next("user")
		p.mustFail(t, "PATCH", "/v2/users/"+id, update(map[string]any{"id": id}, map[string]string{"k1": "v1"}, "metadata.annotations"),
			failure{code: "USER_NOT_FOUND"})
	})

	t.Run("InvalidUpdateRequestsInvalidUserIdSyntax", func(t *testing.T) {
		newUser(t, fresh{})
		p.mustFail(t, "PATCH", "/v2/users/"+url.PathEscape("%%!!!"), update(map[string]any{"id": "%%!!!"}, map[string]string{"k2": "v2"}),
			failure{code: "INVALID_FIELD"})
	})

	for _, c := range []struct {
		name       string
		from       fresh
		user       map[string]any
		path       string
		check      func(u ledgerapi.User) bool
		wantString string
	}{
		{"UpdatePrimaryPartyUsingNonEmptyValue", fresh{primaryParty: "primaryParty0"}, map[string]any{"primaryParty": "primaryParty1"}, "primary_party",
			func(u ledgerapi.User) bool { return u.PrimaryParty == "primaryParty1" }, "primary party primaryParty1"},
		{"UpdatePrimaryPartyUsingEmptyValue", fresh{primaryParty: "primaryParty0"}, map[string]any{"primaryParty": ""}, "primary_party",
			func(u ledgerapi.User) bool { return u.PrimaryParty == "" }, "no primary party"},
		{"UpdateIsDeactivatedUsingNonDefaultValue", fresh{}, map[string]any{"isDeactivated": true}, "is_deactivated",
			func(u ledgerapi.User) bool { return u.IsDeactivated }, "deactivated"},
		{"UpdateIsDeactivatedUsingTheDefaultValue", fresh{isDeactivated: true}, map[string]any{"isDeactivated": false}, "is_deactivated",
			func(u ledgerapi.User) bool { return !u.IsDeactivated }, "not deactivated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := newUser(t, c.from)
			c.user["id"] = id
			if got := patch(t, id, update(c.user, map[string]string{}, c.path)); !c.check(got) {
				t.Errorf("updating %s: got %+v, want %s", c.path, got, c.wantString)
			}
		})
	}

	t.Run("UpdatePrimaryPartyAuthentication", func(t *testing.T) {
		id := newUser(t, fresh{})
		for _, on := range []bool{true, false} {
			got := patch(t, id, update(map[string]any{"id": id, "primaryPartyAuthentication": on}, map[string]string{}, "primary_party_authentication"))
			if got.PrimaryPartyAuthentication != on {
				t.Errorf("turning primary_party_authentication to %v: %+v", on, got)
			}
			var resp ledgerapi.GetUserResponse
			p.ok(t, "GET", "/v2/users/"+id, nil, &resp)
			if resp.User.PrimaryPartyAuthentication != on {
				t.Errorf("verifying primary_party_authentication is %v: %+v", on, resp.User)
			}
		}
	})
}

// sameAnnotations: the same keys and values (nil and empty alike).
func sameAnnotations(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
