package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

const iouTemplate = "#iou-pkg:Iou:Iou"

// startCommandNode is startNode with node options and no request limit
// of its own.
func startCommandNode(t *testing.T, mode string, nc node.Config) *testNode {
	t.Helper()
	return start(t, mode, nc, server.Config{Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
}

// create is a CreateCommand of an Iou owned by owner.
func create(owner string, amount string) map[string]any {
	return map[string]any{"CreateCommand": map[string]any{
		"templateId":      iouTemplate,
		"createArguments": map[string]any{"owner": owner, "amount": amount, "currency": "USD"},
	}}
}

// exercise is an ExerciseCommand on an Iou.
func exercise(cid, choice string) map[string]any {
	return map[string]any{"ExerciseCommand": map[string]any{
		"templateId": iouTemplate, "contractId": cid, "choice": choice, "choiceArgument": map[string]any{},
	}}
}

// commands is a JsCommands body; extra fields override the defaults.
func commands(commandID string, actAs []string, cmds []map[string]any, extra map[string]any) map[string]any {
	b := map[string]any{"commands": cmds, "commandId": commandID, "actAs": actAs}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// treeResponse decodes a submit-and-wait-for-transaction-tree answer.
type treeResponse struct {
	TransactionTree ledgerapi.TransactionTree `json:"transactionTree"`
}

// onlyCreated returns the contract id of the one created event of a tree.
func onlyCreated(t *testing.T, tree ledgerapi.TransactionTree) string {
	t.Helper()
	for _, ev := range tree.EventsByID {
		if ev.Created != nil {
			return ev.Created.ContractID
		}
	}
	t.Fatalf("no created event in %+v", tree)
	return ""
}

// TestSubmitAndWaitForTransactionTree checks the tree's shape
// (docs/json-api.md §8) on a create and a consuming exercise, and the flat
// transaction and offset forms of the same path.
func TestSubmitAndWaitForTransactionTree(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{NonconsumingChoices: []string{"Observe"}})
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party
	n.createUser("alice-user", ledgerapi.CanActAs(alice))
	tok := n.token("alice-user")

	traceparent := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	req, _ := http.NewRequest("POST", n.url+"/v2/commands/submit-and-wait-for-transaction-tree",
		jsonReader(t, commands("tree-1", []string{alice}, []map[string]any{create(bob, "10.5")}, map[string]any{"workflowId": "wf-1"})))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("traceparent", traceparent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw := readAll(t, resp)
	if resp.StatusCode != 200 {
		t.Fatalf("tree: %d %s", resp.StatusCode, raw)
	}
	// the raw shape: a value wrapper around tree events, string keys, every field present
	var shape struct {
		TransactionTree map[string]json.RawMessage `json:"transactionTree"`
	}
	mustUnmarshal(t, raw, &shape)
	for _, k := range []string{"updateId", "commandId", "workflowId", "effectiveAt", "offset", "eventsById", "synchronizerId", "traceContext", "recordTime"} {
		if _, ok := shape.TransactionTree[k]; !ok {
			t.Errorf("tree lacks %q: %s", k, raw)
		}
	}
	var events map[string]map[string]struct {
		Value map[string]json.RawMessage `json:"value"`
	}
	mustUnmarshal(t, shape.TransactionTree["eventsById"], &events)
	created := events["0"]["CreatedTreeEvent"].Value
	if created == nil {
		t.Fatalf("eventsById[\"0\"] is not a CreatedTreeEvent with a value: %s", shape.TransactionTree["eventsById"])
	}
	for _, k := range []string{"offset", "nodeId", "contractId", "templateId", "contractKey", "createArgument", "createdEventBlob",
		"interfaceViews", "witnessParties", "signatories", "observers", "createdAt", "packageName", "acsDelta"} {
		if _, ok := created[k]; !ok {
			t.Errorf("created event lacks %q", k)
		}
	}

	var tr treeResponse
	mustUnmarshal(t, raw, &tr)
	tree := tr.TransactionTree
	if tree.CommandID != "tree-1" || tree.WorkflowID != "wf-1" || tree.Offset <= 0 || tree.UpdateID == "" ||
		tree.SynchronizerID != n.identity().SynchronizerID || tree.RecordTime.IsZero() {
		t.Errorf("tree header %+v", tree)
	}
	if tree.TraceContext == nil || tree.TraceContext.Traceparent == nil || *tree.TraceContext.Traceparent != traceparent {
		t.Errorf("traceContext %+v, want the request's traceparent", tree.TraceContext)
	}
	c := tree.EventsByID["0"].Created
	if c == nil || c.NodeID != 0 || c.Offset != tree.Offset || len(c.Signatories) != 1 || c.Signatories[0] != alice ||
		len(c.Observers) != 1 || c.Observers[0] != bob {
		t.Errorf("created event %+v", c)
	}
	if len(c.WitnessParties) != 1 || c.WitnessParties[0] != alice {
		t.Errorf("witnesses %v: the tree shows the actAs parties' view", c.WitnessParties)
	}

	// a non-consuming and then a consuming exercise
	var obs treeResponse
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", tok,
		commands("tree-2", []string{alice}, []map[string]any{exercise(c.ContractID, "Observe")}, nil), &obs)
	ex := obs.TransactionTree.EventsByID["0"].Exercised
	if ex == nil || ex.Consuming || ex.LastDescendantNodeID != ex.NodeID || ex.Offset != tree.Offset+1 || ex.Choice != "Observe" {
		t.Errorf("non-consuming exercise %+v", ex)
	}
	var arch treeResponse
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", tok,
		commands("tree-3", []string{alice}, []map[string]any{exercise(c.ContractID, "Transfer")}, nil), &arch)
	ex = arch.TransactionTree.EventsByID["0"].Exercised
	if ex == nil || !ex.Consuming || ex.ContractID != c.ContractID || len(ex.ActingParties) != 1 || ex.ActingParties[0] != alice {
		t.Errorf("consuming exercise %+v", ex)
	}
	// archived now
	e := n.fail("POST", "/v2/commands/submit-and-wait", tok,
		commands("tree-4", []string{alice}, []map[string]any{exercise(c.ContractID, "Transfer")}, nil), 404, "CONTRACT_NOT_FOUND")
	if _, ok := e.Resource("CONTRACT_ID"); !ok {
		t.Errorf("CONTRACT_NOT_FOUND without the contract id: %+v", e)
	}

	// submit-and-wait: offset and update id
	var sw ledgerapi.SubmitAndWaitResponse
	n.ok("POST", "/v2/commands/submit-and-wait", tok, commands("sw-1", []string{alice}, []map[string]any{create(alice, "1")}, nil), &sw)
	if sw.UpdateID == "" || sw.CompletionOffset != arch.TransactionTree.Offset+1 {
		t.Errorf("submit-and-wait %+v", sw)
	}
	// submit-and-wait-for-transaction: ACS delta by default, ledger effects on request
	var flat ledgerapi.SubmitAndWaitForTransactionResponse
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction", tok, map[string]any{
		"commands": commands("swt-1", []string{alice}, []map[string]any{create(alice, "2")}, nil)}, &flat)
	if len(flat.Transaction.Events) != 1 || flat.Transaction.Events[0].Created == nil || flat.Transaction.Offset != ledgerapi.Int64(sw.CompletionOffset)+1 {
		t.Errorf("flat transaction %+v", flat.Transaction)
	}
	cid := flat.Transaction.Events[0].Created.ContractID
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction", tok, map[string]any{
		"commands": commands("swt-2", []string{alice}, []map[string]any{exercise(cid, "Archive")}, nil)}, &flat)
	if len(flat.Transaction.Events) != 1 || flat.Transaction.Events[0].Archived == nil {
		t.Errorf("ACS delta of an archive %+v", flat.Transaction.Events)
	}
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction", tok, map[string]any{
		"commands": commands("swt-3", []string{alice}, []map[string]any{create(alice, "3")}, nil),
		"transactionFormat": map[string]any{"transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS",
			"eventFormat": map[string]any{"filtersByParty": map[string]any{alice: map[string]any{}}, "verbose": true}}}, &flat)
	if len(flat.Transaction.Events) != 1 || flat.Transaction.Events[0].Created == nil {
		t.Errorf("ledger effects %+v", flat.Transaction.Events)
	}
	// a format naming a party the user may not read is 403
	n.fail("POST", "/v2/commands/submit-and-wait-for-transaction", tok, map[string]any{
		"commands": commands("swt-4", []string{alice}, []map[string]any{create(alice, "4")}, nil),
		"transactionFormat": map[string]any{"transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
			"eventFormat": map[string]any{"filtersByParty": map[string]any{bob: map[string]any{}}}}}, 403, ledgerapi.RedactedCode)
	// the format's template filters select the events and ask for blobs,
	// as an update lookup with that format would
	tmplFormat := func(tmpl string, blob bool) map[string]any {
		return map[string]any{"transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
			"eventFormat": map[string]any{"filtersByParty": map[string]any{alice: map[string]any{"cumulative": []any{
				map[string]any{"identifierFilter": map[string]any{"TemplateFilter": map[string]any{"value": map[string]any{
					"templateId": tmpl, "includeCreatedEventBlob": blob}}}}}}}}}
	}
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction", tok, map[string]any{
		"commands":          commands("swt-5", []string{alice}, []map[string]any{create(alice, "5")}, nil),
		"transactionFormat": tmplFormat(iouTemplate, true)}, &flat)
	if len(flat.Transaction.Events) != 1 || len(flat.Transaction.Events[0].Created.CreatedEventBlob) == 0 || flat.Transaction.CommandID != "swt-5" {
		t.Errorf("a template filter with the blob: %+v", flat.Transaction)
	}
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction", tok, map[string]any{
		"commands":          commands("swt-6", []string{alice}, []map[string]any{create(alice, "6")}, nil),
		"transactionFormat": tmplFormat("#iou-pkg:Iou:SomethingElse", false)}, &flat)
	if len(flat.Transaction.Events) != 0 || flat.Transaction.UpdateID == "" || flat.Transaction.CommandID != "swt-6" {
		t.Errorf("a filter keeping no event gives the transaction without events: %+v", flat.Transaction)
	}
	// an interface filter no package defines is refused before anything is submitted
	before := n.completions(tok, "alice-user", []string{alice}, 0, "")
	n.fail("POST", "/v2/commands/submit-and-wait-for-transaction", tok, map[string]any{
		"commands": commands("swt-7", []string{alice}, []map[string]any{create(alice, "7")}, nil),
		"transactionFormat": map[string]any{"transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
			"eventFormat": map[string]any{"filtersByParty": map[string]any{alice: map[string]any{"cumulative": []any{
				map[string]any{"identifierFilter": map[string]any{"InterfaceFilter": map[string]any{"value": map[string]any{
					"interfaceId": "#no-such-package:M:I", "includeInterfaceView": true}}}}}}}}}}, 404, "PACKAGE_NAMES_NOT_FOUND")
	if after := n.completions(tok, "alice-user", []string{alice}, 0, ""); len(after) != len(before) {
		t.Errorf("a refused format still submitted: %d completions, then %d", len(before), len(after))
	}

	// async submit answers {} and the completion follows
	r := n.call("POST", "/v2/commands/async/submit", tok, commands("async-1", []string{alice}, []map[string]any{create(alice, "5")}, nil))
	if r.status != 200 || string(r.body) != "{}" {
		t.Fatalf("async submit: %d %s", r.status, r.body)
	}
	cs := n.completions(tok, "alice-user", []string{alice}, 0, "")
	if last := cs[len(cs)-1]; last.CommandID != "async-1" || !last.Succeeded() {
		t.Errorf("last completion %+v, want async-1's success", last)
	}
}

