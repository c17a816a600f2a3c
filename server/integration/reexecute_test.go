package integration

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestReexecuteIsDuplicate: executing a signed transaction again is
// DUPLICATE_COMMAND, as in Canton, which checks deduplication before it
// looks at the transaction: for a create (whose contract now exists) and
// for an exercise (whose input is now archived). Outside the deduplication
// period, or as another user (another change id), the conflict stands.
func TestReexecuteIsDuplicate(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	ext, key := n.onboard("Ext", "wallet")
	wallet := n.token("wallet")
	n.createUser("other", ledgerapi.CanActAs(ext))
	other := n.token("other")
	const path = "/v2/interactive-submission/executeAndWaitForTransaction"

	var created ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
	createBody := executeBody(n.prepare(wallet, prepareBody("ext-create", []string{ext}, create(ext, "1"))), ext, key, "s-1")
	n.ok("POST", path, wallet, createBody, &created)
	cid := created.Transaction.Events[0].Created.ContractID

	var archived ledgerapi.SubmitAndWaitResponse
	archiveBody := executeBody(n.prepare(wallet, prepareBody("ext-archive", []string{ext}, exercise(cid, "Archive"))), ext, key, "s-2")
	n.ok("POST", "/v2/interactive-submission/executeAndWait", wallet, archiveBody, &archived)

	for _, tc := range []struct {
		name   string
		body   map[string]any
		offset int64
	}{
		{"create", createBody, int64(created.Transaction.Offset)},
		{"exercise", archiveBody, int64(archived.CompletionOffset)},
	} {
		body := map[string]any{}
		for k, v := range tc.body {
			body[k] = v
		}
		body["submissionId"] = "again-" + tc.name
		e := n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, body, 409, "DUPLICATE_COMMAND")
		if e.Context["completion_offset"] != strconv.FormatInt(tc.offset, 10) {
			t.Errorf("%s: duplicate of offset %s, want %d", tc.name, e.Context["completion_offset"], tc.offset)
		}
		// the async form answers {} and records the rejection
		body["submissionId"] = "async-" + tc.name
		if r := n.call("POST", "/v2/interactive-submission/execute", wallet, body); r.status != 200 {
			t.Errorf("%s: async execute %d %s", tc.name, r.status, r.body)
		}
		cs := n.completions(wallet, "wallet", []string{ext}, n.ledgerEnd()-1, "")
		if len(cs) != 1 || cs[0].SubmissionID != "async-"+tc.name || ledgerapi.ErrorFromStatus(cs[0].Status).Code != "DUPLICATE_COMMAND" {
			b, _ := json.Marshal(cs)
			t.Errorf("%s: last completion %s", tc.name, b)
		}

		// a deduplication period that starts at the earlier execution: no
		// duplicate, so the conflict with the ledger is the answer
		body["deduplicationPeriod"] = map[string]any{"DeduplicationOffset": map[string]any{"value": tc.offset}}
		r := n.call("POST", "/v2/interactive-submission/executeAndWait", wallet, body)
		if e, err := ledgerapi.DecodeError(r.body); r.status < 400 || r.status >= 500 || err != nil || e.Code == "DUPLICATE_COMMAND" {
			t.Errorf("%s outside the deduplication period: %d %s", tc.name, r.status, r.body)
		}
		// another user is another change
		body["deduplicationPeriod"] = map[string]any{"Empty": map[string]any{}}
		r = n.call("POST", "/v2/interactive-submission/executeAndWait", other, body)
		if e, err := ledgerapi.DecodeError(r.body); r.status < 400 || r.status >= 500 || err != nil || e.Code == "DUPLICATE_COMMAND" {
			t.Errorf("%s as another user: %d %s", tc.name, r.status, r.body)
		}
	}
}
