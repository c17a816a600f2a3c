package ledgerapi

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCategoryTable(t *testing.T) {
	// id → (gRPC, HTTP, retryable, redacted), per docs/json-api.md §3.2.
	want := map[int][4]int{
		1: {14, 503, 1, 0}, 2: {10, 409, 1, 0}, 3: {4, 504, 1, 0}, 4: {13, 500, 0, 1},
		5: {3, 400, 0, 1}, 6: {16, 401, 0, 1}, 7: {7, 403, 0, 1}, 8: {3, 400, 0, 0},
		9: {9, 400, 0, 0}, 10: {6, 409, 0, 0}, 11: {5, 404, 0, 0}, 12: {11, 400, 1, 0},
		13: {-1, 500, 0, 0}, 14: {12, 501, 0, 1},
	}
	b := func(x bool) int {
		if x {
			return 1
		}
		return 0
	}
	for id, w := range want {
		c, ok := LookupCategory(id)
		if !ok || c.ID != id {
			t.Fatalf("category %d missing", id)
		}
		got := [4]int{c.GRPCCode, c.HTTPStatus, b(c.Retryable), b(c.Redacted)}
		if got != w {
			t.Errorf("category %d (%s) = %v, want %v", id, c.Name, got, w)
		}
		if c.GRPCCode >= 0 && HTTPStatusForGRPC(c.GRPCCode) != c.HTTPStatus {
			t.Errorf("category %d: gRPC→HTTP %d disagrees with table %d", id, HTTPStatusForGRPC(c.GRPCCode), c.HTTPStatus)
		}
	}
	for _, bad := range []int{0, -1, 15} {
		if _, ok := LookupCategory(bad); ok {
			t.Errorf("category %d found", bad)
		}
	}
	if HTTPStatusForGRPC(GRPCCancelled) != 499 || HTTPStatusForGRPC(GRPCResourceExhausted) != 429 || HTTPStatusForGRPC(99) != 500 {
		t.Error("gRPC→HTTP extras wrong")
	}
}

func TestErrorCodesHTTP(t *testing.T) {
	want := map[string]int{
		"INVALID_ARGUMENT": 400, "INVALID_FIELD": 400, "MISSING_FIELD": 400, "INVALID_TOKEN": 400,
		"DUPLICATE_COMMAND": 409, "SUBMISSION_ALREADY_IN_FLIGHT": 409, "PARTY_NOT_FOUND": 404,
		"CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED": 409, "INVALID_PARTY_DETAILS_UPDATE_REQUEST": 400,
		"MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED": 400, "USER_NOT_FOUND": 404, "USER_ALREADY_EXISTS": 409,
		"CONTRACT_NOT_FOUND": 404, "INVALID_EXTERNAL_SIGNATURE": 400, "INVALID_EXTERNAL_TRANSACTION": 400,
		"LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED": 409, "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED": 413,
		"OFFSET_AFTER_LEDGER_END": 400, "NEGATIVE_OFFSET": 400, "INVALID_DEDUPLICATION_PERIOD": 400,
		"UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403, "SERVICE_NOT_RUNNING": 503, "REQUEST_TIME_OUT": 504,
		"LEDGER_API_INTERNAL_ERROR": 500,
	}
	seen := map[string]bool{}
	for _, c := range ErrorCodes {
		if seen[c.ID] {
			t.Errorf("duplicate code %s", c.ID)
		}
		seen[c.ID] = true
		if _, ok := LookupCategory(c.Category); !ok {
			t.Errorf("%s: unknown category %d", c.ID, c.Category)
		}
	}
	for id, status := range want {
		c, ok := LookupErrorCode(id)
		if !ok {
			t.Errorf("%s not registered", id)
			continue
		}
		if got := NewError(c, "x", nil).HTTPStatus(); got != status {
			t.Errorf("%s: HTTP %d, want %d", id, got, status)
		}
	}
}

