package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/internal/cmdtest"
	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet"
)

// serveFlow drives external parties on an in-process ledger serve through
// the binary's commands: prepare --with-packages, verify and show offline
// (the packages the envelope carries, nothing else), sign, execute.
type serveFlow struct {
	t   *testing.T
	n   *liveNode
	dir string
	// envelopes are the files prepared, in order.
	envelopes []string
}

// startDevNode is startLiveNode accepting Daml-LF 2.dev DARs (the JSON
// API's keyed test DAR), as ledger serve --allow-lf-dev.
func startDevNode(t *testing.T) *liveNode {
	t.Helper()
	n := cmdtest.StartNodeWith(t, node.Config{AllowDevPackages: true})
	return &liveNode{t: t, url: n.URL, admin: n.Admin, node: n}
}

// prepare prepares cmd for party with the packages, checks that verify and
// show re-run its Daml code offline and find it exact, and returns the
// envelope's file and its transaction.
func (f *serveFlow) prepare(name, party, token, scheme string, cmd splice.Object, readAs ...string) (string, *damlpb.PreparedTransaction) {
	t := f.t
	t.Helper()
	cmds := filepath.Join(f.dir, name+".cmds.json")
	b, _ := json.Marshal([]splice.Object{cmd})
	if err := os.WriteFile(cmds, b, 0o600); err != nil {
		t.Fatal(err)
	}
	tx := filepath.Join(f.dir, name+".json")
	args := []string{"prepare", "--commands", "@" + cmds, "--act-as", party, "--command-id", name, "--scheme", scheme,
		"--with-packages", "--out", tx, "--url", f.n.url, "--token", token}
	for _, p := range readAs {
		args = append(args, "--read-as", p)
	}
	runCLI(t, "", args...).must(t, 0)
	f.envelopes = append(f.envelopes, tx)
	r := runCLI(t, "", "verify", tx).must(t, 0)
	if !strings.Contains(r.out, "OK: re-interpreted: matches the Daml code of ") {
		t.Errorf("%s: verify does not say the Daml code was re-run:\n%s", name, r.out)
	}
	r = runCLI(t, "", "show", tx, "--width", "200").must(t, 0)
	if first, _, _ := strings.Cut(r.out, "\n"); !strings.HasPrefix(first, "re-interpreted: matches the Daml code of ") {
		t.Errorf("%s: show opens with %q", name, first)
	}
	// The code came from the node that prepared the transaction: the
	// review says whose choice the package ids were.
	if !strings.Contains(r.out, "the Daml code re-run came in the envelope, from the node that prepared the transaction") {
		t.Errorf("%s: show does not say where the code came from:\n%s", name, r.out)
	}
	env, err := wallet.ReadEnvelope(tx, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := env.Raw()
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		t.Fatal(err)
	}
	return tx, &pt
}

// execute signs the envelope with keyFile (re-running the code once more)
// and executes it.
func (f *serveFlow) execute(tx, keyFile, token string) {
	t := f.t
	t.Helper()
	signed := strings.TrimSuffix(tx, ".json") + ".signed.json"
	runCLI(t, "", "sign", tx, "--key", keyFile, "--yes", "--out", signed).must(t, 0)
	runCLI(t, "", "execute", signed, "--wait", "--url", f.n.url, "--token", token).must(t, 0)
}

// committed is the suffixed id of the contract a prepared transaction
// created with local id, as party's active contracts show it.
func (f *serveFlow) committed(party, token, local string) string {
	f.t.Helper()
	acs := runCLI(f.t, "", "contracts", "--party", party, "-o", "json", "--url", f.n.url, "--token", token).must(f.t, 0)
	cid := regexp.MustCompile(local + `[0-9a-f]+`).FindString(acs.out)
	if cid == "" {
		f.t.Fatalf("no contract %s… among the active contracts of %s", local, party)
	}
	return cid
}

// created returns the local ids of the contracts a prepared transaction
// creates of entity (Module:Entity), in node order.
func created(pt *damlpb.PreparedTransaction, entity string) []string {
	var out []string
	for _, n := range pt.GetTransaction().GetNodes() {
		if c := n.GetV1().GetCreate(); c != nil && c.GetTemplateId().GetModuleName()+":"+c.GetTemplateId().GetEntityName() == entity {
			out = append(out, c.GetContractId())
		}
	}
	return out
}

