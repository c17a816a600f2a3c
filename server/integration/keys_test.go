package integration

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/server/auth"
)

// The JSON API's test DAR (Daml-LF 2.dev, so the node runs with
// AllowDevPackages, as `ledger serve --allow-lf-dev`): TemplateFoo has the
// key someParty, maintained by it.
const (
	fooTemplate = "#DamlDefinitionsServiceDep:ExternalDep:TemplateFoo"
	fooChoice   = "SourceTemplate_Args_RetRecord" // consuming
)

func fooCreate(party string) map[string]any {
	return map[string]any{"CreateCommand": map[string]any{"templateId": fooTemplate, "createArguments": map[string]any{
		"someParty": party, "someRecordField": map[string]any{"tag": "SomeVariant", "value": "7"},
		"someRecordTyped": map[string]any{"foo": map[string]any{"tag": "SomeEnum", "value": map[string]any{}}}}}}
}

func fooByKey(party string) map[string]any {
	return map[string]any{"ExerciseByKeyCommand": map[string]any{"templateId": fooTemplate, "contractKey": party,
		"choice": fooChoice, "choiceArgument": map[string]any{"choiceArg": map[string]any{"foo": "2026-01-01T00:00:00Z"}}}}
}

// preparedOf decodes a prepare response's transaction.
func preparedOf(t *testing.T, p ledgerapi.PrepareSubmissionResponse) *damlpb.PreparedTransaction {
	t.Helper()
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(p.PreparedTransaction, &pt); err != nil {
		t.Fatal(err)
	}
	return &pt
}

