package auth

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/ledger-cli/ledger/internal/secretfile"
)

// Mint signs an HS256 user token for user, valid from now for ttl. Its
// audience is audience when given, else ParticipantAudiencePrefix +
// participantID. It is for local development with `ledger serve --auth hs256`.
func Mint(secret []byte, user string, ttl time.Duration, audience string, participantID string, now time.Time) (string, error) {
	switch {
	case len(secret) == 0:
		return "", errors.New("the secret is empty")
	case user == "":
		return "", errors.New("the user id is empty")
	case ttl <= 0:
		return "", fmt.Errorf("the lifetime %s is not positive", ttl)
	case audience == "" && participantID == "":
		return "", errors.New("give an audience or a participant id")
	}
	if audience == "" {
		audience = ParticipantAudiencePrefix + participantID
	}
	claims := jwt.RegisteredClaims{
		Subject:   user,
		Audience:  jwt.ClaimStrings{audience},
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
}

// ReadSecretFile reads an HMAC secret from path, without the trailing line
// break an editor or `echo` leaves. `ledger token --secret-file` and
// `ledger serve --auth-secret-file` both read secrets this way, so the same
// file always means the same key.
// Like a key file, it must not be readable by other users.
func ReadSecretFile(path string) ([]byte, error) {
	b, err := secretfile.ReadFile("secret file", path, 64<<10)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimRight(b, "\r\n")
	if len(b) == 0 {
		return nil, fmt.Errorf("secret file %s is empty", path)
	}
	return b, nil
}
