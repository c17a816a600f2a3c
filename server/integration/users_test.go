package integration

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/server/auth"
)

func TestUsersLifecycle(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	alice := n.allocate("Alice")

	// create with rights and annotations; every field comes back
	var created ledgerapi.CreateUserResponse
	n.ok("POST", "/v2/users", n.admin, map[string]any{
		"user": map[string]any{"id": "alice", "primaryParty": alice.Party,
			"metadata": map[string]any{"annotations": map[string]string{"example.com/team": "payments"}}},
		"rights": []ledgerapi.Right{ledgerapi.CanActAs(alice.Party), {Kind: ledgerapi.RightCanReadAsAnyParty}},
	}, &created)
	u := created.User
	if u.ID != "alice" || u.PrimaryParty != alice.Party || u.IsDeactivated || u.Metadata.ResourceVersion != "0" ||
		u.Metadata.Annotations["example.com/team"] != "payments" || u.IdentityProviderID != "" {
		t.Errorf("created %+v", u)
	}
	r := n.call("GET", "/v2/users/alice", n.admin, nil)
	for _, key := range []string{`"primaryPartyAuthentication":false`, `"isDeactivated":false`, `"identityProviderId":""`} {
		if !strings.Contains(string(r.body), key) {
			t.Errorf("GET user lacks %s: %s", key, r.body)
		}
	}

	// duplicate, missing field, invalid id
	n.fail("POST", "/v2/users", n.admin, ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: "alice"}}, 409, "USER_ALREADY_EXISTS")
	n.fail("POST", "/v2/users", n.admin, map[string]any{"rights": []any{}}, 400, "MISSING_FIELD")
	n.fail("POST", "/v2/users", n.admin, ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: "bad id!"}}, 400, "INVALID_FIELD")
	n.fail("POST", "/v2/users", n.admin, ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: "x", PrimaryParty: "no/slash"}}, 400, "INVALID_ARGUMENT") // Canton's requireParty
	n.fail("POST", "/v2/users", n.admin, map[string]any{"user": map[string]any{"id": "y",
		"metadata": map[string]any{"annotations": map[string]string{"k": ""}}}}, 400, "INVALID_ARGUMENT")

	// list with paging
	n.createUser("bob")
	n.createUser("carol")
	var page ledgerapi.ListUsersResponse
	var seen []string
	tok := ""
	for i := 0; i < 10; i++ {
		n.ok("GET", "/v2/users?pageSize=2&pageToken="+tok, n.admin, nil, &page)
		for _, u := range page.Users {
			seen = append(seen, u.ID)
		}
		if tok = page.NextPageToken; tok == "" {
			break
		}
	}
	if strings.Join(seen, ",") != "alice,bob,carol,participant_admin" {
		t.Errorf("paged users %v", seen)
	}
	n.fail("GET", "/v2/users?pageToken=%21%21", n.admin, nil, 400, "INVALID_ARGUMENT")

	// rights: list, grant (only new ones reported), revoke
	var rights ledgerapi.ListUserRightsResponse
	n.ok("GET", "/v2/users/alice/rights", n.admin, nil, &rights)
	if len(rights.Rights) != 2 {
		t.Errorf("rights %+v", rights)
	}
	var granted ledgerapi.GrantUserRightsResponse
	n.ok("POST", "/v2/users/alice/rights", n.admin, ledgerapi.GrantUserRightsRequest{UserID: "alice",
		Rights: []ledgerapi.Right{ledgerapi.CanActAs(alice.Party), ledgerapi.CanReadAs(alice.Party)}}, &granted)
	if len(granted.NewlyGrantedRights) != 1 || granted.NewlyGrantedRights[0] != ledgerapi.CanReadAs(alice.Party) {
		t.Errorf("granted %+v", granted)
	}
	var revoked ledgerapi.RevokeUserRightsResponse
	n.ok("PATCH", "/v2/users/alice/rights", n.admin, ledgerapi.RevokeUserRightsRequest{UserID: "alice",
		Rights: []ledgerapi.Right{ledgerapi.CanReadAs(alice.Party), ledgerapi.CanExecuteAs(alice.Party)}}, &revoked)
	if len(revoked.NewlyRevokedRights) != 1 || revoked.NewlyRevokedRights[0] != ledgerapi.CanReadAs(alice.Party) {
		t.Errorf("revoked %+v", revoked)
	}
	n.fail("POST", "/v2/users/alice/rights", n.admin, ledgerapi.GrantUserRightsRequest{UserID: "bob"}, 400, "INVALID_ARGUMENT")
	n.fail("POST", "/v2/users/ghost/rights", n.admin, ledgerapi.GrantUserRightsRequest{UserID: "ghost"}, 404, "USER_NOT_FOUND")
	n.fail("POST", "/v2/users/alice/rights", n.admin, `{"userId":"alice","rights":[{"kind":{"CanActAs":{"value":{"party":"bad/party"}}}}]}`, 400, "INVALID_ARGUMENT") // Canton's requireParty

	// update: annotations merge, CAS, mask rules, path/body mismatch
	var upd ledgerapi.UpdateUserResponse
	n.ok("PATCH", "/v2/users/alice", n.admin, map[string]any{
		"user": map[string]any{"id": "alice", "metadata": map[string]any{"resourceVersion": "0",
			"annotations": map[string]string{"example.com/team": "", "k2": "v2"}}},
		"updateMask": map[string]any{"paths": []string{"metadata.annotations"}}}, &upd)
	if upd.User.Metadata.ResourceVersion != "1" || len(upd.User.Metadata.Annotations) != 1 || upd.User.Metadata.Annotations["k2"] != "v2" {
		t.Errorf("updated %+v", upd.User)
	}
	n.fail("PATCH", "/v2/users/alice", n.admin, map[string]any{
		"user":       map[string]any{"id": "alice", "metadata": map[string]any{"resourceVersion": "0"}},
		"updateMask": map[string]any{"paths": []string{"metadata.annotations"}}}, 409, "CONCURRENT_USER_UPDATE_DETECTED")
	n.fail("PATCH", "/v2/users/alice", n.admin, map[string]any{
		"user": map[string]any{"id": "alice"}, "updateMask": map[string]any{"paths": []string{"primaryParty"}}}, 400, "INVALID_USER_UPDATE_REQUEST")
	n.fail("PATCH", "/v2/users/alice", n.admin, map[string]any{
		"user": map[string]any{"id": "alice"}, "updateMask": map[string]any{"paths": []string{}}}, 400, "INVALID_USER_UPDATE_REQUEST")
	n.fail("PATCH", "/v2/users/alice", n.admin, map[string]any{
		"user": map[string]any{"id": "bob"}, "updateMask": map[string]any{"paths": []string{"primary_party"}}}, 400, "INVALID_ARGUMENT")
	n.fail("PATCH", "/v2/users/alice", n.admin, map[string]any{"user": map[string]any{"id": "alice"}}, 400, "MISSING_FIELD")
	n.ok("PATCH", "/v2/users/alice", n.admin, map[string]any{
		"user": map[string]any{"id": "alice", "primaryParty": ""}, "updateMask": map[string]any{"paths": []string{"primary_party"}}}, &upd)
	if upd.User.PrimaryParty != "" || upd.User.Metadata.ResourceVersion != "2" {
		t.Errorf("primary party cleared: %+v", upd.User)
	}
	// the admin cannot deactivate itself
	n.fail("PATCH", "/v2/users/participant_admin", n.admin, map[string]any{
		"user": map[string]any{"id": "participant_admin", "isDeactivated": true}, "updateMask": map[string]any{"paths": []string{"is_deactivated"}}}, 400, "INVALID_ARGUMENT")

	// delete
	var empty map[string]any
	n.ok("DELETE", "/v2/users/bob", n.admin, nil, &empty)
	if len(empty) != 0 {
		t.Errorf("delete answered %v", empty)
	}
	n.fail("GET", "/v2/users/bob", n.admin, nil, 404, "USER_NOT_FOUND")
	n.fail("DELETE", "/v2/users/bob", n.admin, nil, 404, "USER_NOT_FOUND")
	n.fail("GET", "/v2/users/bad%20id%21", n.admin, nil, 400, "INVALID_ARGUMENT")
}

func TestIdentityProviderAdmin(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	n.createUser("idpadmin", adminRight(ledgerapi.RightIdentityProviderAdmin))
	tok := n.token("idpadmin")
	// administers users of its (default) provider
	n.ok("POST", "/v2/users", tok, ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: "dave"}}, nil)
	n.ok("GET", "/v2/users", tok, nil, nil)
	// but may not hand out admin rights
	n.fail("POST", "/v2/users/dave/rights", tok, ledgerapi.GrantUserRightsRequest{UserID: "dave",
		Rights: []ledgerapi.Right{adminRight(ledgerapi.RightParticipantAdmin)}}, 403, ledgerapi.RedactedCode)
	// unknown identity provider
	n.fail("POST", "/v2/users", n.admin, ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: "erin", IdentityProviderID: "idp-x"}}, 400, "INVALID_ARGUMENT")
}
