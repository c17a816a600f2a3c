package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestReadCommandsAgainstServe runs contracts, updates, update get, events
// and prune against a started node: three Ious, one archived.
func TestReadCommandsAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "teller", "--act-as", bank}, conn...)...).must(t, 0)
	as := []string{"--url", n.url, "--token", n.token("teller")}
	var cids []string
	for _, id := range []string{"a", "b", "c"} {
		r := runCLI(t, "", append([]string{"submit", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + bank + `"}`, "--act-as", bank,
			"--command-id", id, "-o", "json"}, as...)...).must(t, 0)
		var tr ledgerapi.SubmitAndWaitForTransactionTreeResponse
		if err := json.Unmarshal([]byte(r.out), &tr); err != nil {
			t.Fatal(err)
		}
		cids = append(cids, tr.TransactionTree.EventsByID["0"].Created.ContractID)
	}
	runCLI(t, "", append([]string{"submit", "--exercise", "#iou:Iou:Iou", "--contract-id", cids[0], "--choice", "Archive",
		"--act-as", bank, "--command-id", "d"}, as...)...).must(t, 0)

	// contracts: a table, JSON, JSON lines page by page, an earlier snapshot
	r := runCLI(t, "", append([]string{"contracts", "--party", bank}, as...)...).must(t, 0)
	if !strings.Contains(r.out, "TEMPLATE") || strings.Count(r.out, "Iou:Iou") != 2 {
		t.Errorf("contracts table:\n%s", r.out)
	}
	r = runCLI(t, "", append([]string{"contracts", "--party", bank, "-o", "json"}, as...)...).must(t, 0)
	evs := jsonLines[ledgerapi.CreatedEvent](t, r.out)
	if len(evs) != 2 || evs[0].ContractID != cids[1] {
		t.Errorf("contracts -o json: %s", r.out)
	}
	r = runCLI(t, "", append([]string{"contracts", "--party", bank, "-o", "json", "--page-size", "1", "--at", "3", "--blob"}, as...)...).must(t, 0)
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 3 || strings.Contains(lines[0], `"createdEventBlob":""`) {
		t.Errorf("contracts -o json at 3:\n%s", r.out)
	}

	// updates: NDJSON of both shapes, a range
	r = runCLI(t, "", append([]string{"updates", "--party", bank, "-o", "json"}, as...)...).must(t, 0)
	lines = strings.Split(strings.TrimSpace(r.out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[3], `"ArchivedEvent"`) {
		t.Errorf("updates -o json:\n%s", r.out)
	}
	var u ledgerapi.JsUpdate
	if err := json.Unmarshal([]byte(lines[3]), &u); err != nil || u.Transaction == nil {
		t.Fatalf("update line %s: %v", lines[3], err)
	}
	if strings.Contains(lines[1], `"createdEventBlob":"`) && !strings.Contains(lines[1], `"createdEventBlob":""`) {
		t.Errorf("updates without --blob gave a blob:\n%s", lines[1])
	}
	// --blob: the created events carry the blob the active contract set gives
	r = runCLI(t, "", append([]string{"updates", "--party", bank, "--blob", "--template", "#iou:Iou:Iou", "--from", "1", "--to", "2", "-o", "json"}, as...)...).must(t, 0)
	var withBlob ledgerapi.JsUpdate
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.out)), &withBlob); err != nil || withBlob.Transaction == nil ||
		len(withBlob.Transaction.Events) != 1 || len(withBlob.Transaction.Events[0].Created.CreatedEventBlob) == 0 {
		t.Errorf("updates --blob: %v\n%s", err, r.out)
	}
	r = runCLI(t, "", append([]string{"updates", "--party", bank, "--shape", "ledger-effects", "--from", "3", "--to", "4"}, as...)...).must(t, 0)
	if strings.Count(strings.TrimSpace(r.out), "\n") != 1 || !strings.HasPrefix(r.out, "OFFSET") || !strings.Contains(r.out, "exercised 1") {
		t.Errorf("updates --shape ledger-effects --from 3 --to 4:\n%s", r.out)
	}

	// update get, by id and by offset
	r = runCLI(t, "", append([]string{"update", "get", u.Transaction.UpdateID, "--party", bank}, as...)...).must(t, 0)
	if !strings.Contains(r.out, "Archive") {
		t.Errorf("update get:\n%s", r.out)
	}
	r = runCLI(t, "", append([]string{"update", "get", "--offset", "1", "--party", bank, "-o", "json"}, as...)...).must(t, 0)
	if !strings.Contains(r.out, `"CreatedEvent"`) {
		t.Errorf("update get --offset 1 -o json:\n%s", r.out)
	}

	// events of the archived contract
	r = runCLI(t, "", append([]string{"events", cids[0], "--party", bank}, as...)...).must(t, 0)
	if !strings.Contains(r.out, "created   offset 1") || !strings.Contains(r.out, "archived  offset 4") {
		t.Errorf("events:\n%s", r.out)
	}

	// prune: the teller may not; the admin prunes (below the ledger end,
	// as Canton requires: one more transaction first); reads below are refused
	runCLI(t, "", append([]string{"submit", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + bank + `"}`, "--act-as", bank,
		"--command-id", "e"}, as...)...).must(t, 0)
	runCLI(t, "", append([]string{"prune", "--offset", "2"}, as...)...).must(t, 1)
	r = runCLI(t, "", append([]string{"prune", "--offset", "4"}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "pruned up to offset 4") || !strings.Contains(r.out, "1 archived contracts") {
		t.Errorf("prune: %s", r.out)
	}
	r = runCLI(t, "", append([]string{"updates", "--party", bank, "--from", "1"}, as...)...).must(t, 1)
	if !strings.Contains(r.err, "PARTICIPANT_PRUNED_DATA_ACCESSED") {
		t.Errorf("updates below the pruning offset: %s", r.err)
	}
	r = runCLI(t, "", append([]string{"contracts", "--party", bank, "-o", "json"}, as...)...).must(t, 0)
	if evs = jsonLines[ledgerapi.CreatedEvent](t, r.out); len(evs) != 3 {
		t.Errorf("contracts after pruning: %s", r.out)
	}
	runCLI(t, "", append([]string{"prune", "--keep", "1h"}, conn...)...).must(t, 0)
}

