package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

func TestVersionNeedsNoToken(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	r := n.call("GET", "/v2/version", "", nil)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var v ledgerapi.GetVersionResponse
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v.Version, node.APIVersion+"+ledger.") || !v.Features.UserManagement.Supported || v.Features.UserManagement.MaxUsersPageSize != node.MaxUsersPageSize ||
		v.Features.OffsetCheckpoint.MaxOffsetCheckpointEmissionDelay.Seconds != 75 {
		t.Errorf("version response %s", r.body)
	}
	for _, want := range []string{`"staticTime":{"supported":false}`, `"unknownFields":{"fields":{}}`, `"maxVettedPackagesPageSize":`} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("version response lacks %s: %s", want, r.body)
		}
	}
}

func TestStateEndpoints(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	var end ledgerapi.GetLedgerEndResponse
	n.ok("GET", "/v2/state/ledger-end", n.admin, nil, &end)
	if end.Offset != 0 {
		t.Errorf("ledger end of a new node = %d", end.Offset)
	}
	var syncs ledgerapi.GetConnectedSynchronizersResponse
	n.ok("GET", "/v2/state/connected-synchronizers", n.admin, nil, &syncs)
	id := n.identity()
	if len(syncs.ConnectedSynchronizers) != 1 || syncs.ConnectedSynchronizers[0].SynchronizerID != id.SynchronizerID ||
		syncs.ConnectedSynchronizers[0].Permission != ledgerapi.ParticipantPermissionSubmission {
		t.Errorf("connected synchronizers %+v", syncs)
	}
	n.ok("GET", "/v2/state/connected-synchronizers?party="+urlPathEscape("Nobody::1220aa"), n.admin, nil, &syncs)
	if len(syncs.ConnectedSynchronizers) != 0 {
		t.Errorf("unknown party is hosted: %+v", syncs)
	}
	var pid ledgerapi.GetParticipantIDResponse
	n.ok("GET", "/v2/parties/participant-id", n.admin, nil, &pid)
	if pid.ParticipantID != id.ParticipantID || !strings.HasPrefix(pid.ParticipantID, auth.DefaultParticipantID+"::1220") {
		t.Errorf("participant id %q", pid.ParticipantID)
	}
	var me ledgerapi.GetUserResponse
	n.ok("GET", "/v2/authenticated-user", n.admin, nil, &me)
	if me.User.ID != ledger.AdminUserID {
		t.Errorf("authenticated user %+v", me.User)
	}
	// any authenticated user, no rights needed
	n.createUser("plain")
	n.ok("GET", "/v2/state/ledger-end", n.token("plain"), nil, &end)
	n.ok("GET", "/v2/parties/participant-id", n.token("plain"), nil, &pid)
	n.ok("GET", "/v2/authenticated-user", n.token("plain"), nil, &me)
	if me.User.ID != "plain" || me.User.Metadata.ResourceVersion != "0" {
		t.Errorf("authenticated user %+v", me.User)
	}
}

