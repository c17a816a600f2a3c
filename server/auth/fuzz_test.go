package auth_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ledger-cli/ledger/server/auth"
)

// fuzzSecret is fixed so that the committed corpus holds validly signed tokens.
var fuzzSecret = []byte("fuzz-secret")

// FuzzAuthenticate feeds arbitrary Authorization headers to verifiers of
// three modes, and arbitrary payloads, validly HS256-signed, to the claims
// rules. Nothing may panic; every refusal is an *auth.Error that does not
// quote the token; every acceptance names a user.
func FuzzAuthenticate(f *testing.F) {
	k := keys(f)
	hs := newVerifier(f, auth.Config{Mode: auth.ModeHS256, Secret: fuzzSecret})
	lifetime := newVerifier(f, auth.Config{Mode: auth.ModeHS256, Secret: fuzzSecret, Scope: "ledger", MaxTokenLifetime: 1 << 40})
	rs := newVerifier(f, auth.Config{Mode: auth.ModeRS256, PublicKeyPEM: k.rsaPEM})
	jw := newVerifier(f, auth.Config{Mode: auth.ModeJWKS, JWKS: writeFile(f, "jwks.json", k.jwks)})

	good := claims(nil)
	f.Add("Bearer "+token(f, hdr("HS256"), good, jwt.SigningMethodHS256, fuzzSecret), good)
	f.Add("Bearer "+token(f, hdr("none"), good, nil, nil), []byte(`{"sub":"a","scope":"daml_ledger_api","aud":"participant1"}`))
	f.Add("Bearer "+token(f, hdr("RS256"), good, jwt.SigningMethodRS256, k.rsa), []byte(`{"sub":"a","aud":["x","y"],"scp":["ledger"],"exp":1e300}`))
	f.Add("Bearer "+token(f, hdr("ES256", "kid", "ec1"), good, jwt.SigningMethodES256, k.p256), []byte(`[]`))
	f.Add("bearer a.b.c", []byte(`{"exp":"1","nbf":null,"iat":-1}`))

	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	f.Fuzz(func(t *testing.T, header string, payload []byte) {
		for _, v := range []*auth.Verifier{hs, rs, jw} {
			c, err := v.Authenticate(header)
			check(t, c, err, header)
		}
		body := enc.EncodeToString(payload)
		sig, err := jwt.SigningMethodHS256.Sign(head+"."+body, fuzzSecret)
		if err != nil {
			t.Fatal(err)
		}
		tok := head + "." + body + "." + enc.EncodeToString(sig)
		for _, v := range []*auth.Verifier{hs, lifetime} {
			c, err := v.AuthenticateToken(tok)
			check(t, c, err, body)
		}
	})
}

func check(t *testing.T, c auth.Claims, err error, secret string) {
	t.Helper()
	if err == nil {
		if c.UserID == "" || c.Format == "" || c.Wildcard {
			t.Fatalf("accepted claims without a user: %+v", c)
		}
		return
	}
	ae, ok := err.(*auth.Error)
	if !ok {
		t.Fatalf("error %T is not an *auth.Error: %v", err, err)
	}
	if ae.Kind != auth.Unauthenticated && ae.Kind != auth.PermissionDenied {
		t.Fatalf("kind %v", ae.Kind)
	}
	if ae.Reason == "" {
		t.Fatal("empty reason")
	}
	for _, part := range strings.FieldsFunc(secret, func(r rune) bool { return r == '.' || r == ' ' }) {
		if len(part) >= 12 && strings.Contains(ae.Reason, part) {
			t.Fatalf("reason %q quotes the token", ae.Reason)
		}
	}
}