// TestUpdatesCheckpointResumesAgainstServe exports the updates to a file
// with a checkpoint, adds more, and resumes: the file holds each once.
func TestUpdatesCheckpointResumesAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "teller", "--act-as", bank}, conn...)...).must(t, 0)
	as := []string{"--url", n.url, "--token", n.token("teller")}
	submit := func(id string) {
		runCLI(t, "", append([]string{"submit", "--create", "#iou:Iou:Iou", "--args", "{}", "--act-as", bank, "--command-id", id}, as...)...).must(t, 0)
	}
	dir := t.TempDir()
	ckpt, out := filepath.Join(dir, "ckpt"), filepath.Join(dir, "out.ndjson")
	export := append([]string{"updates", "--party", bank, "--checkpoint", ckpt, "-o", "json", "--out", out}, as...)
	submit("one")
	submit("two")
	runCLI(t, "", export...).must(t, 0)
	submit("three")
	runCLI(t, "", export...).must(t, 0)
	runCLI(t, "", export...).must(t, 0) // nothing new
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("the export holds %d lines, want 3:\n%s", len(lines), b)
	}
	for i, l := range lines {
		var u ledgerapi.JsUpdate
		if err := json.Unmarshal([]byte(l), &u); err != nil || u.Offset() != int64(i+1) {
			t.Errorf("line %d: %v %s", i+1, err, l)
		}
	}
}

