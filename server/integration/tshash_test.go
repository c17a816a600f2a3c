package integration

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestPreparedHashesMatchTypeScriptSDK prepares a varied sample of
// transactions on a real node and has the TypeScript wallet SDK — an
// implementation independent of ours — hash every one: its V2 hash must be
// the node's preparedTransactionHash. Skipped without node and the installed
// conformance/hashing project (CI installs it when node is present).
func TestPreparedHashesMatchTypeScriptSDK(t *testing.T) {
	nodeBin, dir := hashingPeers(t)
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	bank := n.allocate("Bank").Party
	alice := n.allocate("Alice").Party
	const user = "participant_admin"

	// A few contracts to exercise, created by plain submissions.
	var cids []string
	for i := 0; i < 3; i++ {
		r := n.call("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "",
			commands(fmt.Sprintf("seed-%d", i), []string{bank}, []map[string]any{create(bank, "10.0")}, map[string]any{"userId": user}))
		if r.status != 200 {
			t.Fatalf("submit: %d %s", r.status, r.body)
		}
		var resp struct {
			TransactionTree ledgerapi.TransactionTree `json:"transactionTree"`
		}
		mustUnmarshal(t, r.body, &resp)
		cids = append(cids, onlyCreated(t, resp.TransactionTree))
	}

	arguments := []string{
		`{"owner": %q, "amount": 1.50}`,
		`{"owner": %q, "big": 9007199254740993, "negative": -9223372036854775808, "max": 9223372036854775807}`,
		`{"owner": %q, "text": "naïve ✓ 𝄞", "empty": "", "flag": true, "none": null}`,
		`{"owner": %q, "nested": {"list": [1, 2.5, "x", [true, false]], "inner": {"deep": {"deeper": 0.000001}}}}`,
		`{"owner": %q, "counterparty": %q, "amounts": [100.00, 0.01, 12345678901234567890.1234567890]}`,
	}
	var cmds []map[string]any
	for i, a := range arguments {
		s := fmt.Sprintf(a, bank)
		if i == 4 {
			s = fmt.Sprintf(a, bank, alice)
		}
		cmds = append(cmds, map[string]any{"CreateCommand": map[string]any{"templateId": fmt.Sprintf("#sdk-check:Mod.Sub:T%d", i), "createArguments": json.RawMessage(s)}})
	}
	for _, cid := range cids {
		cmds = append(cmds, exercise(cid, "Transfer"))
	}

	count := checkSDKHashes(t, nodeBin, dir, n, "sdk", user, bank, cmds)
	t.Logf("%d prepared transactions: the wallet SDK reproduces every hash", count)
}

// checkSDKHashes prepares each command under V2 acting as party and has
// the wallet SDK hash the prepared transactions: each hash must be the
// node's. It returns how many were compared.
func checkSDKHashes(t *testing.T, nodeBin, dir string, n *testNode, prefix, user, party string, cmds []map[string]any) int {
	t.Helper()
	var txs, nodeHashes []string
	for i, cmd := range cmds {
		body := prepareBody(fmt.Sprintf("%s-%d", prefix, i), []string{party}, cmd)
		body["userId"] = user
		body["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V2"
		r := n.call("POST", "/v2/interactive-submission/prepare", "", body)
		if r.status != 200 {
			t.Fatalf("prepare %d: %d %s", i, r.status, r.body)
		}
		var resp ledgerapi.PrepareSubmissionResponse
		mustUnmarshal(t, r.body, &resp)
		txs = append(txs, base64.StdEncoding.EncodeToString(resp.PreparedTransaction))
		nodeHashes = append(nodeHashes, hex.EncodeToString(resp.PreparedTransactionHash))
	}
	sdk := sdkHashes(t, nodeBin, dir, txs)
	for i := range txs {
		if sdk[i] != nodeHashes[i] {
			t.Errorf("transaction %d: node hash %s, wallet SDK %s", i, nodeHashes[i], sdk[i])
		}
	}
	return len(txs)
}

// sdkHashes has the TypeScript wallet SDK hash each base64 prepared
// transaction (conformance/hashing/hash.mjs) and returns the hex hashes.
func sdkHashes(t *testing.T, nodeBin, dir string, txs []string) []string {
	t.Helper()
	cmd := exec.Command(nodeBin, "hash.mjs", "--impl", "sdk")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(txs, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hash.mjs: %v\n%s", err, stderr.String())
	}
	sdk := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(sdk) != len(txs) {
		t.Fatalf("the SDK printed %d hashes for %d transactions:\n%s", len(sdk), len(txs), out)
	}
	return sdk
}

// hashingPeers returns node and the installed conformance/hashing project,
// or skips.
func hashingPeers(t *testing.T) (nodeBin, dir string) {
	t.Helper()
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir, _ = filepath.Abs(filepath.Join("..", "..", "conformance", "hashing"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Skip("conformance/hashing/node_modules is missing: run npm ci there")
	}
	return nodeBin, dir
}
