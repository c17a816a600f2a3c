package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// testIDP is an identity provider of the tests: its keys, the JWK set it
// serves over HTTP, and tokens it signs.
type testIDP struct {
	t      *testing.T
	id     string
	issuer string
	rsa    *rsa.PrivateKey
	ec     *ecdsa.PrivateKey // P-256
	ec521  *ecdsa.PrivateKey
	srv    *httptest.Server
}

var (
	idpKeysOnce sync.Once
	idpKeys     [3]*rsa.PrivateKey // RSA generation is slow: three for every test
)

func rsaKey(t *testing.T, i int) *rsa.PrivateKey {
	idpKeysOnce.Do(func() {
		for j := range idpKeys {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			idpKeys[j] = k
		}
	})
	return idpKeys[i]
}

// newTestIDP generates keys (the i-th RSA key) and serves their JWK set:
// kid "rsa" (RS256), "ec" (ES256), "ec521" (ES512).
func newTestIDP(t *testing.T, id string, i int) *testIDP {
	t.Helper()
	p := &testIDP{t: t, id: id, issuer: "https://" + id + ".example", rsa: rsaKey(t, i)}
	var err error
	if p.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	if p.ec521, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	store := jwkset.NewMemoryStorage()
	for kid, pub := range map[string]any{"rsa": &p.rsa.PublicKey, "ec": &p.ec.PublicKey, "ec521": &p.ec521.PublicKey} {
		jwk, err := jwkset.NewJWKFromKey(pub, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid, USE: jwkset.UseSig}})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.KeyWrite(context.Background(), jwk); err != nil {
			t.Fatal(err)
		}
	}
	set, err := store.JSONPublic(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(set)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// config is the provider's /v2/idps body.
func (p *testIDP) config() map[string]any {
	return map[string]any{"identityProviderConfig": map[string]any{"identityProviderId": p.id,
		"issuer": p.issuer, "jwksUrl": p.srv.URL + "/jwks.json"}}
}

// token is a token of user from this provider, for the test node,
// signed with the key of kid ("rsa", "ec" or "ec521"); edit changes claims.
func (p *testIDP) token(user, kid string, edit ...func(jwt.MapClaims)) string {
	return p.tokenSignedBy(user, kid, nil, edit...)
}

// tokenSignedBy is token signed by key instead (nil: the provider's key).
func (p *testIDP) tokenSignedBy(user, kid string, key any, edit ...func(jwt.MapClaims)) string {
	p.t.Helper()
	c := jwt.MapClaims{"iss": p.issuer, "sub": user, "aud": auth.ParticipantAudiencePrefix + auth.DefaultParticipantID,
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	for _, e := range edit {
		e(c)
	}
	var method jwt.SigningMethod
	var own any
	switch kid {
	case "rsa":
		method, own = jwt.SigningMethodRS256, p.rsa
	case "ec":
		method, own = jwt.SigningMethodES256, p.ec
	case "ec521":
		method, own = jwt.SigningMethodES512, p.ec521
	}
	if key == nil {
		key = own
	}
	tok := jwt.NewWithClaims(method, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

// hs256Token is a token of the node's own secret with claims edited.
func hs256Token(t *testing.T, user string, edit func(jwt.MapClaims)) string {
	t.Helper()
	c := jwt.MapClaims{"sub": user, "aud": auth.ParticipantAudiencePrefix + auth.DefaultParticipantID,
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	edit(c)
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// allocateIn allocates a party of identity provider idp and returns its id.
func (n *testNode) allocateIn(idp, hint string) string {
	n.t.Helper()
	var r ledgerapi.AllocatePartyResponse
	n.ok("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": hint, "identityProviderId": idp}, &r)
	return r.PartyDetails.Party
}

func (n *testNode) createUserIn(idp, id string, rights ...ledgerapi.Right) {
	n.t.Helper()
	n.ok("POST", "/v2/users", n.admin, ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: id, IdentityProviderID: idp}, Rights: rights}, nil)
}

// authenticatedAs checks that token reaches user of identity provider idp.
func (n *testNode) authenticatedAs(token, user, idp string) {
	n.t.Helper()
	var got ledgerapi.GetUserResponse
	n.ok("GET", "/v2/authenticated-user", token, nil, &got)
	if got.User.ID != user || got.User.IdentityProviderID != idp {
		n.t.Fatalf("authenticated as %q of %q, want %q of %q", got.User.ID, got.User.IdentityProviderID, user, idp)
	}
}

// tokenRefused checks that token is refused with Canton's redacted body and no
// trace of why: the reason is in the node's log only.
func (n *testNode) tokenRefused(token string, status int) {
	n.t.Helper()
	e := n.fail("GET", "/v2/authenticated-user", token, nil, status, ledgerapi.RedactedCode)
	if e.ErrorCategory != -1 || strings.Contains(e.Cause, "JWK") || strings.Contains(e.Cause, "identity provider") {
		n.t.Fatalf("refusal is not Canton's redacted error: %+v", e)
	}
}

// TestIdentityProviderTokens: a token whose iss is an identity provider's
// issuer is verified with that provider's JWK set and reaches that
// provider's users only (Canton's IdentityProviderAwareAuthService and
// UserBasedClaimResolver); other tokens go to the node's own verifier.
func TestIdentityProviderTokens(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	x := newTestIDP(t, "idp-x", 0)
	rogue := rsaKey(t, 1)
	n.ok("POST", "/v2/idps", n.admin, x.config(), nil)
	n.createUserIn("idp-x", "xuser")
	n.createUser("duser")

	// X's keys of each type reach X's user; the caller is of X.
	for _, kid := range []string{"rsa", "ec", "ec521"} {
		n.authenticatedAs(x.token("xuser", kid), "xuser", "idp-x")
	}
	// Another key under X's kid, or a kid X does not have: 401.
	n.tokenRefused(x.tokenSignedBy("xuser", "rsa", rogue), 401)
	n.tokenRefused(x.tokenSignedBy("xuser", "ec", mustEC(t)), 401)
	// A user of the default provider through X, an unknown user through
	// X, and X's user through the node's own verifier: 403, as Canton's
	// claim resolver refuses a user its provider does not have.
	n.tokenRefused(x.token("duser", "rsa"), 403)
	n.tokenRefused(x.token("ghost", "rsa"), 403)
	n.tokenRefused(n.token("xuser"), 403)
	// X's token for another participant.
	n.tokenRefused(x.token("xuser", "rsa", func(c jwt.MapClaims) {
		c["aud"] = auth.ParticipantAudiencePrefix + "someone-else"
	}), 403)
	// Tokens of an unknown issuer are the node's own verifier's.
	n.authenticatedAs(hs256Token(t, "duser", func(c jwt.MapClaims) { c["iss"] = "https://unknown.example" }), "duser", "")
	n.tokenRefused(x.token("xuser", "rsa", func(c jwt.MapClaims) { c["iss"] = "https://unknown.example" }), 401)
	// A token in X's name signed with the node's own secret is the node's
	// verifier's (tried first, as in Canton): default-provider users only.
	n.authenticatedAs(hs256Token(t, "duser", func(c jwt.MapClaims) { c["iss"] = x.issuer }), "duser", "")
	n.tokenRefused(hs256Token(t, "xuser", func(c jwt.MapClaims) { c["iss"] = x.issuer }), 403)

	// The websocket takes X's token from its subprotocol.
	conn, _, err := dialCompletions(t, n, x.token("xuser", "ec"), map[string]any{"userId": "xuser", "parties": []string{}})
	if err != nil {
		t.Fatalf("websocket with X's token: %v", err)
	}
	conn.CloseNow()
}

func mustEC(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestIdentityProviderChanges: deactivating, changing and deleting a
// provider take effect for the next request.
func TestIdentityProviderChanges(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	x := newTestIDP(t, "idp-x", 0)
	y := newTestIDP(t, "idp-y", 2)
	n.ok("POST", "/v2/idps", n.admin, x.config(), nil)
	n.createUserIn("idp-x", "xuser")
	tok := x.token("xuser", "rsa")
	n.authenticatedAs(tok, "xuser", "idp-x")
	patch := func(paths []string, cfg map[string]any) {
		t.Helper()
		cfg["identityProviderId"] = "idp-x"
		n.ok("PATCH", "/v2/idps/idp-x", n.admin, map[string]any{"identityProviderConfig": cfg,
			"updateMask": map[string]any{"paths": paths}}, nil)
	}

	patch([]string{"is_deactivated"}, map[string]any{"isDeactivated": true})
	n.tokenRefused(tok, 401)
	patch([]string{"is_deactivated"}, map[string]any{"isDeactivated": false})
	n.authenticatedAs(tok, "xuser", "idp-x")

	// An audience: tokens must name it.
	patch([]string{"audience"}, map[string]any{"audience": "https://ledger.example/x"})
	n.tokenRefused(tok, 401)
	n.authenticatedAs(x.token("xuser", "rsa", func(c jwt.MapClaims) { c["aud"] = []string{"https://ledger.example/x"} }), "xuser", "idp-x")
	patch([]string{"audience"}, map[string]any{"audience": ""})
	n.authenticatedAs(tok, "xuser", "idp-x")

	// Y's keys behind X's issuer: X's old keys no longer verify.
	patch([]string{"jwks_url"}, map[string]any{"jwksUrl": y.srv.URL})
	n.tokenRefused(tok, 401)
	n.authenticatedAs(y.tokenSignedBy("xuser", "rsa", nil, func(c jwt.MapClaims) { c["iss"] = x.issuer }), "xuser", "idp-x")

	// An unreachable JWK set is Canton's 401, not a Go error.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	patch([]string{"jwks_url"}, map[string]any{"jwksUrl": gone.URL + "/jwks.json"})
	n.tokenRefused(tok, 401)
	patch([]string{"jwks_url"}, map[string]any{"jwksUrl": x.srv.URL})
	n.authenticatedAs(tok, "xuser", "idp-x")

	// A new issuer: the old one is unknown, the new one verifies.
	patch([]string{"issuer"}, map[string]any{"issuer": "https://renamed.example"})
	n.tokenRefused(tok, 401)
	n.authenticatedAs(x.token("xuser", "rsa", func(c jwt.MapClaims) { c["iss"] = "https://renamed.example" }), "xuser", "idp-x")

	n.ok("DELETE", "/v2/idps/idp-x", n.admin, nil, nil)
	n.tokenRefused(x.token("xuser", "rsa", func(c jwt.MapClaims) { c["iss"] = "https://renamed.example" }), 401)
}

// TestIdentityProviderAdminOfItsProvider: an IdentityProviderAdmin signed
// in through provider X administers X's users and parties, and nothing of
// the default provider or of another provider.
func TestIdentityProviderAdminOfItsProvider(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	x := newTestIDP(t, "idp-x", 0)
	y := newTestIDP(t, "idp-y", 2)
	n.ok("POST", "/v2/idps", n.admin, x.config(), nil)
	n.ok("POST", "/v2/idps", n.admin, y.config(), nil)
	n.createUserIn("idp-x", "xadmin", adminRight(ledgerapi.RightIdentityProviderAdmin))
	n.createUserIn("idp-y", "yuser")
	n.createUser("duser")
	admin := x.token("xadmin", "ec")

	// Users it creates are X's; so are the parties it allocates.
	var created ledgerapi.CreateUserResponse
	n.ok("POST", "/v2/users", admin, map[string]any{"user": map[string]any{"id": "xnew"}}, &created)
	if created.User.IdentityProviderID != "idp-x" {
		t.Fatalf("user created by X's admin is of %q", created.User.IdentityProviderID)
	}
	var party ledgerapi.AllocatePartyResponse
	n.ok("POST", "/v2/parties", admin, map[string]any{"partyIdHint": "XParty"}, &party)
	if party.PartyDetails.IdentityProviderID != "idp-x" {
		t.Fatalf("party allocated by X's admin is of %q", party.PartyDetails.IdentityProviderID)
	}
	n.ok("POST", "/v2/users/xnew/rights", admin, map[string]any{"userId": "xnew",
		"rights": []any{ledgerapi.CanActAs(party.PartyDetails.Party)}}, nil)
	n.authenticatedAs(x.token("xnew", "rsa"), "xnew", "idp-x")
	var users ledgerapi.ListUsersResponse
	n.ok("GET", "/v2/users", admin, nil, &users)
	if len(users.Users) != 2 {
		t.Errorf("X's admin lists %+v, want X's two users", users.Users)
	}

	// Nothing of another provider.
	n.fail("POST", "/v2/users", admin, map[string]any{"user": map[string]any{"id": "ynew", "identityProviderId": "idp-y"}}, 403, ledgerapi.RedactedCode)
	n.fail("GET", "/v2/users?identity-provider-id=idp-y", admin, nil, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/parties", admin, map[string]any{"partyIdHint": "YParty", "identityProviderId": "idp-y"}, 403, ledgerapi.RedactedCode)
	n.fail("GET", "/v2/users/yuser/rights?identity-provider-id=idp-y", admin, nil, 403, ledgerapi.RedactedCode)
	// Nor of the default provider: what it names without a provider is
	// X's, and Canton refuses users of another provider there.
	n.fail("DELETE", "/v2/users/duser", admin, nil, 403, ledgerapi.RedactedCode)
	n.fail("GET", "/v2/users/duser", admin, nil, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/users/duser/rights", admin, map[string]any{"userId": "duser",
		"rights": []any{ledgerapi.CanActAs(party.PartyDetails.Party)}}, 403, ledgerapi.RedactedCode)
	n.fail("GET", "/v2/users/ghost", admin, nil, 404, "USER_NOT_FOUND")
	n.ok("GET", "/v2/users/duser", n.admin, nil, nil)
	// Nor parties of another provider, even to its own users: a right over
	// a party that is not X's is UNKNOWN_RESOURCE (Canton's
	// verifyPartiesExistInIdp), whether granted, revoked or given at
	// creation, and nothing changes.
	yParty := n.allocateIn("idp-y", "YOwned")
	dParty := n.allocate("DefaultOwned").Party
	for _, p := range []string{yParty, dParty} {
		e := n.fail("POST", "/v2/users/xnew/rights", admin, map[string]any{"userId": "xnew",
			"rights": []any{ledgerapi.CanActAs(party.PartyDetails.Party), ledgerapi.CanActAs(p)}}, 404, "UNKNOWN_RESOURCE")
		if !strings.Contains(e.Cause, "Provided parties have not been found in identity_provider_id=`idp-x`: ["+p+"]") ||
			len(e.Resources) != 1 || e.Resources[0] != [2]string{"PARTIES", p} {
			t.Errorf("granting a right over %s: %+v", p, e)
		}
		n.fail("PATCH", "/v2/users/xnew/rights", admin, map[string]any{"userId": "xnew", "rights": []any{ledgerapi.CanReadAs(p)}}, 404, "UNKNOWN_RESOURCE")
		n.fail("POST", "/v2/users", admin, map[string]any{"user": map[string]any{"id": "xsneaky"}, "rights": []any{ledgerapi.CanReadAs(p)}}, 404, "UNKNOWN_RESOURCE")
	}
	var rights ledgerapi.ListUserRightsResponse
	n.ok("GET", "/v2/users/xnew/rights", admin, nil, &rights)
	if len(rights.Rights) != 1 {
		t.Errorf("xnew's rights after the refused grants: %+v", rights.Rights)
	}
	n.fail("GET", "/v2/users/xsneaky?identity-provider-id=idp-x", n.admin, nil, 404, "USER_NOT_FOUND")
	// The participant admin may.
	n.ok("POST", "/v2/users/xnew/rights", n.admin, map[string]any{"userId": "xnew", "identityProviderId": "idp-x",
		"rights": []any{ledgerapi.CanReadAs(dParty)}}, nil)

	// Nor hand a new party to another provider's user: the allocation is
	// refused before anything is allocated.
	n.fail("POST", "/v2/parties", admin, map[string]any{"partyIdHint": "Gift", "userId": "duser"}, 403, ledgerapi.RedactedCode)
	var parties ledgerapi.ListPartiesResponse
	n.ok("GET", "/v2/parties", n.admin, nil, &parties)
	for _, p := range parties.PartyDetails {
		if strings.HasPrefix(p.Party, "Gift::") {
			t.Errorf("the refused allocation allocated %s", p.Party)
		}
	}
	n.fail("POST", "/v2/parties", admin, map[string]any{"partyIdHint": "Gift", "userId": "nobody"}, 404, "USER_NOT_FOUND")
	n.ok("POST", "/v2/parties", admin, map[string]any{"partyIdHint": "Gift", "userId": "xnew"}, nil)
	// Nor learn whether a party of another provider exists: allocating its
	// id is refused (403), where one of its own provider is "already exists".
	n.fail("POST", "/v2/parties", admin, map[string]any{"partyIdHint": "DefaultOwned"}, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/parties", admin, map[string]any{"partyIdHint": "Gift"}, 400, "INVALID_ARGUMENT")

	// Nor identity providers, which are the participant admin's.
	n.fail("GET", "/v2/idps", admin, nil, 403, ledgerapi.RedactedCode)

	// The same user's right in the default provider's sense: an
	// IdentityProviderAdmin of X reached through the node's own verifier
	// is refused (xadmin is not a user of the default provider).
	n.tokenRefused(n.token("xadmin"), 403)
}

// TestIdentityProviderTokensOtherModes: providers verify their tokens
// whatever the node's own mode, except without authentication, where
// Canton's wildcard auth service answers every request first.
func TestIdentityProviderTokensOtherModes(t *testing.T) {
	x := newTestIDP(t, "idp-x", 0)

	// A node of mode es256: its own tokens are ES256 with key k.
	k := mustEC(t)
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	run := serve(t, local.Config{}, server.Config{Auth: auth.Config{Mode: auth.ModeES256,
		PublicKeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})}})
	es := &testNode{t: t, run: run, url: run.URL(), mode: auth.ModeES256}
	own := func(user string) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"sub": user,
			"aud": auth.ParticipantAudiencePrefix + auth.DefaultParticipantID, "exp": time.Now().Add(time.Hour).Unix()}).SignedString(k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	es.admin = own(ledger.AdminUserID)
	es.ok("POST", "/v2/idps", es.admin, x.config(), nil)
	es.createUserIn("idp-x", "xuser")
	es.authenticatedAs(x.token("xuser", "rsa"), "xuser", "idp-x")
	es.authenticatedAs(x.token("xuser", "ec"), "xuser", "idp-x")
	// A token in X's name signed with the node's own key is the node's
	// verifier's, which reaches default-provider users only.
	es.tokenRefused(x.tokenSignedBy("xuser", "ec", k), 403)
	es.tokenRefused(own("xuser"), 403)
	// X's token signed with a key neither X nor the node has.
	es.tokenRefused(x.tokenSignedBy("xuser", "ec", mustEC(t)), 401)

	none := startNode(t, auth.ModeNone)
	none.ok("POST", "/v2/idps", "", x.config(), nil)
	// Wildcard: every request passes whatever its token, an identity
	// provider's included, and no user is looked up.
	none.ok("GET", "/v2/idps", x.tokenSignedBy("xuser", "rsa", rsaKey(t, 1)), nil, nil)
}