// cantonACSPage is a page of the active contract set as a Canton 3.5
// participant writes it.
const cantonACSPage = `{"activeContracts":[{"workflowId":"","contractEntry":{"JsActiveContract":{"createdEvent":{
"offset":12,"nodeId":1,"contractId":"00c0ffee","templateId":"9f1c:Iou:Iou","contractKey":null,"contractKeyHash":"",
"createArgument":{"owner":"Alice::1220ab","amount":"10.0"},"createdEventBlob":"","interfaceViews":[],
"witnessParties":["Alice::1220ab"],"signatories":["Alice::1220ab"],"observers":[],"createdAt":"2026-07-24T11:59:02.100000Z",
"packageName":"iou","representativePackageId":"9f1c","acsDelta":true},"synchronizerId":"global::1220aa","reassignmentCounter":0}}}],
"activeAtOffset":12,"nextPageToken":"%s"}`

// TestContractsAgainstCantonShapedFake pages through a fake participant
// that answers as Canton does.
func TestContractsAgainstCantonShapedFake(t *testing.T) {
	isolateConfig(t)
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v2/state/active-contracts-page" {
			http.NotFound(w, r)
			return
		}
		var req ledgerapi.GetActiveContractsPageRequest
		json.NewDecoder(r.Body).Decode(&req)
		calls++
		token := "next"
		if req.PageToken == "next" {
			token = ""
			// Canton's page token checksums the request's activeAtOffset,
			// absent or not, and carries the snapshot's offset itself: the
			// next page repeats the first request as it was.
			if req.ActiveAtOffset != nil {
				t.Errorf("the second page adds activeAtOffset %d, which Canton refuses (INVALID_ACS_PAGE_TOKEN)", *req.ActiveAtOffset)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(strings.Replace(cantonACSPage, "%s", token, 1)))
	}))
	defer srv.Close()
	r := runCLI(t, "", "contracts", "--party", "Alice::1220ab", "--url", srv.URL, "--user", "u", "--jsonl").must(t, 0)
	if calls != 2 || strings.Count(r.out, `"contractId":"00c0ffee"`) != 2 {
		t.Errorf("%d calls, output:\n%s", calls, r.out)
	}
}

// cantonUpdate is update-by-offset's answer as a Canton 3.5 participant
// writes it: a consuming exercise with its child create (ledger effects).
const cantonUpdate = `{"update":{"Transaction":{"value":{"updateId":"1220f00d","commandId":"cmd-7","workflowId":"",
"effectiveAt":"2026-07-24T11:59:02.100000Z","events":[{"ExercisedEvent":{"offset":42,"nodeId":0,"contractId":"00aa",
"templateId":"9f1c:Iou:Iou","interfaceId":null,"choice":"Iou_Transfer","choiceArgument":{"newOwner":"Bob::1220cd"},
"actingParties":["Alice::1220ab"],"consuming":true,"witnessParties":["Alice::1220ab"],"lastDescendantNodeId":1,
"exerciseResult":"00bb","packageName":"iou","implementedInterfaces":[],"acsDelta":true}},{"CreatedEvent":{"offset":42,
"nodeId":1,"contractId":"00bb","templateId":"9f1c:Iou:IouTransfer","contractKey":null,"contractKeyHash":"",
"createArgument":{"newOwner":"Bob::1220cd"},"createdEventBlob":"","interfaceViews":[],"witnessParties":["Alice::1220ab"],
"signatories":["Alice::1220ab"],"observers":["Bob::1220cd"],"createdAt":"2026-07-24T11:59:02.100000Z","packageName":"iou",
"representativePackageId":"9f1c","acsDelta":true}}],"offset":42,"synchronizerId":"global::1220aa","traceContext":null,
"recordTime":"2026-07-24T11:59:02.512000Z","externalTransactionHash":null,"paidTrafficCost":0}}}}`

