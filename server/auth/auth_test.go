package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"github.com/ledger-cli/ledger/server/auth"
)

// now is the fixed clock of every test.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const participant = "participant1"

func clock() time.Time { return now }

// keys are generated once per test binary: real keys of every kind in use.
type testKeys struct {
	hmac, otherHMAC []byte
	rsa, otherRSA   *rsa.PrivateKey
	p256, p521      *ecdsa.PrivateKey
	otherP256       *ecdsa.PrivateKey
	rsaPEM          []byte // PKIX public key
	rsaCertPEM      []byte
	p256PEM         []byte
	p521PEM         []byte
	jwks            []byte // public JWK set: rsa1 (RS256), ec1 (P-256, no alg), ec5 (P-521)
	wrongJWKS       []byte // rsa1 names otherRSA
}

var (
	keysOnce sync.Once
	keysVal  *testKeys
)

func keys(t testing.TB) *testKeys {
	t.Helper()
	keysOnce.Do(func() {
		k := &testKeys{hmac: []byte("a-development-secret-of-32-bytes!"), otherHMAC: []byte("another-secret-entirely-32bytes!")}
		var err error
		must := func(e error) {
			if e != nil && err == nil {
				err = e
			}
		}
		k.rsa, err = rsa.GenerateKey(rand.Reader, 2048)
		var e error
		k.otherRSA, e = rsa.GenerateKey(rand.Reader, 2048)
		must(e)
		k.p256, e = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		must(e)
		k.otherP256, e = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		must(e)
		k.p521, e = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
		must(e)
		if err != nil {
			panic(err)
		}
		k.rsaPEM = pkixPEM(&k.rsa.PublicKey)
		k.p256PEM = pkixPEM(&k.p256.PublicKey)
		k.p521PEM = pkixPEM(&k.p521.PublicKey)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "issuer"},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour)}
		der, e := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.rsa.PublicKey, k.rsa)
		if e != nil {
			panic(e)
		}
		k.rsaCertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		k.jwks = jwksJSON(map[string]any{"rsa1": &k.rsa.PublicKey, "ec1": &k.p256.PublicKey, "ec5": &k.p521.PublicKey})
		k.wrongJWKS = jwksJSON(map[string]any{"rsa1": &k.otherRSA.PublicKey})
		keysVal = k
	})
	return keysVal
}

func pkixPEM(pub any) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func jwksJSON(byKID map[string]any) []byte {
	store := jwkset.NewMemoryStorage()
	for kid, pub := range byKID {
		meta := jwkset.JWKMetadataOptions{KID: kid, USE: jwkset.UseSig}
		switch kid {
		case "rsa1":
			meta.ALG = jwkset.AlgRS256
		case "ec5":
			meta.ALG = jwkset.AlgES512
		}
		jwk, err := jwkset.NewJWKFromKey(pub, jwkset.JWKOptions{Metadata: meta})
		if err != nil {
			panic(err)
		}
		if err := store.KeyWrite(context.Background(), jwk); err != nil {
			panic(err)
		}
	}
	raw, err := store.JSONPublic(context.Background())
	if err != nil {
		panic(err)
	}
	return raw
}

var b64 = base64.RawURLEncoding

// token assembles a JWS from a header object and raw payload bytes, signed by
// method with key (method nil: empty signature).
func token(t testing.TB, header map[string]any, payload []byte, method jwt.SigningMethod, key any) string {
	t.Helper()
	h, err := json.Marshal(header)
	if err != nil {
		t.Fatal(err)
	}
	signing := b64.EncodeToString(h) + "." + b64.EncodeToString(payload)
	if method == nil {
		return signing + "."
	}
	sig, err := method.Sign(signing, key)
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + b64.EncodeToString(sig)
}

func hdr(alg string, kv ...string) map[string]any {
	h := map[string]any{"alg": alg, "typ": "JWT"}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

// claims returns the JSON of a good user token for participant1, changed by edit.
func claims(edit func(m map[string]any)) []byte {
	m := map[string]any{
		"sub": "alice",
		"aud": auth.ParticipantAudiencePrefix + participant,
		"iat": now.Add(-time.Minute).Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

func without(keys ...string) func(map[string]any) {
	return func(m map[string]any) {
		for _, k := range keys {
			delete(m, k)
		}
	}
}

func set(kv ...any) func(map[string]any) {
	return func(m map[string]any) {
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
	}
}

type verifiers struct {
	none, hs256, rs256, rs256Cert, es256, es512, jwksURL, jwksFile, wrongJWKS *auth.Verifier
	audience, scope, lifetime, leeway                                         *auth.Verifier
	jwksHits                                                                  func() int
}

func newVerifier(t testing.TB, cfg auth.Config) *auth.Verifier {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = clock
	}
	if cfg.ParticipantID == "" {
		cfg.ParticipantID = participant
	}
	v, err := auth.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg.Mode, err)
	}
	t.Cleanup(v.Close)
	return v
}

