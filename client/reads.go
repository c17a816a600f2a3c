package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// ErrNoStream is wrapped by OpenStream when the node offers no websocket at
// the path.
var ErrNoStream = errors.New("the node offers no websocket there")

// ListOptions are the query parameters of the list forms of the streams
// (active contracts, updates): see CompletionsOptions.
type ListOptions = CompletionsOptions

// query is the list's query parameters and how long the node may wait.
func (o CompletionsOptions) query() (url.Values, time.Duration) {
	q := url.Values{}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.IdleTimeout > 0 {
		q.Set("stream_idle_timeout_ms", strconv.FormatInt(o.IdleTimeout.Milliseconds(), 10))
	}
	idle := o.IdleTimeout
	if idle <= 0 {
		idle = time.Second
	}
	return q, idle
}

// ActiveContracts calls POST /v2/state/active-contracts: the list form of
// the snapshot. Idempotent.
func (c *Client) ActiveContracts(ctx context.Context, req ledgerapi.GetActiveContractsRequest, o ListOptions) ([]ledgerapi.JsGetActiveContractsResponse, error) {
	q, idle := o.query()
	var out []ledgerapi.JsGetActiveContractsResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/state/active-contracts", query: q, body: req, out: &out,
		idempotent: true, extraTimeout: 2 * idle})
	return out, err
}

// ActiveContractsPage calls POST /v2/state/active-contracts-page. Idempotent.
func (c *Client) ActiveContractsPage(ctx context.Context, req ledgerapi.GetActiveContractsPageRequest) (*ledgerapi.JsGetActiveContractsPageResponse, error) {
	var out ledgerapi.JsGetActiveContractsPageResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/state/active-contracts-page", body: req, out: &out, idempotent: true})
}

// ActiveContractsPages reads a snapshot of the active contracts page by
// page and hands each page to fn. Every request is req with the previous
// page's token: the token is only good for the request it came from (its
// checksum covers activeAtOffset, present or absent, and the event format)
// and carries the snapshot's offset itself, so a first request without
// activeAtOffset must stay without it. It stops after the page without a
// next token, at fn's error, or when the node hands back the token it was
// given (which would never end).
func (c *Client) ActiveContractsPages(ctx context.Context, req ledgerapi.GetActiveContractsPageRequest,
	fn func(*ledgerapi.JsGetActiveContractsPageResponse) error) error {
	for {
		page, err := c.ActiveContractsPage(ctx, req)
		if err != nil {
			return err
		}
		if err := fn(page); err != nil {
			return err
		}
		switch page.NextPageToken {
		case "":
			return nil
		case req.PageToken:
			return fmt.Errorf("active contracts page: the node answered with the page token it was sent (%q), which would never end", req.PageToken)
		}
		req.PageToken = page.NextPageToken
	}
}

// Updates calls POST /v2/updates: the list form of the update stream.
// Idempotent.
func (c *Client) Updates(ctx context.Context, req ledgerapi.GetUpdatesRequest, o ListOptions) ([]ledgerapi.JsGetUpdatesResponse, error) {
	q, idle := o.query()
	var out []ledgerapi.JsGetUpdatesResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/updates", query: q, body: req, out: &out,
		idempotent: true, extraTimeout: 2 * idle})
	return out, err
}

// UpdatesPage calls POST /v2/updates/get-updates-page. Idempotent.
func (c *Client) UpdatesPage(ctx context.Context, req ledgerapi.GetUpdatesPageRequest) (*ledgerapi.JsGetUpdatesPageResponse, error) {
	var out ledgerapi.JsGetUpdatesPageResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/updates/get-updates-page", body: req, out: &out, idempotent: true})
}

// UpdateByID calls POST /v2/updates/update-by-id. Idempotent.
func (c *Client) UpdateByID(ctx context.Context, req ledgerapi.GetUpdateByIDRequest) (*ledgerapi.JsUpdate, error) {
	var out ledgerapi.JsGetUpdateResponse
	return &out.Update, c.do(ctx, call{method: http.MethodPost, path: "/v2/updates/update-by-id", body: req, out: &out, idempotent: true})
}

