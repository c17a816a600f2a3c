package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// sharedDar reads a DAR of ../shared/dars, or skips.
func sharedDar(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "dars", name))
	if os.IsNotExist(err) {
		t.Skipf("real DAR %s not found in ../shared/dars (the shared folder beside the repository); skipping", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTypedHashesMatchTypeScriptSDK uploads real DARs, prepares commands on
// their templates (typed by the packages: record ids, labels, parties,
// numerics at their scale, optionals, trailing None fields left out, a
// typed input contract) and has the TypeScript wallet SDK hash each one.
// The interpreter runs every command, so each acts as its signatories.
func TestTypedHashesMatchTypeScriptSDK(t *testing.T) {
	nodeBin, dir := hashingPeers(t)
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	for _, d := range [][]byte{archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"),
		sharedDar(t, "splice-amulet-0.1.14.dar"), sharedDar(t, "splice-wallet-0.1.14.dar")} {
		n.ok("POST", "/v2/dars", "", d, nil)
	}
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party
	const user = "participant_admin"
	const ping = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"

	r := n.call("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "", commands("seed-ping", []string{alice},
		[]map[string]any{{"CreateCommand": map[string]any{"templateId": ping,
			"createArguments": map[string]any{"responder": bob, "initiator": alice, "id": "p0"}}}}, map[string]any{"userId": user}))
	if r.status != 200 {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	var tree treeResponse
	mustUnmarshal(t, r.body, &tree)
	cid := onlyCreated(t, tree.TransactionTree)

	cmds := []map[string]any{
		{"CreateCommand": map[string]any{"templateId": ping, "createArguments": map[string]any{"id": "p1", "responder": bob, "initiator": alice}}},
		{"ExerciseCommand": map[string]any{"templateId": ping, "contractId": cid, "choice": "AbortPing", "choiceArgument": map[string]any{"anyone": alice}}},
		{"CreateCommand": map[string]any{"templateId": "#splice-amulet:Splice.Amulet:Amulet", "createArguments": json.RawMessage(fmt.Sprintf(
			`{"dso":%q,"owner":%q,"amount":{"initialAmount":"12.5","createdAt":{"number":"42"},"ratePerRound":{"rate":0.0001}}}`, alice, alice))}},
		{"CreateCommand": map[string]any{"templateId": "#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal",
			"createArguments": map[string]any{"receiver": alice, "provider": bob, "expectedDso": alice}}},
		{"CreateCommand": map[string]any{"templateId": "#splice-wallet:Splice.Wallet.TransferPreapproval:TransferPreapprovalProposal",
			"createArguments": map[string]any{"receiver": alice, "provider": bob}}},
	}
	count := checkSDKHashes(t, nodeBin, dir, n, "typed", user, alice, cmds)
	t.Logf("%d typed prepared transactions: the wallet SDK reproduces every hash", count)
}
