package integration

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// tokenTransfer is a TransferFactory_Transfer of amount from sender's
// holdings to receiver, instrument TOK of admin, executable for an hour.
func tokenTransfer(factory, admin, sender, receiver, amount string, holdings ...string) map[string]any {
	return splice.TransferCommand(factory, splice.Transfer{Admin: admin, InstrumentID: "TOK", Sender: sender, Receiver: receiver,
		Amount: amount, Holdings: holdings, RequestedAt: time.Now().Add(-time.Minute), ExecuteWithin: time.Hour})
}

// TestTokenInterfacesOnNode runs my-exercise-app's token through the
// token-standard interfaces on a started node: exercises name the
// interface (Canton's ExerciseInterface), the prepared exercise and fetch
// nodes carry its id, the events show it; an external sender transfers
// through TransferFactory with an offline signature, the admin completes
// the instruction through TransferInstruction, and the receiver, external
// too, sends part of it back. A contract that does not implement the
// interface answers CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE. The TypeScript
// SDK reproduces the hash of every prepared transaction.
func TestTokenInterfacesOnNode(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	n.ok("POST", "/v2/dars", n.admin, sharedDar(t, "my-exercise-app.dar"), nil)
	admin := n.allocate("Admin").Party
	n.createUser("issuer", ledgerapi.CanActAs(admin))
	issuer := n.token("issuer")
	alice, aliceKey := n.onboard("Alice", "alice-wallet")
	bob, bobKey := n.onboard("Bob", "bob-wallet")
	adminTree := func(id string, cmd map[string]any) ledgerapi.TransactionTree {
		t.Helper()
		r := n.call("POST", "/v2/commands/submit-and-wait-for-transaction-tree", issuer, commands(id, []string{admin}, []map[string]any{cmd}, nil))
		if r.status != 200 {
			t.Fatalf("%s: %d %s", id, r.status, r.body)
		}
		var resp treeResponse
		mustUnmarshal(t, r.body, &resp)
		return resp.TransactionTree
	}
	factory := onlyCreated(t, adminTree("factory", splice.Factory(admin, alice, bob)))
	holding := onlyCreated(t, adminTree("mint", splice.Mint(admin, alice, "TOK", "100.0")))

	var prepared []ledgerapi.PrepareSubmissionResponse

	// Alice transfers 40 to Bob: prepared, signed offline, executed.
	body := prepareBody("alice-transfer", []string{alice}, tokenTransfer(factory, admin, alice, bob, "40.0", holding))
	body["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V2"
	p := n.prepare(n.token("alice-wallet"), body)
	prepared = append(prepared, p)
	root := preparedOf(t, p).GetTransaction().GetNodes()[0].GetV1().GetExercise()
	if root == nil || root.GetInterfaceId().GetEntityName() != "TransferFactory" || root.GetTemplateId().GetEntityName() != "TokenTransferFactory" ||
		root.GetChoiceId() != "TransferFactory_Transfer" || root.GetConsuming() {
		t.Fatalf("prepared transfer root %v", root)
	}
	var wt ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
	n.ok("POST", "/v2/interactive-submission/executeAndWaitForTransaction", n.token("alice-wallet"), executeBody(p, alice, aliceKey, "s-alice"), &wt)
	var instr string
	for _, ev := range wt.Transaction.Events {
		if ev.Created != nil && strings.HasSuffix(ev.Created.TemplateID, ":TokenTransfer:TokenTransferInstruction") {
			instr = ev.Created.ContractID
		}
	}
	if instr == "" {
		t.Fatalf("no transfer instruction in %+v", wt.Transaction)
	}

	// The admin executes it through TransferInstruction: prepared first to
	// see the fetch through Holding, then submitted.
	body = prepareBody("admin-update-prep", []string{admin}, splice.InstructionUpdate(instr, admin))
	body["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V2"
	p = n.prepare(issuer, body)
	prepared = append(prepared, p)
	nodes := preparedOf(t, p).GetTransaction().GetNodes()
	if f := nodes[1].GetV1().GetFetch(); f == nil || f.GetInterfaceId().GetEntityName() != "Holding" || f.GetTemplateId().GetEntityName() != "TokenHolding" || f.GetContractId() != holding {
		t.Fatalf("prepared update: node 1 %v", nodes[1])
	}
	tree := adminTree("admin-update", splice.InstructionUpdate(instr, admin))
	want := "0 exercise TokenTransferInstruction TransferInstruction_Update (last 4) via TransferInstruction\n" +
		"2 exercise TokenHolding Archive (last 2) via Holding\n3 create TokenHolding\n4 create TokenHolding\n"
	if got := describeInterfaces(tree); got != want {
		t.Errorf("update tree:\n%swant\n%s", got, want)
	}
	bobs := tree.EventsByID["3"].Created
	if bobs == nil || fieldOf(t, bobs.CreateArgument, "owner") != bob || fieldOf(t, bobs.CreateArgument, "amount") != "40.0000000000" {
		t.Fatalf("Bob's holding %+v", bobs)
	}

	// Bob, external too, sends 15 back.
	body = prepareBody("bob-transfer", []string{bob}, tokenTransfer(factory, admin, bob, alice, "15.0", bobs.ContractID))
	body["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V2"
	p = n.prepare(n.token("bob-wallet"), body)
	prepared = append(prepared, p)
	n.ok("POST", "/v2/interactive-submission/executeAndWaitForTransaction", n.token("bob-wallet"), executeBody(p, bob, bobKey, "s-bob"), &wt)
	if ev := wt.Transaction.Events; len(ev) != 1 || ev[0].Created == nil {
		t.Errorf("Bob's transfer (flat): %+v", wt.Transaction)
	}

	// The token's TransferInstruction refuses a direct accept: an unhandled
	// exception, answered with its message.
	var instr2 string
	for _, ev := range wt.Transaction.Events {
		instr2 = ev.Created.ContractID
	}
	body = prepareBody("alice-accept", []string{alice}, splice.InstructionChoice(instr2, "TransferInstruction_Accept", nil))
	e := n.fail("POST", "/v2/interactive-submission/prepare", n.token("alice-wallet"), body, 400, "DAML_FAILURE")
	if e.Context["error_id"] != "UNHANDLED_EXCEPTION/DA.Exception.GeneralError:GeneralError" || !strings.Contains(e.Cause, "Direct accept is disabled. Use updateImpl by admin instead.") {
		t.Errorf("direct accept: %+v", e)
	}

	// The factory is not a TransferInstruction.
	e = n.fail("POST", "/v2/commands/submit-and-wait-for-transaction-tree", issuer,
		commands("not-impl", []string{admin}, []map[string]any{splice.InstructionUpdate(factory, admin)}, nil), 400, "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE")
	if !strings.Contains(e.Cause, "not implementing an interface") {
		t.Errorf("not implementing: %s", e.Cause)
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
		t.Logf("%d prepared transactions through interfaces: the TypeScript SDK reproduces every hash", len(txs))
	}
}

// describeInterfaces is describeTree with the interface of each exercise.
func describeInterfaces(tree ledgerapi.TransactionTree) string {
	lines := strings.Split(strings.TrimSuffix(describeTree(tree), "\n"), "\n")
	for i, l := range lines {
		var id int
		fmt.Sscanf(l, "%d", &id)
		if x := tree.EventsByID[fmt.Sprint(id)].Exercised; x != nil && x.InterfaceID != nil {
			lines[i] += " via " + (*x.InterfaceID)[strings.LastIndex(*x.InterfaceID, ":")+1:]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
