package integration

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/server/auth"
)

// Issue 15's acceptance on a started node: the Ping DAR uploaded, its
// templates run by the interpreter through the JSON API.

const (
	pingTemplate = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
	bongPrefix   = "#canton-builtin-admin-workflow-ping:Canton.Internal.Bong:"
	damlUser     = "participant_admin"
)

func pingCreate(initiator, responder, id string) map[string]any {
	return map[string]any{"CreateCommand": map[string]any{"templateId": pingTemplate,
		"createArguments": map[string]any{"id": id, "initiator": initiator, "responder": responder}}}
}

func damlExercise(tmpl, cid, choice string, arg map[string]any) map[string]any {
	return map[string]any{"ExerciseCommand": map[string]any{"templateId": tmpl, "contractId": cid, "choice": choice, "choiceArgument": arg}}
}

// tree submits one command as actAs and returns the transaction tree.
func (n *testNode) tree(commandID string, actAs []string, cmd map[string]any) ledgerapi.TransactionTree {
	n.t.Helper()
	r := n.call("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "",
		commands(commandID, actAs, []map[string]any{cmd}, map[string]any{"userId": damlUser}))
	if r.status != 200 {
		n.t.Fatalf("%s: %d %s", commandID, r.status, r.body)
	}
	var resp treeResponse
	mustUnmarshal(n.t, r.body, &resp)
	return resp.TransactionTree
}

// refused submits one command as actAs and returns its error.
func (n *testNode) refused(commandID string, actAs []string, cmd map[string]any, status int, code string) *ledgerapi.JsCantonError {
	n.t.Helper()
	return n.fail("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "",
		commands(commandID, actAs, []map[string]any{cmd}, map[string]any{"userId": damlUser}), status, code)
}

// TestDamlPingOnNode: allocate an initiator and a responder, create a Ping
// as the initiator, Respond as the initiator is refused, Respond as the
// responder is a consuming exercise with result unit that archives it;
// AbortPing by the party it names; the flat transaction and async submit.
func TestDamlPingOnNode(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	n.ok("POST", "/v2/dars", "", archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), nil)
	initiator := n.allocate("Initiator").Party
	responder := n.allocate("Responder").Party

	tree := n.tree("ping-1", []string{initiator}, pingCreate(initiator, responder, "p1"))
	c := tree.EventsByID["0"].Created
	if c == nil || len(tree.EventsByID) != 1 || c.TemplateID != pingPackageID+":Canton.Internal.Ping:Ping" ||
		fmt.Sprint(c.Signatories) != fmt.Sprint([]string{initiator}) || fmt.Sprint(c.Observers) != fmt.Sprint([]string{responder}) ||
		fmt.Sprint(c.WitnessParties) != fmt.Sprint([]string{initiator}) ||
		string(c.CreateArgument) != `{"id":"p1","initiator":"`+initiator+`","responder":"`+responder+`"}` {
		t.Fatalf("create tree %+v", tree)
	}
	cid := c.ContractID

	e := n.refused("respond-1", []string{initiator}, damlExercise(pingTemplate, cid, "Respond", map[string]any{}), 400, "DAML_AUTHORIZATION_ERROR")
	if !strings.Contains(e.Cause, "requires authorizers "+responder+", but only "+initiator+" were given") || e.Context["choice"] != "Respond" {
		t.Errorf("Respond as the initiator: %+v", e)
	}

	tree = n.tree("respond-2", []string{responder}, damlExercise(pingTemplate, cid, "Respond", map[string]any{}))
	x := tree.EventsByID["0"].Exercised
	if x == nil || len(tree.EventsByID) != 1 || !x.Consuming || string(x.ExerciseResult) != "{}" || x.LastDescendantNodeID != 0 ||
		fmt.Sprint(x.ActingParties) != fmt.Sprint([]string{responder}) || !x.ACSDelta || x.ContractID != cid {
		t.Fatalf("Respond tree %+v", x)
	}
	n.refused("respond-3", []string{responder}, damlExercise(pingTemplate, cid, "Respond", map[string]any{}), 404, "CONTRACT_NOT_FOUND")

	// AbortPing by the party it names, through the flat transaction: the
	// archive shows.
	tree = n.tree("ping-2", []string{initiator}, pingCreate(initiator, responder, "p2"))
	cid = onlyCreated(t, tree)
	var flat struct {
		Transaction ledgerapi.Transaction `json:"transaction"`
	}
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction", "", map[string]any{"commands": commands("abort-1", []string{responder},
		[]map[string]any{damlExercise(pingTemplate, cid, "AbortPing", map[string]any{"anyone": responder})}, map[string]any{"userId": damlUser})}, &flat)
	if evs := flat.Transaction.Events; len(evs) != 1 || evs[0].Archived == nil || evs[0].Archived.ContractID != cid {
		t.Errorf("AbortPing flat transaction %+v", flat.Transaction)
	}

	// Async submit: the outcome is a completion; a refusal of the
	// interpreter is the answer itself.
	tree = n.tree("ping-3", []string{initiator}, pingCreate(initiator, responder, "p3"))
	cid = onlyCreated(t, tree)
	n.ok("POST", "/v2/commands/async/submit", "", commands("abort-2", []string{initiator},
		[]map[string]any{damlExercise(pingTemplate, cid, "AbortPing", map[string]any{"anyone": initiator})}, map[string]any{"userId": damlUser}), nil)
	if cs := n.completions("", damlUser, []string{initiator}, 0, ""); len(cs) == 0 || cs[len(cs)-1].CommandID != "abort-2" || !cs[len(cs)-1].Succeeded() {
		t.Errorf("completions %+v", cs)
	}
	n.fail("POST", "/v2/commands/async/submit", "", commands("abort-3", []string{responder},
		[]map[string]any{damlExercise(pingTemplate, cid, "AbortPing", map[string]any{"anyone": initiator})}, map[string]any{"userId": damlUser}), 404, "CONTRACT_NOT_FOUND")
}

