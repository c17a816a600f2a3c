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
	// kidFetched is when an unknown kid last made the set be fetched
	// again; the first unknown kid after a fetch may do so at once.
	kidFetched time.Time
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
		if !e.kidFetched.IsZero() && now.Sub(e.kidFetched) < jwksUnknownKIDEvery {
			return nil, missingKey(kid)
		}
		e.kidFetched = now
	} else if e.err != nil && now.Sub(e.attempted) < jwksFailureBackoff {
		return nil, e.err
	}
	if err := c.refresh(ctx, e, url, now); err != nil {
		return nil, err
	}
	if k := e.lookup(kid); k != nil {
		return k, nil
	}
	return nil, missingKey(kid)
}

// load fetches the set at url now, so that a URL that does not serve a JWK
// set is found before the first token.
func (c *jwksCache) load(ctx context.Context, url string) error {
	e := c.entry(url)
	e.mu.Lock()
	defer e.mu.Unlock()
	return c.refresh(ctx, e, url, c.now())
}

// refresh fetches e's set; e.mu is held.
func (c *jwksCache) refresh(ctx context.Context, e *jwksEntry, url string, now time.Time) error {
	e.attempted = now
	keys, err := c.fetch(ctx, url)
	if err != nil {
		// The set expired or could not be had: no stale keys are used, as
		// in Canton, whose cache evicts them.
		e.keys, e.only, e.fetched, e.err = nil, nil, time.Time{}, err
		return err
	}
	e.keys, e.fetched, e.err = keys, now, nil
	e.only = onlyKey(keys)
	return nil
}

// onlyKey is the key of a set of exactly one key, else nil.
func onlyKey(keys map[string]any) any {
	if len(keys) != 1 {
		return nil
	}
	for _, k := range keys {
		return k
	}
	return nil
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
	keys, err := parseJWKSet(raw)
	if err != nil {
		return nil, fmt.Errorf("the JWK set at %s: %w", url, err)
	}
	return keys, nil
}

// parseJWKSet reads a JWK set's RSA and ECDSA public keys by kid. Keys that
// do not parse, or of other types, are left out: a set may hold keys for
// other uses. A set with none is an error.
func parseJWKSet(raw []byte) (map[string]any, error) {
	var set jwkset.JWKSMarshal
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, errors.New("not a JSON JWK set")
	}
	keys := map[string]any{}
	for _, m := range set.Keys {
		switch k := parseJWK(m).(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey:
			keys[m.KID] = k
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("holds no usable RSA or ECDSA public key")
	}
	return keys, nil
}

// parseJWK returns the public key of one JWK, nil when it is not a valid
// key. The JWK library panics on some malformed keys (an EC coordinate
// longer than its curve's size fails in math/big's FillBytes: the corpus of
// FuzzProviderAuthenticate keeps the set that found it), and a JWK set
// comes from outside the node, so such a key is left out like any other
// bad key.
func parseJWK(m jwkset.JWKMarshal) (key any) {
	defer func() {
		if recover() != nil {
			key = nil
		}
	}()
	jwk, err := jwkset.NewJWKFromMarshal(m, jwkset.JWKMarshalOptions{}, jwkset.JWKValidateOptions{})
	if err != nil {
		return nil
	}
	return jwk.Key()
}