func TestAuthFailures(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	n.createUser("plain")

	// no token: 401, redacted, empty context
	e := n.fail("GET", "/v2/users", "", nil, 401, ledgerapi.RedactedCode)
	if e.ErrorCategory != -1 || e.GRPCCodeValue == nil || *e.GRPCCodeValue != ledgerapi.GRPCUnauthenticated || len(e.Context) != 0 ||
		e.Cause != ledgerapi.RedactedCause || e.TraceID == nil || e.CorrelationID == nil {
		t.Errorf("no token: %+v", e)
	}
	// a token signed with another secret: 401 with the JSON layer's marker
	bad, err := auth.Mint([]byte("another-secret-another-secret-00"), ledger.AdminUserID, 3600e9, "", auth.DefaultParticipantID, timeNow())
	if err != nil {
		t.Fatal(err)
	}
	e = n.fail("GET", "/v2/users", bad, nil, 401, ledgerapi.RedactedCode)
	if e.Context["ledger_api_error"] != "invalid token" || len(e.Context) != 1 {
		t.Errorf("bad token context %v", e.Context)
	}
	n.fail("GET", "/v2/users", "not.a.jwt", nil, 401, ledgerapi.RedactedCode)
	// a token for another participant: 403
	other, _ := auth.Mint(testSecret, ledger.AdminUserID, 3600e9, "", "participant9", timeNow())
	e = n.fail("GET", "/v2/users", other, nil, 403, ledgerapi.RedactedCode)
	if *e.GRPCCodeValue != ledgerapi.GRPCPermissionDenied {
		t.Errorf("other participant: %+v", e)
	}
	// unknown user: 403 with the marker
	e = n.fail("GET", "/v2/state/ledger-end", n.token("ghost"), nil, 403, ledgerapi.RedactedCode)
	if e.Context["ledger_api_error"] != "invalid token" {
		t.Errorf("unknown user context %v", e.Context)
	}
	// deactivated user: 403
	n.ok("PATCH", "/v2/users/plain", n.admin, map[string]any{
		"user": map[string]any{"id": "plain", "isDeactivated": true}, "updateMask": map[string]any{"paths": []string{"is_deactivated"}}}, nil)
	n.fail("GET", "/v2/authenticated-user", n.token("plain"), nil, 403, ledgerapi.RedactedCode)
	// missing right: 403, context empty
	n.createUser("nobody")
	e = n.fail("GET", "/v2/users", n.token("nobody"), nil, 403, ledgerapi.RedactedCode)
	if len(e.Context) != 0 || e.ErrorCategory != -1 {
		t.Errorf("missing right: %+v", e)
	}
	n.fail("POST", "/v2/parties", n.token("nobody"), map[string]any{"partyIdHint": "x"}, 403, ledgerapi.RedactedCode)
	n.fail("GET", "/v2/parties", n.token("nobody"), nil, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/users", n.token("nobody"), ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: "x"}}, 403, ledgerapi.RedactedCode)
	n.fail("GET", "/v2/users/participant_admin", n.token("nobody"), nil, 403, ledgerapi.RedactedCode)
	// a user reads itself
	n.ok("GET", "/v2/users/nobody", n.token("nobody"), nil, nil)
	n.ok("GET", "/v2/users/nobody/rights", n.token("nobody"), nil, nil)
}

func TestTraceparentIsHonoured(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	req, _ := http.NewRequest("GET", n.url+"/v2/users/ghost", nil)
	req.Header.Set("Authorization", "Bearer "+n.admin)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e ledgerapi.JsCantonError
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 404 || e.Code != "USER_NOT_FOUND" || e.TraceID == nil || *e.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" ||
		e.Context["tid"] != *e.TraceID {
		t.Errorf("status %d, error %+v", resp.StatusCode, e)
	}
}

func TestBodyDecoding(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	for _, body := range []string{`{"partyIdHint":`, `[1,2]`, ``, `{"partyIdHint": 5}`} {
		r := n.call("POST", "/v2/parties", n.admin, body)
		if r.status != 400 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") ||
			!strings.HasPrefix(string(r.body), "Invalid value for: body (") {
			t.Errorf("body %q: %d %s %q", body, r.status, r.header.Get("Content-Type"), r.body)
		}
	}
	// oversized: 413 with a JSON error body
	big := `{"partyIdHint":"a","localMetadata":{"annotations":{"k":"` + strings.Repeat("x", 70<<10) + `"}}}`
	n.fail("POST", "/v2/parties", n.admin, big, 413, "INVALID_ARGUMENT")
	// non-integer query parameter: 400 text/plain
	r := n.call("GET", "/v2/users?pageSize=ten", n.admin, nil)
	if r.status != 400 || string(r.body) != "Invalid value for: query parameter pageSize" {
		t.Errorf("bad pageSize: %d %q", r.status, r.body)
	}
	// no Content-Type header at all is fine (the TypeScript client sends none)
	req, _ := http.NewRequest("POST", n.url+"/v2/parties", strings.NewReader(`{"partyIdHint":"NoCT"}`))
	req.Header.Set("Authorization", "Bearer "+n.admin)
	req.Header.Del("Content-Type")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("no Content-Type: status %d", resp.StatusCode)
	}
	// unknown route
	if r := n.call("GET", "/v2/nothing-here", n.admin, nil); r.status != 404 {
		t.Errorf("unknown route: %d", r.status)
	}
}

func TestPanicIsA500(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	n.run.Server.Handle(server.Route{Method: "GET", Pattern: "/test/panic", Public: true,
		Handler: func(*server.Request) (any, error) { panic("boom") }})
	e := n.fail("GET", "/test/panic", "", nil, 500, "LEDGER_API_INTERNAL_ERROR")
	if strings.Contains(e.Cause, "boom") || e.CorrelationID == nil || *e.CorrelationID == "" {
		t.Errorf("panic error leaks or lacks a correlation id: %+v", e)
	}
	n.run.Server.Handle(server.Route{Method: "GET", Pattern: "/test/err", Public: true,
		Handler: func(*server.Request) (any, error) { return nil, fmt.Errorf("secret detail") }})
	e = n.fail("GET", "/test/err", "", nil, 500, "LEDGER_API_INTERNAL_ERROR")
	if strings.Contains(e.Cause, "secret") {
		t.Errorf("internal error leaks: %+v", e)
	}
	// the node still serves
	n.ok("GET", "/v2/version", "", nil, nil)
}

func TestWildcardAuth(t *testing.T) {
	n := startNode(t, auth.ModeNone)
	// no token needed, everything allowed
	p := n.allocate("Wild")
	n.ok("GET", partyPath(p.Party), "", nil, nil)
	n.createUser("bob")
	// user-scoped endpoint without a user: 400 INVALID_TOKEN, not redacted
	e := n.fail("GET", "/v2/authenticated-user", "", nil, 400, "INVALID_TOKEN")
	if e.ErrorCategory != 8 {
		t.Errorf("INVALID_TOKEN %+v", e)
	}
	// a token is ignored
	n.ok("GET", "/v2/users", "garbage", nil, nil)
}
