package ledgerapi

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
)

// alphanumeric is the test tool's Random.alphanumeric.take(n).
func alphanumeric(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))]
	}
	return string(b)
}

// PartyManagementServiceIT.scala.
func TestPartyManagementServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	var version ledgerapi.GetVersionResponse
	p.ok(t, "GET", "/v2/version", nil, &version)

	t.Run("PMNonEmptyParticipantID", func(t *testing.T) {
		var r ledgerapi.GetParticipantIDResponse
		p.ok(t, "GET", "/v2/parties/participant-id", nil, &r)
		if r.ParticipantID == "" {
			t.Error("The ledger returned an empty participant identifier")
		}
	})

	t.Run("PMAllocateWithoutHint", func(t *testing.T) {
		var r ledgerapi.AllocatePartyResponse
		p.ok(t, "POST", "/v2/parties", map[string]any{"partyIdHint": ""}, &r)
		if r.PartyDetails.Party == "" {
			t.Error("The allocated party identifier is an empty string")
		}
	})

	t.Run("PMFailToAllocateWhenAnnotationsHaveEmptyValues", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/parties", map[string]any{"partyIdHint": "", "localMetadata": map[string]any{
			"resourceVersion": "", "annotations": map[string]any{"key1": "val1", "key2": ""}}}, failure{code: "INVALID_ARGUMENT"})
	})

	t.Run("PMRejectionDuplicateHint", func(t *testing.T) {
		hint := "party_hint_" + alphanumeric(10)
		p.ok(t, "POST", "/v2/parties", map[string]any{"partyIdHint": hint}, nil)
		e := p.mustFail(t, "POST", "/v2/parties", map[string]any{"partyIdHint": hint}, failure{code: "INVALID_ARGUMENT"})
		if re := regexp.MustCompile("Party already exists|PartyToParticipant"); !re.MatchString(e.Cause) {
			t.Errorf("cause %q does not match %s", e.Cause, re)
		}
	})

	t.Run("PMGetPartiesBoundaryConditions", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		p.create(t, alice, dummy, map[string]any{"operator": alice})
		nonExisting := "nonexisting-" + alphanumeric(8) + "::1220" + strings.Repeat("ab", 32)
		get := func(parties ...string) ledgerapi.GetPartiesResponse {
			path := "/v2/parties/" + url.PathEscape(parties[0])
			for i, q := range parties[1:] {
				sep := "&"
				if i == 0 {
					sep = "?"
				}
				path += sep + "parties=" + url.QueryEscape(q)
			}
			var r ledgerapi.GetPartiesResponse
			p.ok(t, "GET", path, nil, &r)
			return r
		}
		one := get(alice)
		if len(one.PartyDetails) != 1 || one.PartyDetails[0].Party != alice || !one.PartyDetails[0].IsLocal {
			t.Errorf("Missing expected party from the participant: %+v", one)
		}
		two := get(alice, nonExisting)
		if len(two.PartyDetails) != 1 || two.PartyDetails[0].Party != alice {
			t.Errorf("Non existing party found in getParties response: %+v", two)
		}
		get(nonExisting)
	})

	allocateWith := func(t *testing.T, hint string, annotations map[string]string) ledgerapi.PartyDetails {
		t.Helper()
		var r ledgerapi.AllocatePartyResponse
		body := map[string]any{"partyIdHint": hint}
		if annotations != nil {
			body["localMetadata"] = map[string]any{"resourceVersion": "", "annotations": annotations}
		}
		p.ok(t, "POST", "/v2/parties", body, &r)
		return r.PartyDetails
	}
	getParties := func(t *testing.T, parties ...string) []ledgerapi.PartyDetails {
		t.Helper()
		q := url.Values{"parties": parties[1:]}
		var r ledgerapi.GetPartiesResponse
		p.ok(t, "GET", "/v2/parties/"+url.PathEscape(parties[0])+"?"+q.Encode(), nil, &r)
		return r.PartyDetails
	}
	// same compares party details without their resource versions.
	same := func(t *testing.T, what string, got ledgerapi.PartyDetails, party string, annotations map[string]string) {
		t.Helper()
		if got.Party != party || !got.IsLocal || got.IdentityProviderID != "" || len(got.LocalMetadata.Annotations) != len(annotations) {
			t.Errorf("%s: %+v, want local party %s with annotations %v", what, got, party, annotations)
		}
		for k, v := range annotations {
			if got.LocalMetadata.Annotations[k] != v {
				t.Errorf("%s: annotation %s = %q, want %q", what, k, got.LocalMetadata.Annotations[k], v)
			}
		}
	}

	t.Run("PMAllocateWithLocalMetadataAnnotations", func(t *testing.T) {
		annotations := map[string]string{"key1": "val1", "key2": "val2"}
		d := allocateWith(t, "", annotations)
		same(t, "allocated", d, d.Party, annotations)
		got := getParties(t, d.Party)
		if len(got) != 1 {
			t.Fatalf("get: %d parties", len(got))
		}
		same(t, "read back", got[0], d.Party, annotations)
		if got[0].LocalMetadata.ResourceVersion != d.LocalMetadata.ResourceVersion {
			t.Errorf("resource version %q read back as %q", d.LocalMetadata.ResourceVersion, got[0].LocalMetadata.ResourceVersion)
		}
	})

	t.Run("PMAllocateOneHundred", func(t *testing.T) {
		seen := map[string]int{}
		for range 100 {
			seen[allocateWith(t, "", nil).Party]++
		}
		for name, n := range seen {
			if n > 1 {
				t.Errorf("There are non-unique party names: %s (%d)", name, n)
			}
		}
	})

	t.Run("PMGetPartiesDetails", func(t *testing.T) {
		d1 := allocateWith(t, "PMGetPartiesDetails_"+alphanumeric(10), map[string]string{"k1": "v1"})
		d2 := allocateWith(t, "PMGetPartiesDetails_"+alphanumeric(10), map[string]string{"k2": "v2"})
		got := getParties(t, d1.Party, d2.Party, "non-existent")
		if len(got) != 2 {
			t.Fatalf("The allocated parties were not retrieved successfully: %+v", got)
		}
		byParty := map[string]ledgerapi.PartyDetails{got[0].Party: got[0], got[1].Party: got[1]}
		same(t, "party1", byParty[d1.Party], d1.Party, map[string]string{"k1": "v1"})
		same(t, "party2", byParty[d2.Party], d2.Party, map[string]string{"k2": "v2"})
		if none := getParties(t, "non-existent"); len(none) != 0 {
			t.Errorf("Retrieved some parties when the party specified did not exist: %+v", none)
		}
	})

	t.Run("PMListKnownParties", func(t *testing.T) {
		d1 := allocateWith(t, "PMListKnownParties_"+alphanumeric(10), map[string]string{"k1": "v1"})
		d2 := allocateWith(t, "PMListKnownParties_"+alphanumeric(10), nil)
		d3 := allocateWith(t, "PMListKnownParties_"+alphanumeric(10), nil)
		known := map[string]ledgerapi.PartyDetails{}
		token := ""
		for {
			var r ledgerapi.ListPartiesResponse
			p.ok(t, "GET", "/v2/parties?pageToken="+url.QueryEscape(token), nil, &r)
			for _, d := range r.PartyDetails {
				known[d.Party] = d
			}
			if token = r.NextPageToken; token == "" {
				break
			}
		}
		same(t, "party1", known[d1.Party], d1.Party, map[string]string{"k1": "v1"})
		same(t, "party2", known[d2.Party], d2.Party, nil)
		same(t, "party3", known[d3.Party], d3.Party, nil)
	})

	listParties := func(t *testing.T, size int, token string) ledgerapi.ListPartiesResponse {
		t.Helper()
		var r ledgerapi.ListPartiesResponse
		p.ok(t, "GET", "/v2/parties?pageSize="+strconv.Itoa(size)+"&pageToken="+url.QueryEscape(token), nil, &r)
		return r
	}

	t.Run("PMPagedListKnownPartiesReachingTheLastPage", func(t *testing.T) {
		size := min(10000, node.MaxPartiesPageSize)
		token := ""
		for pages := 0; ; pages++ {
			page := listParties(t, size, token)
			if token = page.NextPageToken; token == "" {
				break
			}
			if pages > 10 {
				t.Fatalf("Could not reach the last page even after fetching %d pages of size %d each", pages+1, size)
			}
		}
	})

	t.Run("PMPagedListKnownPartiesZeroPageSize", func(t *testing.T) {
		p.allocate(t, "party")
		p.allocate(t, "party")
		zero, one := listParties(t, 0, ""), listParties(t, 1, "")
		if len(one.PartyDetails) == 0 || len(zero.PartyDetails) == 0 {
			t.Fatal("First page with requested pageSize zero should return some parties")
		}
		if zero.PartyDetails[0].Party != one.PartyDetails[0].Party {
			t.Errorf("page size 0 starts with %s, page size 1 with %s", zero.PartyDetails[0].Party, one.PartyDetails[0].Party)
		}
	})

	t.Run("PMRejectLongPartyHints", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/parties", map[string]any{"partyIdHint": alphanumeric(256)},
			failure{code: "INVALID_ARGUMENT", cause: "Party is too long"})
	})

	t.Run("PMRejectInvalidPartyHints", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/parties", map[string]any{"partyIdHint": "\U0001F600"},
			failure{code: "INVALID_ARGUMENT", cause: "non expected character"})
	})

	t.Run("PMPagedListKnownPartiesWithInvalidRequest", func(t *testing.T) {
		p.mustFail(t, "GET", "/v2/parties?pageSize=0&pageToken="+url.QueryEscape(uuid.NewString()), nil, failure{code: "INVALID_ARGUMENT"})
		p.mustFail(t, "GET", "/v2/parties?pageSize=-100", nil, failure{code: "INVALID_ARGUMENT"})
	})

	t.Run("PMPagedListKnownPartiesMaxPageSize", func(t *testing.T) {
		max := int(version.Features.PartyManagement.MaxPartiesPageSize)
		if max <= 0 {
			t.Skip("requires party management feature with parties page size limit")
		}
		p.mustFail(t, "GET", "/v2/parties?pageSize="+strconv.Itoa(max+1), nil,
			failure{code: "INVALID_ARGUMENT", cause: "Page size must not exceed the server's maximum"})
	})
}

