package auth_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ledger-cli/ledger/server/auth"
)

const issuer = "https://idp.example"

// idpClaims is a good token of issuer for participant1, changed by edit.
func idpClaims(edit func(map[string]any)) []byte {
	return claims(func(m map[string]any) {
		m["iss"] = issuer
		if edit != nil {
			edit(m)
		}
	})
}

func TestProvidersVerifyWithTheProvidersJWKS(t *testing.T) {
	k := keys(t)
	srv, hits := jwksServer(t, func() []byte { return k.jwks })
	ps := auth.NewProviders(auth.Config{ParticipantID: participant, Now: clock})
	idp := auth.IdentityProvider{ID: "idp-x", Issuer: issuer, JwksURL: srv.URL}
	withAudience := idp
	withAudience.Audience = "https://ledger.example/x"
	ctx := context.Background()

	good := []struct {
		name string
		idp  auth.IdentityProvider
		tok  string
	}{
		{"RS256", idp, token(t, hdr("RS256", "kid", "rsa1"), idpClaims(nil), jwt.SigningMethodRS256, k.rsa)},
		{"ES256", idp, token(t, hdr("ES256", "kid", "ec1"), idpClaims(nil), jwt.SigningMethodES256, k.p256)},
		{"ES512", idp, token(t, hdr("ES512", "kid", "ec5"), idpClaims(nil), jwt.SigningMethodES512, k.p521)},
		{"scope-based", idp, token(t, hdr("RS256", "kid", "rsa1"),
			idpClaims(set("aud", nil, "scope", "daml_ledger_api")), jwt.SigningMethodRS256, k.rsa)},
		{"provider audience", withAudience, token(t, hdr("RS256", "kid", "rsa1"),
			idpClaims(set("aud", []string{"other", withAudience.Audience})), jwt.SigningMethodRS256, k.rsa)},
	}
	for _, c := range good {
		got, err := ps.Authenticate(ctx, c.tok, c.idp)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.UserID != "alice" || got.IdentityProviderID != "idp-x" || got.Issuer != issuer {
			t.Errorf("%s: claims %+v", c.name, got)
		}
	}
	if hits() != 1 {
		t.Errorf("the JWK set was fetched %d times for %d tokens, want once", hits(), len(good))
	}

	bad := []struct {
		name string
		idp  auth.IdentityProvider
		tok  string
		kind auth.Kind
	}{
		{"another key under the kid", idp, token(t, hdr("RS256", "kid", "rsa1"), idpClaims(nil), jwt.SigningMethodRS256, k.otherRSA), auth.Unauthenticated},
		{"another EC key", idp, token(t, hdr("ES256", "kid", "ec1"), idpClaims(nil), jwt.SigningMethodES256, k.otherP256), auth.Unauthenticated},
		{"algorithm not the key's", idp, token(t, hdr("ES512", "kid", "ec1"), idpClaims(nil), jwt.SigningMethodES512, k.p521), auth.Unauthenticated},
		{"HS256", idp, token(t, hdr("HS256", "kid", "rsa1"), idpClaims(nil), jwt.SigningMethodHS256, k.hmac), auth.Unauthenticated},
		{"no kid in a set of three", idp, token(t, hdr("RS256"), idpClaims(nil), jwt.SigningMethodRS256, k.rsa), auth.Unauthenticated},
		{"another issuer", idp, token(t, hdr("RS256", "kid", "rsa1"), idpClaims(set("iss", "https://other.example")), jwt.SigningMethodRS256, k.rsa), auth.Unauthenticated},
		{"audience missing", withAudience, token(t, hdr("RS256", "kid", "rsa1"), idpClaims(nil), jwt.SigningMethodRS256, k.rsa), auth.Unauthenticated},
		{"expired", idp, token(t, hdr("RS256", "kid", "rsa1"), idpClaims(set("exp", now.Add(-time.Hour).Unix())), jwt.SigningMethodRS256, k.rsa), auth.Unauthenticated},
		{"another participant", idp, token(t, hdr("RS256", "kid", "rsa1"),
			idpClaims(set("aud", auth.ParticipantAudiencePrefix+"participant2")), jwt.SigningMethodRS256, k.rsa), auth.PermissionDenied},
	}
	for _, c := range bad {
		_, err := ps.Authenticate(ctx, c.tok, c.idp)
		if auth.KindOf(err) != c.kind {
			t.Errorf("%s: %v, want %s", c.name, err, c.kind)
		}
		if err != nil && strings.Contains(err.Error(), c.tok) {
			t.Errorf("%s: the error quotes the token", c.name)
		}
	}
}

