package ledgerapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// gRPC status codes (the numbers travel in grpcCodeValue and JsStatus.code).
const (
	GRPCOK                 = 0
	GRPCCancelled          = 1
	GRPCUnknown            = 2
	GRPCInvalidArgument    = 3
	GRPCDeadlineExceeded   = 4
	GRPCNotFound           = 5
	GRPCAlreadyExists      = 6
	GRPCPermissionDenied   = 7
	GRPCResourceExhausted  = 8
	GRPCFailedPrecondition = 9
	GRPCAborted            = 10
	GRPCOutOfRange         = 11
	GRPCUnimplemented      = 12
	GRPCInternal           = 13
	GRPCUnavailable        = 14
	GRPCDataLoss           = 15
	GRPCUnauthenticated    = 16
)

// HTTPStatusForGRPC maps a gRPC code to the HTTP status the JSON API answers
// with (499 for CANCELLED, as Canton does; 500 for unknown codes). The
// statuses are written as numbers so that the wire vocabulary does not pull
// net/http into the packages that use it without serving HTTP (the node).
func HTTPStatusForGRPC(code int) int {
	switch code {
	case GRPCOK:
		return 200 // OK
	case GRPCInvalidArgument, GRPCFailedPrecondition, GRPCOutOfRange:
		return 400 // Bad Request
	case GRPCUnauthenticated:
		return 401 // Unauthorized
	case GRPCPermissionDenied:
		return 403 // Forbidden
	case GRPCNotFound:
		return 404 // Not Found
	case GRPCAlreadyExists, GRPCAborted:
		return 409 // Conflict
	case GRPCResourceExhausted:
		return 429 // Too Many Requests
	case GRPCCancelled:
		return 499 // Client Closed Request (nginx)
	case GRPCUnimplemented:
		return 501 // Not Implemented
	case GRPCUnavailable:
		return 503 // Service Unavailable
	case GRPCDeadlineExceeded:
		return 504 // Gateway Timeout
	}
	return 500 // Internal Server Error
}

// RetryAfterText is the retryInfo Canton gives retryable categories.
const RetryAfterText = "1 second"

// ErrorCategory is one of Canton's error categories. GRPCCode is -1 for the
// category that has none (13).
type ErrorCategory struct {
	ID         int
	Name       string
	GRPCCode   int
	HTTPStatus int
	Retryable  bool // retryInfo is RetryAfterText
	Redacted   bool // details are hidden from clients (code "NA")
}

// ErrorCategories is Canton's category table, indexed by ID (entry 0 is
// unused). Category 5 is SecurityAlert (redacted); Canton also has an
// UnredactedSecurityAlert with the same number, which we do not distinguish.
var ErrorCategories = [...]ErrorCategory{
	{},
	{1, "TransientServerFailure", GRPCUnavailable, 503, true, false},
	{2, "ContentionOnSharedResources", GRPCAborted, 409, true, false},
	{3, "DeadlineExceededRequestStateUnknown", GRPCDeadlineExceeded, 504, true, false},
	{4, "SystemInternalAssumptionViolated", GRPCInternal, 500, false, true},
	{5, "SecurityAlert", GRPCInvalidArgument, 400, false, true},
	{6, "AuthInterceptorInvalidAuthenticationCredentials", GRPCUnauthenticated, 401, false, true},
	{7, "InsufficientPermission", GRPCPermissionDenied, 403, false, true},
	{8, "InvalidIndependentOfSystemState", GRPCInvalidArgument, 400, false, false},
	{9, "InvalidGivenCurrentSystemStateOther", GRPCFailedPrecondition, 400, false, false},
	{10, "InvalidGivenCurrentSystemStateResourceExists", GRPCAlreadyExists, 409, false, false},
	{11, "InvalidGivenCurrentSystemStateResourceMissing", GRPCNotFound, 404, false, false},
	{12, "InvalidGivenCurrentSystemStateSeekAfterEnd", GRPCOutOfRange, 400, true, false},
	{13, "BackgroundProcessDegradationWarning", -1, 500, false, false},
	{14, "InternalUnsupportedOperation", GRPCUnimplemented, 501, false, true},
}

// LookupCategory returns the category with the given id.
func LookupCategory(id int) (ErrorCategory, bool) {
	if id < 1 || id >= len(ErrorCategories) {
		return ErrorCategory{}, false
	}
	return ErrorCategories[id], true
}

