package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server/auth"
	"github.com/ledger-cli/ledger/signer"
)

// The fuzz targets here drive every request body decoder of the node
// through the real handler stack (authentication, decoding, validation, the
// engine and the store) with an httptest recorder. Whatever the body, the
// answer must be 200, a 400 text/plain decoding failure, a 413, or Canton's
// JSON error body; never a panic and never a 500.

var fuzzSecret = []byte("fuzz-secret-0123456789-0123456789")

// fuzzNode is a node on an in-memory database whose admin token also holds
// every party right, so that bodies get past authorization to validation.
type fuzzNode struct {
	s       *Server
	token   string
	party   string // a local party
	ext     string // an external party
	key     *signer.Key
	prepare []byte // a prepare request body for ext
	execute []byte // a signed executeAndWait body for ext
	seq     atomic.Int64
}

func newFuzzNode(tb testing.TB) *fuzzNode {
	tb.Helper()
	ctx := context.Background()
	nd, err := local.Open(ctx, local.Config{DBPath: ":memory:"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = nd.Close() })
	id := nd.Identity()
	v, err := auth.New(auth.Config{Mode: auth.ModeHS256, Secret: fuzzSecret, ParticipantID: auth.DefaultParticipantID})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(v.Close)
	s := New(nd, v, Config{MaxRequestBytes: 64 << 10, CompletionsWait: time.Millisecond, CompletionsMax: 50})
	tok, err := auth.Mint(fuzzSecret, ledger.AdminUserID, 24*time.Hour, "", auth.DefaultParticipantID, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	n := &fuzzNode{s: s, token: tok}

	var alloc ledgerapi.AllocatePartyResponse
	n.must(tb, "POST", "/v2/parties", `{"partyIdHint":"Alice"}`, &alloc)
	n.party = alloc.PartyDetails.Party

	n.key, err = signer.Generate(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	var gen ledgerapi.GenerateExternalPartyTopologyResponse
	n.must(tb, "POST", "/v2/parties/external/generate-topology", marshal(tb, map[string]any{
		"synchronizer": id.SynchronizerID, "partyHint": "Ext",
		"publicKey": map[string]any{"format": "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
			"keyData": n.key.Public().SPKIDER(), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"},
	}), &gen)
	sig, err := n.key.SignMultiHash(gen.MultiHash)
	if err != nil {
		tb.Fatal(err)
	}
	txs := make([]map[string]any, len(gen.TopologyTransactions))
	for i, tx := range gen.TopologyTransactions {
		txs[i] = map[string]any{"transaction": tx, "signatures": []any{}}
	}
	var ext ledgerapi.AllocateExternalPartyResponse
	n.must(tb, "POST", "/v2/parties/external/allocate", marshal(tb, map[string]any{
		"synchronizer": id.SynchronizerID, "onboardingTransactions": txs, "multiHashSignatures": []any{sig},
	}), &ext)
	n.ext = ext.PartyID
	n.must(tb, "POST", "/v2/users/"+ledger.AdminUserID+"/rights", marshal(tb, map[string]any{"rights": []any{
		ledgerapi.CanActAs(n.party), ledgerapi.CanActAs(n.ext),
		ledgerapi.Right{Kind: ledgerapi.RightCanReadAsAnyParty}, ledgerapi.Right{Kind: ledgerapi.RightCanExecuteAsAnyParty},
	}}), nil)

	n.prepare = marshal(tb, map[string]any{"commandId": "prep-1", "actAs": []string{n.ext},
		"commands": []any{iouCreate(n.ext)}, "synchronizerId": "", "packageIdSelectionPreference": []string{}})
	var prep ledgerapi.PrepareSubmissionResponse
	n.must(tb, "POST", "/v2/interactive-submission/prepare", string(n.prepare), &prep)
	var h [32]byte
	copy(h[:], prep.PreparedTransactionHash)
	n.execute = marshal(tb, map[string]any{
		"preparedTransaction": prep.PreparedTransaction,
		"partySignatures": map[string]any{"signatures": []any{
			map[string]any{"party": n.ext, "signatures": []any{n.key.SignHash(h)}}}},
		"deduplicationPeriod":  map[string]any{"Empty": map[string]any{}},
		"submissionId":         "sub-1",
		"hashingSchemeVersion": prep.HashingSchemeVersion,
	})
	return n
}

func iouCreate(owner string) map[string]any {
	return map[string]any{"CreateCommand": map[string]any{"templateId": "#iou-pkg:Iou:Iou",
		"createArguments": map[string]any{"owner": owner, "amount": "1.0", "currency": "USD"}}}
}

func marshal(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// do sends one request through the node's handler.
func (n *fuzzNode) do(method, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+n.token)
	rec := httptest.NewRecorder()
	n.s.Handler().ServeHTTP(rec, req)
	return rec
}

// must sends a setup request and requires 200.
func (n *fuzzNode) must(tb testing.TB, method, path string, body any, out any) {
	tb.Helper()
	var b []byte
	switch v := body.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	}
	rec := n.do(method, path, b)
	if rec.Code != http.StatusOK {
		tb.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
	}
	if out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			tb.Fatal(err)
		}
	}
}