// TestProvidersJWKSCache: a set of one key verifies tokens without kid (as
// Canton's JWK provider picks it); an unknown kid refetches the set at most
// every 30 s; the set is fetched again after 5 minutes and after
// ForgetKeys; an unreachable set is an Unauthenticated error.
func TestProvidersJWKSCache(t *testing.T) {
	k := keys(t)
	var mu sync.Mutex
	current := jwksJSON(map[string]any{"rsa1": &k.rsa.PublicKey})
	clockAt := now
	srv, hits := jwksServer(t, func() []byte { mu.Lock(); defer mu.Unlock(); return current })
	ps := auth.NewProviders(auth.Config{ParticipantID: participant,
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return clockAt }})
	advance := func(d time.Duration) { mu.Lock(); clockAt = clockAt.Add(d); mu.Unlock() }
	idp := auth.IdentityProvider{ID: "idp-x", Issuer: issuer, JwksURL: srv.URL}
	ctx := context.Background()
	verify := func(tok string) error {
		_, err := ps.Authenticate(ctx, tok, idp)
		return err
	}

	noKID := token(t, hdr("RS256"), idpClaims(nil), jwt.SigningMethodRS256, k.rsa)
	if err := verify(noKID); err != nil {
		t.Fatalf("token without kid, set of one key: %v", err)
	}
	rotated := token(t, hdr("ES256", "kid", "ec1"), idpClaims(nil), jwt.SigningMethodES256, k.p256)
	mu.Lock()
	current = jwksJSON(map[string]any{"rsa1": &k.rsa.PublicKey, "ec1": &k.p256.PublicKey})
	mu.Unlock()
	advance(31 * time.Second)
	if err := verify(rotated); err != nil {
		t.Fatalf("rotated-in key: %v", err)
	}
	if hits() != 2 {
		t.Fatalf("fetches = %d, want 2", hits())
	}
	for i := range 5 {
		err := verify(token(t, hdr("RS256", "kid", "unknown"+string(rune('a'+i))), idpClaims(nil), jwt.SigningMethodRS256, k.rsa))
		if auth.KindOf(err) != auth.Unauthenticated {
			t.Fatalf("unknown kid: %v", err)
		}
	}
	if hits() != 2 {
		t.Fatalf("fetches = %d after unknown kids, want them rate-limited", hits())
	}
	advance(5 * time.Minute)
	if err := verify(rotated); err != nil || hits() != 3 {
		t.Fatalf("after 5 minutes: %v, fetches %d, want 3", err, hits())
	}
	ps.ForgetKeys()
	if err := verify(rotated); err != nil || hits() != 4 {
		t.Fatalf("after ForgetKeys: %v, fetches %d, want 4", err, hits())
	}

	srv.Close()
	ps.ForgetKeys()
	err := verify(rotated)
	if auth.KindOf(err) != auth.Unauthenticated {
		t.Fatalf("unreachable JWKS: %v, want unauthenticated", err)
	}
}

func TestUnverifiedIssuer(t *testing.T) {
	k := keys(t)
	for tok, want := range map[string]string{
		token(t, hdr("RS256"), idpClaims(nil), jwt.SigningMethodRS256, k.rsa): issuer,
		token(t, hdr("RS256"), claims(nil), jwt.SigningMethodRS256, k.rsa):    "",
		token(t, hdr("RS256"), claims(set("iss", 7)), nil, nil):               "",
		"not.a.jwt": "",
		"":          "",
		"a.b":       "",
	} {
		if got := auth.UnverifiedIssuer(tok); got != want {
			t.Errorf("UnverifiedIssuer(%.30q) = %q, want %q", tok, got, want)
		}
	}
	if got := auth.BearerToken("Bearer  abc "); got != "abc" {
		t.Errorf("BearerToken = %q", got)
	}
	if got := auth.BearerToken("Basic abc"); got != "" {
		t.Errorf("BearerToken(Basic) = %q", got)
	}
}