// ErrorCode is a Canton error code id with its category.
type ErrorCode struct {
	ID       string
	Category int
}

// Error codes a client or our server meets (docs/json-api.md §3.5).
var (
	CodeInvalidArgument                   = ErrorCode{"INVALID_ARGUMENT", 8}
	CodeInvalidField                      = ErrorCode{"INVALID_FIELD", 8}
	CodeMissingField                      = ErrorCode{"MISSING_FIELD", 8}
	CodeInvalidToken                      = ErrorCode{"INVALID_TOKEN", 8}
	CodeUnauthenticated                   = ErrorCode{"UNAUTHENTICATED", 6}
	CodePermissionDenied                  = ErrorCode{"PERMISSION_DENIED", 7}
	CodeAccessTokenExpired                = ErrorCode{"ACCESS_TOKEN_EXPIRED", 2}
	CodeStaleStreamAuthorization          = ErrorCode{"STALE_STREAM_AUTHORIZATION", 2}
	CodeDuplicateCommand                  = ErrorCode{"DUPLICATE_COMMAND", 10}
	CodeSubmissionAlreadyInFlight         = ErrorCode{"SUBMISSION_ALREADY_IN_FLIGHT", 2}
	CodeRequestAlreadyInFlight            = ErrorCode{"REQUEST_ALREADY_IN_FLIGHT", 2}
	CodeInvalidDeduplicationPeriod        = ErrorCode{"INVALID_DEDUPLICATION_PERIOD", 9}
	CodeNegativeOffset                    = ErrorCode{"NEGATIVE_OFFSET", 8}
	CodeNonPositiveOffset                 = ErrorCode{"NON_POSITIVE_OFFSET", 8}
	CodeOffsetAfterLedgerEnd              = ErrorCode{"OFFSET_AFTER_LEDGER_END", 12}
	CodeOffsetOutOfRange                  = ErrorCode{"OFFSET_OUT_OF_RANGE", 9}
	CodeParticipantPrunedDataAccessed     = ErrorCode{"PARTICIPANT_PRUNED_DATA_ACCESSED", 9}
	CodePartyNotFound                     = ErrorCode{"PARTY_NOT_FOUND", 11}
	CodeConcurrentPartyDetailsUpdate      = ErrorCode{"CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED", 2}
	CodeInvalidPartyDetailsUpdateRequest  = ErrorCode{"INVALID_PARTY_DETAILS_UPDATE_REQUEST", 8}
	CodeMaxPartyDetailsAnnotationsSize    = ErrorCode{"MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED", 9}
	CodeUserNotFound                      = ErrorCode{"USER_NOT_FOUND", 11}
	CodeUserAlreadyExists                 = ErrorCode{"USER_ALREADY_EXISTS", 10}
	CodeConcurrentUserUpdate              = ErrorCode{"CONCURRENT_USER_UPDATE_DETECTED", 2}
	CodeInvalidUserUpdateRequest          = ErrorCode{"INVALID_USER_UPDATE_REQUEST", 8}
	CodeTooManyUserRights                 = ErrorCode{"TOO_MANY_USER_RIGHTS", 9}
	CodeMaxUserAnnotationsSize            = ErrorCode{"MAX_USER_ANNOTATIONS_SIZE_EXCEEDED", 9}
	CodeIDPConfigNotFound                 = ErrorCode{"IDP_CONFIG_NOT_FOUND", 11}
	CodeContractNotFound                  = ErrorCode{"CONTRACT_NOT_FOUND", 11}
	CodeContractNotActive                 = ErrorCode{"CONTRACT_NOT_ACTIVE", 11}
	CodePackageNotFound                   = ErrorCode{"PACKAGE_NOT_FOUND", 11}
	CodeCommandPreprocessingFailed        = ErrorCode{"COMMAND_PREPROCESSING_FAILED", 8}
	CodeDamlInterpretationError           = ErrorCode{"DAML_INTERPRETATION_ERROR", 9}
	CodeDamlAuthorizationError            = ErrorCode{"DAML_AUTHORIZATION_ERROR", 8}
	CodeInvalidExternalSignature          = ErrorCode{"INVALID_EXTERNAL_SIGNATURE", 8}
	CodeInvalidExternalTransaction        = ErrorCode{"INVALID_EXTERNAL_TRANSACTION", 8}
	CodeLocalVerdictMaxRecordTimeExceeded = ErrorCode{"LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED", 2}
	CodeNotSequencedTimeout               = ErrorCode{"NOT_SEQUENCED_TIMEOUT", 2}
	CodeJSONAPIMaximumListElementsReached = ErrorCode{"JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED", 2}
	CodeJSONAPIPackageSelectionFailed     = ErrorCode{"JSON_API_PACKAGE_SELECTION_FAILED", 9}
	CodeLedgerAPIInternalError            = ErrorCode{"LEDGER_API_INTERNAL_ERROR", 4}
	CodeParticipantBackpressure           = ErrorCode{"PARTICIPANT_BACKPRESSURE", 2}
	CodeMaximumNumberOfStreams            = ErrorCode{"MAXIMUM_NUMBER_OF_STREAMS", 2}
	CodeRequestTimeOut                    = ErrorCode{"REQUEST_TIME_OUT", 3}
	CodeServiceNotRunning                 = ErrorCode{"SERVICE_NOT_RUNNING", 1}
	CodeUnknownResource                   = ErrorCode{"UNKNOWN_RESOURCE", 11}
)