func jwksServer(t testing.TB, body func() []byte) (*httptest.Server, func() int) {
	t.Helper()
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body())
	}))
	t.Cleanup(srv.Close)
	return srv, func() int { mu.Lock(); defer mu.Unlock(); return hits }
}

func writeFile(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func setup(t testing.TB) *verifiers {
	t.Helper()
	k := keys(t)
	srv, hits := jwksServer(t, func() []byte { return k.jwks })
	return &verifiers{
		none:      newVerifier(t, auth.Config{Mode: auth.ModeNone}),
		hs256:     newVerifier(t, auth.Config{Mode: auth.ModeHS256, Secret: k.hmac}),
		rs256:     newVerifier(t, auth.Config{Mode: auth.ModeRS256, PublicKeyPEM: k.rsaPEM}),
		rs256Cert: newVerifier(t, auth.Config{Mode: auth.ModeRS256, PublicKeyPEM: k.rsaCertPEM}),
		es256:     newVerifier(t, auth.Config{Mode: auth.ModeES256, PublicKeyPEM: k.p256PEM}),
		es512:     newVerifier(t, auth.Config{Mode: auth.ModeES512, PublicKeyPEM: k.p521PEM}),
		jwksURL:   newVerifier(t, auth.Config{Mode: auth.ModeJWKS, JWKS: srv.URL + "/jwks.json"}),
		jwksFile:  newVerifier(t, auth.Config{Mode: auth.ModeJWKS, JWKS: writeFile(t, "jwks.json", k.jwks)}),
		wrongJWKS: newVerifier(t, auth.Config{Mode: auth.ModeJWKS, JWKS: writeFile(t, "wrong.json", k.wrongJWKS)}),
		audience:  newVerifier(t, auth.Config{Mode: auth.ModeHS256, Secret: k.hmac, Audience: "https://ledger.example/api"}),
		scope:     newVerifier(t, auth.Config{Mode: auth.ModeHS256, Secret: k.hmac, Scope: "ledger:write"}),
		lifetime:  newVerifier(t, auth.Config{Mode: auth.ModeHS256, Secret: k.hmac, MaxTokenLifetime: 2 * time.Hour}),
		leeway:    newVerifier(t, auth.Config{Mode: auth.ModeHS256, Secret: k.hmac, Leeway: 2 * time.Minute}),
		jwksHits:  hits,
	}
}

func TestAcceptsGoodTokens(t *testing.T) {
	k := keys(t)
	vs := setup(t)
	hs := func(edit func(map[string]any)) string {
		return token(t, hdr("HS256"), claims(edit), jwt.SigningMethodHS256, k.hmac)
	}
	exp := now.Add(time.Hour)
	tests := []struct {
		name   string
		v      *auth.Verifier
		token  string
		want   auth.Claims
		header string // whole Authorization header, when not "Bearer <token>"
	}{
		{name: "hs256", v: vs.hs256, token: hs(nil),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "rs256", v: vs.rs256, token: token(t, hdr("RS256"), claims(nil), jwt.SigningMethodRS256, k.rsa),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "rs256 certificate", v: vs.rs256Cert, token: token(t, hdr("RS256"), claims(nil), jwt.SigningMethodRS256, k.rsa),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "es256", v: vs.es256, token: token(t, hdr("ES256"), claims(nil), jwt.SigningMethodES256, k.p256),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "es512", v: vs.es512, token: token(t, hdr("ES512"), claims(nil), jwt.SigningMethodES512, k.p521),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "jwks url rs256", v: vs.jwksURL, token: token(t, hdr("RS256", "kid", "rsa1"), claims(nil), jwt.SigningMethodRS256, k.rsa),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "jwks url es256", v: vs.jwksURL, token: token(t, hdr("ES256", "kid", "ec1"), claims(nil), jwt.SigningMethodES256, k.p256),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "jwks file es512", v: vs.jwksFile, token: token(t, hdr("ES512", "kid", "ec5"), claims(nil), jwt.SigningMethodES512, k.p521),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "jwks file rs256", v: vs.jwksFile, token: token(t, hdr("RS256", "kid", "rsa1"), claims(nil), jwt.SigningMethodRS256, k.rsa),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "no exp, issuer", v: vs.hs256, token: hs(func(m map[string]any) { delete(m, "exp"); m["iss"] = "idp" }),
			want: auth.Claims{UserID: "alice", Issuer: "idp", ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "audience list with one participant", v: vs.hs256,
			token: hs(set("aud", []string{"https://other.example", auth.ParticipantAudiencePrefix + participant})),
			want:  auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "scope-based, no aud", v: vs.hs256, token: hs(func(m map[string]any) { delete(m, "aud"); m["scope"] = "openid daml_ledger_api" }),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, Scopes: []string{"openid", "daml_ledger_api"}, Format: auth.FormatScope}},
		{name: "scope-based scp array, aud names participant", v: vs.hs256,
			token: hs(set("aud", participant, "scp", []string{"daml_ledger_api"})),
			want:  auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Scopes: []string{"daml_ledger_api"}, Format: auth.FormatScope}},
		{name: "target audience", v: vs.audience, token: hs(set("aud", []string{"x", "https://ledger.example/api"})),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, Format: auth.FormatAudience}},
		{name: "target scope", v: vs.scope, token: hs(func(m map[string]any) { delete(m, "aud"); m["scope"] = "ledger:read ledger:write" }),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, Scopes: []string{"ledger:read", "ledger:write"}, Format: auth.FormatScope}},
		{name: "within max lifetime", v: vs.lifetime, token: hs(nil),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "expired within leeway", v: vs.leeway, token: hs(set("exp", now.Add(-time.Minute).Unix())),
			want: auth.Claims{UserID: "alice", ExpiresAt: ptr(now.Add(-time.Minute)), ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "lower-case bearer", v: vs.hs256, header: "bearer   " + hs(nil),
			want: auth.Claims{UserID: "alice", ExpiresAt: &exp, ParticipantID: participant, Format: auth.FormatParticipantID}},
		{name: "wildcard ignores header", v: vs.none, header: "Bearer garbage",
			want: auth.Claims{Wildcard: true, Format: auth.FormatWildcard}},
		{name: "wildcard without header", v: vs.none, header: "",
			want: auth.Claims{Wildcard: true, Format: auth.FormatWildcard}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := tt.header
			if tt.token != "" {
				header = "Bearer " + tt.token
			}
			got, err := tt.v.Authenticate(header)
			if err != nil {
				t.Fatalf("Authenticate: %v", err)
			}
			if g, w := fmt.Sprintf("%+v", deref(got)), fmt.Sprintf("%+v", deref(tt.want)); g != w {
				t.Errorf("claims\n got %s\nwant %s", g, w)
			}
			if tt.token != "" {
				if _, err := tt.v.AuthenticateToken(tt.token); err != nil {
					t.Errorf("AuthenticateToken: %v", err)
				}
			}
		})
	}
}