// checkAnswer is the property every fuzz target asserts.
func checkAnswer(t *testing.T, method, path string, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code == http.StatusOK {
		return
	}
	if rec.Code >= 500 {
		t.Fatalf("%s %s answered %d for body %q: %s", method, path, rec.Code, body, rec.Body)
	}
	ct, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	switch ct {
	case "text/plain":
		if rec.Code != http.StatusBadRequest || !strings.HasPrefix(rec.Body.String(), "Invalid value for: ") {
			t.Fatalf("%s %s: text/plain answer %d %q is not a decoding failure", method, path, rec.Code, rec.Body)
		}
	case "application/json":
		e, err := ledgerapi.DecodeError(rec.Body.Bytes())
		if err != nil || e.Code == "" || e.Cause == "" {
			t.Fatalf("%s %s: %d with a body that is not Canton's error: %s", method, path, rec.Code, rec.Body)
		}
	default:
		t.Fatalf("%s %s: %d with Content-Type %q: %s", method, path, rec.Code, ct, rec.Body)
	}
}

// fuzzBody runs a fuzz target posting each input as the body of one endpoint.
// seeds are bodies with {P} (the local party), {X} (the external party) and
// {N} (a fresh number) filled in at run time.
func fuzzBody(f *testing.F, method, path string, seeds ...string) {
	n := newFuzzNode(f)
	path = strings.NewReplacer("{P}", url.PathEscape(n.party), "{X}", url.PathEscape(n.ext)).Replace(path)
	fuzzBodyWith(f, n, method, path, seeds...)
}

// commonSeeds are shapes every decoder must survive.
var commonSeeds = []string{
	``, `null`, `[]`, `{}`, `{"a":`, `"x"`, `{"commands":null}`, `{"":{"":{"":[]}}}`,
	`{"x":` + strings.Repeat(`[`, 2000) + strings.Repeat(`]`, 2000) + `}`,
	`{"userId":"\u0000"}`, `{"parties":["` + strings.Repeat("a", 300) + `"]}`,
}

func FuzzPrepareRequest(f *testing.F) {
	n := newFuzzNode(f)
	fuzzBodyWith(f, n, "POST", "/v2/interactive-submission/prepare",
		string(n.prepare),
		`{"commandId":"c{N}","actAs":["{P}"],"readAs":["{X}"],"commands":[{"ExerciseCommand":{"templateId":"#iou-pkg:Iou:Iou","contractId":"00ab","choice":"Transfer","choiceArgument":{"to":"{X}"}}}],"synchronizerId":"","packageIdSelectionPreference":[],"verboseHashing":true,"hashingSchemeVersion":"HASHING_SCHEME_VERSION_V3"}`,
		`{"commandId":"c{N}","actAs":["{X}"],"commands":[{"CreateCommand":{"templateId":"#p:M:T","createArguments":{"a":[1,2,{"b":null}],"c":{"tag":"X","value":{}}}}}],"minLedgerTime":{"time":{"MinLedgerTimeRel":{"value":{"seconds":5}}}},"disclosedContracts":[]}`,
	)
}

func FuzzExecuteRequest(f *testing.F) {
	n := newFuzzNode(f)
	fuzzBodyWith(f, n, "POST", "/v2/interactive-submission/executeAndWait",
		string(n.execute),
		`{"preparedTransaction":"CgA=","partySignatures":{"signatures":[{"party":"{X}","signatures":[{"format":"SIGNATURE_FORMAT_CONCAT","signature":"AAAA","signedBy":"1220abcd","signingAlgorithmSpec":"SIGNING_ALGORITHM_SPEC_ED25519"}]}]},"deduplicationPeriod":{"DeduplicationDuration":{"value":{"seconds":60}}},"submissionId":"s","hashingSchemeVersion":"HASHING_SCHEME_VERSION_V2","minLedgerTime":{"time":{"MinLedgerTimeAbs":{"value":"2026-01-01T00:00:00Z"}}}}`,
	)
}

