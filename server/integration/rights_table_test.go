package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
	"github.com/ledger-cli/ledger/signer"
)

// rightColumns are the callers of the rights table: a user holding exactly
// one right (or none). P is the party every request is about.
var rightColumns = []struct {
	name  string
	right func(p string) []ledgerapi.Right
}{
	{"none", func(string) []ledgerapi.Right { return nil }},
	{"read", func(p string) []ledgerapi.Right { return []ledgerapi.Right{ledgerapi.CanReadAs(p)} }},
	{"act", func(p string) []ledgerapi.Right { return []ledgerapi.Right{ledgerapi.CanActAs(p)} }},
	{"exec", func(p string) []ledgerapi.Right { return []ledgerapi.Right{ledgerapi.CanExecuteAs(p)} }},
	{"padmin", func(string) []ledgerapi.Right { return []ledgerapi.Right{adminRight(ledgerapi.RightParticipantAdmin)} }},
	{"idpadmin", func(string) []ledgerapi.Right {
		return []ledgerapi.Right{adminRight(ledgerapi.RightIdentityProviderAdmin)}
	}},
	{"readAny", func(string) []ledgerapi.Right { return []ledgerapi.Right{adminRight(ledgerapi.RightCanReadAsAnyParty)} }},
	{"execAny", func(string) []ledgerapi.Right {
		return []ledgerapi.Right{adminRight(ledgerapi.RightCanExecuteAsAnyParty)}
	}},
}

// rightsTable is json-api.md §4.4 as a matrix. Columns: the caller's one
// right — none; CanReadAs(P); CanActAs(P); CanExecuteAs(P);
// ParticipantAdmin; IdentityProviderAdmin (of the default provider, where
// every user and party here lives); CanReadAsAnyParty; CanExecuteAsAnyParty.
// Y: the request passes authorization (the answer is neither 401 nor 403;
// it may still fail validation). -: 403 with Canton's redacted body.
// P is the party the request is about, "self" the caller's own user,
// "victim" another user, "ghost" a user that does not exist; WS is the
// completions websocket; a #fragment names a variant of the request (the
// executeAndWaitForTransaction row above it asks for P's view, which needs
// read rights too).
const rightsTable = `
                                                                          none read act exec padmin idpadmin readAny execAny
GET    /v2/version                                                        Y    Y    Y   Y    Y      Y        Y       Y
GET    /v2/state/ledger-end                                               Y    Y    Y   Y    Y      Y        Y       Y
GET    /v2/state/connected-synchronizers                                  Y    Y    Y   Y    Y      Y        Y       Y
GET    /v2/state/connected-synchronizers?party=P                          -    Y    Y   -    Y      Y        Y       -
GET    /v2/authenticated-user                                             Y    Y    Y   Y    Y      Y        Y       Y
GET    /v2/users                                                          -    -    -   -    Y      Y        -       -
POST   /v2/users                                                          -    -    -   -    Y      Y        -       -
GET    /v2/users/self                                                     Y    Y    Y   Y    Y      Y        Y       Y
GET    /v2/users/victim                                                   -    -    -   -    Y      Y        -       -
PATCH  /v2/users/victim                                                   -    -    -   -    Y      Y        -       -
DELETE /v2/users/ghost                                                    -    -    -   -    Y      Y        -       -
GET    /v2/users/self/rights                                              Y    Y    Y   Y    Y      Y        Y       Y
GET    /v2/users/victim/rights                                            -    -    -   -    Y      Y        -       -
POST   /v2/users/victim/rights                                            -    -    -   -    Y      Y        -       -
POST   /v2/users/victim/rights#read-any                                   -    -    -   -    Y      -        -       -
POST   /v2/users/victim/rights#idp-admin                                  -    -    -   -    Y      Y        -       -
PATCH  /v2/users/victim/rights                                            -    -    -   -    Y      Y        -       -
POST   /v2/parties                                                        -    -    -   -    Y      Y        -       -
GET    /v2/parties                                                        -    -    -   -    Y      Y        -       -
GET    /v2/parties/participant-id                                         Y    Y    Y   Y    Y      Y        Y       Y
GET    /v2/parties/P                                                      -    Y    Y   Y    Y      Y        Y       Y
PATCH  /v2/parties/P                                                      -    -    -   -    Y      Y        -       -
POST   /v2/parties/external/generate-topology                             Y    Y    Y   Y    Y      Y        Y       Y
POST   /v2/parties/external/allocate                                      -    -    -   -    Y      Y        -       -
POST   /v2/interactive-submission/prepare                                 -    Y    Y   -    -      -        Y       -
POST   /v2/interactive-submission/execute                                 -    -    Y   Y    -      -        -       Y
POST   /v2/interactive-submission/executeAndWait                          -    -    Y   Y    -      -        -       Y
POST   /v2/interactive-submission/executeAndWaitForTransaction            -    -    Y   -    -      -        -       -
POST   /v2/interactive-submission/executeAndWaitForTransaction#no-format  -    -    Y   Y    -      -        -       Y
POST   /v2/commands/submit-and-wait                                       -    -    Y   -    -      -        -       -
POST   /v2/commands/submit-and-wait-for-transaction                       -    -    Y   -    -      -        -       -
POST   /v2/commands/submit-and-wait-for-transaction-tree                  -    -    Y   -    -      -        -       -
POST   /v2/commands/async/submit                                          -    -    Y   -    -      -        -       -
POST   /v2/commands/completions                                           -    Y    Y   -    -      -        Y       -
POST   /v2/commands/completions#other-user                                -    -    -   -    -      -        Y       -
WS     /v2/commands/completions                                           -    Y    Y   -    -      -        Y       -
`

