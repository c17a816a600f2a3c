package client

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// fake is an httptest server whose handler records the last request body.
type fake struct {
	*httptest.Server
	lastBody   atomic.Value // []byte
	lastHeader atomic.Value // http.Header
	lastQuery  atomic.Value // string
	hits       atomic.Int32
}

func newFake(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *fake {
	t.Helper()
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.lastBody.Store(b)
		f.lastHeader.Store(r.Header.Clone())
		f.lastQuery.Store(r.URL.RawQuery)
		f.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fake) body() map[string]json.RawMessage {
	var m map[string]json.RawMessage
	b, _ := f.lastBody.Load().([]byte)
	_ = json.Unmarshal(b, &m)
	return m
}

func newClient(t *testing.T, url string, tokens TokenSource) *Client {
	t.Helper()
	c, err := New(Config{URL: url, Tokens: tokens, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = func(context.Context, time.Duration) error { return nil }
	return c
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// Canton 3.5 answers with every field, nulls for absent optionals.
const version35 = `{"version":"3.5.9","features":{"experimental":{"staticTime":{"supported":false},"commandInspectionService":{"supported":true}},
"userManagement":{"supported":true,"maxRightsPerUser":1000,"maxUsersPageSize":1000},"partyManagement":{"maxPartiesPageSize":10000},
"offsetCheckpoint":{"maxOffsetCheckpointEmissionDelay":{"seconds":75,"nanos":0,"unknownFields":{"fields":{}}}},
"packageFeature":{"maxVettedPackagesPageSize":100}}}`

func TestVersionAndHeaders(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v2/version" {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, 200, version35)
	})
	c := newClient(t, f.URL+"/api/", StaticToken("tok123"))
	v, err := c.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Version != "3.5.9" || v.Features.OffsetCheckpoint.MaxOffsetCheckpointEmissionDelay.Std() != 75*time.Second {
		t.Errorf("decoded %+v", v)
	}
	h := f.lastHeader.Load().(http.Header)
	if got := h.Get("Authorization"); got != "Bearer tok123" {
		t.Errorf("Authorization = %q", got)
	}
	if got := h.Get("User-Agent"); !strings.HasPrefix(got, "ledger") {
		t.Errorf("User-Agent = %q", got)
	}
}

// TestWithResponseHeader: a caller gets the headers of the node's answer
// through the context.
func TestWithResponseHeader(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Ledger-Generic-Model", r.URL.Path)
		writeJSON(w, 200, version35)
	})
	c := newClient(t, f.URL, nil)
	var h http.Header
	ctx := WithResponseHeader(context.Background(), &h)
	if _, err := c.Version(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.Get("Ledger-Generic-Model"); got != "/v2/version" {
		t.Errorf("header = %q, want the answer's", got)
	}
}

func TestPrepareSendsEveryField(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"preparedTransaction":"CgMyLjE=","preparedTransactionHash":"3q2+7w==","hashingSchemeVersion":"HASHING_SCHEME_VERSION_V2","hashingDetails":null,"costEstimation":null}`)
	})
	c := newClient(t, f.URL, nil)
	resp, err := c.Prepare(context.Background(), ledgerapi.PrepareSubmissionRequest{
		CommandID: "c1", ActAs: []string{"alice::1220ab"},
		Commands: []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{TemplateID: "#p:M:T", CreateArguments: json.RawMessage(`{}`)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.PreparedTransaction) != "\n\x032.1" || resp.CostEstimation != nil || resp.HashingDetails != nil {
		t.Errorf("decoded %+v", resp)
	}
	body := f.body()
	for _, k := range []string{"userId", "commandId", "commands", "minLedgerTime", "actAs", "readAs", "disclosedContracts",
		"synchronizerId", "packageIdSelectionPreference", "verboseHashing", "prefetchContractKeys", "maxRecordTime", "estimateTrafficCost", "tapsMaxPasses"} {
		if _, ok := body[k]; !ok {
			t.Errorf("request lacks %q: %s", k, f.lastBody.Load())
		}
	}
	if string(body["packageIdSelectionPreference"]) != "[]" || string(body["synchronizerId"]) != `""` {
		t.Errorf("empty fields not sent as [] and \"\": %s", f.lastBody.Load())
	}
	if h := f.lastHeader.Load().(http.Header); h.Get("Authorization") != "" {
		t.Errorf("no token source, yet Authorization %q", h.Get("Authorization"))
	}
}

func TestExecuteSendsEmptyDeduplicationAndIsNotRetried(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 503, `{"code":"SERVICE_NOT_RUNNING","cause":"down","correlationId":null,"traceId":null,"context":{"category":"1"},
		"resources":[],"errorCategory":1,"grpcCodeValue":14,"retryInfo":"1 second","definiteAnswer":null}`)
	})
	c := newClient(t, f.URL, nil)
	err := c.Execute(context.Background(), ledgerapi.ExecuteSubmissionRequest{PreparedTransaction: []byte{1}, SubmissionID: "s1",
		HashingSchemeVersion: ledgerapi.HashingSchemeVersionV2})
	if ErrorID(err) != "SERVICE_NOT_RUNNING" || !IsRetryable(err) {
		t.Fatalf("err = %v (id %q)", err, ErrorID(err))
	}
	if n := f.hits.Load(); n != 1 {
		t.Errorf("execute sent %d times; it is not idempotent and must be sent once", n)
	}
	body := f.body()
	if string(body["deduplicationPeriod"]) != `{"Empty":{}}` {
		t.Errorf("deduplicationPeriod = %s", body["deduplicationPeriod"])
	}
	for _, k := range []string{"preparedTransaction", "partySignatures", "submissionId", "userId", "hashingSchemeVersion", "minLedgerTime"} {
		if _, ok := body[k]; !ok {
			t.Errorf("execute request lacks %q", k)
		}
	}
}

func TestIdempotentRequestsRetryOnlyRetryableErrors(t *testing.T) {
	var n atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) < 3 {
			writeJSON(w, 409, `{"code":"PARTICIPANT_BACKPRESSURE","cause":"busy","correlationId":null,"traceId":null,"context":{},"resources":[],
			"errorCategory":2,"grpcCodeValue":10,"retryInfo":"1 second","definiteAnswer":null}`)
			return
		}
		writeJSON(w, 200, `{"offset":42}`)
	})
	c := newClient(t, f.URL, nil)
	end, err := c.LedgerEnd(context.Background())
	if err != nil || end != 42 {
		t.Fatalf("LedgerEnd = %d, %v", end, err)
	}
	if f.hits.Load() != 3 {
		t.Errorf("%d attempts, want 3", f.hits.Load())
	}

	// A non-retryable category is not retried even on an idempotent request.
	g := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, `{"code":"USER_NOT_FOUND","cause":"no such user","correlationId":null,"traceId":null,"context":{"category":"11"},
		"resources":[["ErrorResource(USER)","bob"]],"errorCategory":11,"grpcCodeValue":5,"retryInfo":null,"definiteAnswer":null}`)
	})
	c = newClient(t, g.URL, nil)
	_, err = c.GetUser(context.Background(), "bob")
	if !errors.Is(err, ledgerapi.CodeUserNotFound.Err()) || IsRetryable(err) {
		t.Fatalf("err = %v", err)
	}
	if g.hits.Load() != 1 {
		t.Errorf("%d attempts, want 1", g.hits.Load())
	}
	if name, ok := CantonError(err).Resource("USER"); !ok || name != "bob" {
		t.Errorf("resource ErrorResource(USER) not read: %v", CantonError(err).Resources)
	}
}

func TestRedactedAndPlainTextErrors(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v2/users":
			writeJSON(w, 403, `{"code":"NA","cause":"A security-sensitive error has been received","correlationId":"abc-123","traceId":"4bf9",
			"context":{},"resources":[],"errorCategory":-1,"grpcCodeValue":7,"retryInfo":null,"definiteAnswer":null}`)
		case "/v2/parties":
			w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
			w.WriteHeader(400)
			io.WriteString(w, "Invalid value for: body (Missing required field at 'partyIdHint')")
		default:
			w.WriteHeader(502)
			io.WriteString(w, "<html>bad gateway</html>")
		}
	})
	c := newClient(t, f.URL, nil)
	_, err := c.ListUsers(context.Background(), 0, "")
	var ae *APIError
	if !errors.As(err, &ae) || !ae.Redacted() || ae.StatusCode != 403 || ErrorID(err) != "NA" {
		t.Fatalf("err = %#v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "permission denied") || !strings.Contains(msg, "abc-123") {
		t.Errorf("message %q does not explain the redacted 403", msg)
	}
	if IsRetryable(err) || f.hits.Load() != 1 {
		t.Errorf("a 403 was retried (%d hits)", f.hits.Load())
	}

	_, err = c.AllocateParty(context.Background(), ledgerapi.AllocatePartyRequest{})
	if !errors.As(err, &ae) || ae.Canton != nil || ae.ContentType != "text/plain" || !strings.Contains(ae.Text, "partyIdHint") {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "could not decode the request") {
		t.Errorf("message %q", err)
	}

	before := f.hits.Load()
	_, err = c.ParticipantID(context.Background())
	if !errors.As(err, &ae) || ae.StatusCode != 502 || !IsRetryable(err) {
		t.Fatalf("err = %#v", err)
	}
	if got := f.hits.Load() - before; got != DefaultMaxAttempts {
		t.Errorf("502 on an idempotent GET tried %d times, want %d", got, DefaultMaxAttempts)
	}
}

func TestCompletionsList(t *testing.T) {
	// Canton 3.4: no OffsetCheckpoint elements; 3.5: mixed; int64 sometimes as strings.
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("limit") == "500" {
			writeJSON(w, 413, `{"code":"JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED","cause":"too many","correlationId":null,"traceId":null,
			"context":{},"resources":[],"errorCategory":2,"grpcCodeValue":null,"retryInfo":"1 second","definiteAnswer":null}`)
			return
		}
		writeJSON(w, 200, `[
		{"completionResponse":{"OffsetCheckpoint":{"value":{"offset":3,"synchronizerTimes":[{"synchronizerId":"s::1","recordTime":"2026-07-24T11:59:01Z"}]}}}},
		{"completionResponse":{"Completion":{"value":{"commandId":"c1","status":{"code":0,"message":"","details":[]},"updateId":"u1","userId":"alice",
		 "actAs":["alice::1220ab"],"submissionId":"s1","deduplicationPeriod":{"DeduplicationDuration":{"value":{"seconds":604800,"nanos":0,"unknownFields":{"fields":{}}}}},
		 "traceContext":null,"offset":"4","synchronizerTime":{"synchronizerId":"s::1","recordTime":"2026-07-24T11:59:02.5Z"},"paidTrafficCost":2560}}}},
		{"completionResponse":{"Completion":{"value":{"commandId":"c2","status":{"code":10,"message":"LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED(2,abc): too late","details":[]},
		 "updateId":"","userId":"alice","actAs":["alice::1220ab"],"submissionId":"s2","deduplicationPeriod":{"Empty":{}},"traceContext":null,"offset":5,
		 "synchronizerTime":{"synchronizerId":"s::1","recordTime":"2026-07-24T11:59:03Z"}}}}},
		{"completionResponse":{"Empty":{}}}]`)
	})
	c := newClient(t, f.URL, nil)
	els, err := c.Completions(context.Background(), ledgerapi.CompletionStreamRequest{Parties: []string{"alice::1220ab"}, BeginExclusive: 2},
		CompletionsOptions{Limit: 100, IdleTimeout: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if q := f.lastQuery.Load().(string); q != "limit=100&stream_idle_timeout_ms=250" {
		t.Errorf("query %q", q)
	}
	if len(els) != 4 || els[0].OffsetCheckpoint == nil || els[1].Completion == nil || els[1].Offset() != 4 || !els[1].Completion.Succeeded() {
		t.Fatalf("decoded %+v", els)
	}
	if c2 := els[2].Completion; c2 == nil || c2.Succeeded() || ledgerapi.ErrorFromStatus(c2.Status).Code != "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED" {
		t.Errorf("rejection not decoded: %+v", els[2].Completion)
	}
	if string(f.body()["beginExclusive"]) != "2" {
		t.Errorf("body %s", f.lastBody.Load())
	}

	before := f.hits.Load()
	_, err = c.Completions(context.Background(), ledgerapi.CompletionStreamRequest{}, CompletionsOptions{Limit: 500})
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 413 || ErrorID(err) != "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED" {
		t.Fatalf("err = %v", err)
	}
	if IsRetryable(err) || f.hits.Load()-before != 1 {
		t.Errorf("413 retried")
	}
}

func TestTransactionTreeDecodes(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"transactionTree":{"updateId":"u","commandId":"c","workflowId":"","effectiveAt":"2026-07-24T11:59:02.100000Z","offset":42,
		"eventsById":{"0":{"ExercisedTreeEvent":{"value":{"offset":42,"nodeId":0,"contractId":"00ab","templateId":"p:M:T","interfaceId":null,"choice":"Go",
		"choiceArgument":{},"actingParties":["a::1"],"consuming":true,"witnessParties":["a::1"],"lastDescendantNodeId":1,"exerciseResult":null,"packageName":"p",
		"implementedInterfaces":[],"acsDelta":true}}},"1":{"CreatedTreeEvent":{"value":{"offset":42,"nodeId":1,"contractId":"00cd","templateId":"p:M:T",
		"contractKey":null,"contractKeyHash":"","createArgument":{"x":"1"},"createdEventBlob":"","interfaceViews":[],"witnessParties":["a::1"],
		"signatories":["a::1"],"observers":[],"createdAt":"2026-07-24T11:59:02.100000Z","packageName":"p","representativePackageId":"p","acsDelta":true}}}},
		"synchronizerId":"s::1","traceContext":{"traceparent":"00-4bf9-00f0-01","tracestate":null},"recordTime":"2026-07-24T11:59:02.512Z"}}`)
	})
	c := newClient(t, f.URL, nil)
	tree, err := c.SubmitAndWaitForTransactionTree(context.Background(), ledgerapi.Commands{CommandID: "c", ActAs: []string{"a::1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.EventsByID) != 2 || tree.EventsByID["0"].Exercised == nil || tree.EventsByID["1"].Created == nil {
		t.Fatalf("tree %+v", tree)
	}
	body := f.body()
	for _, k := range []string{"commands", "commandId", "actAs"} {
		if _, ok := body[k]; !ok {
			t.Errorf("commands body lacks %q", k)
		}
	}
}

func TestTransportErrorIsRetriedForReadsOnly(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more
	c := newClient(t, url, nil)
	_, err := c.LedgerEnd(context.Background())
	var te *TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %#v", err)
	}
}