func FuzzExecuteForTransactionRequest(f *testing.F) {
	n := newFuzzNode(f)
	with := strings.TrimSuffix(string(n.execute), "}") +
		`,"transactionFormat":{"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS","eventFormat":{"filtersByParty":{"{X}":{"cumulative":[]}},"filtersForAnyParty":null,"verbose":true}}}`
	fuzzBodyWith(f, n, "POST", "/v2/interactive-submission/executeAndWaitForTransaction", with, string(n.execute))
}

// commandsSeeds are JsCommands bodies.
var commandsSeeds = []string{
	`{"commandId":"c{N}","actAs":["{P}"],"commands":[{"CreateCommand":{"templateId":"#iou-pkg:Iou:Iou","createArguments":{"owner":"{P}","amount":"1.0","currency":"USD"}}}]}`,
	`{"commandId":"c{N}","actAs":["{P}"],"readAs":["{X}"],"userId":"","workflowId":"w","submissionId":"s{N}","deduplicationPeriod":{"DeduplicationOffset":{"value":0}},"commands":[{"CreateAndExerciseCommand":{"templateId":"#iou-pkg:Iou:Iou","createArguments":{"owner":"{P}"},"choice":"Archive","choiceArgument":{}}}],"minLedgerTimeRel":{"seconds":1,"nanos":0}}`,
	`{"commandId":"c{N}","actAs":["{P}"],"commands":[{"ExerciseByKeyCommand":{"templateId":"#p:M:T","contractKey":{"k":"v"},"choice":"C","choiceArgument":{}}}]}`,
}

func FuzzSubmitRequest(f *testing.F) {
	fuzzBody(f, "POST", "/v2/commands/submit-and-wait-for-transaction-tree", commandsSeeds...)
}

func FuzzSubmitForTransactionRequest(f *testing.F) {
	var seeds []string
	for _, s := range commandsSeeds {
		seeds = append(seeds, `{"commands":`+s+`,"transactionFormat":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{},"filtersForAnyParty":{"cumulative":[{"identifierFilter":{"WildcardFilter":{"value":{"includeCreatedEventBlob":true}}}}]},"verbose":false}}}`)
	}
	// the format's template and interface filters (views, blobs) apply to the answer
	seeds = append(seeds,
		`{"commands":`+commandsSeeds[0]+`,"transactionFormat":{"transactionShape":"TRANSACTION_SHAPE_LEDGER_EFFECTS","eventFormat":{"filtersByParty":{"{P}":{"cumulative":[{"identifierFilter":{"TemplateFilter":{"value":{"templateId":"#iou-pkg:Iou:Iou","includeCreatedEventBlob":true}}}}]}}}}}`,
		`{"commands":`+commandsSeeds[0]+`,"transactionFormat":{"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA","eventFormat":{"filtersByParty":{"{P}":{"cumulative":[{"identifierFilter":{"InterfaceFilter":{"value":{"interfaceId":"#p:M:I","includeInterfaceView":true,"includeCreatedEventBlob":true}}}}]}}}}}`)
	fuzzBody(f, "POST", "/v2/commands/submit-and-wait-for-transaction", seeds...)
}

func FuzzCompletionsRequest(f *testing.F) {
	fuzzBody(f, "POST", "/v2/commands/completions?limit=20&stream_idle_timeout_ms=1",
		`{"userId":"","parties":["{P}","{X}"],"beginExclusive":0}`,
		`{"userId":"participant_admin","parties":["{P}"],"beginExclusive":"3"}`,
		`{"parties":["{P}"],"beginExclusive":-1}`,
	)
}

func FuzzPartyUpdateRequest(f *testing.F) {
	fuzzBody(f, "PATCH", "/v2/parties/{P}",
		`{"partyDetails":{"party":"{P}","isLocal":true,"localMetadata":{"resourceVersion":"","annotations":{"example.com/k":"v"}},"identityProviderId":""},"updateMask":{"paths":["local_metadata.annotations"]}}`,
		`{"partyDetails":{"party":"{P}","isLocal":false,"localMetadata":{"resourceVersion":"1","annotations":{"k":""}},"identityProviderId":""},"updateMask":{"paths":["local_metadata","is_local"],"unknownFields":{}}}`,
	)
}

