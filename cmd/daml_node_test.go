package cmd

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet"
)

// TestPingSignedOfflineAgainstServe is issue 15's external Ping on a node
// that runs the Ping DAR: upload it, onboard an external initiator,
// `ledger prepare` a Ping create, `ledger sign` it offline with the key
// file, `ledger execute --wait`; then the same for an AbortPing on the new
// contract, whose transaction the interpreter made (an input contract, the
// choice's result).
func TestPingSignedOfflineAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	runCLI(t, "", "dars", "upload", pingDarPath, "--url", n.url, "--token", n.admin).must(t, 0)
	initiator, _, keyFile, tok := n.externalParty("initiator")
	r := runCLI(t, "", "parties", "allocate", "responder", "--url", n.url, "--token", n.admin, "-o", "json").must(t, 0)
	var responder struct {
		Party string `json:"party"`
	}
	if err := json.Unmarshal([]byte(r.out), &responder); err != nil || responder.Party == "" {
		t.Fatalf("allocate: %v %s", err, r.out)
	}
	conn := []string{"--url", n.url, "--token", tok}
	dir := t.TempDir()
	const ping = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"

	flow := func(name string, prepare ...string) ExecuteResult {
		t.Helper()
		tx, signed := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".signed.json")
		runCLI(t, "", append(append([]string{"prepare"}, prepare...), append([]string{"--act-as", initiator, "--command-id", name, "--out", tx}, conn...)...)...).must(t, 0)
		runCLI(t, "", "sign", tx, "--key", keyFile, "--yes", "--out", signed).must(t, 0)
		r := runCLI(t, "", append([]string{"execute", signed, "--wait", "-o", "json"}, conn...)...).must(t, 0)
		var res ExecuteResult
		if err := json.Unmarshal([]byte(r.out), &res); err != nil || res.Status != "committed" {
			t.Fatalf("%s: %v %s", name, err, r.out)
		}
		return res
	}
	flow("ping-1", "--create", ping, "--args", `{"id":"p1","initiator":"`+initiator+`","responder":"`+responder.Party+`"}`)
	// The contract to abort is the one ping-1's prepared transaction creates.
	env, err := wallet.ReadEnvelope(filepath.Join(dir, "ping-1.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := env.Raw()
	if err != nil {
		t.Fatal(err)
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		t.Fatal(err)
	}
	// There it has its local id; committed, the id has Canton's suffix
	// after it.
	local := pt.GetTransaction().GetNodes()[0].GetV1().GetCreate().GetContractId()
	acs := runCLI(t, "", append([]string{"contracts", "--party", initiator, "-o", "json"}, conn...)...).must(t, 0)
	cid := regexp.MustCompile(local + `[0-9a-f]+`).FindString(acs.out)
	if len(local) != 66 || len(cid) != 138 {
		t.Fatalf("no suffixed contract id after the local id %s in\n%s", local, acs.out)
	}
	flow("abort-1", "--exercise", ping, "--contract-id", cid, "--choice", "AbortPing", "--arg", `{"anyone":"`+initiator+`"}`)
	// AbortPing archived the Ping: preparing anything on it now fails.
	r = runCLI(t, "", append([]string{"prepare", "--exercise", ping, "--contract-id", cid, "--choice", "Respond",
		"--act-as", initiator, "--command-id", "respond-1", "--out", filepath.Join(dir, "respond.json")}, conn...)...)
	if r.code == 0 || !strings.Contains(r.err, "CONTRACT_NOT_FOUND") {
		t.Errorf("Respond on the aborted Ping: exit %d %s", r.code, r.err)
	}
}