// TestContractKeysOnNode: keyed contracts through a started node. A create
// carries its key and maintainers (lf_version "2"); keys are not unique
// (Canton 3.5), and an exercise by key takes the most recent contract with
// the key, then the next, then finds none. An external party's keyed
// transactions are prepared under V3 only: V2 answers Canton's error that
// names V3, at prepare and at execute; the V3 prepared create and exercise
// by key carry the key fields (the input contract too) and execute after an
// offline signature. prefetchContractKeys are checked against the key type.
func TestContractKeysOnNode(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{AllowDevPackages: true})
	n.ok("POST", "/v2/dars", n.admin, sharedDar(t, "DamlDefinitionsServiceMain.dar"), nil)
	alice := n.allocate("Alice").Party
	n.createUser("alice", ledgerapi.CanActAs(alice))
	tok := n.token("alice")
	submit := func(id string, cmd map[string]any) ledgerapi.TransactionTree {
		t.Helper()
		r := n.call("POST", "/v2/commands/submit-and-wait-for-transaction-tree", tok,
			commands(id, []string{alice}, []map[string]any{cmd}, map[string]any{}))
		if r.status != 200 {
			t.Fatalf("%s: %d %s", id, r.status, r.body)
		}
		var resp treeResponse
		mustUnmarshal(t, r.body, &resp)
		return resp.TransactionTree
	}

	first := submit("foo-1", fooCreate(alice)).EventsByID["0"].Created
	wantHash, err := tx.KeyHash("DamlDefinitionsServiceDep", "ExternalDep", "TemplateFoo", value.Party(alice))
	if err != nil {
		t.Fatal(err)
	}
	if string(first.ContractKey) != `"`+alice+`"` || string(first.ContractKeyHash) != string(wantHash[:]) {
		t.Errorf("created event key %s, hash %x; want hash %x", first.ContractKey, first.ContractKeyHash, wantHash)
	}
	second := submit("foo-2", fooCreate(alice)).EventsByID["0"].Created
	// The active contract set shows the key and its hash as the created
	// event did: read encoded ahead (list) and whole (with blobs).
	for _, blob := range []bool{false, true} {
		var acs []ledgerapi.JsGetActiveContractsResponse
		n.ok("POST", "/v2/state/active-contracts", tok, map[string]any{"activeAtOffset": n.ledgerEnd(), "eventFormat": map[string]any{
			"filtersByParty": map[string]any{alice: map[string]any{"cumulative": []any{map[string]any{"identifierFilter": map[string]any{
				"WildcardFilter": map[string]any{"value": map[string]any{"includeCreatedEventBlob": blob}}}}}}}}}, &acs)
		if len(acs) != 2 {
			t.Fatalf("active contracts (blob %v): %+v", blob, acs)
		}
		for _, a := range acs {
			ev := a.ContractEntry.ActiveContract.CreatedEvent
			if string(ev.ContractKey) != `"`+alice+`"` || string(ev.ContractKeyHash) != string(wantHash[:]) {
				t.Errorf("active contract %s (blob %v): key %s, hash %x", ev.ContractID, blob, ev.ContractKey, ev.ContractKeyHash)
			}
		}
	}
	for i, want := range []string{second.ContractID, first.ContractID} {
		x := submit(fmt.Sprintf("by-key-%d", i), fooByKey(alice)).EventsByID["0"].Exercised
		if x == nil || x.ContractID != want || !x.Consuming || x.Choice != fooChoice {
			t.Fatalf("exercise by key %d: %+v, want contract %s", i, x, want)
		}
	}
	e := n.fail("POST", "/v2/commands/submit-and-wait-for-transaction-tree", tok,
		commands("by-key-none", []string{alice}, []map[string]any{fooByKey(alice)}, map[string]any{}), 404, "CONTRACT_KEY_NOT_FOUND")
	if !strings.Contains(e.Cause, "dependency error: couldn't find key: GlobalKey(") || !strings.Contains(e.Cause, ", '"+alice+"', ") {
		t.Errorf("exercise by a missing key: %s", e.Cause)
	}

	// prefetchContractKeys: a key of the key type, and a template without a key.
	prefetch := func(tmpl string, key any) map[string]any {
		return commands("prefetch", []string{alice}, []map[string]any{fooCreate(alice)}, map[string]any{
			"prefetchContractKeys": []any{map[string]any{"templateId": tmpl, "contractKey": key}}})
	}
	n.ok("POST", "/v2/commands/submit-and-wait", tok, prefetch(fooTemplate, alice), nil)
	e = n.fail("POST", "/v2/commands/submit-and-wait", tok, prefetch("#DamlDefinitionsServiceMain:MainApp:MainTemplate", alice), 400, "COMMAND_PREPROCESSING_FAILED")
	if !strings.Contains(e.Cause, "Template of prefetched contract key does not define a key") {
		t.Errorf("prefetch of a template without key: %s", e.Cause)
	}

	// An external party: V2 refuses, V3 hashes.
	ext, key := n.onboard("Ext", "wallet")
	wallet := n.token("wallet")
	prepare := func(id string, cmd map[string]any, scheme string) map[string]any {
		b := prepareBody(id, []string{ext}, cmd)
		b["hashingSchemeVersion"] = scheme
		return b
	}
	const cantonV3 = "Cannot hash node with LF serialization version V2 using hashing scheme V2. Does the transaction use contract keys? Please using hashing scheme V3 or higher."
	e = n.fail("POST", "/v2/interactive-submission/prepare", wallet, prepare("ext-v2", fooCreate(ext), "HASHING_SCHEME_VERSION_V2"), 400, "FAILED_TO_PREPARE_TRANSACTION")
	if e.Cause != "The participant failed to prepare the transaction: "+cantonV3 {
		t.Errorf("V2 prepare of a keyed create: %s", e.Cause)
	}
	p := n.prepare(wallet, prepare("ext-v3", fooCreate(ext), "HASHING_SCHEME_VERSION_V3"))
	pt := preparedOf(t, p)
	create := pt.GetTransaction().GetNodes()[0].GetV1().GetCreate()
	extHash, _ := tx.KeyHash("DamlDefinitionsServiceDep", "ExternalDep", "TemplateFoo", value.Party(ext))
	if pt.GetTransaction().GetVersion() != "2" || create.GetLfVersion() != "2" || create.GetKey() == nil ||
		create.GetKey().GetKey().GetKey().GetParty() != ext || string(create.GetKey().GetKey().GetHash()) != string(extHash[:]) ||
		strings.Join(create.GetKey().GetMaintainers(), ",") != ext || create.GetKey().GetKey().GetPackageName() != "DamlDefinitionsServiceDep" {
		t.Fatalf("V3 prepared create: version %s, node %v", pt.GetTransaction().GetVersion(), create)
	}
	// The V3 hash signed, presented as V2: Canton's error again.
	wrong := executeBody(p, ext, key, "s-wrong")
	wrong["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V2"
	e = n.fail("POST", "/v2/interactive-submission/executeAndWait", wallet, wrong, 400, "FAILED_TO_EXECUTE_TRANSACTION")
	if e.Cause != "The participant failed to execute the transaction: "+cantonV3 {
		t.Errorf("V2 execute of a keyed transaction: %s", e.Cause)
	}
	var done ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
	n.ok("POST", "/v2/interactive-submission/executeAndWaitForTransaction", wallet, executeBody(p, ext, key, "s-1"), &done)
	if evs := done.Transaction.Events; len(evs) != 1 || evs[0].Created == nil || string(evs[0].Created.ContractKey) != `"`+ext+`"` {
		t.Fatalf("executed keyed create: %+v", done.Transaction)
	}
	cid := done.Transaction.Events[0].Created.ContractID

	p = n.prepare(wallet, prepare("ext-by-key", fooByKey(ext), "HASHING_SCHEME_VERSION_V3"))
	pt = preparedOf(t, p)
	x := pt.GetTransaction().GetNodes()[0].GetV1().GetExercise()
	ics := pt.GetMetadata().GetInputContracts()
	if x == nil || !x.GetByKey() || x.GetKey() == nil || x.GetContractId() != cid || x.GetLfVersion() != "2" ||
		len(ics) != 1 || ics[0].GetV1().GetLfVersion() != "2" || ics[0].GetV1().GetKey() == nil || !proto.Equal(ics[0].GetV1().GetKey(), create.GetKey()) {
		t.Fatalf("V3 prepared exercise by key: %v, inputs %v", x, ics)
	}
	n.ok("POST", "/v2/interactive-submission/executeAndWaitForTransaction", wallet, executeBody(p, ext, key, "s-2"), &done)
	if evs := done.Transaction.Events; len(evs) != 1 || evs[0].Archived == nil || evs[0].Archived.ContractID != cid {
		t.Fatalf("executed exercise by key: %+v", done.Transaction)
	}
	t.Logf("V3 keyed transactions prepared, signed offline and executed; hash %s", base64.StdEncoding.EncodeToString(p.PreparedTransactionHash))
}