// TestDamlPingSignedOffline: an external initiator prepares Pings and an
// AbortPing, signs each hash offline and executes it; every prepared
// transaction hashes the same in the TypeScript SDK (when installed), and a
// transaction changed after prepare and signed again is refused by the
// re-interpretation.
func TestDamlPingSignedOffline(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	n.ok("POST", "/v2/dars", n.admin, archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), nil)
	ext, key := n.onboard("Initiator", "wallet")
	wallet := n.token("wallet")
	responder := n.allocate("Responder").Party

	var prepared []ledgerapi.PrepareSubmissionResponse
	prepare := func(id string, cmd map[string]any, scheme string) ledgerapi.PrepareSubmissionResponse {
		body := prepareBody(id, []string{ext}, cmd)
		body["hashingSchemeVersion"] = scheme
		p := n.prepare(wallet, body)
		prepared = append(prepared, p)
		return p
	}
	execute := func(p ledgerapi.PrepareSubmissionResponse, sub string) ledgerapi.Transaction {
		var wt ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
		n.ok("POST", "/v2/interactive-submission/executeAndWaitForTransaction", wallet, executeBody(p, ext, key, sub), &wt)
		if wt.Transaction.ExternalTransactionHash == nil || *wt.Transaction.ExternalTransactionHash != hex.EncodeToString(p.PreparedTransactionHash) {
			t.Errorf("%s: external hash %v", sub, wt.Transaction.ExternalTransactionHash)
		}
		return wt.Transaction
	}

	p := prepare("ext-ping-1", pingCreate(ext, responder, "e1"), "HASHING_SCHEME_VERSION_V2")
	// Changed after prepare, signed again: refused, nothing committed.
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(p.PreparedTransaction, &pt); err != nil {
		t.Fatal(err)
	}
	pt.Transaction.Nodes[0].GetV1().GetCreate().Signatories = sortedParties(ext, responder)
	e := n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(resigned(t, &pt, hashing.V2), ext, key, "s-x"), 400, "FAILED_TO_EXECUTE_TRANSACTION")
	if !strings.Contains(e.Cause, "model conformance") || !strings.Contains(e.Cause, "signatories") {
		t.Errorf("tampered signatories: %s", e.Cause)
	}
	if end := n.ledgerEnd(); end != 0 {
		t.Fatalf("ledger end %d after a refused execute", end)
	}

	created := execute(p, "s-1")
	if len(created.Events) != 1 || created.Events[0].Created == nil {
		t.Fatalf("Ping execute %+v", created)
	}
	cid := created.Events[0].Created.ContractID
	// The same signed transaction again is the same change: a duplicate.
	n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, executeBody(p, ext, key, "s-1b"), 409, "DUPLICATE_COMMAND")
	abort := prepare("ext-abort-1", damlExercise(pingTemplate, cid, "AbortPing", map[string]any{"anyone": ext}), "HASHING_SCHEME_VERSION_V2")
	if err := proto.Unmarshal(abort.PreparedTransaction, &pt); err != nil {
		t.Fatal(err)
	}
	if ics := pt.GetMetadata().GetInputContracts(); len(ics) != 1 || ics[0].GetV1().GetContractId() != cid {
		t.Errorf("AbortPing input contracts %v", ics)
	}
	if archived := execute(abort, "s-2"); len(archived.Events) != 1 || archived.Events[0].Archived == nil {
		t.Errorf("AbortPing execute %+v", archived)
	}
	v3 := prepare("ext-ping-2", pingCreate(ext, responder, "e2"), "HASHING_SCHEME_VERSION_V3")
	execute(v3, "s-3")

	if nodeBin, dir, ok := hashingPeersOrLog(t); ok {
		// The SDK hashes V2 only.
		var txs, hashes []string
		for _, p := range prepared {
			if p.HashingSchemeVersion == ledgerapi.HashingSchemeVersionV2 {
				txs = append(txs, base64.StdEncoding.EncodeToString(p.PreparedTransaction))
				hashes = append(hashes, hex.EncodeToString(p.PreparedTransactionHash))
			}
		}
		for i, h := range sdkHashes(t, nodeBin, dir, txs) {
			if h != hashes[i] {
				t.Errorf("prepared transaction %d: node %s, SDK %s", i, hashes[i], h)
			}
		}
		t.Logf("%d prepared transactions: the TypeScript SDK reproduces every hash", len(txs))
	}
}