// ErrorCodes lists every code above, for lookups and documentation.
var ErrorCodes = []ErrorCode{
	CodeInvalidArgument, CodeInvalidField, CodeMissingField, CodeInvalidToken,
	CodeUnauthenticated, CodePermissionDenied, CodeAccessTokenExpired, CodeStaleStreamAuthorization,
	CodeDuplicateCommand, CodeSubmissionAlreadyInFlight, CodeRequestAlreadyInFlight,
	CodeInvalidDeduplicationPeriod, CodeNegativeOffset, CodeNonPositiveOffset, CodeOffsetAfterLedgerEnd,
	CodeOffsetOutOfRange, CodeParticipantPrunedDataAccessed, CodePartyNotFound, CodeConcurrentPartyDetailsUpdate,
	CodeInvalidPartyDetailsUpdateRequest, CodeMaxPartyDetailsAnnotationsSize, CodeUserNotFound,
	CodeUserAlreadyExists, CodeConcurrentUserUpdate, CodeInvalidUserUpdateRequest, CodeTooManyUserRights,
	CodeMaxUserAnnotationsSize, CodeIDPConfigNotFound, CodeContractNotFound, CodeContractNotActive,
	CodePackageNotFound, CodeCommandPreprocessingFailed, CodeDamlInterpretationError,
	CodeDamlAuthorizationError, CodeInvalidExternalSignature, CodeInvalidExternalTransaction,
	CodeLocalVerdictMaxRecordTimeExceeded, CodeNotSequencedTimeout, CodeJSONAPIMaximumListElementsReached,
	CodeJSONAPIPackageSelectionFailed, CodeLedgerAPIInternalError, CodeParticipantBackpressure,
	CodeMaximumNumberOfStreams, CodeRequestTimeOut, CodeServiceNotRunning, CodeUnknownResource,
}

// LookupErrorCode finds a code by id.
func LookupErrorCode(id string) (ErrorCode, bool) {
	for _, c := range ErrorCodes {
		if c.ID == id {
			return c, true
		}
	}
	return ErrorCode{}, false
}

// RedactedCode is the code of errors whose details were withheld.
const RedactedCode = "NA"

// RedactedCause is the cause text of redacted errors.
const RedactedCause = "A security-sensitive error has been received"

// JsCantonError is the JSON API's error body. Every field is always written
// (null when absent). Resources are [type, name] pairs; decoding turns the
// "ErrorResource(X)" spelling of Canton 3.3–3.5 into the bare "X".
type JsCantonError struct {
	Code           string          `json:"code"`
	Cause          string          `json:"cause"`
	CorrelationID  *string         `json:"correlationId"`
	TraceID        *string         `json:"traceId"`
	Context        Map[string]     `json:"context"`
	Resources      List[[2]string] `json:"resources"`
	ErrorCategory  int             `json:"errorCategory"`
	GRPCCodeValue  *int            `json:"grpcCodeValue"`
	RetryInfo      *string         `json:"retryInfo"`
	DefiniteAnswer *bool           `json:"definiteAnswer"`
}

