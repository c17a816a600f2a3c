package integration

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/server/auth"
	"github.com/ledger-cli/ledger/signer"
)

// onboard makes an external party through the API: generate-topology,
// sign the multi-hash with a fresh signer key, allocate with user getting
// CanActAs on it.
func (n *testNode) onboard(hint, user string) (string, *signer.Key) {
	n.t.Helper()
	n.createUser(user)
	key, err := signer.Generate(rand.Reader)
	if err != nil {
		n.t.Fatal(err)
	}
	var gen ledgerapi.GenerateExternalPartyTopologyResponse
	n.ok("POST", "/v2/parties/external/generate-topology", n.admin, map[string]any{
		"synchronizer": n.identity().SynchronizerID,
		"partyHint":    hint,
		"publicKey": map[string]any{"format": "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
			"keyData": key.Public().SPKIDER(), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"},
	}, &gen)
	sig, err := key.SignMultiHash(gen.MultiHash)
	if err != nil {
		n.t.Fatal(err)
	}
	onboarding := make([]map[string]any, len(gen.TopologyTransactions))
	for i, tx := range gen.TopologyTransactions {
		onboarding[i] = map[string]any{"transaction": tx, "signatures": []any{}}
	}
	var alloc ledgerapi.AllocateExternalPartyResponse
	n.ok("POST", "/v2/parties/external/allocate", n.admin, map[string]any{
		"synchronizer":           n.identity().SynchronizerID,
		"onboardingTransactions": onboarding,
		"multiHashSignatures":    []any{sig},
		"identityProviderId":     "",
		"userId":                 user,
	}, &alloc)
	return alloc.PartyID, key
}

// prepare prepares one command as party and checks the hash independently
// of the node.
func (n *testNode) prepare(token string, body map[string]any) ledgerapi.PrepareSubmissionResponse {
	n.t.Helper()
	var resp ledgerapi.PrepareSubmissionResponse
	n.ok("POST", "/v2/interactive-submission/prepare", token, body, &resp)
	scheme, err := hashing.ParseScheme(string(resp.HashingSchemeVersion))
	if err != nil {
		n.t.Fatal(err)
	}
	res, err := hashing.Compute(resp.PreparedTransaction, scheme, hashing.Options{})
	if err != nil {
		n.t.Fatal(err)
	}
	if string(res.Hash[:]) != string(resp.PreparedTransactionHash) {
		n.t.Fatalf("prepare's hash %x is not the hash of its transaction %x", resp.PreparedTransactionHash, res.Hash)
	}
	return resp
}

// executeBody signs a prepared transaction as party with key.
func executeBody(p ledgerapi.PrepareSubmissionResponse, party string, key *signer.Key, submissionID string) map[string]any {
	var h [32]byte
	copy(h[:], p.PreparedTransactionHash)
	return map[string]any{
		"preparedTransaction": p.PreparedTransaction,
		"partySignatures": map[string]any{"signatures": []any{
			map[string]any{"party": party, "signatures": []any{key.SignHash(h)}}}},
		"deduplicationPeriod":  map[string]any{"Empty": map[string]any{}},
		"submissionId":         submissionID,
		"hashingSchemeVersion": p.HashingSchemeVersion,
	}
}

// TestExternalPartyFlow: onboard an external party, prepare a create as it,
// sign the hash with the signer, executeAndWait, and find the success in the
// completions; then every execute rejection path.
func TestExternalPartyFlow(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	ext, key := n.onboard("Ext", "wallet")
	wallet := n.token("wallet")
	n.createUser("reader", ledgerapi.CanReadAs(ext))
	reader := n.token("reader")

	p := n.prepare(wallet, prepareBody("ext-1", []string{ext}, create(ext, "100")))
	if p.HashingSchemeVersion != ledgerapi.HashingSchemeVersionV2 || p.CostEstimation == nil || p.CostEstimation.TotalTrafficCostEstimation <= 0 {
		t.Errorf("prepare response %+v", p)
	}
	good := executeBody(p, ext, key, "s-1")

	// rejections: nothing is committed by any of them
	missing := executeBody(p, ext, key, "s-x")
	missing["partySignatures"] = map[string]any{"signatures": []any{}}
	n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, missing, 400, "FAILED_TO_EXECUTE_TRANSACTION")
	other, _ := signer.Generate(rand.Reader)
	n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(p, ext, other, "s-x"), 400, "FAILED_TO_EXECUTE_TRANSACTION")
	forged := executeBody(p, ext, other, "s-x")
	sig := forged["partySignatures"].(map[string]any)["signatures"].([]any)[0].(map[string]any)["signatures"].([]any)[0].(signer.Signature)
	sig.SignedBy = key.Fingerprint()
	forged["partySignatures"] = map[string]any{"signatures": []any{map[string]any{"party": ext, "signatures": []any{sig}}}}
	n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, forged, 400, "FAILED_TO_EXECUTE_TRANSACTION")
	// a tampered transaction signed with the original hash
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(p.PreparedTransaction, &pt); err != nil {
		t.Fatal(err)
	}
	pt.Metadata.SubmitterInfo.CommandId = "ext-evil"
	tampered, err := proto.MarshalOptions{Deterministic: true}.Marshal(&pt)
	if err != nil {
		t.Fatal(err)
	}
	bad := executeBody(p, ext, key, "s-x")
	bad["preparedTransaction"] = ledgerapi.Bytes(tampered)
	n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, bad, 400, "FAILED_TO_EXECUTE_TRANSACTION")
	// bytes that are no prepared transaction at all
	bad["preparedTransaction"] = ledgerapi.Bytes("garbage")
	n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, bad, 400, "INVALID_FIELD")
	// a wrong scheme
	wrong := executeBody(p, ext, key, "s-x")
	wrong["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V3"
	n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, wrong, 400, "FAILED_TO_EXECUTE_TRANSACTION")
	// read rights do not allow executing
	n.fail("POST", "/v2/interactive-submission/executeAndWait", reader, good, 403, ledgerapi.RedactedCode)
	if end := n.ledgerEnd(); end != 0 {
		t.Fatalf("ledger end %d after rejected executes, want 0", end)
	}

	var done ledgerapi.ExecuteSubmissionAndWaitResponse
	traceparent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	r := n.callWithHeader("POST", "/v2/interactive-submission/executeAndWait", wallet, good, "traceparent", traceparent)
	if r.status != 200 {
		t.Fatalf("executeAndWait: %d %s", r.status, r.body)
	}
	mustUnmarshal(t, r.body, &done)
	if done.UpdateID == "" || done.CompletionOffset != 1 {
		t.Errorf("executeAndWait %+v", done)
	}
	cs := n.completions(wallet, "wallet", []string{ext}, 0, "")
	if len(cs) != 1 {
		t.Fatalf("completions %+v", cs)
	}
	c := cs[0]
	if !c.Succeeded() || c.Status == nil || c.Status.Code != 0 || c.UpdateID != done.UpdateID || c.CommandID != "ext-1" ||
		c.UserID != "wallet" || len(c.ActAs) != 1 || c.ActAs[0] != ext || c.SubmissionID != "s-1" || c.Offset != 1 ||
		c.DeduplicationPeriod.Offset == nil || *c.DeduplicationPeriod.Offset != 0 || // reported as Canton's deduplicator does
		c.SynchronizerTime.SynchronizerID != n.identity().SynchronizerID || c.SynchronizerTime.RecordTime.IsZero() ||
		c.PaidTrafficCost <= 0 || c.TraceContext == nil || c.TraceContext.Traceparent == nil || *c.TraceContext.Traceparent != traceparent {
		t.Errorf("completion %+v", c)
	}
	// The same signed transaction again is a duplicate, as in Canton, which
	// checks deduplication first (the engine alone would find its contracts
	// exist); so is the same change prepared anew. Each has a completion.
	good["submissionId"] = "s-2"
	e := n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, good, 409, "DUPLICATE_COMMAND")
	if e.Context["completion_offset"] != "1" || e.Context["existing_submission_id"] != "s-1" {
		t.Errorf("duplicate context %v", e.Context)
	}
	again := n.prepare(wallet, prepareBody("ext-1", []string{ext}, create(ext, "100")))
	e = n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(again, ext, key, "s-2"), 409, "DUPLICATE_COMMAND")
	if e.Context["completion_offset"] != "1" || e.Context["existing_submission_id"] != "s-1" {
		t.Errorf("duplicate context %v", e.Context)
	}
	// async execute: {} and the outcome as a completion
	r = n.call("POST", "/v2/interactive-submission/execute", wallet, executeBody(again, ext, key, "s-3"))
	if r.status != 200 || string(r.body) != "{}" {
		t.Errorf("execute: %d %s", r.status, r.body)
	}
	if cs := n.completions(wallet, "wallet", []string{ext}, 1, ""); len(cs) != 3 || cs[2].SubmissionID != "s-3" ||
		ledgerapi.ErrorFromStatus(cs[2].Status).Code != "DUPLICATE_COMMAND" {
		t.Errorf("completions after the duplicates %+v", cs)
	}

	// executeAndWaitForTransaction: the transaction carries the hash in hex
	p2 := n.prepare(wallet, prepareBody("ext-2", []string{ext}, create(ext, "5")))
	var wt ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
	n.ok("POST", "/v2/interactive-submission/executeAndWaitForTransaction", wallet, executeBody(p2, ext, key, "s-4"), &wt)
	if wt.Transaction.ExternalTransactionHash == nil || *wt.Transaction.ExternalTransactionHash != hex.EncodeToString(p2.PreparedTransactionHash) ||
		len(wt.Transaction.Events) != 1 || wt.Transaction.Events[0].Created == nil || wt.Transaction.PaidTrafficCost <= 0 {
		t.Fatalf("executeAndWaitForTransaction %+v", wt.Transaction)
	}
	cid := wt.Transaction.Events[0].Created.ContractID

	// an input contract archived between prepare and execute
	transfer := n.prepare(wallet, prepareBody("ext-3", []string{ext}, exercise(cid, "Transfer")))
	archive := n.prepare(wallet, prepareBody("ext-4", []string{ext}, exercise(cid, "Archive")))
	n.ok("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(archive, ext, key, "s-5"), nil)
	e = n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(transfer, ext, key, "s-6"), 404, "CONTRACT_NOT_ACTIVE")
	if id, _ := e.Resource("CONTRACT_ID"); id != cid {
		t.Errorf("CONTRACT_NOT_ACTIVE names %q, want %q", id, cid)
	}
}