// resigned re-encodes a changed prepared transaction with its new hash, as
// someone holding the key could sign it.
func resigned(t *testing.T, pt *damlpb.PreparedTransaction, scheme hashing.Scheme) ledgerapi.PrepareSubmissionResponse {
	t.Helper()
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := hashing.Compute(raw, scheme, hashing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	version := ledgerapi.HashingSchemeVersionV2
	if scheme == hashing.V3 {
		version = ledgerapi.HashingSchemeVersionV3
	}
	return ledgerapi.PrepareSubmissionResponse{PreparedTransaction: raw, PreparedTransactionHash: res.Hash[:], HashingSchemeVersion: version}
}

func sortedParties(ps ...string) []string {
	out := append([]string(nil), ps...)
	sort.Strings(out)
	return out
}

// hashingPeersOrLog is hashingPeers without skipping the test.
func hashingPeersOrLog(t *testing.T) (nodeBin, dir string, ok bool) {
	t.Helper()
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Log("node is not installed: the TypeScript SDK does not check the hashes")
		return "", "", false
	}
	dir, _ = filepath.Abs(filepath.Join("..", "..", "conformance", "hashing"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Log("conformance/hashing/node_modules is missing (run npm ci there): the TypeScript SDK does not check the hashes")
		return "", "", false
	}
	return nodeBin, dir, true
}

// TestDamlBongOnNode drives Canton's Bong workflow through
// submit-and-wait-for-transaction-tree: the proposal's ensure refuses
// duplicate candidates; each candidate's Accept ends in an Explode, which
// explodes into Merge and Collapse contracts that merge back into a Bong.
// Each tree is the one the .daml source describes, children nested under
// their exercise (lastDescendantNodeId), fetch nodes keeping their ids but
// making no events; a prepared ProcessExplode and ProcessMerge carry node
// seeds and contract ids derived as Canton derives them.
func TestDamlBongOnNode(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	n.ok("POST", "/v2/dars", "", archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), nil)
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party
	carol := n.allocate("Carol").Party
	proposal := func(candidates ...string) map[string]any {
		return map[string]any{"CreateCommand": map[string]any{"templateId": bongPrefix + "BongProposal", "createArguments": map[string]any{
			"id": "bong-1", "initiator": alice, "candidates": candidates, "validators": []string{}, "responders": []string{alice},
			"maxLevel": "2", "timeout": "2030-01-01T00:00:00Z"}}}
	}
	e := n.refused("dup", []string{alice}, proposal(bob, bob), 400, "DAML_FAILURE")
	if e.Context["error_id"] != "UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed" || !strings.Contains(e.Cause, "Template precondition violated") {
		t.Errorf("duplicate candidates: %+v", e)
	}

	cid := onlyCreated(t, n.tree("proposal", []string{alice}, proposal(bob, carol)))
	accept := func(id, validator, cid string) ledgerapi.TransactionTree {
		return n.tree(id, []string{validator}, damlExercise(bongPrefix+"BongProposal", cid, "Accept", map[string]any{"validator": validator}))
	}
	tree := accept("accept-bob", bob, cid)
	want := "0 exercise BongProposal Accept (last 1)\n1 create BongProposal\n"
	if got := describeTree(tree); got != want {
		t.Errorf("Accept by Bob:\n%swant\n%s", got, want)
	}
	tree = accept("accept-carol", carol, tree.EventsByID["1"].Created.ContractID)
	if got := describeTree(tree); got != "0 exercise BongProposal Accept (last 1)\n1 create Explode \"\"\n" {
		t.Errorf("Accept by Carol:\n%s", got)
	}
	if r := string(tree.EventsByID["0"].Exercised.ExerciseResult); r != `{"tag":"Right","value":"`+tree.EventsByID["1"].Created.ContractID+`"}` {
		t.Errorf("Accept result %s", r)
	}
	explode := tree.EventsByID["1"].Created.ContractID

	// Explode level by level as Alice, the winner; first prepare the root's
	// ProcessExplode to check its seeds and contract ids.
	var prepared []ledgerapi.PrepareSubmissionResponse
	processExplode := func(cid string) map[string]any {
		return damlExercise(bongPrefix+"Explode", cid, "ProcessExplode", map[string]any{"winner": alice})
	}
	p := n.prepare("", prepareBodyUser("prep-explode", alice, processExplode(explode)))
	prepared = append(prepared, p)
	checkDerivations(t, p)

	merges := map[string]string{}      // path → Merge
	collapses := map[string][]string{} // path → Collapses
	queue := []string{explode}
	for len(queue) > 0 {
		tree := n.tree("explode-"+queue[0], []string{alice}, processExplode(queue[0]))
		queue = queue[1:]
		m := tree.EventsByID["1"].Created
		path := fieldOf(t, m.CreateArgument, "path")
		merges[path] = m.ContractID
		next, left, right := "Explode", path+"L", path+"R"
		if len(path)+1 >= 2 {
			next, left, right = "Collapse", path, path
		}
		want := fmt.Sprintf("0 exercise Explode ProcessExplode (last 3)\n1 create Merge %q\n2 create %s %q\n3 create %s %q\n", path, next, left, next, right)
		if got := describeTree(tree); got != want {
			t.Errorf("ProcessExplode at %q:\n%swant\n%s", path, got, want)
		}
		for _, id := range []string{"2", "3"} {
			if next == "Explode" {
				queue = append(queue, tree.EventsByID[id].Created.ContractID)
			} else {
				collapses[path] = append(collapses[path], tree.EventsByID[id].Created.ContractID)
			}
		}
	}
	if len(merges) != 3 {
		t.Fatalf("merges %v", merges)
	}
	for _, path := range []string{"L", "R", ""} {
		cs := collapses[path]
		cmd := damlExercise(bongPrefix+"Merge", merges[path], "ProcessMerge", map[string]any{"winner": alice, "leftId": cs[0], "rightId": cs[1]})
		if path == "" {
			p := n.prepare("", prepareBodyUser("prep-merge", alice, cmd))
			prepared = append(prepared, p)
			checkDerivations(t, p)
		}
		tree := n.tree("merge-"+path, []string{alice}, cmd)
		last := fmt.Sprintf("5 create Collapse %q\n", "")
		if path == "" {
			last = "5 create Bong\n"
		}
		want := "0 exercise Merge ProcessMerge (last 5)\n3 exercise Collapse ProcessCollapse (last 3)\n4 exercise Collapse ProcessCollapse (last 4)\n" + last
		if got := describeTree(tree); got != want {
			t.Errorf("ProcessMerge at %q:\n%swant\n%s", path, got, want)
		}
		if path != "" {
			collapses[""] = append(collapses[""], tree.EventsByID["5"].Created.ContractID)
		}
	}

	if nodeBin, dir, ok := hashingPeersOrLog(t); ok {
		var txs []string
		for _, p := range prepared {
			txs = append(txs, base64.StdEncoding.EncodeToString(p.PreparedTransaction))
		}
		for i, h := range sdkHashes(t, nodeBin, dir, txs) {
			if h != hex.EncodeToString(prepared[i].PreparedTransactionHash) {
				t.Errorf("prepared transaction %d: node %x, SDK %s", i, prepared[i].PreparedTransactionHash, h)
			}
		}
		t.Logf("%d prepared transactions: the TypeScript SDK reproduces every hash", len(txs))
	}
}

