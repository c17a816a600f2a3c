// Package auth authenticates requests to `ledger serve` the way a Canton 3.x
// participant does: by a JWT user token in the Authorization header (or in the
// `jwt.token.<JWT>` websocket subprotocol).
//
// Modes (Config.Mode), each with a fixed allow-list of signing algorithms:
//
//	none   no token needed; every request is allowed (Canton's wildcard auth)
//	hs256  HMAC-SHA256 with a shared secret (development only)
//	rs256  RSA PKCS#1 v1.5 SHA-256, public key or X.509 certificate (PEM or DER)
//	es256  ECDSA P-256 SHA-256, public key or certificate
//	es512  ECDSA P-521 SHA-512, public key or certificate
//	jwks   RS256, ES256 or ES512 by the key the token's `kid` names in a JWK set
//	       fetched from an http(s) URL (refreshed every 5 minutes) or read from a file
//
// Only user tokens are accepted. The payload must carry `sub` (the user id).
// With neither Config.Audience nor Config.Scope set, a token is accepted when
// exactly one `aud` entry is https://daml.com/jwt/aud/participant/<id>
// (audience-based), or else when its scopes (`scope`, space separated, or the
// `scp` array) include daml_ledger_api (scope-based; a single `aud` value then
// names the participant). A participant id in the token other than
// Config.ParticipantID (name::fingerprint, as Canton compares it) or its
// name part is a PermissionDenied error. With Config.Audience set,
// `aud` must contain it; with Config.Scope set, the scopes must contain it.
// `exp`, `nbf` and `iat` are checked against Config.Now with Config.Leeway;
// `exp` is required when Config.MaxTokenLifetime is set and may then lie at
// most that far in the future.
//
// Every failure is an *Error whose Kind tells the server which Canton error to
// answer with; its Reason is for logs and never quotes the token.
package auth

import (
	"strings"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// Modes accepted in Config.Mode.
const (
	ModeNone  = "none"
	ModeHS256 = "hs256"
	ModeRS256 = "rs256"
	ModeES256 = "es256"
	ModeES512 = "es512"
	ModeJWKS  = "jwks"
)

// Modes lists every accepted Config.Mode, for flag help and validation.
var Modes = []string{ModeNone, ModeHS256, ModeRS256, ModeES256, ModeES512, ModeJWKS}

// Canton's fixed names in user tokens.
const (
	// ParticipantAudiencePrefix followed by a participant id is the audience
	// of an audience-based user token.
	ParticipantAudiencePrefix = "https://daml.com/jwt/aud/participant/"
	// LedgerAPIScope is the scope of a scope-based user token.
	LedgerAPIScope = "daml_ledger_api"
)

// DefaultParticipantID is the participant id `ledger token` puts in the
// audience when none is given: the name a new node takes by default.
const DefaultParticipantID = ledger.DefaultParticipantName

// MaxTokenSize is the largest token (in bytes) looked at; longer ones are
// rejected before any decoding.
const MaxTokenSize = 8 << 10

// Format says how a token was accepted.
type Format string

const (
	// FormatWildcard: auth mode none, no token was looked at.
	FormatWildcard Format = "wildcard"
	// FormatParticipantID: audience https://daml.com/jwt/aud/participant/<id>.
	FormatParticipantID Format = "participant-id"
	// FormatAudience: the configured target audience was in `aud`.
	FormatAudience Format = "audience"
	// FormatScope: scope daml_ledger_api or the configured target scope.
	// Canton 3.5 deprecates scope-based tokens without a target scope.
	FormatScope Format = "scope"
)

// Claims is what an accepted request may do, before the user's rights are
// looked up.
type Claims struct {
	// UserID is the token's `sub`; empty only for wildcard claims.
	UserID string
	// Wildcard is set in auth mode none: everything is allowed, but requests
	// must name their user id themselves.
	Wildcard bool
	// ExpiresAt is the token's `exp`, nil when it has none (or Wildcard).
	ExpiresAt *time.Time
	// Issuer is the token's `iss` ("" when absent).
	Issuer string
	// ParticipantID is the participant the token names, "" when it names none.
	ParticipantID string
	// Scopes are the token's scopes (`scope` split on spaces, or `scp`).
	Scopes []string
	// Format says by which rule the token was accepted.
	Format Format
	// IdentityProviderID is the identity provider whose JWK set verified
	// the token; "" for the node's own verifier (the default provider).
	// The token's user must belong to this provider.
	IdentityProviderID string
}

// UserIDFor resolves the user id of a command, submission or completion
// request whose body carries requested (possibly ""), as Canton does: an
// empty request user id takes the token's; wildcard claims without one give
// an InvalidToken error; a user id other than the token's is PermissionDenied.
func (c Claims) UserIDFor(requested string) (string, error) {
	switch {
	case requested == "" && c.UserID == "":
		return "", &Error{Kind: InvalidToken, Reason: "the request has no userId and the token names no user"}
	case requested == "":
		return c.UserID, nil
	case c.UserID == "" && c.Wildcard:
		return requested, nil
	case requested != c.UserID:
		return "", denied("the request's userId is not the token's user")
	}
	return requested, nil
}

// Expired reports whether the claims carry an expiry that now has passed.
// Streams use it to end with ACCESS_TOKEN_EXPIRED.
func (c Claims) Expired(now time.Time) bool {
	return c.ExpiresAt != nil && !now.Before(*c.ExpiresAt)
}

// SubprotocolToken returns the JWT carried in a websocket subprotocol list as
// `jwt.token.<JWT>`, or "" when there is none.
func SubprotocolToken(protocols []string) string {
	for _, p := range protocols {
		if tok, ok := strings.CutPrefix(strings.TrimSpace(p), "jwt.token."); ok {
			return tok
		}
	}
	return ""
}