func ptr(t time.Time) *time.Time { return &t }

// deref prints ExpiresAt by value so that claims compare as text.
func deref(c auth.Claims) any {
	type flat struct {
		auth.Claims
		Exp string
	}
	f := flat{Claims: c}
	if c.ExpiresAt != nil {
		f.Exp = c.ExpiresAt.UTC().Format(time.RFC3339)
	}
	f.ExpiresAt = nil
	return f
}

func TestRejectsBadTokens(t *testing.T) {
	k := keys(t)
	vs := setup(t)
	hs := func(edit func(map[string]any)) string {
		return token(t, hdr("HS256"), claims(edit), jwt.SigningMethodHS256, k.hmac)
	}
	hsRaw := func(payload string) string {
		return token(t, hdr("HS256"), []byte(payload), jwt.SigningMethodHS256, k.hmac)
	}
	good := hs(nil)
	parts := strings.Split(good, ".")
	otherPayload := b64.EncodeToString(claims(set("sub", "participant_admin")))
	big := strings.Repeat("x", auth.MaxTokenSize)

	const (
		unauth = auth.Unauthenticated
		denied = auth.PermissionDenied
	)
	tests := []struct {
		name  string
		v     *auth.Verifier
		token string
		want  auth.Kind
	}{
		// Algorithm attacks.
		{"alg none to hs256", vs.hs256, token(t, hdr("none"), claims(nil), nil, nil), unauth},
		{"alg none to rs256", vs.rs256, token(t, hdr("none"), claims(nil), nil, nil), unauth},
		{"alg None mixed case", vs.hs256, token(t, hdr("None"), claims(nil), nil, nil), unauth},
		{"alg none to jwks", vs.jwksURL, token(t, hdr("none", "kid", "rsa1"), claims(nil), nil, nil), unauth},
		{"hs256 signed with rsa public key pem", vs.rs256, token(t, hdr("HS256"), claims(nil), jwt.SigningMethodHS256, k.rsaPEM), unauth},
		{"hs256 signed with rsa public key pem, jwks", vs.jwksURL, token(t, hdr("HS256", "kid", "rsa1"), claims(nil), jwt.SigningMethodHS256, k.rsaPEM), unauth},
		{"hs256 signed with ec public key pem", vs.es256, token(t, hdr("HS256"), claims(nil), jwt.SigningMethodHS256, k.p256PEM), unauth},
		{"rs256 token to es256 verifier", vs.es256, token(t, hdr("RS256"), claims(nil), jwt.SigningMethodRS256, k.rsa), unauth},
		{"es256 token to es512 verifier", vs.es512, token(t, hdr("ES256"), claims(nil), jwt.SigningMethodES256, k.p256), unauth},
		{"rs256 token to hs256 verifier", vs.hs256, token(t, hdr("RS256"), claims(nil), jwt.SigningMethodRS256, k.rsa), unauth},
		{"ps256 with the right rsa key", vs.rs256, token(t, hdr("PS256"), claims(nil), jwt.SigningMethodPS256, k.rsa), unauth},
		{"rs512 with the right rsa key", vs.rs256, token(t, hdr("RS512"), claims(nil), jwt.SigningMethodRS512, k.rsa), unauth},
		{"crit header", vs.hs256, token(t, map[string]any{"alg": "HS256", "crit": []string{"exp"}, "exp": 1}, claims(nil), jwt.SigningMethodHS256, k.hmac), unauth},

		// Signature and structure.
		{"wrong signature (other secret)", vs.hs256, token(t, hdr("HS256"), claims(nil), jwt.SigningMethodHS256, k.otherHMAC), unauth},
		{"rs256 signed by another key", vs.rs256, token(t, hdr("RS256"), claims(nil), jwt.SigningMethodRS256, k.otherRSA), unauth},
		{"es256 signed by another key", vs.es256, token(t, hdr("ES256"), claims(nil), jwt.SigningMethodES256, k.otherP256), unauth},
		{"tampered payload", vs.hs256, parts[0] + "." + otherPayload + "." + parts[2], unauth},
		{"tampered header", vs.hs256, b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT","kid":"x"}`)) + "." + parts[1] + "." + parts[2], unauth},
		{"signature flipped", vs.hs256, parts[0] + "." + parts[1] + "." + flip(parts[2]), unauth},
		{"signature removed", vs.hs256, parts[0] + "." + parts[1] + ".", unauth},
		{"truncated", vs.hs256, good[:len(good)-10], unauth},
		{"truncated to header", vs.hs256, parts[0], unauth},
		{"two dots only", vs.hs256, "..", unauth},
		{"header and payload only", vs.hs256, parts[0] + "." + parts[1], unauth},
		{"extra segment", vs.hs256, good + ".e30", unauth},
		{"five segments (JWE shape)", vs.hs256, good + ".e30.e30", unauth},
		{"bad base64 in header", vs.hs256, "eyJhbGciOiJIUzI1NiJ9!." + parts[1] + "." + parts[2], unauth},
		{"bad base64 in payload", vs.hs256, parts[0] + ".***." + parts[2], unauth},
		{"padded base64 payload", vs.hs256, parts[0] + "." + parts[1] + "==." + parts[2], unauth},
		{"non-canonical base64 signature", vs.hs256, parts[0] + "." + parts[1] + "." + malleate(parts[2]), unauth},
		{"standard base64 alphabet", vs.hs256, strings.NewReplacer("-", "+", "_", "/").Replace(good) + "+/", unauth},
		{"header not json", vs.hs256, b64.EncodeToString([]byte("HS256")) + "." + parts[1] + "." + parts[2], unauth},
		{"oversized, validly signed", vs.hs256, hs(set("pad", big)), unauth},
		{"oversized garbage", vs.hs256, strings.Repeat("a", 1<<20), unauth},
		{"whitespace inside", vs.hs256, parts[0] + ". " + parts[1] + "." + parts[2], unauth},

		// Claims shape.
		{"non-json claims", vs.hs256, hsRaw("user=alice"), unauth},
		{"claims json array", vs.hs256, hsRaw(`["alice"]`), unauth},
		{"claims json string", vs.hs256, hsRaw(`"alice"`), unauth},
		{"claims null", vs.hs256, hsRaw(`null`), unauth},
		{"exp as string", vs.hs256, hs(set("exp", fmt.Sprint(now.Add(time.Hour).Unix()))), unauth},
		{"exp as bool", vs.hs256, hs(set("exp", true)), unauth},
		{"exp huge", vs.hs256, hs(set("exp", 1e300)), unauth},
		{"exp negative", vs.hs256, hs(set("exp", -5)), unauth},
		{"iat as string", vs.hs256, hs(set("iat", "yesterday")), unauth},
		{"sub as number", vs.hs256, hs(set("sub", 42)), unauth},
		{"aud with a number", vs.hs256, hs(set("aud", []any{auth.ParticipantAudiencePrefix + participant, 7})), unauth},
		{"missing sub", vs.hs256, hs(without("sub")), unauth},
		{"empty sub", vs.hs256, hs(set("sub", "")), unauth},
		{"daml 2 custom claims", vs.hs256, hs(func(m map[string]any) {
			delete(m, "aud")
			m["https://daml.com/ledger-api"] = map[string]any{"participantId": participant, "actAs": []string{"alice"}}
		}), unauth},

		// Time.
		{"expired", vs.hs256, hs(set("exp", now.Add(-time.Second).Unix())), unauth},
		{"expired long ago", vs.rs256, token(t, hdr("RS256"), claims(set("exp", 1)), jwt.SigningMethodRS256, k.rsa), unauth},
		{"expired beyond leeway", vs.leeway, hs(set("exp", now.Add(-3*time.Minute).Unix())), unauth},
		{"nbf in the future", vs.hs256, hs(set("nbf", now.Add(time.Minute).Unix())), unauth},
		{"iat in the future", vs.hs256, hs(set("iat", now.Add(time.Minute).Unix())), unauth},
		{"iat in the future beyond leeway", vs.leeway, hs(set("iat", now.Add(5*time.Minute).Unix())), unauth},
		{"no exp with max lifetime", vs.lifetime, hs(without("exp")), unauth},
		{"exp beyond max lifetime", vs.lifetime, hs(set("exp", now.Add(3*time.Hour).Unix())), unauth},

		// Audience and scope.
		{"wrong audience", vs.hs256, hs(set("aud", "https://example.com")), unauth},
		{"no aud, no scope", vs.hs256, hs(without("aud")), unauth},
		{"scope without daml_ledger_api", vs.hs256, hs(func(m map[string]any) { delete(m, "aud"); m["scope"] = "openid profile" }), unauth},
		{"scope as array is ignored", vs.hs256, hs(func(m map[string]any) { delete(m, "aud"); m["scope"] = []string{"daml_ledger_api"} }), unauth},
		{"two participant entries", vs.hs256, hs(set("aud", []string{auth.ParticipantAudiencePrefix + participant, auth.ParticipantAudiencePrefix + "participant2"})), unauth},
		{"participant entry twice", vs.hs256, hs(set("aud", []string{auth.ParticipantAudiencePrefix + participant, auth.ParticipantAudiencePrefix + participant})), unauth},
		{"empty participant in aud", vs.hs256, hs(set("aud", auth.ParticipantAudiencePrefix)), unauth},
		{"scope-based with two aud", vs.hs256, hs(set("aud", []string{"a", "b"}, "scope", "daml_ledger_api")), unauth},
		{"target audience missing", vs.audience, hs(nil), unauth},
		{"target scope missing", vs.scope, hs(set("scope", "daml_ledger_api")), unauth},
		{"wrong participant id", vs.hs256, hs(set("aud", auth.ParticipantAudiencePrefix+"participant2")), denied},
		{"wrong participant id, rs256", vs.rs256, token(t, hdr("RS256"), claims(set("aud", auth.ParticipantAudiencePrefix+"p9")), jwt.SigningMethodRS256, k.rsa), denied},
		{"scope-based for another participant", vs.hs256, hs(set("aud", "participant2", "scope", "daml_ledger_api")), denied},

		// JWKS.
		{"jwks missing kid", vs.jwksURL, token(t, hdr("RS256"), claims(nil), jwt.SigningMethodRS256, k.rsa), unauth},
		{"jwks kid not a string", vs.jwksFile, token(t, map[string]any{"alg": "RS256", "kid": 1}, claims(nil), jwt.SigningMethodRS256, k.rsa), unauth},
		{"jwks unknown kid, file", vs.jwksFile, token(t, hdr("RS256", "kid", "nope"), claims(nil), jwt.SigningMethodRS256, k.rsa), unauth},
		{"jwks unknown kid, url", vs.jwksURL, token(t, hdr("RS256", "kid", "nope"), claims(nil), jwt.SigningMethodRS256, k.rsa), unauth},
		{"jwks wrong kid (ec key for rs256)", vs.jwksFile, token(t, hdr("RS256", "kid", "ec1"), claims(nil), jwt.SigningMethodRS256, k.rsa), unauth},
		{"jwks wrong kid (p256 key for es512)", vs.jwksFile, token(t, hdr("ES512", "kid", "ec1"), claims(nil), jwt.SigningMethodES512, k.p521), unauth},
		{"jwks kid alg mismatch", vs.jwksFile, token(t, hdr("ES256", "kid", "ec5"), claims(nil), jwt.SigningMethodES256, k.p256), unauth},
		{"jwks signed by another key", vs.jwksURL, token(t, hdr("RS256", "kid", "rsa1"), claims(nil), jwt.SigningMethodRS256, k.otherRSA), unauth},
		{"jwks set holds the wrong key", vs.wrongJWKS, token(t, hdr("RS256", "kid", "rsa1"), claims(nil), jwt.SigningMethodRS256, k.rsa), unauth},
		{"jwks ps256", vs.jwksFile, token(t, hdr("PS256", "kid", "rsa1"), claims(nil), jwt.SigningMethodPS256, k.rsa), unauth},
		{"jwks good token, wrong participant", vs.jwksFile, token(t, hdr("ES256", "kid", "ec1"), claims(set("aud", auth.ParticipantAudiencePrefix+"x")), jwt.SigningMethodES256, k.p256), denied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, via := range []string{"header", "token"} {
				var err error
				if via == "header" {
					_, err = tt.v.Authenticate("Bearer " + tt.token)
				} else {
					_, err = tt.v.AuthenticateToken(tt.token)
				}
				checkRejected(t, err, tt.want, tt.token)
			}
		})
	}
}