// prepareBodyUser is a V2 prepare request for one command as party by the
// admin user.
func prepareBodyUser(commandID, party string, cmd map[string]any) map[string]any {
	b := prepareBody(commandID, []string{party}, cmd)
	b["userId"] = damlUser
	b["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V2"
	return b
}

// describeTree renders a tree one event per line in node id order: "id
// exercise Template Choice (last n)" or "id create Template" with the path
// of Bong's contracts.
func describeTree(tree ledgerapi.TransactionTree) string {
	var ids []int
	for k := range tree.EventsByID {
		id, _ := strconv.Atoi(k)
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var b strings.Builder
	for _, id := range ids {
		ev := tree.EventsByID[strconv.Itoa(id)]
		switch {
		case ev.Created != nil:
			entity := ev.Created.TemplateID[strings.LastIndex(ev.Created.TemplateID, ":")+1:]
			fmt.Fprintf(&b, "%d create %s", id, entity)
			if p, ok := fieldOfOK(ev.Created.CreateArgument, "path"); ok {
				fmt.Fprintf(&b, " %q", p)
			}
		case ev.Exercised != nil:
			entity := ev.Exercised.TemplateID[strings.LastIndex(ev.Exercised.TemplateID, ":")+1:]
			fmt.Fprintf(&b, "%d exercise %s %s (last %d)", id, entity, ev.Exercised.Choice, ev.Exercised.LastDescendantNodeID)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func fieldOfOK(arg []byte, field string) (string, bool) {
	var m map[string]any
	if err := json.Unmarshal(arg, &m); err != nil {
		return "", false
	}
	s, ok := m[field].(string)
	return s, ok
}

func fieldOf(t *testing.T, arg []byte, field string) string {
	t.Helper()
	s, ok := fieldOfOK(arg, field)
	if !ok {
		t.Fatalf("no %s in %s", field, arg)
	}
	return s
}

// checkDerivations re-derives, from a prepared transaction alone, every
// child's seed (HMAC of its exercise's seed and its index among the action
// children) and every contract id (discriminator over the create's seed,
// the preparation time and the stakeholders), as Canton derives them.
func checkDerivations(t *testing.T, p ledgerapi.PrepareSubmissionResponse) {
	t.Helper()
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(p.PreparedTransaction, &pt); err != nil {
		t.Fatal(err)
	}
	prep := value.Timestamp(pt.GetMetadata().GetPreparationTime())
	nodes := map[string]*damlpb.Node{}
	for _, n := range pt.GetTransaction().GetNodes() {
		nodes[n.GetNodeId()] = n.GetV1()
	}
	seeds := map[string]tx.Hash{}
	for _, s := range pt.GetTransaction().GetNodeSeeds() {
		seeds[strconv.Itoa(int(s.GetNodeId()))] = tx.Hash(s.GetSeed())
	}
	var visit func(id string)
	visit = func(id string) {
		switch n := nodes[id]; {
		case n.GetCreate() != nil:
			c := n.GetCreate()
			if want := tx.ContractIDV1(seeds[id], prep, c.GetStakeholders()); c.GetContractId() != string(want) {
				t.Errorf("node %s: contract id %s, derived %s", id, c.GetContractId(), want)
			}
		case n.GetExercise() != nil:
			for i, child := range n.GetExercise().GetChildren() {
				if ch := nodes[child]; ch.GetFetch() == nil && seeds[child] != tx.DeriveNodeSeed(seeds[id], i) {
					t.Errorf("node %s: seed is not child %d of node %s", child, i, id)
				}
				visit(child)
			}
		}
	}
	for _, r := range pt.GetTransaction().GetRoots() {
		visit(r)
	}
}
