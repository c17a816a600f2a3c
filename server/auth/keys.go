package auth

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"golang.org/x/time/rate"
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

// loadJWKS builds the key lookup of mode jwks. The returned cancel ends the
// background refresh of a URL.
func loadJWKS(cfg Config) (keyfunc.Keyfunc, context.CancelFunc, error) {
	if cfg.JWKS == "" {
		return nil, nil, errors.New("no JWKS URL or file given")
	}
	if !isURL(cfg.JWKS) {
		raw, err := os.ReadFile(cfg.JWKS)
		if err != nil {
			return nil, nil, fmt.Errorf("read JWK set file: %w", err)
		}
		if !json.Valid(raw) {
			return nil, nil, fmt.Errorf("JWK set file %s is not JSON", cfg.JWKS)
		}
		kf, err := keyfunc.NewJWKSetJSON(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("JWK set file %s: %w", cfg.JWKS, err)
		}
		keys, err := kf.Storage().KeyReadAll(context.Background())
		if err != nil || len(keys) == 0 {
			return nil, nil, fmt.Errorf("JWK set file %s holds no usable keys", cfg.JWKS)
		}
		return kf, func() {}, nil
	}

	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: jwksHTTPTimeout}
	}
	ctx, cancel := context.WithCancel(context.Background())
	remote, err := jwkset.NewStorageFromHTTP(cfg.JWKS, jwkset.HTTPClientStorageOptions{
		Client:          client,
		Ctx:             ctx,
		HTTPTimeout:     jwksHTTPTimeout,
		RefreshInterval: jwksRefreshInterval,
		// A failed background refresh keeps the keys already known.
		RefreshErrorHandler: func(context.Context, error) {},
	})
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("fetch JWK set from %s: %w", cfg.JWKS, err)
	}
	storage, err := jwkset.NewHTTPClient(jwkset.HTTPClientOptions{
		HTTPURLs: map[string]jwkset.Storage{cfg.JWKS: remote},
		// An unknown kid refetches the set at most this often (key
		// rotation); a request waits at most RateLimitWaitMax for its turn
		// and fails at once when the turn lies further out.
		RefreshUnknownKID: rate.NewLimiter(rate.Every(jwksUnknownKIDEvery), 1),
		RateLimitWaitMax:  jwksHTTPTimeout,
	})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	kf, err := keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: storage})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return kf, cancel, nil
}