func checkRejected(t *testing.T, err error, want auth.Kind, tok string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted, want %v", want)
	}
	ae, ok := err.(*auth.Error)
	if !ok {
		t.Fatalf("error %T %v is not an *auth.Error", err, err)
	}
	if ae.Kind != want || auth.KindOf(err) != want {
		t.Fatalf("kind %v (%s), want %v", ae.Kind, ae.Reason, want)
	}
	if ae.Reason == "" {
		t.Fatal("empty reason")
	}
	for _, seg := range strings.Split(tok, ".") {
		if len(seg) >= 8 && strings.Contains(ae.Error(), seg) {
			t.Fatalf("error %q quotes the token", ae.Error())
		}
	}
}

// malleate sets the unused low bits of the last character of a base64url
// segment: a lax decoder reads the same bytes, a strict one refuses.
func malleate(s string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[last|1])
}

// flip changes the first character of a base64url segment.
func flip(s string) string {
	if s[0] == 'A' {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

func TestAuthorizationHeader(t *testing.T) {
	k := keys(t)
	vs := setup(t)
	good := token(t, hdr("HS256"), claims(nil), jwt.SigningMethodHS256, k.hmac)
	for _, h := range []string{"", "Bearer", "Bearer ", "Basic " + good, "Token " + good, good, "Bearer" + good} {
		_, err := vs.hs256.Authenticate(h)
		checkRejected(t, err, auth.Unauthenticated, good)
	}
	_, err := vs.hs256.AuthenticateToken("")
	checkRejected(t, err, auth.Unauthenticated, good)
}

func TestJWKSRotation(t *testing.T) {
	k := keys(t)
	var mu sync.Mutex
	current := jwksJSON(map[string]any{"rsa1": &k.rsa.PublicKey})
	srv, hits := jwksServer(t, func() []byte { mu.Lock(); defer mu.Unlock(); return current })
	v := newVerifier(t, auth.Config{Mode: auth.ModeJWKS, JWKS: srv.URL})
	if hits() != 1 {
		t.Fatalf("New fetched the set %d times, want 1", hits())
	}
	rotated := token(t, hdr("ES256", "kid", "ec1"), claims(nil), jwt.SigningMethodES256, k.p256)
	mu.Lock()
	current = jwksJSON(map[string]any{"rsa1": &k.rsa.PublicKey, "ec1": &k.p256.PublicKey})
	mu.Unlock()
	if _, err := v.AuthenticateToken(rotated); err != nil {
		t.Fatalf("token of a rotated-in key: %v", err)
	}
	if hits() != 2 {
		t.Fatalf("fetches = %d, want 2 (one refresh for the unknown kid)", hits())
	}
	// Unknown kids do not make every request refetch the set.
	for i := 0; i < 5; i++ {
		_, err := v.AuthenticateToken(token(t, hdr("RS256", "kid", fmt.Sprint("unknown", i)), claims(nil), jwt.SigningMethodRS256, k.rsa))
		checkRejected(t, err, auth.Unauthenticated, "")
	}
	if hits() > 2 {
		t.Fatalf("fetches = %d after unknown kids, want the refresh rate-limited", hits())
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	k := keys(t)
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	privDER, _ := x509.MarshalPKCS8PrivateKey(k.p256)
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	tests := []struct {
		name string
		cfg  auth.Config
		want string
	}{
		{"unknown mode", auth.Config{Mode: "hs384"}, "unknown mode"},
		{"empty mode", auth.Config{}, "unknown mode"},
		{"hs256 without secret", auth.Config{Mode: auth.ModeHS256}, "secret"},
		{"rs256 without key", auth.Config{Mode: auth.ModeRS256}, "no public key"},
		{"rs256 with garbage", auth.Config{Mode: auth.ModeRS256, PublicKeyPEM: []byte("hello")}, "neither PEM"},
		{"rs256 with ec key", auth.Config{Mode: auth.ModeRS256, PublicKeyPEM: k.p256PEM}, "not an RSA"},
		{"rs256 with small key", auth.Config{Mode: auth.ModeRS256, PublicKeyPEM: pkixPEM(&small.PublicKey)}, "1024 bits"},
		{"es256 with p521 key", auth.Config{Mode: auth.ModeES256, PublicKeyPEM: k.p521PEM}, "P-256"},
		{"es512 with rsa key", auth.Config{Mode: auth.ModeES512, PublicKeyPEM: k.rsaPEM}, "not an ECDSA"},
		{"private key", auth.Config{Mode: auth.ModeES256, PublicKeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER})}, "public key or certificate instead"},
		{"jwks without source", auth.Config{Mode: auth.ModeJWKS}, "no JWKS"},
		{"jwks missing file", auth.Config{Mode: auth.ModeJWKS, JWKS: filepath.Join(t.TempDir(), "none.json")}, "read JWK set file"},
		{"jwks file not json", auth.Config{Mode: auth.ModeJWKS, JWKS: writeFile(t, "x.json", []byte("keys"))}, "not JSON"},
		{"jwks file empty set", auth.Config{Mode: auth.ModeJWKS, JWKS: writeFile(t, "e.json", []byte(`{"keys":[]}`))}, "no usable keys"},
		{"jwks url 404", auth.Config{Mode: auth.ModeJWKS, JWKS: srv.URL}, "fetch JWK set"},
		{"audience and scope", auth.Config{Mode: auth.ModeHS256, Secret: k.hmac, Audience: "a", Scope: "s"}, "not both"},
		{"negative leeway", auth.Config{Mode: auth.ModeHS256, Secret: k.hmac, Leeway: -time.Second}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := auth.New(tt.cfg)
			if err == nil {
				v.Close()
				t.Fatal("New accepted the config")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestPublicKeyFormats(t *testing.T) {
	k := keys(t)
	pub := &k.rsa.PublicKey
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(pub)})
	pkixDER, _ := x509.MarshalPKIXPublicKey(pub)
	certBlock, _ := pem.Decode(k.rsaCertPEM)
	tok := token(t, hdr("RS256"), claims(nil), jwt.SigningMethodRS256, k.rsa)
	for name, key := range map[string][]byte{"pkcs1 pem": pkcs1, "pkix der": pkixDER, "cert der": certBlock.Bytes, "cert pem": k.rsaCertPEM} {
		v := newVerifier(t, auth.Config{Mode: auth.ModeRS256, PublicKeyPEM: key})
		if _, err := v.AuthenticateToken(tok); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestUserIDFor(t *testing.T) {
	user := auth.Claims{UserID: "alice", Format: auth.FormatParticipantID}
	wild := auth.Claims{Wildcard: true, Format: auth.FormatWildcard}
	tests := []struct {
		c         auth.Claims
		requested string
		want      string
		kind      auth.Kind
	}{
		{user, "", "alice", 0},
		{user, "alice", "alice", 0},
		{user, "bob", "", auth.PermissionDenied},
		{wild, "bob", "bob", 0},
		{wild, "", "", auth.InvalidToken},
	}
	for _, tt := range tests {
		got, err := tt.c.UserIDFor(tt.requested)
		if got != tt.want || auth.KindOf(err) != tt.kind {
			t.Errorf("%+v.UserIDFor(%q) = %q, %v; want %q, kind %v", tt.c, tt.requested, got, err, tt.want, tt.kind)
		}
	}
}

func TestExpiredAndSubprotocol(t *testing.T) {
	exp := now.Add(time.Minute)
	c := auth.Claims{UserID: "alice", ExpiresAt: &exp}
	if c.Expired(now) || !c.Expired(exp) || (auth.Claims{}).Expired(now.Add(1e6*time.Hour)) {
		t.Error("Expired is wrong")
	}
	if got := auth.SubprotocolToken([]string{"daml.ws.auth", " jwt.token.abc.def.ghi"}); got != "abc.def.ghi" {
		t.Errorf("SubprotocolToken = %q", got)
	}
	if got := auth.SubprotocolToken([]string{"daml.ws.auth"}); got != "" {
		t.Errorf("SubprotocolToken without token = %q", got)
	}
}

func TestMint(t *testing.T) {
	k := keys(t)
	vs := setup(t)
	tok, err := auth.Mint(k.hmac, "alice", 30*time.Minute, "", participant, now)
	if err != nil {
		t.Fatal(err)
	}
	c, err := vs.hs256.AuthenticateToken(tok)
	if err != nil {
		t.Fatalf("minted token rejected: %v", err)
	}
	if c.UserID != "alice" || c.ParticipantID != participant || !c.ExpiresAt.Equal(now.Add(30*time.Minute)) {
		t.Errorf("claims %+v", c)
	}
	// A custom audience is used as is.
	tok, err = auth.Mint(k.hmac, "alice", time.Hour, "https://ledger.example/api", "", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := vs.audience.AuthenticateToken(tok); err != nil {
		t.Errorf("custom audience token rejected: %v", err)
	}
	// Once the ttl has passed, the token is refused.
	later := newVerifier(t, auth.Config{Mode: auth.ModeHS256, Secret: k.hmac, Now: func() time.Time { return now.Add(time.Hour) }})
	tok, _ = auth.Mint(k.hmac, "alice", 30*time.Minute, "", participant, now)
	_, err = later.AuthenticateToken(tok)
	checkRejected(t, err, auth.Unauthenticated, tok)

	for _, bad := range []struct {
		secret []byte
		user   string
		ttl    time.Duration
		aud    string
		pid    string
	}{
		{nil, "alice", time.Hour, "", "p"},
		{k.hmac, "", time.Hour, "", "p"},
		{k.hmac, "alice", 0, "", "p"},
		{k.hmac, "alice", time.Hour, "", ""},
	} {
		if _, err := auth.Mint(bad.secret, bad.user, bad.ttl, bad.aud, bad.pid, now); err == nil {
			t.Errorf("Mint(%q, %q, %v, %q, %q) succeeded", bad.secret, bad.user, bad.ttl, bad.aud, bad.pid)
		}
	}
}

func TestReadSecretFile(t *testing.T) {
	p := writeFile(t, "secret", []byte("s3cret\r\n"))
	got, err := auth.ReadSecretFile(p)
	if err != nil || string(got) != "s3cret" {
		t.Fatalf("ReadSecretFile = %q, %v", got, err)
	}
	if _, err := auth.ReadSecretFile(writeFile(t, "empty", []byte("\n"))); err == nil {
		t.Error("empty secret accepted")
	}
	if _, err := auth.ReadSecretFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestConcurrentUse(t *testing.T) {
	k := keys(t)
	vs := setup(t)
	good := token(t, hdr("RS256", "kid", "rsa1"), claims(nil), jwt.SigningMethodRS256, k.rsa)
	bad := token(t, hdr("RS256", "kid", "rsa1"), claims(nil), jwt.SigningMethodRS256, k.otherRSA)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 8; j++ {
				if _, err := vs.jwksURL.AuthenticateToken(good); err != nil {
					errs <- err
				}
				if _, err := vs.jwksURL.AuthenticateToken(bad); auth.KindOf(err) != auth.Unauthenticated {
					errs <- fmt.Errorf("bad token: %v", err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
