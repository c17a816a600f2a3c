package auth

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// parsePublicKey reads a public key from PEM (CERTIFICATE, PUBLIC KEY or
// RSA PUBLIC KEY) or from DER (certificate or PKIX public key).
func parsePublicKey(b []byte) (any, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("no public key given")
	}
	block, _ := pem.Decode(b)
	if block == nil {
		if cert, err := x509.ParseCertificate(b); err == nil {
			return cert.PublicKey, nil
		}
		if key, err := x509.ParsePKIXPublicKey(b); err == nil {
			return key, nil
		}
		return nil, errors.New("public key is neither PEM nor a DER certificate or public key")
	}
	switch block.Type {
	case "CERTIFICATE":
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("bad PEM certificate: %w", err)
		}
		return cert.PublicKey, nil
	case "PUBLIC KEY":
		key, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("bad PEM public key: %w", err)
		}
		return key, nil
	case "RSA PUBLIC KEY":
		key, err := x509.ParsePKCS1PublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("bad PEM RSA public key: %w", err)
		}
		return key, nil
	}
	if strings.Contains(block.Type, "PRIVATE") {
		return nil, fmt.Errorf("PEM block is a %s; give the public key or certificate instead", block.Type)
	}
	return nil, fmt.Errorf("PEM block %q is not a public key or certificate", block.Type)
}

// isURL tells a JWKS URL from a file path.
func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// jwksSource finds the key a token's kid names in mode jwks.
type jwksSource interface {
	key(ctx context.Context, kid string) (any, error)
}

// staticJWKS is a JWK set read from a file once.
type staticJWKS map[string]any

func (s staticJWKS) key(_ context.Context, kid string) (any, error) {
	if k, ok := s[kid]; ok {
		return k, nil
	}
	return nil, missingKey(kid)
}

// remoteJWKS is a JWK set at a URL, cached as identity providers' sets are
// (jwks.go): fetched again when older than five minutes, or for an unknown
// kid at most every 30 seconds.
type remoteJWKS struct {
	cache *jwksCache
	url   string
}

func (r remoteJWKS) key(ctx context.Context, kid string) (any, error) {
	return r.cache.key(ctx, r.url, kid)
}

// loadJWKS builds the key lookup of mode jwks: a file is read now, a URL
// fetched now (so that a URL serving no JWK set is an error at start).
func loadJWKS(cfg Config) (jwksSource, error) {
	if cfg.JWKS == "" {
		return nil, errors.New("no JWKS URL or file given")
	}
	if !isURL(cfg.JWKS) {
		raw, err := os.ReadFile(cfg.JWKS)
		if err != nil {
			return nil, fmt.Errorf("read JWK set file: %w", err)
		}
		if !json.Valid(raw) {
			return nil, fmt.Errorf("JWK set file %s is not JSON", cfg.JWKS)
		}
		keys, err := parseJWKSet(raw)
		if err != nil {
			return nil, fmt.Errorf("JWK set file %s holds no usable keys: %w", cfg.JWKS, err)
		}
		return staticJWKS(keys), nil
	}
	c := newJWKSCache(cfg.HTTPClient, cfg.Now)
	if err := c.load(context.Background(), cfg.JWKS); err != nil {
		return nil, fmt.Errorf("fetch JWK set from %s: %w", cfg.JWKS, err)
	}
	return remoteJWKS{cache: c, url: cfg.JWKS}, nil
}
