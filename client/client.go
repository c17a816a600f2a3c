// Package client is the HTTP client of Canton's JSON Ledger API v2: one
// method per endpoint, taking and returning the ledgerapi wire types.
//
// Requests are sent with every field of Canton's hand-written Js* request
// types present (docs/json-api.md §1.4): the ledgerapi types write them all, empty
// where unused, because Canton's decoder refuses some fields' absence although
// its OpenAPI document calls them optional.
//
// A non-200 answer is an *APIError holding the decoded JsCantonError (also
// the redacted "NA" form of 401/403/500) or, for bodies that are not one,
// their text (the 400 text/plain of undecodable requests). A request that got
// no answer is a *TransportError.
//
// Retries: a request is sent again, after a backoff, only when both hold:
// the error is retryable (IsRetryable: Canton categories 1, 2, 3, 12 or a
// retryInfo; 502/503/504 without a Canton body; no answer at all) and the
// endpoint is idempotent. Each method's documentation says which it is.
// Reads, prepare, generate-topology, the completion list and granting or
// revoking rights are idempotent; execute, submit, allocation, user creation
// and party updates are not: their callers decide (a fresh submission id per
// attempt, a party update re-read before it is retried). Config.Timeout
// bounds a call with all its attempts.
//
// The retry loop is this package's, not resty's (SetRetryCount and retry
// conditions), for three reasons: resty's Backoff returns ctx.Err() when the
// deadline falls during a wait, so the user would read "context deadline
// exceeded" instead of the node's answer or "connection refused"; it sleeps
// into the deadline instead of giving up when the wait outlasts it; and the
// completion pages read with SetDoNotParseResponse are invisible to its retry
// conditions, whose unread bodies it would leave open between attempts. The
// backoff itself (Backoff) is shared with the completion stream's reconnects.
package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
)

// Defaults of Config fields left at zero.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = 200 * time.Millisecond
	DefaultMaxDelay    = 5 * time.Second
)

// UserAgent is sent with every request unless Config.UserAgent is set.
var UserAgent = "ledger-cli"

// Config is what New needs.
type Config struct {
	// URL is the node's base URL, e.g. https://participant.example:7575
	// (a path prefix is kept: https://host/api → https://host/api/v2/...).
	URL string
	// Tokens yields the bearer token; nil sends no Authorization header.
	Tokens TokenSource
	// UserAgent overrides the User-Agent header.
	UserAgent string
	// Timeout bounds each request, all its attempts included
	// (DefaultTimeout when 0). Long polls of the completion list get their
	// idle timeout on top.
	Timeout time.Duration
	// TLS configures HTTPS (CA certificates, client certificate); nil uses
	// the system roots.
	TLS *tls.Config
	// MaxAttempts is how often an idempotent request is tried in total
	// (DefaultMaxAttempts when 0; 1 disables retries).
	MaxAttempts int
	// BaseDelay and MaxDelay shape the exponential backoff between attempts.
	BaseDelay, MaxDelay time.Duration
	// HTTPClient replaces the default client (its Transport is used as is;
	// TLS is then ignored).
	HTTPClient *http.Client
}