// cantonEvents is events-by-contract-id's answer from Canton 3.5.
const cantonEvents = `{"created":{"createdEvent":{"offset":41,"nodeId":0,"contractId":"00aa","templateId":"9f1c:Iou:Iou",
"contractKey":null,"contractKeyHash":"","createArgument":{"owner":"Alice::1220ab"},"createdEventBlob":"","interfaceViews":[],
"witnessParties":["Alice::1220ab"],"signatories":["Alice::1220ab"],"observers":[],"createdAt":"2026-07-24T11:58:00Z",
"packageName":"iou","representativePackageId":"9f1c","acsDelta":true},"synchronizerId":"global::1220aa"},
"archived":{"archivedEvent":{"offset":42,"nodeId":0,"contractId":"00aa","templateId":"9f1c:Iou:Iou",
"witnessParties":["Alice::1220ab"],"packageName":"iou","implementedInterfaces":[]},"synchronizerId":"global::1220aa"}}`

// TestUpdateGetAndEventsAgainstCantonShapedFake renders a Canton
// participant's answers: the exercise with its child as a tree, and a
// contract's two events.
func TestUpdateGetAndEventsAgainstCantonShapedFake(t *testing.T) {
	isolateConfig(t)
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v2/updates/update-by-offset":
			w.Write([]byte(cantonUpdate))
		case "/v2/events/events-by-contract-id":
			w.Write([]byte(cantonEvents))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	r := runCLI(t, "", "update", "get", "--offset", "42", "--party", "Alice::1220ab", "--url", srv.URL, "--user", "u").must(t, 0)
	ex, cr := strings.Index(r.out, "Iou_Transfer"), strings.Index(r.out, "create Iou:IouTransfer")
	if ex < 0 || cr < ex || !strings.Contains(r.out, "cmd-7") {
		t.Errorf("update get: the create is not shown below the exercise:\n%s", r.out)
	}
	r = runCLI(t, "", "events", "00aa", "--party", "Alice::1220ab", "--url", srv.URL, "--user", "u").must(t, 0)
	if !strings.Contains(r.out, "created   offset 41 node 0") || !strings.Contains(r.out, "archived  offset 42 node 0") {
		t.Errorf("events:\n%s", r.out)
	}
	if len(asked) != 2 {
		t.Errorf("asked %v", asked)
	}
}