// NewError builds the error for code: category, gRPC code, retry text and
// context["category"] are filled in from the category table; ctx is copied.
func NewError(code ErrorCode, cause string, ctx map[string]string) *JsCantonError {
	e := &JsCantonError{
		Code:          code.ID,
		Cause:         cause,
		Context:       Map[string]{},
		Resources:     List[[2]string]{},
		ErrorCategory: code.Category,
	}
	for k, v := range ctx {
		e.Context[k] = v
	}
	e.Context["category"] = strconv.Itoa(code.Category)
	if cat, ok := LookupCategory(code.Category); ok {
		if cat.GRPCCode >= 0 {
			g := cat.GRPCCode
			e.GRPCCodeValue = &g
		}
		if cat.Retryable {
			r := RetryAfterText
			e.RetryInfo = &r
		}
	}
	return e
}

// Errorf is NewError with a formatted cause and no context.
func Errorf(code ErrorCode, format string, args ...any) *JsCantonError {
	return NewError(code, fmt.Sprintf(format, args...), nil)
}

// WithCorrelationID sets the correlation id (usually the submission id).
func (e *JsCantonError) WithCorrelationID(id string) *JsCantonError {
	e.CorrelationID = &id
	return e
}

// WithTraceID sets the trace id and context["tid"].
func (e *JsCantonError) WithTraceID(id string) *JsCantonError {
	e.TraceID = &id
	if e.Context == nil {
		e.Context = Map[string]{}
	}
	e.Context["tid"] = id
	return e
}

// WithResource adds a [type, name] resource, e.g. ("PARTY", "Alice::1220…").
func (e *JsCantonError) WithResource(typ, name string) *JsCantonError {
	e.Resources = append(e.Resources, [2]string{typ, name})
	return e
}

// Error renders the error as Canton's gRPC message does:
// "ID(category,correlation-prefix): cause".
func (e *JsCantonError) Error() string {
	if e.IsRedacted() {
		s := fmt.Sprintf("%s (HTTP %d): %s", RedactedCode, e.HTTPStatus(), e.Cause)
		if e.CorrelationID != nil && *e.CorrelationID != "" {
			s += " (correlation id " + *e.CorrelationID + ")"
		}
		return s
	}
	return fmt.Sprintf("%s: %s", codeStr(e.Code, e.ErrorCategory, e.CorrelationID), e.Cause)
}

// codeStr is "ID(cat,corr)" where corr is the first 8 characters of the
// correlation id, or 0 when there is none.
func codeStr(id string, category int, corr *string) string {
	c := "0"
	if corr != nil && *corr != "" {
		c = *corr
		if len(c) > 8 {
			c = c[:8]
		}
	}
	return fmt.Sprintf("%s(%d,%s)", id, category, c)
}

// IsRedacted reports whether the node withheld the error's details.
func (e *JsCantonError) IsRedacted() bool { return e.Code == RedactedCode }

// Is matches errors by code id, so errors.Is(err, NewError(CodeX, "", nil))
// and errors.Is(err, CodeX.Err()) work.
func (e *JsCantonError) Is(target error) bool {
	t, ok := target.(*JsCantonError)
	return ok && t.Code == e.Code
}

// Err returns a bare error value of this code for errors.Is comparisons.
func (c ErrorCode) Err() error { return &JsCantonError{Code: c.ID, ErrorCategory: c.Category} }

// HTTPStatus is the HTTP status the error is answered with: 413 for the
// list-size error, otherwise derived from the gRPC code (or, without one,
// from the category; 500 as the last resort).
func (e *JsCantonError) HTTPStatus() int {
	if e.Code == CodeJSONAPIMaximumListElementsReached.ID {
		return 413 // Content Too Large
	}
	if e.GRPCCodeValue != nil {
		return HTTPStatusForGRPC(*e.GRPCCodeValue)
	}
	if cat, ok := LookupCategory(e.ErrorCategory); ok {
		return cat.HTTPStatus
	}
	return 500 // Internal Server Error
}

// Retryable reports whether retrying the same request may succeed.
func (e *JsCantonError) Retryable() bool {
	if e.RetryInfo != nil {
		return true
	}
	cat, ok := LookupCategory(e.ErrorCategory)
	return ok && cat.Retryable
}

// RetryDelay parses retryInfo ("1 second", "500 milliseconds"); 0 if absent
// or unreadable.
func (e *JsCantonError) RetryDelay() time.Duration {
	if e.RetryInfo == nil {
		return 0
	}
	d, _ := ParseScalaDuration(*e.RetryInfo)
	return d
}