// TestSubmitFieldRules runs every request rule of the submission endpoints
// on a node without authentication (the rules, not rights, are under test).
func TestSubmitFieldRules(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{TapsMaxPassesLimit: 2, MaxDeduplication: time.Hour})
	alice := n.allocate("Alice").Party
	ok := commands("ok-1", []string{alice}, []map[string]any{create(alice, "1")}, map[string]any{"userId": "u1"})
	with := func(k string, v any) map[string]any {
		b := map[string]any{}
		for key, val := range ok {
			b[key] = val
		}
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
		return b
	}
	cases := []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"no user id without a token", with("userId", nil), 400, "INVALID_TOKEN"},
		{"malformed user id", with("userId", "bad user!"), 400, "INVALID_FIELD"},
		{"no command id", with("commandId", ""), 400, "MISSING_FIELD"},
		{"malformed command id", with("commandId", "bad*id"), 400, "INVALID_FIELD"},
		{"empty actAs", with("actAs", []string{}), 400, "MISSING_FIELD"},
		{"malformed actAs party", with("actAs", []string{"bad*party"}), 400, "INVALID_ARGUMENT"},
		{"malformed readAs party", with("readAs", []string{"bad*party"}), 400, "INVALID_ARGUMENT"},
		{"unknown actAs party", with("actAs", []string{"Ghost::1220" + fmt.Sprintf("%064d", 0)}), 404, "UNKNOWN_SUBMITTERS"},
		{"no commands", with("commands", []any{}), 400, "MISSING_FIELD"},
		{"malformed workflow id", with("workflowId", "bad*wf"), 400, "INVALID_ARGUMENT"},
		{"malformed submission id", with("submissionId", "bad*sub"), 400, "INVALID_FIELD"},
		{"both min ledger time fields", with("minLedgerTimeAbs", "2030-01-01T00:00:00Z"), 0, ""}, // completed below
		{"negative min ledger time rel", with("minLedgerTimeRel", map[string]any{"seconds": -1}), 400, "INVALID_FIELD"},
		{"negative dedup duration", with("deduplicationPeriod", map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": -5}}}), 400, "INVALID_FIELD"},
		{"negative dedup offset", with("deduplicationPeriod", map[string]any{"DeduplicationOffset": map[string]any{"value": -1}}), 400, "NEGATIVE_OFFSET"},
		{"dedup beyond the maximum", with("deduplicationPeriod", map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": 7200}}}), 400, "INVALID_DEDUPLICATION_PERIOD"},
		{"tapsMaxPasses over the limit", with("tapsMaxPasses", 3), 400, "INVALID_ARGUMENT"},
		{"tapsMaxPasses zero", with("tapsMaxPasses", 0), 400, "INVALID_ARGUMENT"},
		{"other synchronizer", with("synchronizerId", "other::1220ab"), 400, "INVALID_PRESCRIBED_SYNCHRONIZER_ID"},
		{"exercise by key", with("commands", []any{map[string]any{"ExerciseByKeyCommand": map[string]any{
			"templateId": iouTemplate, "contractKey": "k", "choice": "C", "choiceArgument": map[string]any{}}}}), 400, "COMMAND_PREPROCESSING_FAILED"},
		{"unknown contract", with("commands", []any{exercise("00"+fmt.Sprintf("%064x", 7)+"ca11"+fmt.Sprintf("%064x", 8), "Transfer")}), 404, "CONTRACT_NOT_FOUND"},
		{"malformed template id", with("commands", []any{map[string]any{"CreateCommand": map[string]any{"templateId": "nocolons", "createArguments": map[string]any{}}}}), 400, "INVALID_FIELD"},
		// A V1 id without suffix names no committed contract: Canton's preprocessing refuses it.
		{"contract id without suffix", with("commands", []any{exercise("00"+fmt.Sprintf("%064x", 7), "Transfer")}), 400, "COMMAND_PREPROCESSING_FAILED"},
	}
	cases[11].body["minLedgerTimeRel"] = map[string]any{"seconds": 5}
	cases[11].status, cases[11].code = 400, "INVALID_ARGUMENT"
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n.t = t
			n.fail("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "", tc.body, tc.status, tc.code)
		})
	}
	n.t = t
	// the limit itself and each min ledger time field alone are fine
	taps := with("tapsMaxPasses", 2)
	taps["commandId"] = "ok-taps"
	n.ok("POST", "/v2/commands/submit-and-wait", "", taps, nil)
	abs := with("minLedgerTimeAbs", time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano))
	abs["commandId"] = "ok-abs"
	var tr treeResponse
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "", abs, &tr)
	if !tr.TransactionTree.EffectiveAt.After(time.Now().Add(50 * time.Minute)) {
		t.Errorf("minLedgerTimeAbs not applied: effectiveAt %v", tr.TransactionTree.EffectiveAt)
	}
	rel := with("minLedgerTimeRel", map[string]any{"seconds": 3600})
	rel["commandId"] = "ok-rel"
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "", rel, &tr)
	if !tr.TransactionTree.EffectiveAt.After(time.Now().Add(50 * time.Minute)) {
		t.Errorf("minLedgerTimeRel not applied: effectiveAt %v", tr.TransactionTree.EffectiveAt)
	}
	// a body that is not JSON is 400 text/plain
	r := n.call("POST", "/v2/commands/submit-and-wait", "", "{not json")
	if r.status != 400 || r.header.Get("Content-Type") == "application/json" {
		t.Errorf("bad body: %d %s", r.status, r.body)
	}
	// synchronous errors leave no completion; the too long deduplication
	// period is Canton's asynchronous rejection, so it has one
	var okCount int
	var rejected []string
	for _, c := range n.completions("", "u1", []string{alice}, 0, "") {
		if c.Succeeded() {
			okCount++
		} else {
			rejected = append(rejected, ledgerapi.ErrorFromStatus(c.Status).Code)
		}
	}
	if okCount != 3 || len(rejected) != 1 || rejected[0] != "INVALID_DEDUPLICATION_PERIOD" {
		t.Errorf("%d successes and rejections %v; want 3 and [INVALID_DEDUPLICATION_PERIOD]", okCount, rejected)
	}
}

