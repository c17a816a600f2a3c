package auth_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ledger-cli/ledger/server/auth"
)

// FuzzProviderAuthenticate feeds an identity provider's verifier arbitrary
// tokens against an arbitrary JWK set served over HTTP, and reads the
// unverified issuer of the same token, as the server does before it picks
// the provider. Nothing may panic; every refusal is an *auth.Error that
// does not quote the token; every acceptance names a user, the provider
// and its issuer.
func FuzzProviderAuthenticate(f *testing.F) {
	k := keys(f)
	var mu sync.Mutex
	var body []byte
	srv, _ := jwksServer(f, func() []byte { mu.Lock(); defer mu.Unlock(); return body })
	ps := auth.NewProviders(auth.Config{ParticipantID: participant, Now: clock})
	idp := auth.IdentityProvider{ID: "idp-x", Issuer: issuer, JwksURL: srv.URL}

	f.Add(token(f, hdr("RS256", "kid", "rsa1"), idpClaims(nil), jwt.SigningMethodRS256, k.rsa), k.jwks)
	f.Add(token(f, hdr("ES256"), idpClaims(nil), jwt.SigningMethodES256, k.p256), k.jwks)
	f.Add(token(f, hdr("ES512", "kid", "ec5"), idpClaims(nil), jwt.SigningMethodES512, k.p521), k.wrongJWKS)
	f.Add(token(f, hdr("none"), idpClaims(nil), nil, nil), []byte(`{"keys":[{"kty":"oct","k":"AAAA"}]}`))
	f.Add("a.b.c", []byte(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"x"}]}`))
	f.Add("", []byte(`[]`))

	f.Fuzz(func(t *testing.T, tok string, jwks []byte) {
		mu.Lock()
		body = jwks
		mu.Unlock()
		ps.ForgetKeys()
		_ = auth.UnverifiedIssuer(tok)
		c, err := ps.Authenticate(context.Background(), tok, idp)
		if err == nil && (c.IdentityProviderID != idp.ID || c.Issuer != issuer) {
			t.Fatalf("accepted claims of another provider: %+v", c)
		}
		check(t, c, err, strings.ReplaceAll(tok, ".", " "))
	})
}