// ParseScalaDuration reads Scala's FiniteDuration text, "<n> <unit>".
func ParseScalaDuration(s string) (time.Duration, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	units := map[string]time.Duration{
		"day": 24 * time.Hour, "hour": time.Hour, "minute": time.Minute, "second": time.Second,
		"millisecond": time.Millisecond, "microsecond": time.Microsecond, "nanosecond": time.Nanosecond,
	}
	u, ok := units[strings.TrimSuffix(strings.ToLower(f[1]), "s")]
	if !ok {
		return 0, fmt.Errorf("invalid duration unit in %q", s)
	}
	if n > int64(1<<62)/int64(u) {
		return 0, fmt.Errorf("duration %q too long", s)
	}
	return time.Duration(n) * u, nil
}

// Redacted returns the form a client sees of e: for redacted categories
// (4, 5, 6, 7, 14) a copy with code "NA", a generic cause, category -1,
// empty context and resources, keeping the gRPC code and the correlation and
// trace ids; e itself otherwise. Servers log e and answer Redacted(e).
func Redacted(e *JsCantonError) *JsCantonError {
	cat, ok := LookupCategory(e.ErrorCategory)
	if !ok || !cat.Redacted {
		return e
	}
	g := cat.GRPCCode
	return &JsCantonError{
		Code:          RedactedCode,
		Cause:         RedactedCause,
		CorrelationID: e.CorrelationID,
		TraceID:       e.TraceID,
		Context:       Map[string]{},
		Resources:     List[[2]string]{},
		ErrorCategory: -1,
		GRPCCodeValue: &g,
	}
}

// UnmarshalJSON decodes an error body leniently: every field may be absent;
// resource types lose an "ErrorResource(...)" wrapper.
func (e *JsCantonError) UnmarshalJSON(b []byte) error {
	type plain JsCantonError
	var w struct {
		plain
		Resources     []json.RawMessage `json:"resources"`
		ErrorCategory *Int32            `json:"errorCategory"`
		GRPCCodeValue *Int32            `json:"grpcCodeValue"`
	}
	if !isJSONObject(b) {
		return fmt.Errorf("error body must be a JSON object")
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("error body: %w", unwrapJSONError(err))
	}
	*e = JsCantonError(w.plain)
	e.ErrorCategory = -1
	if w.ErrorCategory != nil {
		e.ErrorCategory = int(*w.ErrorCategory)
	}
	e.GRPCCodeValue = nil
	if w.GRPCCodeValue != nil {
		g := int(*w.GRPCCodeValue)
		e.GRPCCodeValue = &g
	}
	e.Resources = nil
	for _, r := range w.Resources {
		var pair []string
		if err := json.Unmarshal(r, &pair); err != nil || len(pair) == 0 {
			return fmt.Errorf("error body: resource %s is not a [type, name] pair", truncate(string(r), 60))
		}
		var p [2]string
		p[0] = NormalizeResourceType(pair[0])
		if len(pair) > 1 {
			p[1] = pair[1]
		}
		e.Resources = append(e.Resources, p)
	}
	return nil
}

// NormalizeResourceType turns "ErrorResource(CONTRACT_ID)" into "CONTRACT_ID".
func NormalizeResourceType(t string) string {
	if s, ok := strings.CutPrefix(t, "ErrorResource("); ok && strings.HasSuffix(s, ")") {
		return strings.TrimSuffix(s, ")")
	}
	return t
}

// Resource returns the name of the first resource of the given type.
func (e *JsCantonError) Resource(typ string) (string, bool) {
	for _, r := range e.Resources {
		if r[0] == typ {
			return r[1], true
		}
	}
	return "", false
}

// DecodeError parses an error response body. It fails when the body is not a
// JSON error object (for example the text/plain 400s of body decoding); a
// body must at least carry "code" to count as an error.
func DecodeError(body []byte) (*JsCantonError, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, fmt.Errorf("error body is not JSON: %s", truncate(string(bytes.TrimSpace(body)), 200))
	}
	if _, ok := probe["code"]; !ok {
		return nil, fmt.Errorf("error body has no \"code\": %s", truncate(string(bytes.TrimSpace(body)), 200))
	}
	var e JsCantonError
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, err
	}
	return &e, nil
}