// TestDuplicateCommand: a second submission of the same change within the
// window is DUPLICATE_COMMAND naming the first one's offset and submission,
// and leaves a rejected completion; outside the window (duration 0, or an
// offset after the first) it is accepted; another actAs set is another change.
func TestDuplicateCommand(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party
	body := commands("dup-1", []string{alice}, []map[string]any{create(alice, "1")}, map[string]any{"userId": "u1", "submissionId": "sub-1"})
	var first ledgerapi.SubmitAndWaitResponse
	n.ok("POST", "/v2/commands/submit-and-wait", "", body, &first)
	body["submissionId"] = "sub-2"
	e := n.fail("POST", "/v2/commands/submit-and-wait", "", body, 409, "DUPLICATE_COMMAND")
	if e.Context["completion_offset"] != strconv.FormatInt(int64(first.CompletionOffset), 10) || e.Context["existing_submission_id"] != "sub-1" {
		t.Errorf("duplicate context %v", e.Context)
	}
	if e.CorrelationID == nil || *e.CorrelationID != "sub-2" {
		t.Errorf("correlation id %v, want the submission id", e.CorrelationID)
	}
	// the async form answers {} and reports the duplicate as a completion
	body["submissionId"] = "sub-3"
	n.ok("POST", "/v2/commands/async/submit", "", body, nil)
	cs := n.completions("", "u1", []string{alice}, 0, "")
	if len(cs) != 3 {
		t.Fatalf("completions %+v", cs)
	}
	for _, c := range cs[1:] {
		rej := ledgerapi.ErrorFromStatus(c.Status)
		if c.Succeeded() || rej.Code != "DUPLICATE_COMMAND" || c.Status.Code != 6 || c.UpdateID != "" ||
			rej.Context["completion_offset"] != strconv.FormatInt(int64(first.CompletionOffset), 10) {
			t.Errorf("rejected completion %+v (%+v)", c, rej)
		}
	}
	// The duplicate reports the period up to just before the acceptance it
	// collides with, as an offset (Canton's TransactionProcessingSteps).
	if cs[2].SubmissionID != "sub-3" || cs[2].DeduplicationPeriod.Offset == nil || *cs[2].DeduplicationPeriod.Offset != int64(first.CompletionOffset)-1 {
		t.Errorf("async duplicate completion %+v", cs[2])
	}
	// a zero window does not deduplicate
	body["deduplicationPeriod"] = map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": 0}}}
	n.ok("POST", "/v2/commands/submit-and-wait", "", body, nil)
	// an offset window starting after the latest acceptance does not either
	end := n.ledgerEnd()
	body["deduplicationPeriod"] = map[string]any{"DeduplicationOffset": map[string]any{"value": end}}
	n.ok("POST", "/v2/commands/submit-and-wait", "", body, nil)
	body["deduplicationPeriod"] = map[string]any{"DeduplicationOffset": map[string]any{"value": end}}
	n.fail("POST", "/v2/commands/submit-and-wait", "", body, 409, "DUPLICATE_COMMAND")
	// another set of actAs parties, another user: other changes
	delete(body, "deduplicationPeriod")
	body["actAs"] = []string{alice, bob}
	n.ok("POST", "/v2/commands/submit-and-wait", "", body, nil)
	body["actAs"], body["userId"] = []string{alice}, "u2"
	n.ok("POST", "/v2/commands/submit-and-wait", "", body, nil)
	// actAs order does not make a new change
	body["actAs"], body["userId"] = []string{bob, alice}, "u1"
	n.fail("POST", "/v2/commands/submit-and-wait", "", body, 409, "DUPLICATE_COMMAND")
}

