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
	{"xadmin", func(string) []ledgerapi.Right {
		return []ledgerapi.Right{adminRight(ledgerapi.RightIdentityProviderAdmin)}
	}},
}

// ofX is the column whose user is of identity provider X, signed in with
// X's token; every other user is of the default provider.
const ofX = "xadmin"

// rightsTable is docs/json-api.md §4.4 as a matrix. Columns: the caller's one
// right — none; CanReadAs(P); CanActAs(P); CanExecuteAs(P);
// ParticipantAdmin; IdentityProviderAdmin (of the default provider, where
// every user and party here lives); CanReadAsAnyParty; CanExecuteAsAnyParty;
// IdentityProviderAdmin of provider X, signed in with X's token (xadmin),
// which administers X alone: victim and P are not X's, and a request naming
// no provider means X. (X's admin granting or revoking a right over P is
// authorized, then refused as UNKNOWN_RESOURCE 404 because P is not X's —
// Canton's verifyPartiesExistInIdp, which comes before the user lookup;
// the #idp-admin row, naming no party, shows that victim stays out of
// its reach.)
// Y: the request passes authorization (the answer is neither 401 nor 403;
// it may still fail validation). -: 403 with Canton's redacted body.
// P is the party the request is about, "self" the caller's own user,
// "victim" another user, "ghost" a user that does not exist; WS is the
// completions websocket; a #fragment names a variant of the request (the
// executeAndWaitForTransaction row above it asks for P's view, which needs
// read rights too). Reads (docs/json-api.md §4.4 and Canton's
// *ServiceAuthorization classes): read-as every party of a filter,
// CanReadAsAnyParty for filtersForAnyParty and for requests naming no
// party; identity providers and pruning are the participant admin's.
const rightsTable = `
                                                                          none read act exec padmin idpadmin readAny execAny xadmin
GET    /v2/version                                                        Y    Y    Y   Y    Y      Y        Y       Y      Y
GET    /v2/state/ledger-end                                               Y    Y    Y   Y    Y      Y        Y       Y      Y
GET    /v2/state/connected-synchronizers                                  Y    Y    Y   Y    Y      Y        Y       Y      Y
GET    /v2/state/connected-synchronizers?party=P                          -    Y    Y   -    Y      Y        Y       -      Y
GET    /v2/authenticated-user                                             Y    Y    Y   Y    Y      Y        Y       Y      Y
GET    /v2/users                                                          -    -    -   -    Y      Y        -       -      Y
POST   /v2/users                                                          -    -    -   -    Y      Y        -       -      Y
GET    /v2/users/self                                                     Y    Y    Y   Y    Y      Y        Y       Y      Y
GET    /v2/users/victim                                                   -    -    -   -    Y      Y        -       -      -
PATCH  /v2/users/victim                                                   -    -    -   -    Y      Y        -       -      -
DELETE /v2/users/ghost                                                    -    -    -   -    Y      Y        -       -      Y
GET    /v2/users/self/rights                                              Y    Y    Y   Y    Y      Y        Y       Y      Y
GET    /v2/users/victim/rights                                            -    -    -   -    Y      Y        -       -      -
POST   /v2/users/victim/rights                                            -    -    -   -    Y      Y        -       -      Y
POST   /v2/users/victim/rights#read-any                                   -    -    -   -    Y      -        -       -      -
POST   /v2/users/victim/rights#idp-admin                                  -    -    -   -    Y      Y        -       -      -
PATCH  /v2/users/victim/rights                                            -    -    -   -    Y      Y        -       -      Y
POST   /v2/parties                                                        -    -    -   -    Y      Y        -       -      Y
GET    /v2/parties                                                        -    -    -   -    Y      Y        -       -      Y
GET    /v2/parties/participant-id                                         Y    Y    Y   Y    Y      Y        Y       Y      Y
GET    /v2/parties/P                                                      -    Y    Y   Y    Y      Y        Y       Y      Y
PATCH  /v2/parties/P                                                      -    -    -   -    Y      Y        -       -      -
POST   /v2/parties/external/generate-topology                             Y    Y    Y   Y    Y      Y        Y       Y      Y
POST   /v2/parties/external/allocate                                      -    -    -   -    Y      Y        -       -      Y
POST   /v2/interactive-submission/prepare                                 -    Y    Y   -    -      -        Y       -      -
POST   /v2/interactive-submission/execute                                 -    -    Y   Y    -      -        -       Y      -
POST   /v2/interactive-submission/executeAndWait                          -    -    Y   Y    -      -        -       Y      -
POST   /v2/interactive-submission/executeAndWaitForTransaction            -    -    Y   -    -      -        -       -      -
POST   /v2/interactive-submission/executeAndWaitForTransaction#no-format  -    -    Y   Y    -      -        -       Y      -
POST   /v2/commands/submit-and-wait                                       -    -    Y   -    -      -        -       -      -
POST   /v2/commands/submit-and-wait-for-transaction                       -    -    Y   -    -      -        -       -      -
POST   /v2/commands/submit-and-wait-for-transaction-tree                  -    -    Y   -    -      -        -       -      -
POST   /v2/commands/async/submit                                          -    -    Y   -    -      -        -       -      -
POST   /v2/commands/completions                                           -    Y    Y   -    -      -        Y       -      -
POST   /v2/commands/completions#other-user                                -    -    -   -    -      -        Y       -      -
WS     /v2/commands/completions                                           -    Y    Y   -    -      -        Y       -      -
POST   /v2/commands/command-completions                                   -    Y    Y   -    -      -        Y       -      -
POST   /v2/commands/command-completions#all-parties                       -    -    -   -    -      -        Y       -      -
POST   /v2/state/active-contracts                                         -    Y    Y   -    -      -        Y       -      -
POST   /v2/state/active-contracts#any-party                               -    -    -   -    -      -        Y       -      -
POST   /v2/state/active-contracts-page                                    -    Y    Y   -    -      -        Y       -      -
GET    /v2/state/latest-pruned-offsets                                    Y    Y    Y   Y    Y      Y        Y       Y      Y
POST   /v2/updates                                                        -    Y    Y   -    -      -        Y       -      -
POST   /v2/updates#topology-any-party                                     -    -    -   -    -      -        Y       -      -
POST   /v2/updates/flats                                                  -    Y    Y   -    -      -        Y       -      -
POST   /v2/updates/trees                                                  -    Y    Y   -    -      -        Y       -      -
POST   /v2/updates/get-updates-page                                       -    Y    Y   -    -      -        Y       -      -
POST   /v2/updates/update-by-offset                                       -    Y    Y   -    -      -        Y       -      -
POST   /v2/updates/update-by-id                                           -    Y    Y   -    -      -        Y       -      -
POST   /v2/updates/transaction-by-offset                                  -    Y    Y   -    -      -        Y       -      -
POST   /v2/updates/transaction-by-id                                      -    Y    Y   -    -      -        Y       -      -
GET    /v2/updates/transaction-tree-by-offset/1?parties=P                 -    Y    Y   -    -      -        Y       -      -
GET    /v2/updates/transaction-tree-by-id/1220ab?parties=P                -    Y    Y   -    -      -        Y       -      -
POST   /v2/events/events-by-contract-id                                   -    Y    Y   -    -      -        Y       -      -
POST   /v2/contracts/contract-by-id                                       -    Y    Y   -    -      -        Y       -      -
POST   /v2/contracts/contract-by-id#no-parties                            -    -    -   -    -      -        Y       -      -
POST   /v2/commands/async/submit-reassignment                             -    -    Y   -    -      -        -       -      -
POST   /v2/commands/submit-and-wait-for-reassignment                      -    -    Y   -    -      -        -       -      -
GET    /v2/idps                                                           -    -    -   -    Y      -        -       -      -
POST   /v2/idps                                                           -    -    -   -    Y      -        -       -      -
GET    /v2/idps/ghost                                                     -    -    -   -    Y      -        -       -      -
PATCH  /v2/idps/ghost                                                     -    -    -   -    Y      -        -       -      -
DELETE /v2/idps/ghost                                                     -    -    -   -    Y      -        -       -      -
PATCH  /v2/users/victim/identity-provider-id                              -    -    -   -    Y      -        -       -      -
GET    /livez                                                             Y    Y    Y   Y    Y      Y        Y       Y      Y
GET    /readyz                                                            Y    Y    Y   Y    Y      Y        Y       Y      Y
POST   /admin/prune                                                       -    -    -   -    Y      -        -       -      -
`

