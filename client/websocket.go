package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// Websocket subprotocols of the JSON API: the token travels as
// "jwt.token.<JWT>" next to "daml.ws.auth".
const (
	SubprotocolAuth   = "daml.ws.auth"
	SubprotocolPrefix = "jwt.token."
)

// maxFrame bounds one websocket message.
const maxFrame = 16 << 20

// ErrNoWebsocket is wrapped by StreamCompletions when the node answers the
// upgrade with a plain HTTP status (it offers no websocket there): callers
// fall back to the completion list.
var ErrNoWebsocket = errors.New("the node offers no websocket for completions")

// CompletionStream is an open websocket of completions.
type CompletionStream struct {
	conn *websocket.Conn
}

// StreamCompletions opens the websocket GET /v2/commands/completions and
// sends req as its one request frame. The stream has no idle cutoff and no
// element limit.
func (c *Client) StreamCompletions(ctx context.Context, req ledgerapi.CompletionStreamRequest) (*CompletionStream, error) {
	conn, err := c.dialStream(ctx, "/v2/commands/completions", req, ErrNoWebsocket)
	if err != nil {
		return nil, err
	}
	return &CompletionStream{conn: conn}, nil
}

// dialStream opens the websocket GET path with the token in the
// subprotocols and sends req as its one request frame. A node answering the
// upgrade with a plain HTTP status and no Canton error gets noWebsocket
// wrapped, so callers can fall back to the list form.
func (c *Client) dialStream(ctx context.Context, path string, req any, noWebsocket error) (*websocket.Conn, error) {
	u := *c.base
	switch u.Scheme {
	case "https":
		u.Scheme = "wss"
	default:
		u.Scheme = "ws"
	}
	u.Path += path
	protos := []string{SubprotocolAuth}
	if c.tokens != nil {
		tok, err := c.tokens.Token(ctx)
		if err != nil {
			return nil, err
		}
		if tok != "" {
			protos = append(protos, SubprotocolPrefix+tok)
		}
	}
	dctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	conn, resp, err := websocket.Dial(dctx, u.String(), &websocket.DialOptions{
		HTTPClient:   c.hc,
		HTTPHeader:   http.Header{"User-Agent": {c.ua}},
		Subprotocols: protos,
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			}
			ae := newAPIError(http.MethodGet, path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			switch resp.StatusCode {
			case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusBadRequest, http.StatusUpgradeRequired, http.StatusNotImplemented:
				if ae.Canton == nil {
					return nil, fmt.Errorf("%w: %w", noWebsocket, ae)
				}
			}
			return nil, ae
		}
		return nil, &TransportError{Method: http.MethodGet, Path: path, Err: err}
	}
	conn.SetReadLimit(maxFrame)
	frame, err := json.Marshal(req)
	if err != nil {
		conn.CloseNow()
		return nil, err
	}
	if err := conn.Write(ctx, websocket.MessageText, frame); err != nil {
		conn.CloseNow()
		return nil, &TransportError{Method: http.MethodGet, Path: path, Err: err}
	}
	return conn, nil
}

// Next returns the next element. A JsCantonError frame (after which the node
// ends the stream) is returned as an *APIError with status 0. io.EOF means
// the node closed the stream normally.
func (s *CompletionStream) Next(ctx context.Context) (ledgerapi.CompletionStreamResponse, error) {
	var el ledgerapi.CompletionStreamResponse
	_, data, err := s.conn.Read(ctx)
	if err != nil {
		if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
			return el, io.EOF
		}
		return el, &TransportError{Method: http.MethodGet, Path: "/v2/commands/completions", Err: err}
	}
	data = bytes.TrimSpace(data)
	if !bytes.HasPrefix(data, []byte(`{"completionResponse":`)) && isErrorFrame(data) {
		ce, derr := ledgerapi.DecodeError(data)
		if derr == nil {
			return el, &APIError{Method: http.MethodGet, Path: "/v2/commands/completions", StatusCode: ce.HTTPStatus(), Canton: ce}
		}
	}
	el, err = ledgerapi.DecodeCompletionResponse(data)
	if err != nil {
		return el, fmt.Errorf("completions websocket: a frame does not decode: %w", err)
	}
	return el, nil
}

// isErrorFrame tells an error body from a stream element: elements have the
// one key "completionResponse" (the node writes it first, which Next checks
// before calling this).
func isErrorFrame(data []byte) bool {
	var keys map[string]json.RawMessage
	if json.Unmarshal(data, &keys) != nil {
		return false
	}
	_, el := keys["completionResponse"]
	_, code := keys["code"]
	return code && !el
}

// Close closes the stream at once. (A closing handshake would wait up to
// five seconds for a node that is not reading.)
func (s *CompletionStream) Close() error {
	return s.conn.CloseNow()
}