// UpdateByOffset calls POST /v2/updates/update-by-offset. Idempotent.
func (c *Client) UpdateByOffset(ctx context.Context, req ledgerapi.GetUpdateByOffsetRequest) (*ledgerapi.JsUpdate, error) {
	var out ledgerapi.JsGetUpdateResponse
	return &out.Update, c.do(ctx, call{method: http.MethodPost, path: "/v2/updates/update-by-offset", body: req, out: &out, idempotent: true})
}

// EventsByContractID calls POST /v2/events/events-by-contract-id. Idempotent.
func (c *Client) EventsByContractID(ctx context.Context, req ledgerapi.GetEventsByContractIDRequest) (*ledgerapi.JsGetEventsByContractIDResponse, error) {
	var out ledgerapi.JsGetEventsByContractIDResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/events/events-by-contract-id", body: req, out: &out, idempotent: true})
}

// LatestPrunedOffsets calls GET /v2/state/latest-pruned-offsets. Idempotent.
func (c *Client) LatestPrunedOffsets(ctx context.Context) (*ledgerapi.GetLatestPrunedOffsetsResponse, error) {
	var out ledgerapi.GetLatestPrunedOffsetsResponse
	return &out, c.do(ctx, call{method: http.MethodGet, path: "/v2/state/latest-pruned-offsets", out: &out, idempotent: true})
}

// PrunePath is `ledger serve`'s pruning endpoint (not part of Canton's JSON
// API: Canton prunes through its admin API).
const PrunePath = "/admin/prune"

// Prune calls `ledger serve`'s POST /admin/prune and waits for the prune to
// finish (timeout: how long that may take; the client's own per-request
// timeout still applies on top). Idempotent: pruning twice to the same
// offset prunes nothing more.
func (c *Client) Prune(ctx context.Context, req ledgerapi.PruneRequest, timeout time.Duration) (*ledgerapi.PruneResponse, error) {
	var out ledgerapi.PruneResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: PrunePath, body: req, out: &out, idempotent: true, extraTimeout: timeout})
}

// Stream is an open websocket of one of the node's streams (active
// contracts, updates): frames in order, each one element.
type Stream struct {
	conn *websocket.Conn
	path string
	buf  bytes.Buffer // the frame being decoded, reused
	dec  ledgerapi.StreamDecoder
}

// OpenStream opens the websocket GET path (e.g. "/v2/updates") and sends
// req as its request frame.
func (c *Client) OpenStream(ctx context.Context, path string, req any) (*Stream, error) {
	conn, err := c.dialStream(ctx, path, req, ErrNoStream)
	if err != nil {
		return nil, err
	}
	return &Stream{conn: conn, path: path}, nil
}

// Next decodes the next element into out. A JsCantonError frame is
// returned as an *APIError with status 0; io.EOF means the node ended the
// stream normally (a finite stream, such as the active contract set).
func (s *Stream) Next(ctx context.Context, out any) error {
	_, r, err := s.conn.Reader(ctx)
	if err == nil {
		s.buf.Reset()
		_, err = s.buf.ReadFrom(r)
	}
	if err != nil {
		if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
			return io.EOF
		}
		return &TransportError{Method: http.MethodGet, Path: s.path, Err: err}
	}
	data := bytes.TrimSpace(s.buf.Bytes())
	if bytes.HasPrefix(data, []byte(`{"code":`)) && isErrorFrame(data) {
		if ce, derr := ledgerapi.DecodeError(data); derr == nil {
			return &APIError{Method: http.MethodGet, Path: s.path, StatusCode: ce.HTTPStatus(), Canton: ce}
		}
	}
	switch o := out.(type) { // the node's elements decode in one pass
	case *ledgerapi.JsGetUpdatesResponse:
		*o, err = s.dec.Update(data)
	case *ledgerapi.JsGetActiveContractsResponse:
		*o, err = s.dec.ActiveContract(data)
	default:
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		return fmt.Errorf("%s websocket: a frame does not decode: %w", s.path, err)
	}
	return nil
}

// Close closes the stream at once.
func (s *Stream) Close() error { return s.conn.CloseNow() }