// TestRightsTable runs every endpoint as every kind of caller against a
// started node and checks the outcome against rightsTable.
func TestRightsTable(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	p, key := n.onboard("P", "owner")
	owner := n.token("owner")
	n.createUser("victim")
	for _, col := range rightColumns {
		n.createUser("u-"+col.name, col.right(p)...)
	}
	sync := n.identity().SynchronizerID
	seq := 0
	next := func(prefix string) string { seq++; return fmt.Sprintf("%s-%d", prefix, seq) }
	prepared := func() ledgerapi.PrepareSubmissionResponse {
		return n.prepare(owner, prepareBody(next("prep"), []string{p}, create(p, "1")))
	}
	genKey, err := signer.Generate(strings.NewReader(strings.Repeat("k", 64)))
	if err != nil {
		t.Fatal(err)
	}
	// bodies builds the request body of an endpoint for caller user.
	bodies := map[string]func(user string) any{
		"POST /v2/users": func(string) any {
			return map[string]any{"user": map[string]any{"id": next("new-user")}}
		},
		"PATCH /v2/users/victim": func(string) any {
			return map[string]any{"user": map[string]any{"id": "victim", "isDeactivated": false},
				"updateMask": map[string]any{"paths": []string{"is_deactivated"}}}
		},
		"POST /v2/users/victim/rights":  func(string) any { return map[string]any{"userId": "victim", "rights": []any{ledgerapi.CanReadAs(p)}} },
		"PATCH /v2/users/victim/rights": func(string) any { return map[string]any{"userId": "victim", "rights": []any{ledgerapi.CanReadAs(p)}} },
		// Rights beyond one identity provider need ParticipantAdmin;
		// IdentityProviderAdmin does not (needsParticipantAdmin).
		"POST /v2/users/victim/rights#read-any": func(string) any {
			return map[string]any{"userId": "victim", "rights": []any{adminRight(ledgerapi.RightCanReadAsAnyParty)}}
		},
		"POST /v2/users/victim/rights#idp-admin": func(string) any {
			return map[string]any{"userId": "victim", "rights": []any{adminRight(ledgerapi.RightIdentityProviderAdmin)}}
		},
		"POST /v2/parties": func(string) any { return map[string]any{"partyIdHint": next("party")} },
		"PATCH /v2/parties/P": func(string) any {
			return patchBody(p, "", map[string]string{"example.com/k": "v"}, "local_metadata.annotations")
		},
		"POST /v2/parties/external/generate-topology": func(string) any {
			return map[string]any{"synchronizer": sync, "partyHint": next("gen"),
				"publicKey": map[string]any{"format": "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
					"keyData": genKey.Public().SPKIDER(), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"}}
		},
		// Authorization comes before the onboarding transactions are read.
		"POST /v2/parties/external/allocate": func(string) any {
			return map[string]any{"synchronizer": sync, "onboardingTransactions": []any{}, "multiHashSignatures": []any{}}
		},
		"POST /v2/interactive-submission/prepare": func(string) any {
			return prepareBody(next("cmd"), []string{p}, create(p, "1"))
		},
		"POST /v2/interactive-submission/execute":        func(string) any { return executeBody(prepared(), p, key, next("sub")) },
		"POST /v2/interactive-submission/executeAndWait": func(string) any { return executeBody(prepared(), p, key, next("sub")) },
		"POST /v2/interactive-submission/executeAndWaitForTransaction": func(string) any {
			b := executeBody(prepared(), p, key, next("sub"))
			b["transactionFormat"] = map[string]any{"transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
				"eventFormat": map[string]any{"filtersByParty": map[string]any{p: map[string]any{}}, "verbose": false}}
			return b
		},
		"POST /v2/interactive-submission/executeAndWaitForTransaction#no-format": func(string) any {
			return executeBody(prepared(), p, key, next("sub"))
		},
		"POST /v2/commands/submit-and-wait": func(string) any {
			return commands(next("cmd"), []string{p}, []map[string]any{create(p, "1")}, nil)
		},
		"POST /v2/commands/submit-and-wait-for-transaction": func(string) any {
			return map[string]any{"commands": commands(next("cmd"), []string{p}, []map[string]any{create(p, "1")}, nil)}
		},
		"POST /v2/commands/submit-and-wait-for-transaction-tree": func(string) any {
			return commands(next("cmd"), []string{p}, []map[string]any{create(p, "1")}, nil)
		},
		"POST /v2/commands/async/submit": func(string) any {
			return commands(next("cmd"), []string{p}, []map[string]any{create(p, "1")}, nil)
		},
		"POST /v2/commands/completions": func(string) any { return map[string]any{"parties": []string{p}} },
		// Canton skips the user check for callers who may read as any party.
		"POST /v2/commands/completions#other-user": func(string) any {
			return map[string]any{"userId": "victim", "parties": []string{p}}
		},
	}

	rows := strings.Split(strings.TrimSpace(rightsTable), "\n")[1:]
	for _, row := range rows {
		f := strings.Fields(row)
		if len(f) != 2+len(rightColumns) {
			t.Fatalf("rights table row %q: %d fields, want method, path and %d marks", row, len(f), len(rightColumns))
		}
		method, path, marks := f[0], f[1], f[2:]
		endpoint := method + " " + path
		ws := method == "WS"
		for i, col := range rightColumns {
			user := "u-" + col.name
			token := n.token(user)
			want := marks[i] == "Y"
			t.Run(endpoint+"/"+col.name, func(t *testing.T) {
				if ws {
					checkWebsocketRight(t, n, token, p, want)
					return
				}
				path, _, _ := strings.Cut(path, "#") // a fragment only names a variant of the row
				pth := strings.NewReplacer("/P", "/"+urlPathEscapePath(p), "=P", "="+urlPathEscape(p), "/self", "/"+user).Replace(path)
				var body any
				if b, ok := bodies[endpoint]; ok {
					body = b(user)
				}
				r := n.call(method, pth, token, body)
				switch {
				case r.status == 401:
					t.Fatalf("%s as %s: 401 %s", endpoint, col.name, r.body)
				case want && r.status == 403:
					t.Fatalf("%s as %s: denied, want allowed: %s", endpoint, col.name, r.body)
				case !want && r.status != 403:
					t.Fatalf("%s as %s: status %d, want 403: %s", endpoint, col.name, r.status, r.body)
				case !want:
					e, err := ledgerapi.DecodeError(r.body)
					if err != nil || e.Code != ledgerapi.RedactedCode || e.ErrorCategory != -1 {
						t.Fatalf("%s as %s: 403 body is not Canton's redacted error: %s", endpoint, col.name, r.body)
					}
				case want && r.status != 200:
					t.Logf("allowed, answered %d %.200s", r.status, r.body)
				case r.status >= 500:
					t.Fatalf("%s as %s: %d %s", endpoint, col.name, r.status, r.body)
				}
			})
		}
	}
}

func urlPathEscapePath(p string) string { return strings.TrimPrefix(partyPath(p), "/v2/parties/") }

// checkWebsocketRight opens the completions websocket as token for party p:
// a denied caller gets Canton's redacted error frame; an allowed one gets no
// error frame (the stream stays open: the check waits briefly for an error,
// so a slow machine can only make it pass, never fail wrongly).
func checkWebsocketRight(t *testing.T, n *testNode, token, p string, want bool) {
	conn, _, err := dialCompletions(t, n, token, map[string]any{"parties": []string{p}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.CloseNow()
	wait := 30 * time.Second
	if want {
		wait = 300 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(t.Context(), wait)
	defer cancel()
	_, data, err := conn.Read(ctx)
	if err != nil {
		if !want {
			t.Fatalf("no error frame for a denied caller: %v", err)
		}
		return
	}
	isErr := strings.Contains(string(data), `"errorCategory"`)
	if want && isErr {
		t.Fatalf("allowed caller got an error frame: %s", data)
	}
	if !want {
		var e ledgerapi.JsCantonError
		if !isErr || json.Unmarshal(data, &e) != nil || e.Code != ledgerapi.RedactedCode {
			t.Fatalf("denied caller got %s, want the redacted error", data)
		}
	}
	_ = conn.Close(websocket.StatusNormalClosure, "")
}
