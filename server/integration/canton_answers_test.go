package integration

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestCreateAndExercisePreparedThenRefused: Canton prepares a
// CreateAndExerciseCommand (one command, two root nodes) and refuses it at
// execute, before looking at the signatures (InteractiveSubmissionServiceImpl
// refuses only several commands; ExternalTransactionProcessor.processExecute
// refuses several roots under enforceSingleRootNode).
func TestCreateAndExercisePreparedThenRefused(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	ext, key := n.onboard("Ext", "wallet")
	wallet := n.token("wallet")
	cmd := map[string]any{"CreateAndExerciseCommand": map[string]any{
		"templateId":      iouTemplate,
		"createArguments": map[string]any{"owner": ext, "amount": "1", "currency": "USD"},
		"choice":          "Archive", "choiceArgument": map[string]any{},
	}}
	p := n.prepare(wallet, prepareBody("cae-1", []string{ext}, cmd))
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(p.PreparedTransaction, &pt); err != nil {
		t.Fatal(err)
	}
	if roots := pt.GetTransaction().GetRoots(); len(roots) != 2 {
		t.Fatalf("roots %v, want the create and the exercise", roots)
	}
	e := n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(p, ext, key, "s-1"), 400, "FAILED_TO_EXECUTE_TRANSACTION")
	if want := "The participant failed to execute the transaction: Transaction with multiple root nodes are not supported"; e.Cause != want {
		t.Errorf("cause %q, want %q", e.Cause, want)
	}
	if end := n.ledgerEnd(); end != 0 {
		t.Errorf("ledger end %d after the refused execute, want 0", end)
	}
}

