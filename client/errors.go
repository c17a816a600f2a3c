package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// maxErrorText bounds how much of a non-JSON error body an APIError keeps.
const maxErrorText = 2048

// APIError is a non-200 answer of the node.
//
// Canton answers almost every failure with a JsCantonError body; Canton holds
// it, with the error id in Canton.Code. Two kinds of answer carry none:
// requests the node could not decode (400 text/plain, "Invalid value for:
// body (…)"), and answers from something in front of the node (a proxy's 502,
// an unknown route's 404). Their text is in Text.
//
// Errors of the security-sensitive categories reach clients redacted: code
// "NA", category -1, no context. Redacted reports them; the status (401, 403,
// 500) and Canton.GRPCCodeValue still tell what kind of failure it was.
type APIError struct {
	Method string
	Path   string
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Canton is the decoded error body; nil when the body is not one.
	Canton *ledgerapi.JsCantonError
	// Text is the body of an answer that is not a Canton error (trimmed,
	// at most 2 KiB).
	Text string
	// ContentType is the answer's media type, e.g. "text/plain".
	ContentType string
	// Attempts is how often the request was sent, when more than once.
	Attempts int
	// Token describes the bearer token of a request answered 401; nil
	// otherwise.
	Token *TokenInfo
}

// TokenInfo is what the client knows of the token a refused request
// carried, for saying why it was refused: whether there was one at all,
// and when it expires if it is a JWT (read without verifying it: the
// node verifies).
type TokenInfo struct {
	Sent bool
	// Expiry is the JWT's exp; zero when absent or not a JWT.
	Expiry time.Time
}

// Error names the request, the status and what the node said.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: HTTP %d", e.Method, e.Path, e.StatusCode)
	switch {
	case e.Canton != nil && e.Canton.IsRedacted():
		b.WriteString(": ")
		b.WriteString(redactedMeaning(e.StatusCode))
		if id := e.Canton.CorrelationID; id != nil && *id != "" {
			fmt.Fprintf(&b, " (the node withholds the details; ask its operator about correlation id %s)", *id)
		} else {
			b.WriteString(" (the node withholds the details)")
		}
	case e.Canton != nil:
		fmt.Fprintf(&b, ": %s: %s", e.Canton.Code, e.Canton.Cause)
		if id := e.Canton.CorrelationID; id != nil && *id != "" && e.StatusCode >= 500 {
			fmt.Fprintf(&b, " (correlation id %s: quote it to the node's operator)", *id)
		}
	case e.StatusCode == http.StatusBadRequest && e.Text != "":
		fmt.Fprintf(&b, ": the node could not decode the request: %s", e.Text)
	case e.Text != "":
		fmt.Fprintf(&b, ": %s", e.Text)
	default:
		fmt.Fprintf(&b, " %s", http.StatusText(e.StatusCode))
	}
	writeAttempts(&b, e.Attempts)
	return b.String()
}

func writeAttempts(b *strings.Builder, n int) {
	if n > 1 {
		fmt.Fprintf(b, " (sent %d times)", n)
	}
}

// Unwrap exposes the Canton error, so errors.Is(err, ledgerapi.CodeX.Err())
// matches by error id.
func (e *APIError) Unwrap() error {
	if e.Canton == nil {
		return nil
	}
	return e.Canton
}

// Redacted reports whether the node withheld the error's details.
func (e *APIError) Redacted() bool { return e.Canton != nil && e.Canton.IsRedacted() }

// redactedMeaning says in words what a redacted error of a status means.
func redactedMeaning(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "not authenticated: the token is missing, expired or not accepted by this node"
	case http.StatusForbidden:
		return "permission denied: the user lacks a right this request needs, is unknown or deactivated, or the token is for another participant"
	case http.StatusInternalServerError:
		return "internal error on the node"
	case http.StatusNotImplemented:
		return "the node does not support this operation"
	}
	return "security-sensitive error"
}

