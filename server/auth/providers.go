package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// IdentityProvider is what verifying a token of an identity provider needs
// from its configuration (/v2/idps).
type IdentityProvider struct {
	ID     string
	Issuer string
	// JwksURL is where the provider's JWK set is fetched.
	JwksURL string
	// Audience, when set, must be among the token's `aud`; the token is
	// then read as an audience-based token. When empty, Canton's general
	// rules apply (a participant audience or the daml_ledger_api scope).
	Audience string
}

// Providers verifies the tokens of identity providers, as Canton's
// IdentityProviderAwareAuthService does: with the key the token names in
// the provider's JWK set (RS256, ES256 or ES512 by the key's type) and the
// provider's audience, under the node's leeway, maximum token lifetime and
// participant id. JWK sets are cached per URL (jwks.go). It is safe for
// concurrent use.
type Providers struct {
	cfg    Config
	parser *jwt.Parser
	keys   *jwksCache
}

// NewProviders builds the verifier of identity-provider tokens for a node
// whose own tokens are verified under cfg; of cfg it uses ParticipantID,
// Leeway, MaxTokenLifetime, Now and HTTPClient.
func NewProviders(cfg Config) *Providers {
	if cfg.Now == nil {
		cfg.Now = nowFunc
	}
	return &Providers{
		cfg: Config{ParticipantID: cfg.ParticipantID, Leeway: cfg.Leeway,
			MaxTokenLifetime: cfg.MaxTokenLifetime, Now: cfg.Now},
		parser: jwt.NewParser(
			jwt.WithValidMethods(jwksMethods),
			jwt.WithLeeway(cfg.Leeway),
			jwt.WithTimeFunc(cfg.Now),
			jwt.WithIssuedAt(),
			jwt.WithStrictDecoding(),
		),
		keys: newJWKSCache(cfg.HTTPClient, cfg.Now),
	}
}

// Authenticate verifies token as a token of provider p and returns its
// claims, with IdentityProviderID set to p.ID. Failures are *Error:
// Unauthenticated for a token that does not verify (including a JWK set
// that cannot be fetched), PermissionDenied for one naming another
// participant.
func (ps *Providers) Authenticate(ctx context.Context, token string, p IdentityProvider) (Claims, error) {
	if token == "" {
		return Claims{}, unauthenticated("empty token")
	}
	if len(token) > MaxTokenSize {
		return Claims{}, unauthenticated(fmt.Sprintf("token longer than %d bytes", MaxTokenSize))
	}
	var pl payload
	_, err := ps.parser.ParseWithClaims(token, &pl, func(t *jwt.Token) (any, error) {
		return ps.keyFor(ctx, t, p)
	})
	if err != nil {
		return Claims{}, rejection(err)
	}
	if pl.Issuer != p.Issuer {
		return Claims{}, unauthenticated("token iss is not the identity provider's issuer")
	}
	cfg := ps.cfg
	cfg.Audience = p.Audience
	c, err := (&Verifier{cfg: cfg}).claims(&pl, cfg.Now())
	if err != nil {
		return Claims{}, err
	}
	c.IdentityProviderID = p.ID
	return c, nil
}

// keyFor returns the key of p's JWK set that the token's kid names (or the
// set's only key when the token names none, as Canton's JWK provider
// does), checked to fit the token's algorithm.
func (ps *Providers) keyFor(ctx context.Context, t *jwt.Token, p IdentityProvider) (any, error) {
	if _, ok := t.Header["crit"]; ok {
		return nil, unauthenticated("token header has crit extensions, none are supported")
	}
	kid, _ := t.Header["kid"].(string)
	key, err := ps.keys.key(ctx, p.JwksURL, kid)
	if err != nil {
		return nil, unauthenticated(fmt.Sprintf("identity provider %q: %v", p.ID, err))
	}
	if err := keyFits(t.Method.Alg(), key); err != nil {
		return nil, unauthenticated(fmt.Sprintf("identity provider %q: the JWK set key %s", p.ID, err))
	}
	return key, nil
}

// ForgetKeys drops every cached JWK set, so that the next token of each
// provider fetches its set again. The server calls it when an identity
// provider is changed or deleted.
func (ps *Providers) ForgetKeys() { ps.keys.forget() }

// UnverifiedIssuer returns the `iss` of a JWT without verifying anything:
// Canton picks the identity provider that verifies a token by it. It
// returns "" for a token that is not a JWT or has no string iss.
func UnverifiedIssuer(token string) string {
	if len(token) > MaxTokenSize {
		return ""
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var p struct {
		Issuer any `json:"iss"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	iss, _ := p.Issuer.(string)
	return iss
}

// BearerToken returns the token of an Authorization header value
// ("Bearer <token>"), or "" when it has none.
func BearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
