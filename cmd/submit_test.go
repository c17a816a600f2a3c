package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
)

func TestSubmitTreeAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "teller", "--act-as", bank}, conn...)...).must(t, 0)
	tconn := []string{"--url", n.url, "--token", n.token("teller")}

	r := runCLI(t, "", append([]string{"submit", "--create", "#iou:Iou:Iou", "--args", `{"issuer":"` + bank + `","amount":"5"}`,
		"--act-as", bank, "--command-id", "sub-1", "--workflow-id", "wf", "--dedup-duration", "1h", "-o", "json"}, tconn...)...).must(t, 0)
	var resp ledgerapi.SubmitAndWaitForTransactionTreeResponse
	if err := json.Unmarshal([]byte(r.out), &resp); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	tree := resp.TransactionTree
	if tree.CommandID != "sub-1" || tree.WorkflowID != "wf" || len(tree.EventsByID) != 1 {
		t.Fatalf("tree %+v", tree)
	}
	var cid string
	for _, ev := range tree.EventsByID {
		cid = ev.Created.ContractID
	}
	r = runCLI(t, "", append([]string{"submit", "--exercise", "#iou:Iou:Iou", "--contract-id", cid, "--choice", "Archive", "--act-as", bank}, tconn...)...).must(t, 0)
	if !strings.Contains(r.out, "exercise (consuming) Archive on Iou:Iou") || !strings.Contains(r.out, "Transaction ") {
		t.Errorf("tree text:\n%s", r.out)
	}
	// The same contract again: archived, so the node rejects (exit 4).
	r = runCLI(t, "", append([]string{"submit", "--exercise", "#iou:Iou:Iou", "--contract-id", cid, "--choice", "Archive", "--act-as", bank}, tconn...)...).must(t, 4)
	if !strings.Contains(r.err, "rejected: ") {
		t.Errorf("stderr %s", r.err)
	}
	runCLI(t, "", append([]string{"submit", "--create", "#iou:Iou:Iou", "--args", "{}", "--act-as", bank, "--dedup-duration", "1h", "--dedup-offset", "3"}, tconn...)...).must(t, 2)
}
