package auth

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// payload is the JSON of a user token as read here. It is stricter than
// jwt.RegisteredClaims: times must be JSON numbers (jwt's NumericDate also
// takes numeric strings).
type payload struct {
	Issuer    string           `json:"iss"`
	Subject   string           `json:"sub"`
	Audience  jwt.ClaimStrings `json:"aud"`
	ExpiresAt *numericDate     `json:"exp"`
	NotBefore *numericDate     `json:"nbf"`
	IssuedAt  *numericDate     `json:"iat"`
	// Scope and Scp are read leniently, as Canton does: a value of another
	// shape is ignored rather than failing the token.
	Scope json.RawMessage `json:"scope"`
	Scp   json.RawMessage `json:"scp"`
}

// numericDate is seconds since the epoch, written as a JSON number.
type numericDate struct{ time.Time }

// Seconds beyond year 9999 are not a date any issuer means.
const maxSeconds = 253402300799

func (d *numericDate) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return errors.New("time claim is not a JSON number")
	}
	if math.IsNaN(f) || f < 0 || f > maxSeconds {
		return errors.New("time claim is out of range")
	}
	sec, frac := math.Modf(f)
	d.Time = time.Unix(int64(sec), int64(frac*1e9)).UTC()
	return nil
}

func (d *numericDate) jwt() *jwt.NumericDate {
	if d == nil {
		return nil
	}
	return jwt.NewNumericDate(d.Time)
}

func (p *payload) GetExpirationTime() (*jwt.NumericDate, error) { return p.ExpiresAt.jwt(), nil }
func (p *payload) GetIssuedAt() (*jwt.NumericDate, error)       { return p.IssuedAt.jwt(), nil }
func (p *payload) GetNotBefore() (*jwt.NumericDate, error)      { return p.NotBefore.jwt(), nil }
func (p *payload) GetIssuer() (string, error)                   { return p.Issuer, nil }
func (p *payload) GetSubject() (string, error)                  { return p.Subject, nil }
func (p *payload) GetAudience() (jwt.ClaimStrings, error)       { return p.Audience, nil }

// scopes returns the space-separated `scope` string's entries, or else the
// `scp` entries (an array of strings, or one space-separated string).
func (p *payload) scopes() []string {
	var s string
	if json.Unmarshal(p.Scope, &s) == nil && s != "" {
		return strings.Fields(s)
	}
	var list []string
	if json.Unmarshal(p.Scp, &list) == nil {
		return list
	}
	if json.Unmarshal(p.Scp, &s) == nil {
		return strings.Fields(s)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// claims applies Canton's user-token rules to a verified payload.
func (v *Verifier) claims(p *payload, now time.Time) (Claims, error) {
	if p.Subject == "" {
		return Claims{}, unauthenticated("token has no sub (user id)")
	}
	c := Claims{UserID: p.Subject, Issuer: p.Issuer, Scopes: p.scopes()}
	if p.ExpiresAt != nil {
		t := p.ExpiresAt.Time
		c.ExpiresAt = &t
	}
	if v.cfg.MaxTokenLifetime > 0 {
		if c.ExpiresAt == nil {
			return Claims{}, unauthenticated("token has no exp but a maximum token lifetime is configured")
		}
		if c.ExpiresAt.Sub(now) > v.cfg.MaxTokenLifetime {
			return Claims{}, unauthenticated("token lives longer than the configured maximum token lifetime")
		}
	}

	switch {
	case v.cfg.Audience != "":
		if !contains(p.Audience, v.cfg.Audience) {
			return Claims{}, unauthenticated("token aud does not contain the target audience")
		}
		c.Format = FormatAudience
		return c, nil
	case v.cfg.Scope != "":
		if !contains(c.Scopes, v.cfg.Scope) {
			return Claims{}, unauthenticated("token scopes do not contain the target scope")
		}
		c.Format = FormatScope
		return c, nil
	}

	var participants []string
	hasPrefix := false
	for _, a := range p.Audience {
		if id, ok := strings.CutPrefix(a, ParticipantAudiencePrefix); ok {
			hasPrefix = true
			if id != "" {
				participants = append(participants, id)
			}
		}
	}
	switch {
	case hasPrefix:
		if len(participants) != 1 {
			return Claims{}, unauthenticated("token aud must name exactly one participant")
		}
		c.ParticipantID = participants[0]
		c.Format = FormatParticipantID
	case contains(c.Scopes, LedgerAPIScope):
		if len(p.Audience) > 1 {
			return Claims{}, unauthenticated("scope-based token has more than one aud entry")
		}
		if len(p.Audience) == 1 {
			c.ParticipantID = p.Audience[0]
		}
		c.Format = FormatScope
	default:
		return Claims{}, unauthenticated("token has neither a participant audience nor the daml_ledger_api scope")
	}
	if c.ParticipantID != "" && v.cfg.ParticipantID != "" && !v.isThisParticipant(c.ParticipantID) {
		return Claims{}, denied("token is for another participant")
	}
	return c, nil
}

// isThisParticipant: Canton (Claims.validForParticipant) accepts exactly its
// participant id, name::fingerprint as GET /v2/parties/participant-id shows
// it. The bare name is accepted too, so that a token can be minted for a
// node before its fingerprint is known (ledger token's default).
func (v *Verifier) isThisParticipant(id string) bool {
	own := v.cfg.ParticipantID
	name, _, _ := strings.Cut(own, "::")
	return id == own || id == name
}