// TestExecuteAuthorizesEveryActingParty: the execute rights are checked
// for the act_as parties the engine reads, not for what a separate reading
// of the bytes finds. Protobuf merges a message field given twice, so a
// prepared transaction with a second metadata field acts as the parties of
// both; the caller must be allowed to execute as each of them.
func TestExecuteAuthorizesEveryActingParty(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	ext, key := n.onboard("Ext", "wallet")
	victim, _ := n.onboard("Victim", "victim-user")
	wallet := n.token("wallet")
	p := n.prepare(wallet, prepareBody("merge-1", []string{ext}, create(ext, "1")))

	// Metadata{submitter_info{act_as: victim}} before the real metadata:
	// read last-field-wins it is not there, merged it acts too.
	si := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), victim)
	md := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), si)
	extra := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), md)
	var merged damlpb.PreparedTransaction
	body := append(extra, p.PreparedTransaction...)
	if err := proto.Unmarshal(body, &merged); err != nil || !slices.Contains(merged.GetMetadata().GetSubmitterInfo().GetActAs(), victim) {
		t.Fatalf("the merged transaction does not act as the victim: %v %v", err, merged.GetMetadata().GetSubmitterInfo().GetActAs())
	}
	req := executeBody(p, ext, key, "merge-s1")
	req["preparedTransaction"] = ledgerapi.Bytes(body)
	n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, req, 403, ledgerapi.RedactedCode)
	if end := n.ledgerEnd(); end != 0 {
		t.Fatalf("ledger end %d after a refused execute, want 0", end)
	}
}

