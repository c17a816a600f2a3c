package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
)

// The JWK set cache of identity providers. Canton's CachedJwtVerifierLoader
// keeps a verifier per (JWKS URL, key id) for five minutes
// (jwks-cache-config: cache-expiration 5m, connection and read timeouts
// 10 s), fetching the set again on a miss. Here a whole set is kept per URL
// for as long, an unknown kid fetches the set again at most every 30 s (key
// rotation without letting made-up kids hammer the provider), and a failed
// fetch is remembered for a few seconds so that requests do not queue up
// behind an unreachable provider.
const (
	jwksCacheExpiration = jwksRefreshInterval
	jwksFailureBackoff  = 5 * time.Second
	// jwksMaxBytes bounds a fetched JWK set.
	jwksMaxBytes = 1 << 20
)

// jwksMethods are the algorithms a JWK set's keys verify here, as in
// Canton: RSA keys RS256, P-256 keys ES256, P-521 keys ES512.
var jwksMethods = []string{"RS256", "ES256", "ES512"}

var nowFunc = time.Now

type jwksCache struct {
	client *http.Client
	now    func() time.Time

	mu   sync.Mutex
	sets map[string]*jwksEntry // by URL
}

// jwksEntry is one URL's set. Its mutex is held while the set is fetched,
// so concurrent requests for one provider wait for a single fetch.
type jwksEntry struct {
	mu        sync.Mutex
	keys      map[string]any // by kid
	only      any            // the key of a set of exactly one key
	fetched   time.Time      // of keys; zero before the first success
	attempted time.Time      // of the last fetch, successful or not
	err       error          // of the last fetch
}

func newJWKSCache(client *http.Client, now func() time.Time) *jwksCache {
	if client == nil {
		client = &http.Client{Timeout: jwksHTTPTimeout}
	}
	return &jwksCache{client: client, now: now, sets: map[string]*jwksEntry{}}
}

func (c *jwksCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sets = map[string]*jwksEntry{}
}

func (c *jwksCache) entry(url string) *jwksEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.sets[url]
	if e == nil {
		e = &jwksEntry{}
		c.sets[url] = e
	}
	return e
}

// key returns the public key named kid in the set at url ("" kid: the
// set's only key).
func (c *jwksCache) key(ctx context.Context, url, kid string) (any, error) {
	e := c.entry(url)
	e.mu.Lock()
	defer e.mu.Unlock()
	now := c.now()
	fresh := !e.fetched.IsZero() && now.Sub(e.fetched) < jwksCacheExpiration
	if fresh {
		if k := e.lookup(kid); k != nil {
			return k, nil
		}
		// An unknown kid may be a rotated key: fetch again, but not often.
		if now.Sub(e.attempted) < jwksUnknownKIDEvery {
			return nil, missingKey(kid)
		}
	} else if e.err != nil && now.Sub(e.attempted) < jwksFailureBackoff {
		return nil, e.err
	}
	e.attempted = now
	keys, err := c.fetch(ctx, url)
	if err != nil {
		// The set expired or could not be had: no stale keys are used, as
		// in Canton, whose cache evicts them.
		e.keys, e.only, e.fetched, e.err = nil, nil, time.Time{}, err
		return nil, err
	}
	e.keys, e.fetched, e.err = keys, now, nil
	e.only = nil
	if len(keys) == 1 {
		for _, k := range keys {
			e.only = k
		}
	}
	if k := e.lookup(kid); k != nil {
		return k, nil
	}
	return nil, missingKey(kid)
}

func (e *jwksEntry) lookup(kid string) any {
	if kid == "" {
		return e.only
	}
	return e.keys[kid]
}

func missingKey(kid string) error {
	if kid == "" {
		return errors.New("the token names no key (kid) and the JWK set has more than one")
	}
	return fmt.Errorf("the JWK set has no usable key with kid %q", kid)
}

// fetch reads the JWK set at url and returns its RSA and ECDSA public keys
// by kid. Keys that do not parse, or of other types, are left out: a set
// may hold keys for other uses.
func (c *jwksCache) fetch(ctx context.Context, url string) (map[string]any, error) {
	// The fetch serves every request waiting for this set, so the first
	// one's client going away does not end it (nor fail the others).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jwksHTTPTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("JWKS URL %s: %w", url, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch the JWK set: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch the JWK set from %s: HTTP status %d", url, resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the JWK set from %s: %w", url, err)
	}
	if len(raw) > jwksMaxBytes {
		return nil, fmt.Errorf("the JWK set at %s is larger than %d bytes", url, jwksMaxBytes)
	}
	var set jwkset.JWKSMarshal
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("the JWK set at %s is not a JSON JWK set", url)
	}
	keys := map[string]any{}
	for _, m := range set.Keys {
		jwk, err := jwkset.NewJWKFromMarshal(m, jwkset.JWKMarshalOptions{}, jwkset.JWKValidateOptions{})
		if err != nil {
			continue
		}
		switch k := jwk.Key().(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey:
			keys[m.KID] = k
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the JWK set at %s holds no RSA or ECDSA public key", url)
	}
	return keys, nil
}
