package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Config chooses how tokens are verified and which ones are accepted.
type Config struct {
	// Mode is one of Modes.
	Mode string
	// Secret is the HMAC key of mode hs256.
	Secret []byte
	// PublicKeyPEM holds the key of modes rs256, es256 and es512: a PEM
	// public key (PKIX or PKCS#1) or X.509 certificate, or either in DER.
	PublicKeyPEM []byte
	// JWKS is the http(s) URL or the file path of the JWK set of mode jwks.
	JWKS string
	// HTTPClient fetches a JWKS URL; nil means a client with a 10 s timeout.
	HTTPClient *http.Client
	// Audience is Canton's target-audience: when set, `aud` must contain it.
	Audience string
	// Scope is Canton's target-scope: when set, the scopes must contain it.
	Scope string
	// ParticipantID is this node's id (name::fingerprint); a token naming
	// another participant is refused. Tokens may name the node by its full
	// id, as Canton requires, or by the name alone.
	// Empty skips that check.
	ParticipantID string
	// Leeway is the clock skew allowed for exp, nbf and iat.
	Leeway time.Duration
	// MaxTokenLifetime, when positive, requires exp and bounds how far in the
	// future it may lie.
	MaxTokenLifetime time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Verifier authenticates tokens under one Config. It is safe for concurrent use.
type Verifier struct {
	cfg     Config
	methods []string
	key     any        // HMAC secret or public key; nil in modes none and jwks
	jwks    jwksSource // mode jwks only
	parser  *jwt.Parser
}

// JWKS refresh policy for a URL: Canton caches a JWK set for about five minutes.
const (
	jwksRefreshInterval = 5 * time.Minute
	jwksUnknownKIDEvery = 30 * time.Second
	jwksHTTPTimeout     = 10 * time.Second
)

// New checks cfg and loads its key. In mode jwks with a URL the set is fetched
// once now (an unreachable URL is an error) and again when a token comes
// after it is five minutes old, or names a kid the set lacks.
func New(cfg Config) (*Verifier, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Mode = strings.ToLower(strings.TrimSpace(cfg.Mode))
	if cfg.Leeway < 0 || cfg.MaxTokenLifetime < 0 {
		return nil, errors.New("auth: leeway and maximum token lifetime must not be negative")
	}
	if cfg.Audience != "" && cfg.Scope != "" {
		return nil, errors.New("auth: set a target audience or a target scope, not both")
	}
	v := &Verifier{cfg: cfg}
	switch cfg.Mode {
	case ModeNone:
		return v, nil
	case ModeHS256:
		if len(cfg.Secret) == 0 {
			return nil, errors.New("auth: mode hs256 needs a non-empty secret")
		}
		v.methods, v.key = []string{"HS256"}, cfg.Secret
	case ModeRS256, ModeES256, ModeES512:
		key, err := parsePublicKey(cfg.PublicKeyPEM)
		if err != nil {
			return nil, fmt.Errorf("auth: mode %s: %w", cfg.Mode, err)
		}
		alg := strings.ToUpper(cfg.Mode)
		if err := keyFits(alg, key); err != nil {
			return nil, fmt.Errorf("auth: mode %s: %w", cfg.Mode, err)
		}
		v.methods, v.key = []string{alg}, key
	case ModeJWKS:
		src, err := loadJWKS(cfg)
		if err != nil {
			return nil, fmt.Errorf("auth: mode jwks: %w", err)
		}
		v.methods, v.jwks = jwksMethods, src
	default:
		return nil, fmt.Errorf("auth: unknown mode %q: use one of %s", cfg.Mode, strings.Join(Modes, ", "))
	}
	v.parser = jwt.NewParser(
		jwt.WithValidMethods(v.methods),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithTimeFunc(cfg.Now),
		jwt.WithIssuedAt(),
		jwt.WithStrictDecoding(),
	)
	return v, nil
}

// Close releases the verifier. Nothing runs in the background any more (a
// JWKS URL is fetched when a token needs it); it is kept for callers and
// is safe to call more than once and on every mode.
func (v *Verifier) Close() {}

// Mode returns the configured mode.
func (v *Verifier) Mode() string { return v.cfg.Mode }

// Authenticate checks the value of an Authorization header ("Bearer <JWT>").
// In mode none it returns wildcard claims whatever the header holds.
func (v *Verifier) Authenticate(header string) (Claims, error) {
	if v.cfg.Mode == ModeNone {
		return Claims{Wildcard: true, Format: FormatWildcard}, nil
	}
	if header == "" {
		return Claims{}, unauthenticated("no Authorization header")
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return Claims{}, unauthenticated("Authorization header is not of the form 'Bearer <token>'")
	}
	return v.AuthenticateToken(strings.TrimSpace(token))
}

// AuthenticateToken checks a bare JWT, as carried by the websocket
// subprotocol jwt.token.<JWT> (see SubprotocolToken).
func (v *Verifier) AuthenticateToken(token string) (Claims, error) {
	if v.cfg.Mode == ModeNone {
		return Claims{Wildcard: true, Format: FormatWildcard}, nil
	}
	if token == "" {
		return Claims{}, unauthenticated("empty token")
	}
	if len(token) > MaxTokenSize {
		return Claims{}, unauthenticated(fmt.Sprintf("token longer than %d bytes", MaxTokenSize))
	}
	var p payload
	if _, err := v.parser.ParseWithClaims(token, &p, v.keyFor); err != nil {
		return Claims{}, rejection(err)
	}
	return v.claims(&p, v.cfg.Now())
}

// keyFor is the jwt.Keyfunc: it runs after the algorithm passed the mode's
// allow-list and returns the one key that algorithm may be checked with.
func (v *Verifier) keyFor(t *jwt.Token) (any, error) {
	if _, ok := t.Header["crit"]; ok {
		return nil, unauthenticated("token header has crit extensions, none are supported")
	}
	alg := t.Method.Alg()
	if !slices.Contains(v.methods, alg) { // WithValidMethods already ensures this
		return nil, unauthenticated("signing algorithm not allowed")
	}
	if v.jwks == nil {
		return v.key, nil
	}
	kid, ok := t.Header["kid"].(string)
	if !ok || kid == "" {
		return nil, unauthenticated("token header has no kid naming a key of the JWK set")
	}
	key, err := v.jwks.key(context.Background(), kid)
	if err != nil {
		return nil, unauthenticated("no usable key for the token's kid in the JWK set")
	}
	if err := keyFits(alg, key); err != nil {
		return nil, unauthenticated("the JWK set key named by kid " + err.Error())
	}
	return key, nil
}

// keyFits checks that key is the public key type alg verifies with.
func keyFits(alg string, key any) error {
	switch alg {
	case "RS256":
		k, ok := key.(*rsa.PublicKey)
		if !ok {
			return errors.New("is not an RSA public key")
		}
		if k.N.BitLen() < 2048 {
			return fmt.Errorf("is an RSA key of %d bits; use at least 2048", k.N.BitLen())
		}
	case "ES256", "ES512":
		k, ok := key.(*ecdsa.PublicKey)
		if !ok {
			return errors.New("is not an ECDSA public key")
		}
		want := elliptic.P256()
		if alg == "ES512" {
			want = elliptic.P521()
		}
		if k.Curve != want {
			return fmt.Errorf("is not on curve %s, which %s needs", want.Params().Name, alg)
		}
	default:
		return fmt.Errorf("does not fit algorithm %s", alg)
	}
	return nil
}

// rejection turns a jwt parse error into an Unauthenticated error with a
// fixed reason (library messages may quote decoded token content).
func rejection(err error) *Error {
	var ae *Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, jwt.ErrTokenMalformed):
		return unauthenticated("malformed token")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return unauthenticated("invalid signature or signing algorithm not allowed")
	case errors.Is(err, jwt.ErrTokenExpired):
		return unauthenticated("token expired")
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return unauthenticated("token not valid yet (nbf)")
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return unauthenticated("token issued in the future (iat)")
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return unauthenticated("token cannot be verified")
	}
	return unauthenticated("invalid token")
}