// TestAudienceNamesTheParticipantID: Canton accepts a token whose audience
// is https://daml.com/jwt/aud/participant/<id> when <id> is exactly its
// participant id, name::fingerprint as GET /v2/parties/participant-id
// answers (Authorizer.valid, Claims.validForParticipant); another id is
// PERMISSION_DENIED. The node also takes the bare name (ledger token's
// default, minted before the fingerprint is known).
func TestAudienceNamesTheParticipantID(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	var pid ledgerapi.GetParticipantIDResponse
	n.ok("GET", "/v2/parties/participant-id", n.admin, nil, &pid)
	name, fingerprint, ok := strings.Cut(pid.ParticipantID, "::")
	if !ok {
		t.Fatalf("participant id %q", pid.ParticipantID)
	}
	mint := func(participant string) string {
		tok, err := auth.Mint(testSecret, ledger.AdminUserID, time.Hour, "", participant, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for _, id := range []string{pid.ParticipantID, name} {
		n.ok("GET", "/v2/authenticated-user", mint(id), nil, nil)
	}
	for _, id := range []string{"other::" + fingerprint, name + "::1220" + strings.Repeat("0", 64), "other"} {
		n.fail("GET", "/v2/authenticated-user", mint(id), nil, 403, ledgerapi.RedactedCode)
	}
}

// TestTokenSubjectNotAUserID: Canton's UserBasedClaimResolver.getUserId
// refuses a token whose sub is no valid user id with INVALID_TOKEN (400, not
// redacted), before it looks the user up; the JSON layer adds
// ledger_api_error to the context (Endpoints.validateJwtToken).
func TestTokenSubjectNotAUserID(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	tok, err := auth.Mint(testSecret, "bad user", time.Hour, "", auth.DefaultParticipantID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	e := n.fail("GET", "/v2/authenticated-user", tok, nil, 400, "INVALID_TOKEN")
	want := "The submitted request is missing a user-id: token User ID \"bad user\" does not match regex \"[a-zA-Z0-9@^$.!`\\-#+'~_|:\\(\\)]{1,128}\""
	if e.Cause != want || e.ErrorCategory != 8 || e.Context["ledger_api_error"] != "invalid token" || e.Context["definite_answer"] != "false" {
		t.Errorf("error %+v, want cause %s", e, want)
	}
	// a valid user id that names no user stays the redacted 403
	tok, _ = auth.Mint(testSecret, "nobody", time.Hour, "", auth.DefaultParticipantID, time.Now())
	e = n.fail("GET", "/v2/authenticated-user", tok, nil, 403, ledgerapi.RedactedCode)
	if e.Context["ledger_api_error"] != "invalid token" {
		t.Errorf("unknown user: context %v", e.Context)
	}
}

// TestCompletionsAuthorizeBeforeValidating: Canton authorizes a completion
// stream (CommandCompletionServiceAuthorization: MatchUserId skipping the
// user check for any-party readers, then ReadAs for every listed party)
// before CompletionServiceRequestValidator looks at the request.
func TestCompletionsAuthorizeBeforeValidating(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	alice := n.allocate("Alice").Party
	n.createUser("reader", ledgerapi.CanReadAs(alice))
	n.createUser("any", adminRight(ledgerapi.RightCanReadAsAnyParty))
	reader, anyone := n.token("reader"), n.token("any")
	const path = "/v2/commands/completions?stream_idle_timeout_ms=10"

	// a party the caller may not read is 403, malformed or not
	for _, p := range []string{"not a party!", "Bob::1220ab", ""} {
		n.fail("POST", path, reader, map[string]any{"parties": []string{alice, p}}, 403, ledgerapi.RedactedCode)
	}
	// another user than the token's is 403, even when malformed ...
	n.fail("POST", path, reader, map[string]any{"userId": "bad user!", "parties": []string{alice}}, 403, ledgerapi.RedactedCode)
	// ... unless the caller may read as any party: then it is validated
	e := n.fail("POST", path, anyone, map[string]any{"userId": "bad user!", "parties": []string{alice}}, 400, "INVALID_FIELD")
	if !strings.Contains(e.Cause, "user_id") {
		t.Errorf("cause %q does not name user_id", e.Cause)
	}
	n.ok("POST", path, anyone, map[string]any{"userId": "reader", "parties": []string{alice}}, nil)
	n.fail("POST", path, anyone, map[string]any{"parties": []string{"not a party!"}}, 400, "INVALID_ARGUMENT")
}

// TestUserManagementAsCantonAnswersIt pins what Canton 3.5's user
// management does with admins (UserManagementServiceAuthorization,
// ApiUserManagementService):
//   - deleting a user needs admin rights over its identity provider only,
//     so an identity-provider admin of the default provider may delete
//     participant_admin; the one refusal is deleting oneself (INVALID_ARGUMENT
//     "Requesting user cannot delete itself");
//   - revoking one's own ParticipantAdmin is INVALID_ARGUMENT;
//   - only a participant admin creates users with, grants or revokes
//     ParticipantAdmin, CanReadAsAnyParty and CanExecuteAsAnyParty; an
//     identity-provider admin may grant IdentityProviderAdmin.
func TestUserManagementAsCantonAnswersIt(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	n.createUser("idp", adminRight(ledgerapi.RightIdentityProviderAdmin))
	n.createUser("victim")
	idp := n.token("idp")
	grant := func(rights ...ledgerapi.Right) map[string]any {
		return map[string]any{"userId": "victim", "rights": rights}
	}

	e := n.fail("DELETE", "/v2/users/"+ledger.AdminUserID, n.admin, nil, 400, "INVALID_ARGUMENT")
	if e.Cause != "The submitted request has invalid arguments: Requesting user cannot delete itself" {
		t.Errorf("self delete: %q", e.Cause)
	}
	e = n.fail("PATCH", "/v2/users/"+ledger.AdminUserID+"/rights", n.admin,
		map[string]any{"userId": ledger.AdminUserID, "rights": []any{adminRight(ledgerapi.RightParticipantAdmin)}}, 400, "INVALID_ARGUMENT")
	if !strings.HasSuffix(e.Cause, "Requesting user cannot remove own admin rights") {
		t.Errorf("own admin revoke: %q", e.Cause)
	}

	for _, r := range []ledgerapi.RightKind{ledgerapi.RightParticipantAdmin, ledgerapi.RightCanReadAsAnyParty, ledgerapi.RightCanExecuteAsAnyParty} {
		n.fail("POST", "/v2/users/victim/rights", idp, grant(adminRight(r)), 403, ledgerapi.RedactedCode)
		n.fail("PATCH", "/v2/users/victim/rights", idp, grant(adminRight(r)), 403, ledgerapi.RedactedCode)
		n.fail("POST", "/v2/users", idp, map[string]any{"user": map[string]any{"id": "with-" + string(r)}, "rights": []any{adminRight(r)}}, 403, ledgerapi.RedactedCode)
	}
	n.ok("POST", "/v2/users/victim/rights", idp, grant(adminRight(ledgerapi.RightIdentityProviderAdmin)), nil)

	n.ok("DELETE", "/v2/users/"+ledger.AdminUserID, idp, nil, nil)
	n.fail("GET", "/v2/users/"+ledger.AdminUserID, idp, nil, 404, "USER_NOT_FOUND")
}

// TestStringsAsCantonReadsThem: Canton neither refuses malformed UTF-8 nor
// lone surrogates in JSON strings. Pekko decodes the body with U+FFFD for
// malformed bytes; jawn keeps a lone \ud800 as a UTF-16 unit, which the
// protobuf encoder on the way to the Ledger API writes as "?". So the first
// is stored as U+FFFD, the second as "?", with a 200.
func TestStringsAsCantonReadsThem(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	body := "{\"user\":{\"id\":\"strings\",\"metadata\":{\"annotations\":{" +
		`"lone":"a\ud800b","low":"\udc00","pair":"\ud83d\ude00","escaped":"\\ud800",` +
		"\"bytes\":\"a\xff\xfeb\"}}}}"
	n.ok("POST", "/v2/users", n.admin, body, nil)
	var got ledgerapi.GetUserResponse
	n.ok("GET", "/v2/users/strings", n.admin, nil, &got)
	want := map[string]string{"lone": "a?b", "low": "?", "pair": "😀", "escaped": `\ud800`, "bytes": "a\ufffd\ufffdb"}
	for k, v := range want {
		if a := got.User.Metadata.Annotations[k]; a != v {
			t.Errorf("annotation %s = %q, want %q", k, a, v)
		}
	}
}

// TestDeduplicationOffsetPastTheLedgerEnd: Canton does not reject a
// DeduplicationOffset after the ledger end. CommandsValidator only refuses a
// negative one, and CommandDeduplicator.dedupOffset finds a duplicate only
// when the change's latest acceptance lies after the offset, so such an
// offset deduplicates nothing: the same command is accepted twice. What the
// completion reports is the period actually used: the offset of the latest
// acceptance of the change, or 0 (participant begin) when there is none.
func TestDeduplicationOffsetPastTheLedgerEnd(t *testing.T) {
	n := startNode(t, auth.ModeNone)
	alice := n.allocate("Alice").Party
	past := map[string]any{"userId": "u", "deduplicationPeriod": map[string]any{"DeduplicationOffset": map[string]any{"value": 999999999}}}
	var first, second ledgerapi.SubmitAndWaitResponse
	n.ok("POST", "/v2/commands/submit-and-wait", "", commands("dup", []string{alice}, []map[string]any{create(alice, "1")}, past), &first)
	n.ok("POST", "/v2/commands/submit-and-wait", "", commands("dup", []string{alice}, []map[string]any{create(alice, "1")}, past), &second)
	cs := n.completions("", "u", []string{alice}, 0, "")
	if len(cs) != 2 {
		t.Fatalf("completions %+v", cs)
	}
	for i, want := range []int64{0, int64(first.CompletionOffset)} {
		if p := cs[i].DeduplicationPeriod.Offset; p == nil || *p != want {
			t.Errorf("completion %d reports deduplication period %+v, want offset %d", i, cs[i].DeduplicationPeriod, want)
		}
	}
	// an offset before the acceptances still deduplicates
	before := map[string]any{"userId": "u", "deduplicationPeriod": map[string]any{"DeduplicationOffset": map[string]any{"value": 0}}}
	n.fail("POST", "/v2/commands/submit-and-wait", "", commands("dup", []string{alice}, []map[string]any{create(alice, "1")}, before), 409, "DUPLICATE_COMMAND")
}
