package ledgerapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The rest of UserManagementServiceIT.scala: the IDP reassignment cases
// with a mismatched or unchanged IDP, the race conditions (run, as in
// Scala, not concurrently with other cases: on a node of their own), the
// list page that does not move when a user is created before it, and the
// rights granted by an external party's allocation.
func TestUserManagementServiceITMore(t *testing.T) {
	p := startParticipant(t, node.Config{})
	createUser := func(t *testing.T, u map[string]any, rights ...ledgerapi.Right) {
		t.Helper()
		p.ok(t, "POST", "/v2/users", map[string]any{"user": u, "rights": append([]ledgerapi.Right{}, rights...)}, nil)
	}
	// permissionDenied is the gRPC PERMISSION_DENIED the test tool reads:
	// over JSON, the redacted security-sensitive body with gRPC code 7.
	permissionDenied := func(t *testing.T, method, path string, body any) {
		t.Helper()
		e := p.mustFail(t, method, path, body, failure{code: ledgerapi.RedactedCode})
		if e.GRPCCodeValue == nil || *e.GRPCCodeValue != 7 {
			t.Errorf("%s %s: gRPC code %v, want 7 (PERMISSION_DENIED)", method, path, e.GRPCCodeValue)
		}
	}
	// concurrently sends the same request ten times at once.
	concurrently := func(t *testing.T, method, path string, body any) []answer {
		t.Helper()
		out := make([]answer, 10)
		var wg sync.WaitGroup
		for i := range out {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = p.do(t, method, path, p.admin, body)
			}()
		}
		wg.Wait()
		return out
	}
	// failuresOtherThan are the answers that neither succeeded nor failed
	// with one of codes (nor with an internal error, which Scala allows).
	failuresOtherThan := func(t *testing.T, as []answer, codes ...string) []string {
		t.Helper()
		var out []string
		for _, a := range as {
			if a.status == http.StatusOK {
				continue
			}
			e, err := ledgerapi.DecodeError(a.body)
			if err != nil || !slices.Contains(codes, e.Code) && e.Code != "INTERNAL" && a.status != http.StatusInternalServerError {
				out = append(out, string(a.body))
			}
		}
		return out
	}
	successes := func(as []answer) []answer {
		var out []answer
		for _, a := range as {
			if a.status == http.StatusOK {
				out = append(out, a)
			}
		}
		return out
	}
	userRights := func(t *testing.T) []ledgerapi.Right {
		suffix := uuid.NewString()
		return []ledgerapi.Right{
			ledgerapi.CanActAs(p.allocate(t, "acting-party-1-"+suffix)), ledgerapi.CanActAs(p.allocate(t, "acting-party-2-"+suffix)),
			ledgerapi.CanReadAs(p.allocate(t, "reading-party-1-"+suffix)), ledgerapi.CanReadAs(p.allocate(t, "reading-party-2-"+suffix)),
			ledgerapi.CanExecuteAs(p.allocate(t, "executing-party-1-"+suffix)), ledgerapi.CanExecuteAs(p.allocate(t, "executing-party-2-"+suffix)),
		}
	}
	sameRights := func(got, want []ledgerapi.Right) bool {
		g, w := map[string]int{}, map[string]int{}
		for _, r := range got {
			g[r.String()]++
		}
		for _, r := range want {
			w[r.String()]++
		}
		if len(g) != len(w) {
			return false
		}
		for k, n := range w {
			if g[k] != n {
				return false
			}
		}
		return true
	}

	t.Run("UserManagementUpdateUserIdpMismatchedSourceIdp", func(t *testing.T) {
		userDefault, userNonDefault := p.next("user"), p.next("user")
		mismatched, nonDefault, target := p.createIDP(t), p.createIDP(t), p.createIDP(t)
		createUser(t, map[string]any{"id": userDefault})
		createUser(t, map[string]any{"id": userNonDefault, "identityProviderId": nonDefault})
		permissionDenied(t, "PATCH", "/v2/users/"+userDefault+"/identity-provider-id", p.moveIDP(userDefault, mismatched, target))
		permissionDenied(t, "PATCH", "/v2/users/"+userNonDefault+"/identity-provider-id", p.moveIDP(userNonDefault, mismatched, target))
		p.ok(t, "PATCH", "/v2/users/"+userNonDefault+"/identity-provider-id", p.moveIDP(userNonDefault, nonDefault, ""), nil)
	})

	t.Run("UserManagementUpdateUserIdpSourceAndTargetIdpTheSame", func(t *testing.T) {
		userDefault, userNonDefault, idp := p.next("user"), p.next("user"), p.createIDP(t)
		createUser(t, map[string]any{"id": userDefault})
		createUser(t, map[string]any{"id": userNonDefault, "identityProviderId": idp})
		p.ok(t, "PATCH", "/v2/users/"+userDefault+"/identity-provider-id", p.moveIDP(userDefault, "", ""), nil)
		if got := p.userIDP(t, userDefault, ""); got != "" {
			t.Errorf("default idp: %q", got)
		}
		p.ok(t, "PATCH", "/v2/users/"+userNonDefault+"/identity-provider-id", p.moveIDP(userNonDefault, idp, idp), nil)
		if got := p.userIDP(t, userNonDefault, idp); got != idp {
			t.Errorf("non default idp: %q, want %q", got, idp)
		}
		p.ok(t, "PATCH", "/v2/users/"+userNonDefault+"/identity-provider-id", p.moveIDP(userNonDefault, idp, ""), nil)
	})

	t.Run("RaceConditionCreateUsers", func(t *testing.T) {
		results := concurrently(t, "POST", "/v2/users", map[string]any{"user": map[string]any{"id": p.next("user")}, "rights": []any{}})
		if n := len(successes(results)); n != 1 {
			t.Errorf("successful user creation: %d, want 1", n)
		}
		if bad := failuresOtherThan(t, results, "USER_ALREADY_EXISTS"); len(bad) > 0 {
			t.Errorf("unexpected errors: %v", bad)
		}
	})

	t.Run("RaceConditionDeleteUsers", func(t *testing.T) {
		id := p.next("user")
		createUser(t, map[string]any{"id": id})
		results := concurrently(t, "DELETE", "/v2/users/"+id, nil)
		if n := len(successes(results)); n != 1 {
			t.Errorf("successful user deletion: %d, want 1", n)
		}
		if bad := failuresOtherThan(t, results, "USER_NOT_FOUND"); len(bad) > 0 {
			t.Errorf("unexpected errors: %v", bad)
		}
	})

	t.Run("RaceConditionGrantRights", func(t *testing.T) {
		id := p.next("user")
		rights := userRights(t)
		createUser(t, map[string]any{"id": id})
		results := concurrently(t, "POST", "/v2/users/"+id+"/rights", ledgerapi.GrantUserRightsRequest{UserID: id, Rights: rights})
		var granted [][]ledgerapi.Right
		for _, a := range successes(results) {
			var r ledgerapi.GrantUserRightsResponse
			mustDecode(t, a.body, &r)
			if len(r.NewlyGrantedRights) > 0 {
				granted = append(granted, r.NewlyGrantedRights)
			}
		}
		if len(granted) != 1 {
			t.Fatalf("Success response: %d non-empty grants, want 1", len(granted))
		}
		if !sameRights(granted[0], rights) {
			t.Errorf("newly granted %v, want %v", granted[0], rights)
		}
		if bad := failuresOtherThan(t, results); len(bad) > 0 {
			t.Errorf("unexpected errors: %v", bad)
		}
	})

	t.Run("RaceConditionRevokeRights", func(t *testing.T) {
		id := p.next("user")
		rights := userRights(t)
		createUser(t, map[string]any{"id": id}, rights...)
		results := concurrently(t, "PATCH", "/v2/users/"+id+"/rights", ledgerapi.RevokeUserRightsRequest{UserID: id, Rights: rights})
		revoked := 0
		for _, a := range results {
			if a.status != http.StatusOK {
				t.Errorf("revoke failed: %d %s", a.status, a.body)
				continue
			}
			var r ledgerapi.RevokeUserRightsResponse
			mustDecode(t, a.body, &r)
			if len(r.NewlyRevokedRights) > 0 {
				revoked++
			}
		}
		if revoked != 1 {
			t.Errorf("Non empty revoke-rights responses: %d, want 1", revoked)
		}
	})

	t.Run("TestListUsersCreateOrDeleteUserOnPreviousPage", func(t *testing.T) {
		for range 4 {
			createUser(t, map[string]any{"id": p.next("user")})
		}
		list := func(token string) ledgerapi.ListUsersResponse {
			t.Helper()
			var r ledgerapi.ListUsersResponse
			p.ok(t, "GET", "/v2/users?pageSize=2&pageToken="+url.QueryEscape(token), nil, &r)
			return r
		}
		page1 := list("")
		page2 := list(page1.NextPageToken)
		if len(page1.Users) == 0 {
			t.Fatal("empty first page")
		}
		// "!" is the smallest character of a user id.
		createUser(t, map[string]any{"id": "!" + page1.Users[len(page1.Users)-1].ID})
		page2B := list(page1.NextPageToken)
		if !slices.EqualFunc(page2.Users, page2B.Users, func(a, b ledgerapi.User) bool { return a.ID == b.ID }) || page2.NextPageToken != page2B.NextPageToken {
			t.Errorf("after creating new user before the second page: %+v, was %+v", page2B, page2)
		}
	})

	t.Run("TestExternalAllocationTimeGrantUserRights", func(t *testing.T) {
		id := p.next("user")
		_, allocate := p.externalAllocation(t, p.next("party"), id)
		p.mustFail(t, "POST", "/v2/parties/external/allocate", allocate, failure{code: "USER_NOT_FOUND"})
		createUser(t, map[string]any{"id": id, "primaryParty": "party1"})
		var before ledgerapi.ListUserRightsResponse
		p.ok(t, "GET", "/v2/users/"+id+"/rights", nil, &before)
		var alloc ledgerapi.AllocateExternalPartyResponse
		p.ok(t, "POST", "/v2/parties/external/allocate", allocate, &alloc)
		var after ledgerapi.ListUserRightsResponse
		p.ok(t, "GET", "/v2/users/"+id+"/rights", nil, &after)
		if len(before.Rights) != 0 {
			t.Errorf("rights should be empty: %v", before.Rights)
		}
		if !sameRights(after.Rights, []ledgerapi.Right{ledgerapi.CanActAs(alloc.PartyID)}) {
			t.Errorf("rights after allocation %v, want CanActAs %s", after.Rights, alloc.PartyID)
		}
	})
}

// mustDecode decodes a JSON answer body into out.
func mustDecode(t *testing.T, body []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}