// TestPrepareRules: the prepare request rules, the V3 scheme, verbose
// hashing and the cost estimate switch.
func TestPrepareRules(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{TapsMaxPassesLimit: 3})
	alice := n.allocate("Alice").Party
	base := func() map[string]any {
		b := prepareBody("p-1", []string{alice}, create(alice, "1"))
		b["userId"] = "u1"
		return b
	}
	cases := []struct {
		name   string
		change func(map[string]any)
		status int
		code   string
	}{
		{"two commands", func(b map[string]any) { b["commands"] = []any{create(alice, "1"), create(alice, "2")} }, 400, "FAILED_TO_PREPARE_TRANSACTION"},
		{"no commands", func(b map[string]any) { b["commands"] = []any{} }, 400, "MISSING_FIELD"},
		{"empty actAs", func(b map[string]any) { b["actAs"] = []string{} }, 400, "MISSING_FIELD"},
		{"malformed actAs", func(b map[string]any) { b["actAs"] = []string{"bad*party"} }, 400, "INVALID_ARGUMENT"},
		{"no command id", func(b map[string]any) { b["commandId"] = "" }, 400, "MISSING_FIELD"},
		{"malformed command id", func(b map[string]any) { b["commandId"] = "a*b" }, 400, "INVALID_FIELD"},
		{"malformed user id", func(b map[string]any) { b["userId"] = "bad user!" }, 400, "INVALID_FIELD"},
		{"no user id without a token", func(b map[string]any) { delete(b, "userId") }, 400, "INVALID_TOKEN"},
		{"tapsMaxPasses over the limit", func(b map[string]any) { b["tapsMaxPasses"] = 4 }, 400, "INVALID_ARGUMENT"},
		{"unknown scheme version", func(b map[string]any) { b["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_UNSPECIFIED" }, 400, "INVALID_FIELD"},
		{"other synchronizer", func(b map[string]any) { b["synchronizerId"] = "other::1220ab" }, 400, "INVALID_PRESCRIBED_SYNCHRONIZER_ID"},
		{"negative min ledger time rel", func(b map[string]any) {
			b["minLedgerTime"] = map[string]any{"time": map[string]any{"MinLedgerTimeRel": map[string]any{"value": map[string]any{"seconds": -1}}}}
		}, 400, "INVALID_FIELD"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n.t = t
			b := base()
			tc.change(b)
			n.fail("POST", "/v2/interactive-submission/prepare", "", b, tc.status, tc.code)
		})
	}
	n.t = t
	// both min ledger time arms in the one oneof do not decode: 400 text/plain
	b := base()
	b["minLedgerTime"] = map[string]any{"time": map[string]any{
		"MinLedgerTimeAbs": map[string]any{"value": "2030-01-01T00:00:00Z"},
		"MinLedgerTimeRel": map[string]any{"value": map[string]any{"seconds": 1}}}}
	if r := n.call("POST", "/v2/interactive-submission/prepare", "", b); r.status != 400 || !strings.HasPrefix(string(r.body), "Invalid value for: body") {
		t.Errorf("both min ledger time arms: %d %s", r.status, r.body)
	}

	b = base()
	b["tapsMaxPasses"] = 3
	b["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V3"
	b["verboseHashing"] = true
	b["estimateTrafficCost"] = map[string]any{"disabled": true}
	b["maxRecordTime"] = time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	p := n.prepare("", b)
	if p.HashingSchemeVersion != ledgerapi.HashingSchemeVersionV3 || p.HashingDetails == nil || *p.HashingDetails == "" || p.CostEstimation != nil {
		t.Errorf("V3 verbose prepare without estimate: scheme %s, details %v, cost %+v", p.HashingSchemeVersion, p.HashingDetails != nil, p.CostEstimation)
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(p.PreparedTransaction, &pt); err != nil {
		t.Fatal(err)
	}
	md := pt.GetMetadata()
	if md.GetSubmitterInfo().GetCommandId() != "p-1" || md.GetSynchronizerId() != n.identity().SynchronizerID ||
		md.MaxRecordTime == nil || md.GetTransactionUuid() == "" || md.GetPreparationTime() == 0 || len(pt.GetTransaction().GetNodes()) != 1 {
		t.Errorf("metadata %v", md)
	}
	// preparing writes nothing
	if end := n.ledgerEnd(); end != 0 {
		t.Errorf("ledger end %d after prepares", end)
	}
}

// TestMaxRecordTime: a prepared transaction executed after its max record
// time is rejected asynchronously: a failed completion with
// LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED, which executeAndWait answers as
// its 409 error and execute only records.
func TestMaxRecordTime(t *testing.T) {
	var skew atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	n := startCommandNode(t, auth.ModeHS256, node.Config{Now: clock})
	ext, key := n.onboard("Ext", "wallet")
	wallet := n.token("wallet")
	mrt := time.Now().Add(time.Minute).UTC().Format(time.RFC3339Nano)
	b1 := prepareBody("late-1", []string{ext}, create(ext, "1"))
	b1["maxRecordTime"] = mrt
	b2 := prepareBody("late-2", []string{ext}, create(ext, "2"))
	b2["maxRecordTime"] = mrt
	p1, p2 := n.prepare(wallet, b1), n.prepare(wallet, b2)

	skew.Store(int64(2 * time.Minute)) // the node's clock passes the max record time
	e := n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(p1, ext, key, "s-1"), 409, "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED")
	if e.ErrorCategory != 2 {
		t.Errorf("category %d, want 2", e.ErrorCategory)
	}
	n.ok("POST", "/v2/interactive-submission/execute", wallet, executeBody(p2, ext, key, "s-2"), nil)
	cs := n.completions(wallet, "wallet", []string{ext}, 0, "")
	if len(cs) != 2 {
		t.Fatalf("completions %+v", cs)
	}
	for i, c := range cs {
		rej := ledgerapi.ErrorFromStatus(c.Status)
		if c.Succeeded() || rej.Code != "LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED" || c.Status.Code != 10 || c.UpdateID != "" ||
			c.PaidTrafficCost != 0 || c.CommandID != []string{"late-1", "late-2"}[i] {
			t.Errorf("completion %d: %+v (%+v)", i, c, rej)
		}
	}
	// a rejected command may be submitted again: only acceptances deduplicate
	skew.Store(0)
	p3 := n.prepare(wallet, prepareBody("late-1", []string{ext}, create(ext, "1")))
	n.ok("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(p3, ext, key, "s-3"), nil)
}

// callWithHeader is call with one extra request header.
func (n *testNode) callWithHeader(method, path, token string, body any, key, value string) response {
	n.t.Helper()
	req, err := newRequest(n.url, method, path, token, body)
	if err != nil {
		n.t.Fatal(err)
	}
	req.Header.Set(key, value)
	return n.do(req)
}

func newRequest(base, method, path, token string, body any) (*http.Request, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(method, base+path, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

func (n *testNode) do(req *http.Request) response {
	n.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	return response{resp.StatusCode, resp.Header, readAll(n.t, resp)}
}