// newAPIError builds the error of an answer with a non-200 status.
func newAPIError(method, path string, status int, contentType string, body []byte) *APIError {
	e := &APIError{Method: method, Path: path, StatusCode: status}
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		e.ContentType = mt
	}
	// Decode whatever the media type says: a proxy may relabel a Canton
	// body, and Canton's own text/plain bodies are not JSON.
	if ce, err := ledgerapi.DecodeError(body); err == nil {
		e.Canton = ce
		return e
	}
	text := strings.TrimSpace(string(body))
	if len(text) > maxErrorText {
		text = text[:maxErrorText]
		for !utf8.ValidString(text) {
			text = text[:len(text)-1]
		}
		text += "…"
	}
	e.Text = text
	return e
}

// ErrorID returns the Canton error id an error carries ("DUPLICATE_COMMAND",
// "NA" for a redacted error), or "" when it carries none.
func ErrorID(err error) string {
	var ae *APIError
	if errors.As(err, &ae) && ae.Canton != nil {
		return ae.Canton.Code
	}
	var ce *ledgerapi.JsCantonError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

// StatusCode returns the HTTP status of the node's answer an error carries,
// or 0 when it carries none (a network failure, an invalid request).
func StatusCode(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// CantonError returns the Canton error body an error carries, or nil.
func CantonError(err error) *ledgerapi.JsCantonError {
	var ce *ledgerapi.JsCantonError
	if errors.As(err, &ce) {
		return ce
	}
	return nil
}

// retryableCategories are Canton's categories whose errors may go away when
// the same request is sent again: 1 TransientServerFailure, 2
// ContentionOnSharedResources, 3 DeadlineExceededRequestStateUnknown, 12
// InvalidGivenCurrentSystemStateSeekAfterEnd.
var retryableCategories = map[int]bool{1: true, 2: true, 3: true, 12: true}

// IsRetryable reports whether sending the same request again may succeed:
// a Canton error of a retryable category (1, 2, 3, 12) or with a retryInfo,
// or a 502/503/504 from something in front of the node that sent no Canton
// error. The list-size error (413, category 2) is not: the same request
// meets the same limit. Whether a request may be sent twice at all is a separate question,
// answered per endpoint by the client.
func IsRetryable(err error) bool {
	if ce := CantonError(err); ce != nil {
		if ce.Code == ledgerapi.CodeJSONAPIMaximumListElementsReached.ID {
			return false // the same request meets the same limit: ask for fewer
		}
		return retryableCategories[ce.ErrorCategory] || (ce.RetryInfo != nil && *ce.RetryInfo != "")
	}
	var ae *APIError
	if errors.As(err, &ae) {
		switch ae.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
	}
	return false
}

// RetryDelay is the wait an error's retryInfo asks for (0 if none).
func RetryDelay(err error) time.Duration {
	if ce := CantonError(err); ce != nil {
		return ce.RetryDelay()
	}
	return 0
}

// TransportError is a request that got no HTTP answer: connection refused,
// TLS failure, timeout.
type TransportError struct {
	Method string
	Path   string
	Err    error
	// Attempts is how often the request was sent, when more than once.
	Attempts int
}

func (e *TransportError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %v", e.Method, e.Path, e.Err)
	writeAttempts(&b, e.Attempts)
	return b.String()
}

func (e *TransportError) Unwrap() error { return e.Err }

// Permanent reports a failure that sending the request again cannot cure:
// https to a plain-HTTP node, a certificate this machine does not accept,
// a host name that does not resolve. A refused or broken connection, or a
// timeout, may be a node that is starting or busy, and is not permanent.
func (e *TransportError) Permanent() bool {
	var dns *net.DNSError
	var record tls.RecordHeaderError
	var verify *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(e.Err, &dns):
		return dns.IsNotFound
	case errors.As(e.Err, &record), errors.As(e.Err, &verify), errors.As(e.Err, &unknownCA),
		errors.As(e.Err, &hostname), errors.As(e.Err, &invalid):
		return true
	}
	// net/http says so in words only (transport.go).
	return strings.Contains(e.Err.Error(), "server gave HTTP response to HTTPS client")
}
