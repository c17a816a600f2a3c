package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
)

// TokenSource yields the bearer token of each request. A source may refresh
// its token; the client asks before every request.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// StaticToken is a fixed token.
type StaticToken string

// Token returns the token.
func (t StaticToken) Token(context.Context) (string, error) { return string(t), nil }

// FileToken reads the token from a file, again whenever the file changes,
// so that a long-running command picks up a token a sidecar rotates.
type FileToken struct {
	Path string

	mu    sync.Mutex
	mod   time.Time
	size  int64
	token string
}

// NewFileToken reads path once, so that a missing or empty file is reported
// before the first request.
func NewFileToken(path string) (*FileToken, error) {
	t := &FileToken{Path: path}
	if _, err := t.Token(context.Background()); err != nil {
		return nil, err
	}
	return t, nil
}

// Token returns the file's content without surrounding white space.
func (t *FileToken) Token(context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, err := os.Stat(t.Path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	if t.token != "" && st.ModTime().Equal(t.mod) && st.Size() == t.size {
		return t.token, nil
	}
	if st.Size() > 64<<10 {
		return "", fmt.Errorf("token file %s: larger than 64 KiB, not a token", t.Path)
	}
	b, err := os.ReadFile(t.Path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("token file %s is empty", t.Path)
	}
	if strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("token file %s: holds more than one word; it must contain just the token", t.Path)
	}
	t.token, t.mod, t.size = tok, st.ModTime(), st.Size()
	return tok, nil
}

// OAuth2Token adapts an oauth2.TokenSource (for example the client
// credentials flow of golang.org/x/oauth2/clientcredentials, wrapped in
// oauth2.ReuseTokenSource so that it refreshes only when the token expires).
func OAuth2Token(ts oauth2.TokenSource) TokenSource { return oauth2Source{ts} }

type oauth2Source struct{ ts oauth2.TokenSource }

func (s oauth2Source) Token(context.Context) (string, error) {
	tok, err := s.ts.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return "", fmt.Errorf("OAuth token endpoint refused the client credentials: HTTP %d %s", re.Response.StatusCode, strings.TrimSpace(string(re.Body)))
		}
		return "", fmt.Errorf("fetching an OAuth token: %w", err)
	}
	return tok.AccessToken, nil
}

// inspectToken reads what a refusal's message needs from a token: the exp
// of a JWT, parsed without verification.
func inspectToken(tok string) *TokenInfo {
	info := &TokenInfo{Sent: tok != ""}
	if tok == "" {
		return info
	}
	claims := jwt.RegisteredClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(tok, &claims); err == nil && claims.ExpiresAt != nil {
		info.Expiry = claims.ExpiresAt.Time
	}
	return info
}
