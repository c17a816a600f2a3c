package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/server/auth"
)

// internalCause is all a client learns of an internal error.
const internalCause = "An internal error occurred. The node's log has the details under this correlation id."

var errPanic = errors.New("handler panicked")

// DecodeError is a request body or query parameter that cannot be decoded.
// Canton's tapir layer answers these with 400 text/plain, not an error body.
type DecodeError struct {
	What   string // "body" or "query parameter pageSize"
	Detail string // may be empty
}

func (e *DecodeError) Error() string {
	if e.Detail == "" {
		return "Invalid value for: " + e.What
	}
	return "Invalid value for: " + e.What + " (" + e.Detail + ")"
}

// authFailure is a request whose token or user does not pass. tokenResolution
// marks failures of resolving the token to an active user, for which Canton's
// JSON layer adds context "ledger_api_error": "invalid token".
type authFailure struct {
	code            ledgerapi.ErrorCode // CodeUnauthenticated or CodePermissionDenied
	reason          string              // for the log only
	tokenResolution bool
	// err, when set, is the error to answer instead (a failure that Canton
	// does not redact).
	err *ledgerapi.JsCantonError
}

func (e *authFailure) Error() string { return e.code.ID + ": " + e.reason }

// writeError is the one place an error becomes a response: Canton's error body
// and status, 400 text/plain for decoding failures, 413 for an oversized
// body. The unredacted error is logged with the request's correlation id.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	req := requestOf(r)
	corr, trace := "", ""
	if req != nil {
		corr, trace = req.CorrelationID, req.TraceID
	}
	log := s.Log.With("method", r.Method, "path", r.URL.Path, "correlationId", corr)

	var de *DecodeError
	if errors.As(err, &de) {
		log.Info("request not decodable", "error", de.Error())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, de.Error())
		return
	}

	var (
		e        *ledgerapi.JsCantonError
		rf       *refusal
		af       *authFailure
		ae       *auth.Error
		tooLarge *http.MaxBytesError
		status   int
		redact   = true
	)
	switch {
	case errors.As(err, &tooLarge):
		e = ledgerapi.Errorf(ledgerapi.CodeInvalidArgument,
			"The request body exceeds the limit of %d bytes.", tooLarge.Limit)
		status = http.StatusRequestEntityTooLarge
	case errors.As(err, &rf):
		e, status, redact = rf.err, rf.status, false
	case errors.As(err, &e):
	case errors.As(err, &af) && af.err != nil:
		e = af.err
	case errors.As(err, &af):
		e = ledgerapi.NewError(af.code, af.reason, nil)
	case errors.As(err, &ae):
		e = authError(ae)
	case errors.Is(err, ledger.ErrClosed):
		e = ledgerapi.Errorf(ledgerapi.CodeServiceNotRunning, "The node is shutting down.")
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client went away; nobody reads the answer.
		log.Debug("request cancelled by the client")
		return
	default:
		log.Error("internal error", "error", err.Error())
		e = ledgerapi.NewError(ledgerapi.CodeLedgerAPIInternalError, internalCause, nil)
		redact = false // Canton shows LEDGER_API_INTERNAL_ERROR as such
	}
	if e.CorrelationID == nil {
		e = e.WithCorrelationID(corr)
	}
	if trace != "" {
		e = e.WithTraceID(trace)
	}
	out := e
	if redact {
		out = ledgerapi.Redacted(e)
	}
	out = out.WithDefiniteAnswer()
	if af != nil && af.tokenResolution {
		// Canton's JSON layer marks a failure of its own token resolution
		// (Endpoints.validateJwtToken), on top of what the error says.
		if out.IsRedacted() {
			out.Context = ledgerapi.Map[string]{}
		}
		out.Context["ledger_api_error"] = "invalid token"
	}
	if status == 0 {
		status = e.HTTPStatus()
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	log.Log(r.Context(), level, "request failed", "status", status, "code", e.Code, "cause", e.Cause)
	writeJSON(w, status, out)
}

// authError maps an auth failure to the Canton error it stands for.
func authError(ae *auth.Error) *ledgerapi.JsCantonError {
	switch ae.Kind {
	case auth.PermissionDenied:
		return ledgerapi.NewError(ledgerapi.CodePermissionDenied, ae.Reason, nil)
	case auth.InvalidToken:
		return ledgerapi.NewError(ledgerapi.CodeInvalidToken,
			"The provided authorization token is not sufficient to authorize the request: missing a user-id (none in the request, none in the token)", nil)
	}
	return ledgerapi.NewError(ledgerapi.CodeUnauthenticated, ae.Reason, nil)
}

// decodeBody reads the request body as JSON into v (the guard has checked
// its Content-Type). Malformed JSON, a body that is not an object and an
// empty body are DecodeErrors; an oversized body is the *http.MaxBytesError
// writeError answers with 413. Malformed UTF-8 and lone surrogate escapes
// in strings are read as Canton reads them (jsonstrings.go).
func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return mbe
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return &DecodeError{What: "body", Detail: "the body did not arrive within the node's body read timeout"}
		}
		return &DecodeError{What: "body", Detail: "reading the body failed: " + err.Error()}
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return &DecodeError{What: "body", Detail: "the body is empty; a JSON object is required"}
	}
	if b[0] != '{' {
		return &DecodeError{What: "body", Detail: "expected a JSON object"}
	}
	if err := json.Unmarshal(loneSurrogates(b), v); err != nil {
		return &DecodeError{What: "body", Detail: jsonErrorText(err)}
	}
	return nil
}

// jsonErrorText words a decoding error for the client without Go type names.
func jsonErrorText(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, se.Error())
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("%s: expected %s, got JSON %s", field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return "a number"
}

// queryInt reads an optional non-negative integer query parameter (0 when
// absent). A non-integer is a DecodeError, as in Canton.
func queryInt(r *http.Request, name string) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, &DecodeError{What: "query parameter " + name}
	}
	return int(n), nil
}

// traceID returns the trace id of a valid W3C traceparent header
// ("00-<32 hex>-<16 hex>-<2 hex>"), or a new random one.
func traceID(r *http.Request) string {
	parts := strings.Split(strings.TrimSpace(r.Header.Get("traceparent")), "-")
	if len(parts) == 4 && len(parts[0]) == 2 && len(parts[1]) == 32 && len(parts[2]) == 16 && len(parts[3]) == 2 &&
		isLowerHex(parts[1]) && parts[1] != strings.Repeat("0", 32) && parts[0] != "ff" {
		return parts[1]
	}
	return newTraceID()
}

func isLowerHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func newTraceID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newID returns a random 16-hex-digit request id.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// fieldReason is the reason part of a ledgerapi identifier check.
func fieldReason(err error) string {
	var fe *ledgerapi.FieldError
	if errors.As(err, &fe) {
		return fmt.Sprintf("%q %s", fe.Value, fe.Reason)
	}
	return err.Error()
}

// permissionDenied is the 403 of a caller without the right; reason is logged.
func permissionDenied(format string, args ...any) error {
	return &authFailure{code: ledgerapi.CodePermissionDenied, reason: fmt.Sprintf(format, args...)}
}