// Client calls one node. It is safe for concurrent use.
type Client struct {
	base        *url.URL
	r           *resty.Client
	hc          *http.Client
	tokens      TokenSource
	ua          string
	timeout     time.Duration
	maxAttempts int
	baseDelay   time.Duration
	maxDelay    time.Duration
	// sleep waits between attempts; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// ErrNoURL is New's error for a Config without a node URL.
var ErrNoURL = errors.New("no node URL")

// New checks cfg and returns a client.
func New(cfg Config) (*Client, error) {
	u, err := ParseNodeURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		if cfg.TLS != nil {
			tr.TLSClientConfig = cfg.TLS.Clone()
		}
		hc = &http.Client{Transport: tr}
	}
	c := &Client{
		base:        u,
		r:           resty.NewWithClient(hc),
		hc:          hc,
		tokens:      cfg.Tokens,
		ua:          cfg.UserAgent,
		timeout:     cfg.Timeout,
		maxAttempts: cfg.MaxAttempts,
		baseDelay:   cfg.BaseDelay,
		maxDelay:    cfg.MaxDelay,
		sleep:       sleepCtx,
	}
	if c.ua == "" {
		c.ua = UserAgent
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.maxAttempts <= 0 {
		c.maxAttempts = DefaultMaxAttempts
	}
	if c.baseDelay <= 0 {
		c.baseDelay = DefaultBaseDelay
	}
	if c.maxDelay <= 0 {
		c.maxDelay = DefaultMaxDelay
	}
	return c, nil
}

// ParseNodeURL checks a node's base URL: http or https, a host, maybe a
// path prefix (kept, without its trailing slash); query and fragment are
// dropped. A URL written without its scheme ("127.0.0.1:7575") is the
// usual mistake and the error says how to write it.
func ParseNodeURL(s string) (*url.URL, error) {
	if s == "" {
		return nil, ErrNoURL
	}
	if !strings.Contains(s, "://") {
		return nil, fmt.Errorf("node URL %q has no scheme: write http://%s (or https://%s)", s, s, s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("node URL %q: %w", s, unwrapURLError(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("node URL %q: must be http://host[:port] or https://host[:port]", s)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// URL returns the node's base URL.
func (c *Client) URL() string { return c.base.String() }

// HTTPClient returns the HTTP client requests go through (for websockets).
func (c *Client) HTTPClient() *http.Client { return c.hc }

// call describes one request.
type call struct {
	method string
	path   string // escaped path below the base URL, "/v2/..."
	query  url.Values
	body   any // marshalled as JSON; nil sends no body
	out    any // decoded from a 200 answer; nil ignores the body
	// decode, when set, decodes a 200 answer instead of out.
	decode func(body []byte) error
	// idempotent requests are retried on retryable errors.
	idempotent bool
	// extraTimeout is added to the per-attempt timeout (long polls).
	extraTimeout time.Duration
	// raw, when set, is sent as an application/octet-stream body instead
	// of body, reporting to progress (if set) the bytes sent so far.
	raw      []byte
	progress func(sent int64)
	// header, when set, receives the headers of a 200 answer.
	header *http.Header
}

// headerSinkKey carries in a context where WithResponseHeader keeps the
// headers of an answer.
type headerSinkKey struct{}

// WithResponseHeader returns a context under which a call of the client
// stores in h the headers of its 200 answer (the last call's, if several
// share the context). A node says some things only in headers, such as
// ledger serve's Ledger-Generic-Model.
func WithResponseHeader(ctx context.Context, h *http.Header) context.Context {
	return context.WithValue(ctx, headerSinkKey{}, h)
}

// do sends a request, retrying it when that is safe and useful.
func (c *Client) do(ctx context.Context, k call) error {
	var body []byte
	if k.body != nil {
		var err error
		if body, err = json.Marshal(k.body); err != nil {
			return fmt.Errorf("%s %s: encoding the request: %w", k.method, k.path, err)
		}
	}
	// The timeout bounds the call with all its retries: a user who says
	// --timeout 2s means two seconds, not four attempts of two.
	ctx, cancel := context.WithTimeout(ctx, c.timeout+k.extraTimeout)
	defer cancel()
	attempts := 1
	if k.idempotent {
		attempts = c.maxAttempts
	}
	var err error
	tried := 0
	for tried < attempts {
		if tried > 0 {
			d := c.backoff(tried, err)
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
				break // the wait would outlast the deadline: report what failed
			}
			if c.sleep(ctx, d) != nil {
				break
			}
		}
		prev := err
		err = c.once(ctx, k, body)
		tried++
		if prev != nil && ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			err = prev // cut short by the deadline: the node's last answer says more
		}
		if err == nil || !retryWorthy(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil && tried > 1 {
		setAttempts(err, tried)
	}
	return err
}

// setAttempts records on the error how often the request was sent.
func setAttempts(err error, n int) {
	var ae *APIError
	var te *TransportError
	switch {
	case errors.As(err, &ae):
		ae.Attempts = n
	case errors.As(err, &te):
		te.Attempts = n
	}
}

// retryWorthy is IsRetryable plus requests that got no answer because the
// connection failed; a TLS or name failure meets the same end each time.
func retryWorthy(err error) bool {
	var te *TransportError
	return IsRetryable(err) || errors.As(err, &te) && !te.Permanent()
}

// backoff is the wait before retry i (1-based).
func (c *Client) backoff(i int, err error) time.Duration {
	return Backoff{Base: c.baseDelay, Max: c.maxDelay}.Delay(i, err)
}

// Backoff is the wait between attempts, of a request here and of a
// reconnecting stream (package completions): exponential from Base,
// capped at Max, with jitter so that clients that failed together do not
// come back together, and at least what the error's retryInfo asks for.
type Backoff struct {
	Base, Max time.Duration
}

// Delay is the wait before retry n (1-based) after err.
func (b Backoff) Delay(n int, err error) time.Duration {
	d := b.Max
	if shift := n - 1; shift < 62 && b.Base <= b.Max>>shift {
		d = b.Base << shift
	}
	d = d/2 + rand.N(d/2+1)
	if r := RetryDelay(err); r > d {
		d = min(r, b.Max)
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// once sends one attempt.
func (c *Client) once(ctx context.Context, k call, body []byte) error {
	req := c.r.R().SetContext(ctx).
		SetHeader("User-Agent", c.ua).
		SetHeader("Accept", "application/json")
	var tok string
	if c.tokens != nil {
		var err error
		if tok, err = c.tokens.Token(ctx); err != nil {
			return err
		}
		if tok != "" {
			req.SetHeader("Authorization", "Bearer "+tok)
		}
	}
	if body != nil {
		req.SetHeader("Content-Type", "application/json").SetBody(body)
	}
	if k.raw != nil {
		req.SetHeader("Content-Type", "application/octet-stream").SetBody(&progressReader{r: bytes.NewReader(k.raw), fn: k.progress})
	}
	if len(k.query) > 0 {
		req.SetQueryParamsFromValues(k.query)
	}
	if k.decode != nil {
		req.SetDoNotParseResponse(true) // read below, into a buffer of the announced size
	}
	resp, err := req.Execute(k.method, c.base.String()+k.path)
	if err != nil {
		return &TransportError{Method: k.method, Path: k.path, Err: unwrapURLError(err)}
	}
	answer := resp.Body()
	if k.decode != nil {
		if answer, err = readAnswer(resp.RawResponse); err != nil {
			return &TransportError{Method: k.method, Path: k.path, Err: unwrapURLError(err)}
		}
	}
	if resp.StatusCode() != http.StatusOK {
		ae := newAPIError(k.method, k.path, resp.StatusCode(), resp.Header().Get("Content-Type"), answer)
		if ae.StatusCode == http.StatusUnauthorized {
			ae.Token = inspectToken(tok)
		}
		return ae
	}
	if k.header != nil {
		*k.header = resp.Header()
	}
	if h, ok := ctx.Value(headerSinkKey{}).(*http.Header); ok {
		*h = resp.Header()
	}
	decode := k.decode
	if decode == nil {
		if k.out == nil {
			return nil
		}
		decode = func(body []byte) error { return decodeJSON(body, k.out) }
	}
	if err := decode(answer); err != nil {
		return fmt.Errorf("%s %s: the node's answer does not decode: %w", k.method, k.path, err)
	}
	return nil
}

// readAnswer reads and closes a response body. A page of completions is
// megabytes: growing a buffer from nothing costs more than the decoding, so
// the buffer starts at the Content-Length (up to maxPresize).
func readAnswer(r *http.Response) ([]byte, error) {
	if r == nil || r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	const maxPresize = 64 << 20
	buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0), maxPresize)+bytes.MinRead))
	_, err := buf.ReadFrom(r.Body)
	return buf.Bytes(), err
}

// decodeJSON decodes the first JSON value of body into out.
func decodeJSON(body []byte, out any) error {
	return json.NewDecoder(bytes.NewReader(body)).Decode(out)
}

// unwrapURLError drops net/url's repetition of method and URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// pathEscape escapes one path segment (party ids contain "::").
func pathEscape(s string) string { return url.PathEscape(s) }