// TestConcurrentDuplicates: 20 concurrent submissions of one change; exactly
// one is accepted, the others are in flight or duplicates.
func TestConcurrentDuplicates(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	alice := n.allocate("Alice").Party
	for round := 0; round < 3; round++ {
		body := commands(fmt.Sprintf("race-%d", round), []string{alice}, []map[string]any{create(alice, "1")}, map[string]any{"userId": "u1"})
		const clients = 20
		statuses := make([]int, clients)
		codes := make([]string, clients)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < clients; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				status, b := post(http.DefaultClient, "POST", n.url+"/v2/commands/submit-and-wait", "", body)
				statuses[i] = status
				if status != 200 {
					if e, err := ledgerapi.DecodeError(b); err == nil {
						codes[i] = e.Code
					}
				}
			}(i)
		}
		close(start)
		wg.Wait()
		accepted := 0
		for i := range statuses {
			switch {
			case statuses[i] == 200:
				accepted++
			case statuses[i] == 409 && (codes[i] == "SUBMISSION_ALREADY_IN_FLIGHT" || codes[i] == "DUPLICATE_COMMAND"):
			default:
				t.Errorf("client %d: %d %s", i, statuses[i], codes[i])
			}
		}
		if accepted != 1 {
			t.Errorf("round %d: %d accepted, want exactly 1 (%v %v)", round, accepted, statuses, codes)
		}
	}
	// the ledger holds one success per change
	ok := 0
	for _, c := range n.completions("", "u1", []string{alice}, 0, "?limit=200") {
		if c.Succeeded() {
			ok++
		}
	}
	if ok != 3 {
		t.Errorf("%d successful completions, want 3", ok)
	}
}

