package integration

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestPrimaryPartyOfAnotherProvider pins Canton's user management:
// primaryParty is only checked to be a party id (ApiUserManagementService
// runs requireParty on it; verifyPartiesExistInIdp looks at rights alone),
// so an identity provider's admin may name any party — of another
// provider, of the default one, or none the node has — and gets the same
// answer for each, which tells it nothing about other providers' parties.
// No right follows from it: the user reads and acts only by its rights.
func TestPrimaryPartyOfAnotherProvider(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	x := newTestIDP(t, "idp-x", 0)
	y := newTestIDP(t, "idp-y", 2)
	n.ok("POST", "/v2/idps", n.admin, x.config(), nil)
	n.ok("POST", "/v2/idps", n.admin, y.config(), nil)
	n.createUserIn("idp-x", "xadmin", adminRight(ledgerapi.RightIdentityProviderAdmin))
	admin := x.token("xadmin", "ec")
	yParty := n.allocateIn("idp-y", "YOwned")
	dParty := n.allocate("DefaultOwned").Party
	ghost := "Ghost::" + n.partyNS

	var created ledgerapi.CreateUserResponse
	n.ok("POST", "/v2/users", admin, map[string]any{"user": map[string]any{"id": "xuser", "primaryParty": yParty}}, &created)
	if created.User.PrimaryParty != yParty || created.User.IdentityProviderID != "idp-x" {
		t.Fatalf("created %+v", created.User)
	}
	for i, p := range []string{dParty, ghost, yParty} {
		var upd ledgerapi.UpdateUserResponse
		n.ok("PATCH", "/v2/users/xuser", admin, map[string]any{"user": map[string]any{"id": "xuser", "primaryParty": p,
			"metadata": map[string]any{"resourceVersion": created.User.Metadata.ResourceVersion}},
			"updateMask": map[string]any{"paths": []string{"primary_party"}}}, &upd)
		if upd.User.PrimaryParty != p {
			t.Errorf("update %d to %s: %+v", i, p, upd.User)
		}
		created.User = upd.User
	}

	// Nothing follows: xuser may neither read nor act as its primary party.
	tok := x.token("xuser", "rsa")
	var me ledgerapi.GetUserResponse
	n.ok("GET", "/v2/authenticated-user", tok, nil, &me)
	if me.User.PrimaryParty != yParty {
		t.Fatalf("authenticated user %+v", me.User)
	}
	var rights ledgerapi.ListUserRightsResponse
	n.ok("GET", "/v2/users/xuser/rights", admin, nil, &rights)
	if len(rights.Rights) != 0 {
		t.Errorf("rights of xuser: %+v", rights.Rights)
	}
	n.fail("POST", "/v2/state/active-contracts-page", tok, map[string]any{"eventFormat": byParty(yParty)}, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/commands/submit-and-wait", tok, commands("as-primary", []string{yParty},
		[]map[string]any{create(yParty, "1")}, nil), 403, ledgerapi.RedactedCode)
}