func FuzzAllocatePartyRequest(f *testing.F) {
	fuzzBody(f, "POST", "/v2/parties",
		`{"partyIdHint":"p{N}","localMetadata":{"resourceVersion":"","annotations":{"a.b/c":"d"}},"identityProviderId":"","synchronizerId":"","userId":""}`,
		`{"partyIdHint":"","userId":"participant_admin"}`,
	)
}

func FuzzGenerateTopologyRequest(f *testing.F) {
	fuzzBody(f, "POST", "/v2/parties/external/generate-topology",
		`{"synchronizer":"","partyHint":"g{N}","publicKey":{"format":"CRYPTO_KEY_FORMAT_RAW","keyData":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","keySpec":"SIGNING_KEY_SPEC_EC_CURVE25519"},"localParticipantObservationOnly":false,"otherConfirmingParticipantUids":[],"confirmationThreshold":1,"observingParticipantUids":[]}`,
		`{"partyHint":"g{N}","publicKey":{"format":"CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO","keyData":"MCowBQYDK2VwAyEA","keySpec":"SIGNING_KEY_SPEC_EC_CURVE25519"}}`,
	)
}

func FuzzExternalAllocateRequest(f *testing.F) {
	fuzzBody(f, "POST", "/v2/parties/external/allocate",
		`{"synchronizer":"","onboardingTransactions":[{"transaction":"CgA=","signatures":[]}],"multiHashSignatures":[{"format":"SIGNATURE_FORMAT_CONCAT","signature":"AAAA","signedBy":"1220ab","signingAlgorithmSpec":"SIGNING_ALGORITHM_SPEC_ED25519"}],"identityProviderId":"","userId":""}`,
		`{"onboardingTransactions":[{"transaction":"","signatures":[{"format":"SIGNATURE_FORMAT_RAW","signature":"","signedBy":"","signingAlgorithmSpec":""}]}]}`,
	)
}

func FuzzCreateUserRequest(f *testing.F) {
	fuzzBody(f, "POST", "/v2/users",
		`{"user":{"id":"u{N}","primaryParty":"{P}","isDeactivated":false,"metadata":{"resourceVersion":"","annotations":{"k":"v"}},"identityProviderId":""},"rights":[{"kind":{"CanActAs":{"value":{"party":"{P}"}}}},{"kind":{"ParticipantAdmin":{"value":{}}}}]}`,
		`{"user":{"id":"u{N}"},"rights":[{"kind":{"CanReadAsAnyParty":{"value":{}}}},{"kind":{"Empty":{}}}]}`,
	)
}

func FuzzUpdateUserRequest(f *testing.F) {
	fuzzBody(f, "PATCH", "/v2/users/participant_admin",
		`{"user":{"id":"participant_admin","primaryParty":"{P}","isDeactivated":false,"metadata":{"resourceVersion":"","annotations":{"k":"v"}},"identityProviderId":""},"updateMask":{"paths":["primary_party","metadata.annotations"]}}`,
		`{"user":{"id":"participant_admin"},"updateMask":{"paths":["identity_provider_id"]}}`,
	)
}

func FuzzUserRightsRequest(f *testing.F) {
	n := newFuzzNode(f)
	n.must(f, "POST", "/v2/users", `{"user":{"id":"target"}}`, nil)
	seeds := []string{
		`{"userId":"target","rights":[{"kind":{"CanReadAs":{"value":{"party":"{P}"}}}},{"kind":{"CanExecuteAs":{"value":{"party":"{X}"}}}}],"identityProviderId":""}`,
		`{"rights":[{"kind":{"IdentityProviderAdmin":{"value":{}}}}]}`,
	}
	fill := strings.NewReplacer("{P}", n.party, "{X}", n.ext)
	for _, s := range append(seeds, commonSeeds...) {
		f.Add([]byte(fill.Replace(s)), false)
		f.Add([]byte(fill.Replace(s)), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, revoke bool) {
		method := "POST"
		if revoke {
			method = "PATCH"
		}
		rec := n.do(method, "/v2/users/target/rights", body)
		checkAnswer(t, method, "/v2/users/target/rights", body, rec)
	})
}

