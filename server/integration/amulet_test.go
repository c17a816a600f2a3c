package integration

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/wallet"
	"github.com/ledger-cli/ledger/wallet/review"
)

// TestCantonCoinOnNode is issue 16's Canton Coin acceptance on a started
// node, with splice-amulet-0.1.14.dar and splice-wallet-0.1.14.dar (and
// their dependencies) uploaded. The DSO creates the AmuletRules of a
// DevNet-style configuration and the ExternalPartyAmuletRules and
// bootstraps the mining rounds, as Splice's setup does. An external party
// taps coin on the DevNet faucet and transfers part of it to another
// external party through the token-standard TransferFactory (a locked coin
// and an AmuletTransferInstruction), which the receiver accepts through
// the TransferInstruction interface: each prepared, signed offline and
// executed, the DSO's contracts read through readAs. Then the two kinds of
// rollback Canton 3.5 knows: the wallet's batch catches a failing tap,
// whose rollback node the prepared transaction shows and the events hide;
// Splice's TransferCommand_Send short of funds would roll back an archive,
// which Canton 3.5 refuses with DAML_EFFECTFUL_ROLLBACK_ERROR. The
// TypeScript SDK reproduces the hash of every prepared transaction.
func TestCantonCoinOnNode(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	for _, dar := range []string{"splice-amulet-0.1.14.dar", "splice-wallet-0.1.14.dar"} {
		n.ok("POST", "/v2/dars", n.admin, sharedDar(t, dar), nil)
	}
	const tick = 10 * time.Minute
	dso := n.allocate("DSO").Party
	validator := n.allocate("Validator").Party
	carol := n.allocate("Carol").Party
	n.createUser("dso-op", ledgerapi.CanActAs(dso), ledgerapi.CanActAs(validator), ledgerapi.CanActAs(carol))
	op := n.token("dso-op")
	local := func(id string, actAs []string, cmd map[string]any) ledgerapi.TransactionTree {
		t.Helper()
		r := n.call("POST", "/v2/commands/submit-and-wait-for-transaction-tree", op,
			commands(id, actAs, []map[string]any{cmd}, map[string]any{"readAs": []string{dso}}))
		if r.status != 200 {
			t.Fatalf("%s: %d %s", id, r.status, r.body)
		}
		var resp treeResponse
		mustUnmarshal(t, r.body, &resp)
		return resp.TransactionTree
	}
	rules := onlyCreated(t, local("rules", []string{dso}, splice.AmuletRulesCreate(dso, tick)))
	external := onlyCreated(t, local("external-rules", []string{dso}, splice.ExternalRulesCreate(dso)))
	boot := local("bootstrap", []string{dso}, splice.BootstrapRounds(rules, tick))
	if got := describeTree(boot); got != "0 exercise AmuletRules AmuletRules_Bootstrap_Rounds (last 3)\n1 create OpenMiningRound\n2 create OpenMiningRound\n3 create OpenMiningRound\n" {
		t.Fatalf("bootstrap:\n%s", got)
	}
	round := boot.EventsByID["1"].Created.ContractID

	// Two external parties whose wallets read the DSO's contracts.
	alice, aliceKey := n.onboard("Alice", "alice-wallet")
	bob, bobKey := n.onboard("Bob", "bob-wallet")
	n.ok("POST", "/v2/users/alice-wallet/rights", n.admin, map[string]any{"userId": "alice-wallet", "rights": []any{ledgerapi.CanReadAs(dso)}}, nil)
	n.ok("POST", "/v2/users/bob-wallet/rights", n.admin, map[string]any{"userId": "bob-wallet", "rights": []any{ledgerapi.CanReadAs(dso)}}, nil)
	var prepared []ledgerapi.PrepareSubmissionResponse
	offline := func(id, party, user string, key *signer.Key, cmd map[string]any) ledgerapi.Transaction {
		t.Helper()
		body := prepareBody(id, []string{party}, cmd)
		body["readAs"] = []string{dso}
		body["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V2"
		p := n.prepare(n.token(user), body)
		prepared = append(prepared, p)
		var wt ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
		n.ok("POST", "/v2/interactive-submission/executeAndWaitForTransaction", n.token(user), executeBody(p, party, key, "sub-"+id), &wt)
		return wt.Transaction
	}
	created := func(tr ledgerapi.Transaction, entity string) []*ledgerapi.CreatedEvent {
		var out []*ledgerapi.CreatedEvent
		for _, ev := range tr.Events {
			if ev.Created != nil && strings.HasSuffix(ev.Created.TemplateID, ":"+entity) {
				out = append(out, ev.Created)
			}
		}
		return out
	}

	// Alice taps 1000 on the DevNet faucet. Her wallet's review of the
	// prepared tap shows the mining round it uses and when it closes.
	coins := created(offline("tap", alice, "alice-wallet", aliceKey, splice.Tap(rules, alice, "1000.0", round)), "Splice.Amulet:Amulet")
	rv, err := review.Summarize(preparedOf(t, prepared[len(prepared)-1]), nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if ms := rv.Times.MiningRounds; len(ms) != 1 || ms[0].ContractID != round || ms[0].Round != "0" ||
		ms[0].TargetClosesAt == "" || ms[0].Closing || ms[0].SecondsLeft <= 0 {
		t.Errorf("the tap's mining rounds in the review: %+v", ms)
	}
	if len(coins) != 1 || fieldOf(t, coins[0].CreateArgument, "owner") != alice {
		t.Fatalf("tapped coins %+v", coins)
	}

	// Alice sends 100 to Bob through the token standard; Bob accepts.
	transfer := offline("transfer", alice, "alice-wallet", aliceKey, splice.TransferCommand(external, splice.Transfer{
		Admin: dso, InstrumentID: "Amulet", Sender: alice, Receiver: bob, Amount: "100.0", Holdings: []string{coins[0].ContractID},
		RequestedAt: time.Now().Add(-time.Second), ExecuteWithin: time.Hour, Context: splice.AmuletContext(rules, round)}))
	// A custodian's policy bounds such transfers per instrument: the real
	// TransferFactory_Transfer of 100 Amulet, as the wallet reviews it.
	transferReview, err := review.Summarize(preparedOf(t, prepared[len(prepared)-1]), nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if want := "transfer 100.0000000000 Amulet from Alice::"; !strings.HasPrefix(transferReview.Summary, want) ||
		!strings.Contains(transferReview.Summary, " to Bob::") {
		t.Errorf("the transfer's summary %q, want it to start %q", transferReview.Summary, want)
	}
	for _, pc := range []struct {
		max  map[string]string
		want string // a part of the one violation; "" = complies
	}{
		{map[string]string{"Amulet": "100.0"}, ""},
		{map[string]string{"Amulet@" + dso: "1000"}, ""},
		{map[string]string{"Amulet": "99.99"}, "transfers 100.0000000000 Amulet, more than the policy's maximum of 99.99"},
		{map[string]string{"USDx": "5"}, "instrument Amulet (admin " + dso + "), which the policy's maxAmounts does not list"},
	} {
		got := (&wallet.Policy{MaxAmounts: pc.max}).Check(transferReview)
		if pc.want == "" && len(got) > 0 || pc.want != "" && (len(got) != 1 || !strings.Contains(got[0], pc.want)) {
			t.Errorf("maxAmounts %v: violations %q, want %q", pc.max, got, pc.want)
		}
	}
	instr := created(transfer, "Splice.AmuletTransferInstruction:AmuletTransferInstruction")
	if len(instr) != 1 || len(created(transfer, "Splice.Amulet:LockedAmulet")) != 1 {
		t.Fatalf("transfer: %+v", transfer.Events)
	}
	accepted := offline("accept", bob, "bob-wallet", bobKey, splice.InstructionChoice(instr[0].ContractID, "TransferInstruction_Accept", splice.AmuletContext(rules, round)))
	var bobs []string
	for _, c := range created(accepted, "Splice.Amulet:Amulet") {
		if fieldOf(t, c.CreateArgument, "owner") == bob {
			bobs = append(bobs, string(c.CreateArgument))
		}
	}
	if len(bobs) != 1 || !strings.Contains(bobs[0], `"initialAmount":"100.0000000000"`) {
		t.Errorf("Bob's coin after accepting: %v", bobs)
	}

	// A caught failure: the wallet batch's tap of a negative amount fails in
	// Amulet's ensure, before any effect; the handler reports it.
	install := onlyCreated(t, local("install", []string{carol, validator}, splice.Create("#splice-wallet:Splice.Wallet.Install:WalletAppInstall",
		map[string]any{"dsoParty": dso, "validatorParty": validator, "endUserName": "carol", "endUserParty": carol})))
	batch := splice.Exercise("#splice-wallet:Splice.Wallet.Install:WalletAppInstall", install, "WalletAppInstall_ExecuteBatch", map[string]any{
		"context": map[string]any{"amuletRules": rules, "context": map[string]any{"openMiningRound": round, "issuingMiningRounds": [][]any{},
			"validatorRights": [][]any{}, "featuredAppRight": nil}},
		"inputs": []any{}, "operations": []any{map[string]any{"tag": "CO_Tap", "value": map[string]any{"tapAmount": "-1.0"}}}})
	body := prepareBody("batch-prep", []string{validator}, batch)
	body["readAs"] = []string{dso}
	body["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V2"
	p := n.prepare(op, body)
	prepared = append(prepared, p)
	var rollback, inside int
	for _, nd := range preparedOf(t, p).GetTransaction().GetNodes() {
		if rb := nd.GetV1().GetRollback(); rb != nil {
			rollback++
			inside += len(rb.GetChildren())
		}
	}
	if rollback != 1 || inside != 1 {
		t.Fatalf("prepared batch: %d rollback nodes with %d children", rollback, inside)
	}
	tree := local("batch", []string{validator}, batch)
	if len(tree.EventsByID) != 1 || tree.EventsByID["0"].Exercised == nil || !strings.Contains(string(tree.EventsByID["0"].Exercised.ExerciseResult), `"COO_Error"`) {
		t.Errorf("batch tree (the rolled back tap hidden): %s", describeTree(tree))
	}
	if last := tree.EventsByID["0"].Exercised.LastDescendantNodeID; last != 0 {
		t.Errorf("lastDescendantNodeId %d counts the rolled back nodes", last)
	}

	// An effectful rollback: Canton 3.5 refuses it.
	alicesCoin := created(offline("tap-2", alice, "alice-wallet", aliceKey, splice.Tap(rules, alice, "10.0", round)), "Splice.Amulet:Amulet")[0].ContractID
	counter := onlyCreated(t, local("counter", []string{dso}, splice.Create("#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommandCounter",
		map[string]any{"dso": dso, "sender": alice, "nextNonce": "0"})))
	now := time.Now().UTC()
	preapproval := onlyCreated(t, local("preapproval", []string{carol, dso}, splice.Create("#splice-amulet:Splice.AmuletRules:TransferPreapproval",
		map[string]any{"dso": dso, "receiver": carol, "provider": carol, "validFrom": now.Format(time.RFC3339Nano),
			"lastRenewedAt": now.Format(time.RFC3339Nano), "expiresAt": now.Add(24 * time.Hour).Format(time.RFC3339Nano)})))
	command := created(offline("command", alice, "alice-wallet", aliceKey, splice.Exercise(splice.ExternalPartyAmuletRules, external,
		"ExternalPartyAmuletRules_CreateTransferCommand", map[string]any{"sender": alice, "receiver": carol, "delegate": dso, "amount": "5000.0",
			"expiresAt": now.Add(time.Hour).Format(time.RFC3339Nano), "nonce": "0", "description": nil, "expectedDso": dso})),
		"Splice.ExternalPartyAmuletRules:TransferCommand")[0].ContractID
	send := splice.Exercise("#splice-amulet:Splice.ExternalPartyAmuletRules:TransferCommand", command, "TransferCommand_Send", map[string]any{
		"context": map[string]any{"amuletRules": rules, "context": map[string]any{"openMiningRound": round, "issuingMiningRounds": [][]any{},
			"validatorRights": [][]any{}, "featuredAppRight": nil}},
		"inputs": []any{map[string]any{"tag": "InputAmulet", "value": alicesCoin}}, "transferPreapprovalCidO": preapproval, "transferCounterCid": counter})
	e := n.fail("POST", "/v2/commands/submit-and-wait-for-transaction-tree", op,
		commands("send", []string{dso}, []map[string]any{send}, nil), 400, "DAML_EFFECTFUL_ROLLBACK_ERROR")
	if !strings.Contains(e.Cause, "Tried to rollback side-effectful node(s): Consuming exercise of Archive on Splice.Amulet:Amulet@3ca1343a ( "+alicesCoin+" )") {
		t.Errorf("effectful rollback: %s", e.Cause)
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
		t.Logf("%d Canton Coin prepared transactions: the TypeScript SDK reproduces every hash", len(txs))
	}
}