// TestInterfaceReadsAgainstServe lists token holdings through the token
// standard's Holding interface: contracts and updates with --interface keep
// the holdings (not the factory the party also sees) and show their views.
func TestInterfaceReadsAgainstServe(t *testing.T) {
	dar := filepath.Join("..", "..", "shared", "dars", "my-exercise-app.dar")
	if _, err := os.Stat(dar); err != nil {
		t.Skipf("real DAR %s not found (the shared folder beside the repository); skipping", dar)
	}
	const holding = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	runCLI(t, "", append([]string{"dars", "upload", dar}, conn...)...).must(t, 0)
	admin := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "admin"}, conn...)...).must(t, 0).out)
	alice := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "alice"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "issuer", "--act-as", admin, "--read-as", alice}, conn...)...).must(t, 0)
	as := []string{"--url", n.url, "--token", n.token("issuer")}
	runCLI(t, "", append([]string{"submit", "--create", "#exercise-app:TokenTransfer:TokenTransferFactory", "--act-as", admin, "--command-id", "factory",
		"--args", `{"admin":"` + admin + `","meta":{"values":{}},"observers":["` + alice + `"]}`}, as...)...).must(t, 0)
	runCLI(t, "", append([]string{"submit", "--create", "#exercise-app:TokenHolding:TokenHolding", "--act-as", admin, "--command-id", "mint",
		"--args", `{"owner":"` + alice + `","dso":"` + admin + `","instrumentId":{"admin":"` + admin + `","id":"TOK"},"amount":"12.5","meta":{"values":{}}}`}, as...)...).must(t, 0)

	r := runCLI(t, "", append([]string{"contracts", "--party", alice, "--interface", holding, "-o", "json"}, as...)...).must(t, 0)
	evs := jsonLines[ledgerapi.CreatedEvent](t, r.out)
	if len(evs) != 1 || len(evs[0].InterfaceViews) != 1 {
		t.Fatalf("contracts --interface -o json:\n%s", r.out)
	}
	var view struct {
		Owner  string `json:"owner"`
		Amount string `json:"amount"`
	}
	if err := json.Unmarshal(evs[0].InterfaceViews[0].ViewValue, &view); err != nil || view.Owner != alice || view.Amount != "12.5000000000" {
		t.Errorf("view %s: %v", evs[0].InterfaceViews[0].ViewValue, err)
	}
	r = runCLI(t, "", append([]string{"contracts", "--party", alice, "--interface", holding}, as...)...).must(t, 0)
	if strings.Count(r.out, "TokenHolding:TokenHolding") != 1 || strings.Contains(r.out, "TokenTransferFactory") || !strings.Contains(r.out, "VIEW") {
		t.Errorf("contracts --interface table (the view, not the argument):\n%s", r.out)
	}
	r = runCLI(t, "", append([]string{"updates", "--party", alice, "--interface", holding, "-o", "json"}, as...)...).must(t, 0)
	if lines := strings.Split(strings.TrimSpace(r.out), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"interfaceViews":[{"interfaceId":"`) {
		t.Errorf("updates --interface -o json:\n%s", r.out)
	}
	r = runCLI(t, "", append([]string{"contracts", "--party", alice, "--interface", "Holding"}, as...)...).must(t, 2)
	if !strings.Contains(r.err, "--interface") {
		t.Errorf("bad --interface: %s", r.err)
	}
}

// TestContractsListsMoreThanEveryCap lists a set bigger than the node's
// read batch (500) and than the page through `ledger contracts`, without
// --at: every contract once, also with a party filter that sees every
// second contract and with pages of one read batch.
func TestContractsListsMoreThanEveryCap(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	client := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "client"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "teller", "--act-as", bank, "--read-as", client}, conn...)...).must(t, 0)
	tok := n.token("teller")
	const total = 1303
	for first := 0; first < total; first += 250 {
		var cmds []map[string]any
		for i := first; i < min(first+250, total); i++ {
			args := map[string]any{"owner": bank, "n": i}
			if i%2 == 0 {
				args["client"] = client
			}
			cmds = append(cmds, map[string]any{"CreateCommand": map[string]any{"templateId": "#iou:Iou:Iou", "createArguments": args}})
		}
		body, _ := json.Marshal(map[string]any{"commands": cmds, "commandId": fmt.Sprint("seed-", first), "actAs": []string{bank}})
		req, _ := http.NewRequest("POST", n.url+"/v2/commands/submit-and-wait", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("seeding: status %d", resp.StatusCode)
		}
	}
	for _, c := range []struct {
		party string
		want  int
		extra []string
	}{
		{bank, total, nil},
		{bank, total, []string{"--page-size", "500"}},
		{client, (total + 1) / 2, []string{"--page-size", "100"}},
	} {
		r := runCLI(t, "", append([]string{"contracts", "--party", c.party, "-o", "json", "--url", n.url, "--token", tok}, c.extra...)...).must(t, 0)
		lines := strings.Split(strings.TrimSpace(r.out), "\n")
		seen := map[string]bool{}
		for _, l := range lines {
			var ev ledgerapi.CreatedEvent
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			seen[ev.ContractID] = true
		}
		if len(lines) != c.want || len(seen) != c.want {
			t.Errorf("contracts --party %s %v: %d lines, %d contracts, want %d", c.party, c.extra, len(lines), len(seen), c.want)
		}
	}
}

// jsonLines decodes NDJSON, what the streaming commands print with -o json.
func jsonLines[T any](t *testing.T, out string) []T {
	t.Helper()
	var vs []T
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not one JSON object per line: %q: %v\n%s", line, err, out)
		}
		vs = append(vs, v)
	}
	return vs
}