// fuzzBodyWith is fuzzBody on a node already made (for seeds that need it).
func fuzzBodyWith(f *testing.F, n *fuzzNode, method, path string, seeds ...string) {
	fill := func(s string) string {
		return strings.NewReplacer("{P}", n.party, "{X}", n.ext, "{N}", fmt.Sprint(n.seq.Add(1))).Replace(s)
	}
	for _, s := range append(seeds, commonSeeds...) {
		f.Add([]byte(fill(s)))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := n.do(method, path, body)
		checkAnswer(t, method, path, body, rec)
	})
}

// FuzzCompletionsStreamFrame fuzzes the first frame of the completions
// websocket: the handler decodes it as a CompletionStreamRequest and checks
// it with the caller's rights, answering failures as one error frame built
// by writeError. The socket itself is left out (this drives the same
// decoding and validation); the error frame must be Canton's error body.
func FuzzCompletionsStreamFrame(f *testing.F) {
	n := newFuzzNode(f)
	r := httptest.NewRequest("GET", "/v2/commands/completions", nil)
	r.Header.Set("Authorization", "Bearer "+n.token)
	caller, err := n.s.authenticate(r)
	if err != nil {
		f.Fatal(err)
	}
	fill := strings.NewReplacer("{P}", n.party, "{X}", n.ext)
	for _, s := range append([]string{
		`{"userId":"","parties":["{P}","{X}"],"beginExclusive":0}`,
		`{"userId":"someone-else","parties":["{P}"],"beginExclusive":"0"}`,
		`{"parties":["{P}"],"beginExclusive":99}`,
	}, commonSeeds...) {
		f.Add([]byte(fill.Replace(s)))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		var body ledgerapi.CompletionStreamRequest
		err := ledgerapi.DecodeBody(bytes.TrimSpace(frame), &body)
		if err != nil {
			err = ledgerapi.InvalidArgument("the first frame is not a CompletionStreamRequest: %s", err.Error())
		} else {
			_, err = n.s.completionFilter(caller, body)
		}
		if err == nil {
			return
		}
		rec := httptest.NewRecorder()
		n.s.writeError(rec, r, err)
		checkAnswer(t, "WS", "/v2/commands/completions", frame, rec)
		if rec.Code == http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("error frame for %q is not a JSON error: %d %s", frame, rec.Code, rec.Body)
		}
	})
}

// FuzzQueryParameters fuzzes the query strings the node decodes: page
// sizes and tokens of the user and party lists, identity provider ids,
// party filters, and the completions list's limit and idle timeout.
func FuzzQueryParameters(f *testing.F) {
	n := newFuzzNode(f)
	endpoints := []struct{ method, path string }{
		{"GET", "/v2/users"},
		{"GET", "/v2/parties"},
		{"GET", "/v2/parties/" + url.PathEscape(n.party)},
		{"GET", "/v2/users/participant_admin"},
		{"GET", "/v2/users/participant_admin/rights"},
		{"GET", "/v2/authenticated-user"},
		{"GET", "/v2/state/connected-synchronizers"},
		{"POST", "/v2/commands/completions"},
	}
	for i, q := range []string{"pageSize=10&pageToken=", "pageSize=-1", "pageToken=%ff%fe", "identity-provider-id=idp1",
		"filter-party=Al", "parties=" + url.QueryEscape(n.ext), "limit=5&stream_idle_timeout_ms=1", "limit=x",
		"party=" + url.QueryEscape(n.party) + "&participantId=p", "stream_idle_timeout_ms=99999999999"} {
		f.Add(uint8(i), q)
	}
	completions := []byte(`{"parties":["` + n.party + `"]}`)
	f.Fuzz(func(t *testing.T, which uint8, query string) {
		e := endpoints[int(which)%len(endpoints)]
		var body []byte
		if e.method == "POST" {
			body = completions
			// the list waits for its idle timeout: keep it short whatever the query says
			query = "stream_idle_timeout_ms=1&" + strings.ReplaceAll(query, "stream_idle_timeout_ms", "x")
		}
		req := httptest.NewRequest(e.method, e.path, bytes.NewReader(body))
		req.URL.RawQuery = query // as the server hands it over, undecoded
		req.Header.Set("Authorization", "Bearer "+n.token)
		rec := httptest.NewRecorder()
		n.s.Handler().ServeHTTP(rec, req)
		checkAnswer(t, e.method, e.path+"?"+query, []byte(query), rec)
	})
}