func TestNewError(t *testing.T) {
	e := NewError(CodeConcurrentPartyDetailsUpdate, "resource version mismatch", map[string]string{"party": "A::1"}).
		WithCorrelationID("0123456789abcdef").WithTraceID("tid-1").WithResource("PARTY", "A::1")
	if e.ErrorCategory != 2 || *e.GRPCCodeValue != GRPCAborted || e.RetryInfo == nil || *e.RetryInfo != "1 second" {
		t.Errorf("filled fields wrong: %+v", e)
	}
	if e.Context["category"] != "2" || e.Context["party"] != "A::1" || e.Context["tid"] != "tid-1" {
		t.Errorf("context = %v", e.Context)
	}
	if !e.Retryable() || e.RetryDelay() != time.Second {
		t.Errorf("retry = %v %v", e.Retryable(), e.RetryDelay())
	}
	if got := e.Error(); got != "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED(2,01234567): resource version mismatch" {
		t.Errorf("Error() = %s", got)
	}
	var target error = e
	if !errors.Is(target, CodeConcurrentPartyDetailsUpdate.Err()) || errors.Is(target, CodePartyNotFound.Err()) {
		t.Error("errors.Is by code broken")
	}
	out, _ := json.Marshal(NewError(CodeMissingField, "The submitted command is missing a mandatory field: update_mask", nil))
	want := `{"code":"MISSING_FIELD","cause":"The submitted command is missing a mandatory field: update_mask","correlationId":null,"traceId":null,"context":{"category":"8"},"resources":[],"errorCategory":8,"grpcCodeValue":3,"retryInfo":null,"definiteAnswer":null}`
	if string(out) != want {
		t.Errorf("body\n got: %s\nwant: %s", out, want)
	}
}

func TestRedacted(t *testing.T) {
	for _, tt := range []struct {
		code     ErrorCode
		redacted bool
		grpc     int
		http     int
	}{
		{CodePermissionDenied, true, 7, 403},
		{CodeUnauthenticated, true, 16, 401},
		{CodeLedgerAPIInternalError, true, 13, 500},
		{ErrorCode{"SOME_ALERT", 5}, true, 3, 400},
		{ErrorCode{"UNSUPPORTED", 14}, true, 12, 501},
		{CodePartyNotFound, false, 5, 404},
	} {
		e := NewError(tt.code, "secret detail", map[string]string{"k": "v"}).WithCorrelationID("corr").WithResource("X", "y")
		r := Redacted(e)
		if tt.redacted != r.IsRedacted() {
			t.Errorf("%s: redacted = %v", tt.code.ID, r.IsRedacted())
			continue
		}
		if !tt.redacted {
			if r != e {
				t.Errorf("%s: unredacted error was copied", tt.code.ID)
			}
			continue
		}
		if r.Cause != RedactedCause || r.ErrorCategory != -1 || len(r.Context) != 0 || len(r.Resources) != 0 ||
			*r.GRPCCodeValue != tt.grpc || r.HTTPStatus() != tt.http || *r.CorrelationID != "corr" || r.RetryInfo != nil {
			t.Errorf("%s: redacted form wrong: %+v", tt.code.ID, r)
		}
		if strings.Contains(r.Error(), "secret") {
			t.Errorf("%s: redacted message leaks detail: %s", tt.code.ID, r.Error())
		}
	}
}

func TestDecodeErrorBodies(t *testing.T) {
	na := `{"code":"NA","cause":"A security-sensitive error has been received","correlationId":"c1","traceId":"t1","context":{},"resources":[],"errorCategory":-1,"grpcCodeValue":7,"retryInfo":null,"definiteAnswer":null}`
	e, err := DecodeError([]byte(na))
	if err != nil || !e.IsRedacted() || e.HTTPStatus() != 403 || e.Retryable() {
		t.Errorf("NA body: %+v, %v", e, err)
	}
	// Canton 3.3–3.5 spelling of resource types, and a sparse body.
	e, err = DecodeError([]byte(`{"code":"CONTRACT_NOT_FOUND","cause":"gone","resources":[["ErrorResource(CONTRACT_ID)","00ab"],["PARTY"]]}`))
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := e.Resource("CONTRACT_ID"); !ok || id != "00ab" {
		t.Errorf("resource = %q %v", id, ok)
	}
	if e.ErrorCategory != -1 || e.HTTPStatus() != 500 {
		t.Errorf("sparse body: category %d status %d", e.ErrorCategory, e.HTTPStatus())
	}
	for _, bad := range []string{`Invalid value for: body (Missing required field at 'commandId')`, `{"message":"x"}`, `[1]`, `{"code":"X","resources":[3]}`} {
		if _, err := DecodeError([]byte(bad)); err == nil {
			t.Errorf("%q accepted as an error body", bad)
		}
	}
	if NormalizeResourceType("ErrorResource(PARTY)") != "PARTY" || NormalizeResourceType("PARTY") != "PARTY" {
		t.Error("NormalizeResourceType")
	}
}