// TestRightsTable runs every endpoint as every kind of caller against a
// started node and checks the outcome against rightsTable.
func TestRightsTable(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	p, key := n.onboard("P", "owner")
	owner := n.token("owner")
	n.createUser("victim")
	x := newTestIDP(t, "idp-x", 0)
	n.ok("POST", "/v2/idps", n.admin, x.config(), nil)
	for _, col := range rightColumns {
		if col.name == ofX {
			n.createUserIn("idp-x", "u-"+col.name, col.right(p)...)
			continue
		}
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
	for k, v := range readBodies(p) {
		bodies[k] = v
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
			if col.name == ofX {
				token = x.token(user, "ec")
			}
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

// readBodies are the request bodies of the read rows of rightsTable.
func readBodies(p string) map[string]func(user string) any {
	format := map[string]any{"filtersByParty": map[string]any{p: map[string]any{}}}
	anyParty := map[string]any{"filtersForAnyParty": map[string]any{}}
	txs := map[string]any{"includeTransactions": map[string]any{"eventFormat": format, "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA"}}
	legacy := map[string]any{"beginExclusive": 0, "endInclusive": 1, "filter": format}
	reassign := func(string) any {
		return map[string]any{"reassignmentCommands": map[string]any{"commandId": "r", "submitter": p,
			"commands": []any{map[string]any{"command": map[string]any{"UnassignCommand": map[string]any{"value": map[string]any{
				"contractId": "00ab", "source": "a::1220", "target": "b::1220"}}}}}}}
	}
	idp := func(string) any {
		return map[string]any{"identityProviderConfig": map[string]any{"identityProviderId": "ghost", "issuer": "i",
			"jwksUrl": "https://i.example/jwks"}, "updateMask": map[string]any{"paths": []string{"issuer"}}}
	}
	return map[string]func(string) any{
		"POST /v2/commands/command-completions":              func(string) any { return map[string]any{"parties": []string{p}} },
		"POST /v2/commands/command-completions#all-parties":  func(string) any { return map[string]any{"parties": []string{}} },
		"POST /v2/state/active-contracts":                    func(string) any { return map[string]any{"activeAtOffset": 0, "eventFormat": format} },
		"POST /v2/state/active-contracts#any-party":          func(string) any { return map[string]any{"activeAtOffset": 0, "eventFormat": anyParty} },
		"POST /v2/state/active-contracts-page":               func(string) any { return map[string]any{"eventFormat": format} },
		"POST /v2/updates":                                   func(string) any { return map[string]any{"beginExclusive": 0, "endInclusive": 1, "updateFormat": txs} },
		"POST /v2/updates/flats":                             func(string) any { return legacy },
		"POST /v2/updates/trees":                             func(string) any { return legacy },
		"POST /v2/updates/get-updates-page":                  func(string) any { return map[string]any{"updateFormat": txs} },
		"POST /v2/updates/update-by-offset":                  func(string) any { return map[string]any{"offset": 1, "updateFormat": txs} },
		"POST /v2/updates/update-by-id":                      func(string) any { return map[string]any{"updateId": "1220ab", "updateFormat": txs} },
		"POST /v2/updates/transaction-by-offset":             func(string) any { return map[string]any{"offset": 1, "requestingParties": []string{p}} },
		"POST /v2/updates/transaction-by-id":                 func(string) any { return map[string]any{"updateId": "1220ab", "requestingParties": []string{p}} },
		"POST /v2/events/events-by-contract-id":              func(string) any { return map[string]any{"contractId": "00ab", "eventFormat": format} },
		"POST /v2/contracts/contract-by-id":                  func(string) any { return map[string]any{"contractId": "00ab", "queryingParties": []string{p}} },
		"POST /v2/contracts/contract-by-id#no-parties":       func(string) any { return map[string]any{"contractId": "00ab"} },
		"POST /v2/commands/async/submit-reassignment":        reassign,
		"POST /v2/commands/submit-and-wait-for-reassignment": reassign,
		"POST /v2/idps":                                      idp,
		"PATCH /v2/idps/ghost":                               idp,
		"PATCH /v2/users/victim/identity-provider-id": func(string) any {
			return map[string]any{"userId": "victim", "sourceIdentityProviderId": "", "targetIdentityProviderId": ""}
		},
		"POST /v2/updates#topology-any-party": func(string) any {
			return map[string]any{"beginExclusive": 0, "endInclusive": 1, "updateFormat": map[string]any{
				"includeTopologyEvents": map[string]any{"includeParticipantAuthorizationEvents": map[string]any{"parties": []string{}}}}}
		},
		"POST /admin/prune": func(string) any { return map[string]any{"pruneUpTo": 1} },
	}
}