// localSubmit runs cmd as the local parties actAs and returns the created
// contract id of the first created event of entity.
func localSubmit(t *testing.T, cl *client.Client, id string, actAs []string, cmd splice.Object) *ledgerapi.TransactionTree {
	t.Helper()
	b, _ := json.Marshal(cmd)
	var c ledgerapi.Command
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	tree, err := cl.SubmitAndWaitForTransactionTree(context.Background(), ledgerapi.Commands{CommandID: id, ActAs: actAs, Commands: []ledgerapi.Command{c}})
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return tree
}

func firstCreated(t *testing.T, tree *ledgerapi.TransactionTree, entity string) string {
	t.Helper()
	for i := 0; i < len(tree.EventsByID); i++ {
		if ev := tree.EventsByID[fmt.Sprint(i)]; ev.Created != nil && strings.HasSuffix(ev.Created.TemplateID, ":"+entity) {
			return ev.Created.ContractID
		}
	}
	t.Fatalf("no %s created", entity)
	return ""
}

// TestServePreparedTransactionsReinterpret: what ledger serve prepares for
// external parties — Ping (a create, then an exercise of it with an input
// contract), Canton Coin (a faucet tap, a token-standard transfer through
// the TransferFactory interface with its fetches, the receiver's accept
// through the TransferInstruction interface), a wallet batch whose failing
// tap is a rollback node, and keyed contracts under V3 (a create and an
// exercise by key) — re-runs offline exactly: verify exits 0, show opens
// with the re-interpreted line, sign signs and execute commits.
func TestServePreparedTransactionsReinterpret(t *testing.T) {
	amulet := splicePath(t, "splice-amulet-0.1.14.dar")
	walletDar := splicePath(t, "splice-wallet-0.1.14.dar")
	keysDar := splicePath(t, "DamlDefinitionsServiceMain.dar")
	n := startDevNode(t)
	f := &serveFlow{t: t, n: n, dir: t.TempDir()}
	for _, dar := range []string{pingDarPath, amulet, walletDar, keysDar} {
		runCLI(t, "", "dars", "upload", dar, "--url", n.url, "--token", n.admin).must(t, 0)
	}
	cl, err := client.New(client.Config{URL: n.url, Tokens: client.StaticToken(n.admin)})
	if err != nil {
		t.Fatal(err)
	}
	alice, _, aliceKey, aliceTok := n.externalParty("alice")
	bob, _, bobKey, bobTok := n.externalParty("bob")

	// Ping: a create, then AbortPing on it.
	const ping = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
	tx, pt := f.prepare("ping", alice, aliceTok, "v2", splice.Create(ping, splice.Object{"id": "p1", "initiator": alice, "responder": bob}))
	f.execute(tx, aliceKey, aliceTok)
	pingID := f.committed(alice, aliceTok, created(pt, "Canton.Internal.Ping:Ping")[0])
	tx, _ = f.prepare("abort", alice, aliceTok, "v3", splice.Exercise(ping, pingID, "AbortPing", splice.Object{"anyone": alice}))
	f.execute(tx, aliceKey, aliceTok)

	// Canton Coin, set up by the DSO as Splice does.
	dso := strings.TrimSpace(runCLI(t, "", "parties", "allocate", "DSO", "--url", n.url, "--token", n.admin).must(t, 0).out)
	validator := strings.TrimSpace(runCLI(t, "", "parties", "allocate", "validator", "--url", n.url, "--token", n.admin).must(t, 0).out)
	carol := strings.TrimSpace(runCLI(t, "", "parties", "allocate", "carol", "--url", n.url, "--token", n.admin).must(t, 0).out)
	for _, p := range []string{dso, validator, carol} {
		runCLI(t, "", "users", "grant", ledger.AdminUserID, "--act-as", p, "--url", n.url, "--token", n.admin).must(t, 0)
	}
	for _, u := range []string{"alice-wallet", "bob-wallet"} {
		runCLI(t, "", "users", "grant", u, "--read-as", dso, "--url", n.url, "--token", n.admin).must(t, 0)
	}
	const tick = 10 * time.Minute
	rules := firstCreated(t, localSubmit(t, cl, "rules", []string{dso}, splice.AmuletRulesCreate(dso, tick)), "AmuletRules")
	external := firstCreated(t, localSubmit(t, cl, "external", []string{dso}, splice.ExternalRulesCreate(dso)), "ExternalPartyAmuletRules")
	round := firstCreated(t, localSubmit(t, cl, "bootstrap", []string{dso}, splice.BootstrapRounds(rules, tick)), "OpenMiningRound")

	tx, pt = f.prepare("tap", alice, aliceTok, "v2", splice.Tap(rules, alice, "1000.0", round), dso)
	f.execute(tx, aliceKey, aliceTok)
	coin := f.committed(alice, aliceTok, created(pt, "Splice.Amulet:Amulet")[0])
	tx, pt = f.prepare("transfer", alice, aliceTok, "v2", splice.TransferCommand(external, splice.Transfer{
		Admin: dso, InstrumentID: "Amulet", Sender: alice, Receiver: bob, Amount: "100.0", Holdings: []string{coin},
		RequestedAt: time.Now().Add(-time.Second), ExecuteWithin: time.Hour, Context: splice.AmuletContext(rules, round)}), dso)
	f.execute(tx, aliceKey, aliceTok)
	instruction := f.committed(bob, bobTok, created(pt, "Splice.AmuletTransferInstruction:AmuletTransferInstruction")[0])
	tx, _ = f.prepare("accept", bob, bobTok, "v3", splice.InstructionChoice(instruction, "TransferInstruction_Accept", splice.AmuletContext(rules, round)), dso)
	f.execute(tx, bobKey, bobTok)

	// A rollback node: the wallet batch's tap of a negative amount fails
	// in Amulet's ensure and is caught. The validator is local: prepared
	// and checked, not signed.
	install := firstCreated(t, localSubmit(t, cl, "install", []string{carol, validator}, splice.Create("#splice-wallet:Splice.Wallet.Install:WalletAppInstall",
		splice.Object{"dsoParty": dso, "validatorParty": validator, "endUserName": "carol", "endUserParty": carol})), "WalletAppInstall")
	_, pt = f.prepare("batch", validator, n.admin, "v2", splice.Exercise("#splice-wallet:Splice.Wallet.Install:WalletAppInstall", install, "WalletAppInstall_ExecuteBatch", splice.Object{
		"context": splice.Object{"amuletRules": rules, "context": splice.Object{"openMiningRound": round, "issuingMiningRounds": [][]any{},
			"validatorRights": [][]any{}, "featuredAppRight": nil}},
		"inputs": []any{}, "operations": []any{splice.Object{"tag": "CO_Tap", "value": splice.Object{"tapAmount": "-1.0"}}}}), dso)
	rollbacks := 0
	for _, nd := range pt.GetTransaction().GetNodes() {
		if nd.GetV1().GetRollback() != nil {
			rollbacks++
		}
	}
	if rollbacks != 1 {
		t.Errorf("the batch has %d rollback nodes, want 1", rollbacks)
	}

	// Keys under V3: a keyed create, then an exercise by key.
	const foo = "#DamlDefinitionsServiceDep:ExternalDep:TemplateFoo"
	tx, _ = f.prepare("foo", alice, aliceTok, "v3", splice.Create(foo, splice.Object{"someParty": alice,
		"someRecordField": splice.Object{"tag": "SomeVariant", "value": "7"},
		"someRecordTyped": splice.Object{"foo": splice.Object{"tag": "SomeEnum", "value": splice.Object{}}}}))
	f.execute(tx, aliceKey, aliceTok)
	tx, pt = f.prepare("foo-by-key", alice, aliceTok, "v3", splice.Object{"ExerciseByKeyCommand": splice.Object{"templateId": foo, "contractKey": alice,
		"choice": "SourceTemplate_Args_RetRecord", "choiceArgument": splice.Object{"choiceArg": splice.Object{"foo": "2026-01-01T00:00:00Z"}}}})
	if x := pt.GetTransaction().GetNodes()[0].GetV1().GetExercise(); x == nil || !x.GetByKey() {
		t.Errorf("foo-by-key is not an exercise by key: %v", pt.GetTransaction().GetNodes()[0])
	}
	f.execute(tx, aliceKey, aliceTok)
	t.Logf("%d prepared transactions re-interpreted offline", len(f.envelopes))
}