func TestStatusRoundTrip(t *testing.T) {
	e := NewError(CodeDuplicateCommand, "A command with the given command id has already been successfully processed",
		map[string]string{"completion_offset": "17", "definite_answer": "false"}).
		WithCorrelationID("5f0c1e2a-attempt-2").WithResource("COMMAND_ID", "settle-77")
	s := e.Status()
	if s.Code != GRPCAlreadyExists || !strings.HasPrefix(s.Message, "DUPLICATE_COMMAND(10,5f0c1e2a): A command") {
		t.Errorf("status = %d %q", s.Code, s.Message)
	}
	if len(s.Details) != 3 || s.Details[0].TypeURL != TypeURLErrorInfo || s.Details[0].ValueDecoded == nil ||
		!strings.Contains(*s.Details[0].ValueDecoded, `"reason":"DUPLICATE_COMMAND"`) {
		t.Errorf("details = %+v", s.Details)
	}
	// Through JSON and back.
	wire, _ := json.Marshal(s)
	var back JsStatus
	if err := json.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	got := ErrorFromStatus(&back)
	if got.Code != e.Code || got.ErrorCategory != 10 || got.Cause != e.Cause || got.Context["completion_offset"] != "17" ||
		*got.CorrelationID != "5f0c1e2a-attempt-2" || got.HTTPStatus() != 409 {
		t.Errorf("ErrorFromStatus = %+v", got)
	}
	if r, ok := got.Resource("COMMAND_ID"); !ok || r != "settle-77" {
		t.Errorf("resource lost: %v", got.Resources)
	}
	// Retryable errors carry RetryInfo.
	rs := NewError(CodeSubmissionAlreadyInFlight, "busy", nil).Status()
	if rs.Details[1].TypeURL != TypeURLRetryInfo || ErrorFromStatus(rs).RetryInfo == nil {
		t.Errorf("retry detail missing: %+v", rs.Details)
	}
	// A status with only a message still yields the id.
	m := ErrorFromStatus(&JsStatus{Code: 9, Message: "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED(2,0): too late"})
	if m.Code != "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED" || m.ErrorCategory != 2 || m.CorrelationID != nil || m.Cause != "too late" {
		t.Errorf("message-only status = %+v", m)
	}
	if ErrorFromStatus(StatusOK()) != nil || ErrorFromStatus(nil) != nil {
		t.Error("OK status gave an error")
	}
	if u := ErrorFromStatus(&JsStatus{Code: 14, Message: "connection refused"}); u.Code != RedactedCode || u.Cause != "connection refused" {
		t.Errorf("foreign status = %+v", u)
	}
	// Damaged detail bytes do not panic.
	ErrorFromStatus(&JsStatus{Code: 3, Details: List[ProtoAny]{{TypeURL: TypeURLErrorInfo, Value: Bytes{0x0a, 0xff}}, {TypeURL: TypeURLResourceInfo, Value: Bytes{0x1a}}}})
}

func TestValueDecodedAcceptsObject(t *testing.T) {
	var a ProtoAny
	if err := json.Unmarshal([]byte(`{"typeUrl":"t","value":"","valueDecoded":{"reason":"X"}}`), &a); err != nil || a.ValueDecoded == nil || *a.ValueDecoded != `{"reason":"X"}` {
		t.Errorf("object valueDecoded: %+v %v", a, err)
	}
}

func TestParseScalaDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"1 second": time.Second, "500 milliseconds": 500 * time.Millisecond, "2 minutes": 2 * time.Minute, "1 day": 24 * time.Hour} {
		if got, err := ParseScalaDuration(in); err != nil || got != want {
			t.Errorf("%q = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "1s", "one second", "-1 second", "1 fortnight", "99999999999999 days"} {
		if _, err := ParseScalaDuration(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