// UserManagementServiceIT.scala.
func TestUserManagementServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	admin := ledgerapi.Right{Kind: ledgerapi.RightParticipantAdmin}
	type user = map[string]any
	newUser := func(id, primaryParty string) user { return user{"id": id, "primaryParty": primaryParty} }
	createUser := func(t *testing.T, u user, rights ...ledgerapi.Right) ledgerapi.User {
		t.Helper()
		var r struct{ User ledgerapi.User }
		p.ok(t, "POST", "/v2/users", map[string]any{"user": u, "rights": append([]ledgerapi.Right{}, rights...)}, &r)
		return r.User
	}
	getUser := func(t *testing.T, id string) ledgerapi.User {
		t.Helper()
		var r struct{ User ledgerapi.User }
		p.ok(t, "GET", "/v2/users/"+id, nil, &r)
		return r.User
	}
	rightsBody := func(id string, rights ...ledgerapi.Right) ledgerapi.GrantUserRightsRequest {
		return ledgerapi.GrantUserRightsRequest{UserID: id, Rights: rights}
	}
	grant := func(t *testing.T, id string, rights ...ledgerapi.Right) []ledgerapi.Right {
		t.Helper()
		var r ledgerapi.GrantUserRightsResponse
		p.ok(t, "POST", "/v2/users/"+id+"/rights", rightsBody(id, rights...), &r)
		return r.NewlyGrantedRights
	}
	revoke := func(t *testing.T, id string, rights ...ledgerapi.Right) []ledgerapi.Right {
		t.Helper()
		var r ledgerapi.RevokeUserRightsResponse
		p.ok(t, "PATCH", "/v2/users/"+id+"/rights", rightsBody(id, rights...), &r)
		return r.NewlyRevokedRights
	}
	listRights := func(t *testing.T, id string) []ledgerapi.Right {
		t.Helper()
		var r ledgerapi.ListUserRightsResponse
		p.ok(t, "GET", "/v2/users/"+id+"/rights", nil, &r)
		return r.Rights
	}
	sameRights := func(t *testing.T, what string, got []ledgerapi.Right, want ...ledgerapi.Right) {
		t.Helper()
		g, w := map[string]int{}, map[string]int{}
		for _, r := range got {
			g[r.String()]++
		}
		for _, r := range want {
			w[r.String()]++
		}
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s: rights %v, want %v", what, got, want)
		}
	}
	sameUser := func(t *testing.T, what string, got ledgerapi.User, want user) {
		t.Helper()
		if got.ID != want["id"] || got.PrimaryParty != want["primaryParty"] || got.IsDeactivated || got.IdentityProviderID != "" ||
			got.PrimaryPartyAuthentication || len(got.Metadata.Annotations) != 0 {
			t.Errorf("%s: %+v, want %v", what, got, want)
		}
	}
	// userRights are the test tool's getUserRights: act, read and
	// execute as fresh parties.
	userRights := func(t *testing.T) []ledgerapi.Right {
		suffix := uuid.NewString()
		return []ledgerapi.Right{
			ledgerapi.CanActAs(p.allocate(t, "acting-party-1-"+suffix)), ledgerapi.CanActAs(p.allocate(t, "acting-party-2-"+suffix)),
			ledgerapi.CanReadAs(p.allocate(t, "reading-party-1-"+suffix)), ledgerapi.CanReadAs(p.allocate(t, "reading-party-2-"+suffix)),
			ledgerapi.CanExecuteAs(p.allocate(t, "executing-party-1-"+suffix)), ledgerapi.CanExecuteAs(p.allocate(t, "executing-party-2-"+suffix)),
		}
	}
	userNotFound := failure{code: "USER_NOT_FOUND"}

	t.Run("UserManagementUpdateUserIdpWithNonDefaultIdps", func(t *testing.T) {
		id, idp1, idp2 := p.next("user"), p.createIDP(t), p.createIDP(t)
		createUser(t, user{"id": id, "identityProviderId": idp1})
		p.ok(t, "PATCH", "/v2/users/"+id+"/identity-provider-id", p.moveIDP(id, idp1, idp2), nil)
		if got := p.userIDP(t, id, idp2); got != idp2 {
			t.Errorf("idp %q, want %q", got, idp2)
		}
		p.ok(t, "PATCH", "/v2/users/"+id+"/identity-provider-id", p.moveIDP(id, idp2, idp1), nil)
		if got := p.userIDP(t, id, idp1); got != idp1 {
			t.Errorf("idp %q, want %q", got, idp1)
		}
		// The test tool reads the gRPC status PERMISSION_DENIED; over JSON
		// the security-sensitive error is redacted (code NA) and carries
		// the gRPC code 7 (PERMISSION_DENIED).
		e := p.mustFail(t, "GET", "/v2/users/"+id+"?identity-provider-id="+idp2, nil, failure{code: "NA"})
		if e.GRPCCodeValue == nil || *e.GRPCCodeValue != 7 {
			t.Errorf("requesting with the wrong idp: gRPC code %v, want 7 (PERMISSION_DENIED)", e.GRPCCodeValue)
		}
		p.ok(t, "PATCH", "/v2/users/"+id+"/identity-provider-id", p.moveIDP(id, idp1, ""), nil)
	})

	t.Run("UserManagementUpdateUserIdpWithDefaultIdp", func(t *testing.T) {
		id, idp := p.next("user"), p.createIDP(t)
		createUser(t, user{"id": id})
		p.ok(t, "PATCH", "/v2/users/"+id+"/identity-provider-id", p.moveIDP(id, "", idp), nil)
		if got := p.userIDP(t, id, idp); got != idp {
			t.Errorf("idp %q, want %q", got, idp)
		}
		p.ok(t, "PATCH", "/v2/users/"+id+"/identity-provider-id", p.moveIDP(id, idp, ""), nil)
		if got := p.userIDP(t, id, ""); got != "" {
			t.Errorf("idp %q, want the default", got)
		}
	})

	t.Run("UserManagementUpdateUserIdpNonExistentIdps", func(t *testing.T) {
		id, missing := p.next("user"), p.next("idp")
		createUser(t, user{"id": id})
		p.mustFail(t, "PATCH", "/v2/users/"+id+"/identity-provider-id", p.moveIDP(id, missing, ""), failure{code: "INVALID_ARGUMENT"})
		p.mustFail(t, "PATCH", "/v2/users/"+id+"/identity-provider-id", p.moveIDP(id, "", missing), failure{code: "INVALID_ARGUMENT"})
	})

	listUsers := func(t *testing.T, size int) []ledgerapi.User {
		t.Helper()
		var r struct{ Users []ledgerapi.User }
		p.ok(t, "GET", "/v2/users?pageSize="+strconv.Itoa(size), nil, &r)
		return r.Users
	}

	t.Run("TestListUsersRequestPageSizeZero", func(t *testing.T) {
		createUser(t, user{"id": p.next("user")})
		createUser(t, user{"id": p.next("user")})
		zero, one := listUsers(t, 0), listUsers(t, 1)
		if len(one) == 0 || len(zero) == 0 {
			t.Fatal("First page with requested pageSize zero should return some users")
		}
		if zero[0].ID != one[0].ID {
			t.Errorf("page size 0 starts with %s, page size 1 with %s", zero[0].ID, one[0].ID)
		}
		if len(zero) < 2 {
			t.Errorf("page size 0 is the server's default, larger than one: %d users", len(zero))
		}
	})

	listUsersPage := func(t *testing.T, size int, token string) (users []ledgerapi.User, next string) {
		t.Helper()
		var r struct {
			Users         []ledgerapi.User
			NextPageToken string
		}
		p.ok(t, "GET", "/v2/users?pageSize="+strconv.Itoa(size)+"&pageToken="+url.QueryEscape(token), nil, &r)
		return r.Users, r.NextPageToken
	}
	hasUser := func(users []ledgerapi.User, id string) bool {
		for _, u := range users {
			if u.ID == id {
				return true
			}
		}
		return false
	}

	t.Run("TestListUsersVisibilityOfNewUserWhenCreatedAndThenDeleted", func(t *testing.T) {
		before, _ := listUsersPage(t, 10, "")
		// "!" is the smallest character of a user id.
		id := "!" + p.next("user")
		if len(before) > 0 {
			id = "!" + before[0].ID
		}
		if hasUser(before, id) {
			t.Fatal("new user should be absent before it's creation")
		}
		createUser(t, user{"id": id})
		if after, _ := listUsersPage(t, 10, ""); !hasUser(after, id) {
			t.Error("new users should be present after it's creation")
		}
		p.ok(t, "DELETE", "/v2/users/"+url.PathEscape(id), nil, nil)
		if deleted, _ := listUsersPage(t, 10, ""); hasUser(deleted, id) {
			t.Error("new user should be absent after it's deletion")
		}
	})

	t.Run("TestListUsersReachingTheLastPage", func(t *testing.T) {
		token := ""
		for pages := 0; ; pages++ {
			if _, token = listUsersPage(t, 10000, token); token == "" {
				break
			}
			if pages > 10 {
				t.Fatalf("Could not reach the last page even after fetching %d pages", pages+1)
			}
		}
	})

	// The test tool creates maxUsersPageSize+1 users first; asking for
	// more than the limit is what is checked: no error, at most the limit.
	t.Run("TestMaxUsersPageSize", func(t *testing.T) {
		if users := listUsers(t, node.MaxUsersPageSize+1); len(users) > node.MaxUsersPageSize {
			t.Errorf("page size must be within limit. actual size: %d, server's limit: %d", len(users), node.MaxUsersPageSize)
		}
	})

	t.Run("TestGrantingAndRevokingEmptyListOfRights", func(t *testing.T) {
		id := p.next("user")
		createUser(t, user{"id": id})
		sameRights(t, "grant none", grant(t, id))
		sameRights(t, "revoke none", revoke(t, id))
	})

	t.Run("TestAllocationTimeGrantUserRights", func(t *testing.T) {
		id, hint := p.next("user"), "acting-party-1-"+uuid.NewString()
		p.mustFail(t, "POST", "/v2/parties", map[string]any{"partyIdHint": hint, "userId": id}, userNotFound)
		createUser(t, newUser(id, "party1"))
		sameRights(t, "before", listRights(t, id))
		var r ledgerapi.AllocatePartyResponse
		p.ok(t, "POST", "/v2/parties", map[string]any{"partyIdHint": hint, "userId": id}, &r)
		sameRights(t, "after", listRights(t, id), ledgerapi.CanActAs(r.PartyDetails.Party))
	})

	t.Run("TestAdminExists", func(t *testing.T) {
		sameUser(t, "admin", getUser(t, ledger.AdminUserID), user{"id": ledger.AdminUserID, "primaryParty": ""})
		sameRights(t, "admin", listRights(t, ledger.AdminUserID), admin)
	})

	t.Run("TestCreateUser", func(t *testing.T) {
		u1, u2 := newUser(p.next("user"), "party1"), newUser(p.next("user"), "")
		r1 := createUser(t, u1)
		sameUser(t, "user1", r1, u1)
		p.mustFail(t, "POST", "/v2/users", map[string]any{"user": u1, "rights": []any{}}, failure{code: "USER_ALREADY_EXISTS"})
		r3 := createUser(t, u2)
		sameUser(t, "user2", r3, u2)
		p.ok(t, "DELETE", "/v2/users/"+u2["id"].(string), nil, nil)
		if r1.Metadata.ResourceVersion == "" || r3.Metadata.ResourceVersion == "" {
			t.Error("New user's resource version should be non empty")
		}
	})

	t.Run("TestGetUser", func(t *testing.T) {
		u1 := newUser(p.next("user"), "party1")
		createUser(t, u1)
		sameUser(t, "get", getUser(t, u1["id"].(string)), u1)
		p.mustFail(t, "GET", "/v2/users/"+p.next("user"), nil, userNotFound)
	})

	t.Run("TestDeleteUser", func(t *testing.T) {
		u1 := newUser(p.next("user"), "party1")
		createUser(t, u1)
		p.ok(t, "DELETE", "/v2/users/"+u1["id"].(string), nil, nil)
		p.mustFail(t, "DELETE", "/v2/users/"+p.next("user"), nil, userNotFound)
	})

	t.Run("TestGrantUserRights", func(t *testing.T) {
		id1, id2 := p.next("user"), p.next("user")
		rights := userRights(t)
		before := createUser(t, newUser(id1, "party1"))
		sameRights(t, "res1", grant(t, id1, admin), admin)
		p.mustFail(t, "POST", "/v2/users/"+id2+"/rights", rightsBody(id2, admin), userNotFound)
		sameRights(t, "res3", grant(t, id1, admin))
		sameRights(t, "res4", grant(t, id1, rights...), rights...)
		if after := getUser(t, id1); after.Metadata.ResourceVersion != before.Metadata.ResourceVersion {
			t.Errorf("changing user rights must not change user's resource version: %s, then %s", before.Metadata.ResourceVersion, after.Metadata.ResourceVersion)
		}
	})

	t.Run("TestRevokeUserRights", func(t *testing.T) {
		id1, id2 := p.next("user"), p.next("user")
		rights := userRights(t)
		before := createUser(t, newUser(id1, "party1"), append([]ledgerapi.Right{admin}, rights...)...)
		sameRights(t, "res1", revoke(t, id1, admin), admin)
		p.mustFail(t, "PATCH", "/v2/users/"+id2+"/rights", rightsBody(id2, admin), userNotFound)
		sameRights(t, "res3", revoke(t, id1, admin))
		sameRights(t, "res4", revoke(t, id1, rights...), rights...)
		if after := getUser(t, id1); after.Metadata.ResourceVersion != before.Metadata.ResourceVersion {
			t.Errorf("changing user rights must not change user's resource version: %s, then %s", before.Metadata.ResourceVersion, after.Metadata.ResourceVersion)
		}
	})

	t.Run("TestListUserRights", func(t *testing.T) {
		id := p.next("user")
		rights := userRights(t)
		four := []ledgerapi.Right{admin, rights[0], rights[2], rights[4]}
		sameUser(t, "created", createUser(t, newUser(id, "party4")), newUser(id, "party4"))
		sameRights(t, "res2", listRights(t, id))
		sameRights(t, "res3", grant(t, id, four...), four...)
		sameRights(t, "res4", listRights(t, id), four...)
		sameRights(t, "res5", revoke(t, id, admin), admin)
		sameRights(t, "res6", listRights(t, id), four[1:]...)
	})

	t.Run("UserManagementCreateUserInvalidArguments", func(t *testing.T) {
		userID := uuid.NewString()
		check := func(problem string, user map[string]any, rights []map[string]any, code string) {
			t.Helper()
			if rights == nil {
				rights = []map[string]any{}
			}
			e := p.mustFail(t, "POST", "/v2/users", map[string]any{"user": user, "rights": rights}, failure{code: code})
			if e.Code != code {
				t.Errorf("%s: %s", problem, e.Error())
			}
		}
		check("empty user-id", map[string]any{"id": ""}, nil, "MISSING_FIELD")
		check("invalid user-id", map[string]any{"id": "?"}, nil, "INVALID_FIELD")
		check("invalid primary-party", map[string]any{"id": "u1-" + userID, "primaryParty": "party2-!!"}, nil, "INVALID_ARGUMENT")
		check("invalid party in right", map[string]any{"id": "u2-" + userID},
			[]map[string]any{{"kind": map[string]any{"CanActAs": map[string]any{"value": map[string]any{"party": "party3-!!"}}}}}, "INVALID_ARGUMENT")
	})

	t.Run("UserManagementGetUserInvalidArguments", func(t *testing.T) {
		// Over JSON the user id is a path segment that Canton's JSON layer
		// parses itself: INVALID_ARGUMENT "Malformed user-id: …"
		// (JsUserManagementService.getUser), not the gRPC service's
		// INVALID_FIELD user_id the Scala case sees. An empty user id is a
		// path the JSON API has no GetUser for.
		p.mustFail(t, "GET", "/v2/users/"+url.PathEscape("?"), nil, failure{code: "INVALID_ARGUMENT", cause: "Malformed user-id: "})
	})

	t.Run("TestInvalidResourceVersionInCreateUser", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/users", map[string]any{"user": map[string]any{"id": p.next("user"),
			"metadata": map[string]any{"resourceVersion": "someResourceVersion1", "annotations": map[string]any{}}}, "rights": []any{}},
			failure{code: "INVALID_ARGUMENT", cause: "user.metadata.resource_version"})
	})

	t.Run("TestListUsersOnInvalidRequests", func(t *testing.T) {
		p.mustFail(t, "GET", "/v2/users?pageSize=0&pageToken="+url.QueryEscape(uuid.NewString()), nil, failure{code: "INVALID_ARGUMENT"})
		p.mustFail(t, "GET", "/v2/users?pageSize=-100", nil, failure{code: "INVALID_ARGUMENT"})
	})

	t.Run("TestGrantTheEmptyRight", func(t *testing.T) {
		userID := p.next("user")
		p.ok(t, "POST", "/v2/users", map[string]any{"user": map[string]any{"id": userID}, "rights": []any{}}, nil)
		p.mustFail(t, "POST", "/v2/users/"+url.PathEscape(userID)+"/rights", map[string]any{"userId": userID,
			"rights": []any{map[string]any{"kind": map[string]any{"Empty": map[string]any{}}}}},
			failure{code: "INVALID_ARGUMENT", cause: "unknown kind of right"})
	})

	t.Run("TestPrimaryPartyAuthenticationCreateUser", func(t *testing.T) {
		for _, auth := range []bool{false, true} {
			userID := p.next("user")
			user := map[string]any{"id": userID, "primaryParty": p.next("party"), "primaryPartyAuthentication": auth}
			var created, got struct {
				User ledgerapi.User `json:"user"`
			}
			p.ok(t, "POST", "/v2/users", map[string]any{"user": user, "rights": []any{}}, &created)
			p.ok(t, "GET", "/v2/users/"+url.PathEscape(userID), nil, &got)
			if created.User.PrimaryPartyAuthentication != auth || got.User.PrimaryPartyAuthentication != auth {
				t.Errorf("primaryPartyAuthentication %v: created %+v, read %+v", auth, created.User, got.User)
			}
		}
	})
}

// createIDP creates an identity provider of a fresh id and issuer.
func (p *participant) createIDP(t *testing.T) string {
	t.Helper()
	id := p.next("idp")
	p.ok(t, "POST", "/v2/idps", map[string]any{"identityProviderConfig": map[string]any{"identityProviderId": id,
		"issuer": p.next("issuer"), "jwksUrl": "http://daml.com/jwks.json"}}, nil)
	return id
}

// moveIDP is the body of a user's move from identity provider source to
// target.
func (p *participant) moveIDP(id, source, target string) map[string]any {
	return map[string]any{"userId": id, "sourceIdentityProviderId": source, "targetIdentityProviderId": target}
}

// userIDP is the identity provider of user id, read under idp.
func (p *participant) userIDP(t *testing.T, id, idp string) string {
	t.Helper()
	var r struct{ User ledgerapi.User }
	p.ok(t, "GET", "/v2/users/"+id+"?identity-provider-id="+url.QueryEscape(idp), nil, &r)
	return r.User.IdentityProviderID
}