// TestCommandRights: act rights for actAs and read rights for readAs to
// submit; read rights suffice to prepare.
func TestCommandRights(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party
	n.createUser("actor", ledgerapi.CanActAs(alice))
	n.createUser("reader", ledgerapi.CanReadAs(alice))
	n.createUser("nobody")
	actor, reader, nobody := n.token("actor"), n.token("reader"), n.token("nobody")
	body := commands("r-1", []string{alice}, []map[string]any{create(alice, "1")}, nil)

	n.fail("POST", "/v2/commands/submit-and-wait", reader, body, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/commands/submit-and-wait", nobody, body, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/commands/submit-and-wait", "", body, 401, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/commands/async/submit", reader, body, 403, ledgerapi.RedactedCode)
	withRead := commands("r-1", []string{alice}, []map[string]any{create(alice, "1")}, map[string]any{"readAs": []string{bob}})
	n.fail("POST", "/v2/commands/submit-and-wait", actor, withRead, 403, ledgerapi.RedactedCode)
	// naming another user than the token's is 403
	n.fail("POST", "/v2/commands/submit-and-wait", actor,
		commands("r-1", []string{alice}, []map[string]any{create(alice, "1")}, map[string]any{"userId": "reader"}), 403, ledgerapi.RedactedCode)
	n.ok("POST", "/v2/commands/submit-and-wait", actor, body, nil)

	prep := prepareBody("p-1", []string{alice}, create(alice, "1"))
	n.ok("POST", "/v2/interactive-submission/prepare", reader, prep, nil)
	n.ok("POST", "/v2/interactive-submission/prepare", actor, prep, nil)
	n.fail("POST", "/v2/interactive-submission/prepare", nobody, prep, 403, ledgerapi.RedactedCode)
	prep["readAs"] = []string{bob}
	n.fail("POST", "/v2/interactive-submission/prepare", reader, prep, 403, ledgerapi.RedactedCode)

	// completions need read rights on every listed party
	n.fail("POST", "/v2/commands/completions", reader, map[string]any{"userId": "reader", "parties": []string{alice, bob}}, 403, ledgerapi.RedactedCode)
	n.ok("POST", "/v2/commands/completions?stream_idle_timeout_ms=10", reader, map[string]any{"userId": "reader", "parties": []string{alice}}, nil)
}

func prepareBody(commandID string, actAs []string, cmd map[string]any) map[string]any {
	return map[string]any{"commandId": commandID, "actAs": actAs, "commands": []any{cmd},
		"synchronizerId": "", "packageIdSelectionPreference": []string{}}
}

// completions reads the completion list (one page) as user for parties.
func (n *testNode) completions(token, user string, parties []string, begin int64, query string) []ledgerapi.Completion {
	n.t.Helper()
	if query == "" {
		query = "?stream_idle_timeout_ms=20"
	} else {
		query += "&stream_idle_timeout_ms=20"
	}
	var els []ledgerapi.CompletionStreamResponse
	n.ok("POST", "/v2/commands/completions"+query, token, map[string]any{"userId": user, "parties": parties, "beginExclusive": begin}, &els)
	out := make([]ledgerapi.Completion, 0, len(els))
	for _, el := range els {
		if el.Completion == nil {
			n.t.Fatalf("element without completion: %+v", el)
		}
		out = append(out, *el.Completion)
	}
	return out
}

func (n *testNode) ledgerEnd() int64 {
	n.t.Helper()
	var end ledgerapi.GetLedgerEndResponse
	n.ok("GET", "/v2/state/ledger-end", n.admin, nil, &end)
	return int64(end.Offset)
}

func jsonReader(t *testing.T, v any) io.Reader {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

// On shutdown the node logs how many commits shared each fsync: the figure
// that shows group commit at work under `ledger bench`.
func TestShutdownLogsCommitsPerFsync(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	run := serve(t, local.Config{Node: node.Config{Logger: log}}, server.Config{Logger: log})
	n := &testNode{t: t, mode: auth.ModeNone, run: run, url: run.URL()}
	alice := n.allocate("Alice").Party
	for i := range 3 {
		n.ok("POST", "/v2/commands/submit-and-wait", "", commands(fmt.Sprintf("c-%d", i), []string{alice}, []map[string]any{create(alice, "1.0")}, map[string]any{"userId": "participant_admin"}), nil)
	}
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	var found map[string]any
	for line := range strings.SplitSeq(logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "commits" {
			found = rec
		}
	}
	if found == nil {
		t.Fatalf("no commits line in the shutdown log:\n%s", logs.String())
	}
	// The committer counts ledger entries: the three submissions.
	if c, _ := found["commits"].(float64); c != 3 {
		t.Errorf("commits = %v, want 3", found["commits"])
	}
	if _, ok := found["commitsPerFsync"].(string); !ok {
		t.Errorf("no commitsPerFsync in %v", found)
	}
}