func TestFileTokenRereadsAfterChange(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(p, []byte("first\n"), 0o600)
	ft, err := NewFileToken(p)
	if err != nil {
		t.Fatal(err)
	}
	if tok, _ := ft.Token(context.Background()); tok != "first" {
		t.Errorf("token %q", tok)
	}
	os.WriteFile(p, []byte("second-longer\n"), 0o600)
	if tok, _ := ft.Token(context.Background()); tok != "second-longer" {
		t.Errorf("token %q after rotation", tok)
	}
	os.WriteFile(p, []byte("  \n"), 0o600)
	if _, err := ft.Token(context.Background()); err == nil {
		t.Error("empty token file accepted")
	}
}

func TestTLSWithCAAndClientCertificate(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TLS.PeerCertificates) == 0 {
			w.WriteHeader(401)
			return
		}
		writeJSON(w, 200, `{"offset":7}`)
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.StartTLS()
	defer srv.Close()

	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	cert := srv.TLS.Certificates[0]
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600)
	// The server's own key pair serves as client certificate.
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]})
	keyDER := mustMarshalKey(t, cert.PrivateKey)
	os.WriteFile(filepath.Join(dir, "c.pem"), certPEM, 0o600)
	os.WriteFile(filepath.Join(dir, "k.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)

	// Without the CA the server's certificate is refused.
	c := newClient(t, srv.URL, nil)
	c.maxAttempts = 1
	if _, err := c.LedgerEnd(context.Background()); err == nil {
		t.Fatal("self-signed certificate accepted without --ca-cert")
	}
	cfg, err := TLSConfig(ca, filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem"))
	if err != nil {
		t.Fatal(err)
	}
	c, err = New(Config{URL: srv.URL, TLS: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if end, err := c.LedgerEnd(context.Background()); err != nil || end != 7 {
		t.Fatalf("LedgerEnd = %d, %v", end, err)
	}
	if _, err := TLSConfig("", filepath.Join(dir, "c.pem"), ""); err == nil {
		t.Error("--client-cert without --client-key accepted")
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "localhost:7575", "ftp://x", "http://"} {
		if _, err := New(Config{URL: u}); err == nil {
			t.Errorf("URL %q accepted", u)
		}
	}
}

// TestTimeoutBoundsTheRetries: Config.Timeout is the time a call may take
// with all its retries; a slow node answering 503 is not tried four times
// a timeout each (issue 12, item 25: --timeout 2s took 9 s).
func TestTimeoutBoundsTheRetries(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(150 * time.Millisecond)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c, err := New(Config{URL: f.URL, Timeout: 400 * time.Millisecond, BaseDelay: 100 * time.Millisecond, MaxDelay: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.LedgerEnd(context.Background())
	if elapsed := time.Since(start); elapsed > 600*time.Millisecond {
		t.Errorf("the call took %s with a 400ms timeout", elapsed)
	}
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("err = %v, want the node's 503 (the cause, not the deadline)", err)
	}
	if ae.Attempts < 2 || !strings.Contains(err.Error(), "sent ") {
		t.Errorf("retried %d times, message %q: want at least 2 and the count", ae.Attempts, err)
	}
}

// TestActiveContractsPages: every request after the first is the first
// one with the last page's token (activeAtOffset still absent, as Canton's
// page token checksums it); a node that hands back the token it was sent
// ends the loop with an error instead of spinning.
func TestActiveContractsPages(t *testing.T) {
	var reqs []ledgerapi.GetActiveContractsPageRequest
	var f *fake
	f = newFake(t, func(w http.ResponseWriter, r *http.Request) {
		var req ledgerapi.GetActiveContractsPageRequest
		_ = json.Unmarshal(f.lastBody.Load().([]byte), &req)
		reqs = append(reqs, req)
		next := map[string]string{"": "t1", "t1": "t2", "t2": ""}[req.PageToken]
		writeJSON(w, 200, `{"activeContracts":[],"activeAtOffset":7,"nextPageToken":"`+next+`"}`)
	})
	c := newClient(t, f.URL, nil)
	size := ledgerapi.Int32(5)
	pages := 0
	err := c.ActiveContractsPages(context.Background(), ledgerapi.GetActiveContractsPageRequest{MaxPageSize: &size},
		func(*ledgerapi.JsGetActiveContractsPageResponse) error { pages++; return nil })
	if err != nil || pages != 3 || len(reqs) != 3 {
		t.Fatalf("%d pages, %d requests: %v", pages, len(reqs), err)
	}
	for i, r := range reqs {
		if r.ActiveAtOffset != nil || r.MaxPageSize == nil || *r.MaxPageSize != 5 || r.PageToken != []string{"", "t1", "t2"}[i] {
			t.Errorf("request %d: %+v", i, r)
		}
	}

	stuck := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"activeContracts":[],"activeAtOffset":7,"nextPageToken":"same"}`)
	})
	c = newClient(t, stuck.URL, nil)
	req := ledgerapi.GetActiveContractsPageRequest{}
	if err := c.ActiveContractsPages(context.Background(), req, func(*ledgerapi.JsGetActiveContractsPageResponse) error { return nil }); err == nil || stuck.hits.Load() != 2 {
		t.Errorf("a node repeating its token: %v after %d requests", err, stuck.hits.Load())
	}
}
