package engine

import (
	"context"
	"encoding/json"
	"fmt"
	damlengine "github.com/ledger-cli/ledger/daml/engine"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

const bongModule = "#" + pingName + ":Canton.Internal.Bong:"

// damlFixture is a fixture whose engine holds the Ping DAR.
func damlFixture(t testing.TB) *fixture {
	return newFixture(t, withPackages(PackageSetOf(pingPackages(t)...)))
}

// submit interprets commands as actAs and commits the outcome.
func (f *fixture) submit(actAs []string, cmds ...ledgerapi.Command) (*Outcome, ledgerapi.TransactionTree) {
	f.t.Helper()
	f.commands++
	o, err := f.eng.Submit(context.Background(), ledgerapi.Commands{Commands: cmds, CommandID: fmt.Sprintf("cmd-%d", f.commands), ActAs: actAs}, "user1")
	if err != nil {
		f.t.Fatalf("submit: %v", err)
	}
	return o, o.Tree(f.ledger.commit(f.t, o, f.now))
}

func pingArgs(initiator, responder string) string {
	return `{"id":"ping-1","initiator":"` + initiator + `","responder":"` + responder + `"}`
}

// TestDamlPing is issue 15's Ping acceptance on the engine: the template's
// signatory and observer, Respond's controller, a consuming exercise with
// a unit result, and AbortPing by anyone named.
func TestDamlPing(t *testing.T) {
	f := damlFixture(t)
	carol := f.ledger.party("carol")
	o, tree := f.submit([]string{f.alice}, createCmd(pingTmpl, pingArgs(f.alice, f.bob)))
	c := o.Transaction.Created[0]
	if strings.Join(c.Signatories, ",") != f.alice || strings.Join(c.Stakeholders, ",") != strings.Join(sortedSet(map[string]bool{f.alice: true, f.bob: true}), ",") {
		t.Errorf("Ping parties %v %v", c.Signatories, c.Stakeholders)
	}
	ev := tree.EventsByID["0"].Created
	if ev == nil || strings.Join(ev.Signatories, ",") != f.alice || strings.Join(ev.Observers, ",") != f.bob ||
		string(ev.CreateArgument) != pingArgs(f.alice, f.bob) {
		t.Errorf("created event %+v", ev)
	}

	// Respond as the initiator: the controller is the responder.
	_, err := f.eng.Submit(context.Background(), submitCmds(f.alice, exerciseCmd(pingTmpl, c.ContractID, "Respond", `{}`)), "user1")
	je, ok := err.(*ledgerapi.JsCantonError)
	if !ok || je.Code != "DAML_AUTHORIZATION_ERROR" || je.HTTPStatus() != 400 ||
		je.Cause != "Interpretation error: Error: node NodeId(0) ("+pingID+":Canton.Internal.Ping:Ping) requires authorizers "+f.bob+", but only "+f.alice+" were given" ||
		je.Context["choice"] != "Respond" || je.Context["template"] != pingID+":Canton.Internal.Ping:Ping" || je.Context["location"] == "" {
		t.Fatalf("Respond as the initiator: %v (context %v)", err, je.Context)
	}

	// Respond as the responder: a consuming exercise, result unit.
	o, tree = f.submit([]string{f.bob}, exerciseCmd(pingTmpl, c.ContractID, "Respond", `{}`))
	x := tree.EventsByID["0"].Exercised
	if x == nil || !x.Consuming || string(x.ExerciseResult) != "{}" || strings.Join(x.ActingParties, ",") != f.bob ||
		x.LastDescendantNodeID != 0 || !x.ACSDelta || string(x.ChoiceArgument) != "{}" {
		t.Errorf("Respond event %+v", x)
	}
	if len(o.Transaction.Archived) != 1 || o.Transaction.Archived[0] != c.ContractID || len(o.Transaction.Inputs) != 0 {
		t.Errorf("Respond archives %v, uses %v", o.Transaction.Archived, o.Transaction.Inputs)
	}
	_, err = f.eng.Submit(context.Background(), submitCmds(f.bob, exerciseCmd(pingTmpl, c.ContractID, "Respond", `{}`)), "user1")
	if je, ok := err.(*ledgerapi.JsCantonError); !ok || je.Code != "CONTRACT_NOT_FOUND" || je.HTTPStatus() != 404 {
		t.Errorf("Respond on an archived Ping: %v", err)
	} else if id, _ := je.Resource("CONTRACT_ID"); id != c.ContractID {
		t.Errorf("CONTRACT_NOT_FOUND names %q", id)
	}

	// AbortPing by anyone named: the responder names himself.
	o, _ = f.submit([]string{f.alice}, createCmd(pingTmpl, pingArgs(f.alice, f.bob)))
	_, tree = f.submit([]string{f.bob}, exerciseCmd(pingTmpl, o.Transaction.Created[0].ContractID, "AbortPing", `{"anyone":"`+f.bob+`"}`))
	if x := tree.EventsByID["0"].Exercised; x == nil || x.Choice != "AbortPing" || strings.Join(x.ActingParties, ",") != f.bob {
		t.Errorf("AbortPing %+v", x)
	}
	// Carol, no stakeholder, does not see the Ping (CONTRACT_NOT_FOUND, as
	// Canton's lookup answers) unless it is disclosed to her.
	o, _ = f.submit([]string{f.alice}, createCmd(pingTmpl, pingArgs(f.alice, f.bob)))
	ping := o.Transaction.Created[0]
	abort := ledgerapi.Commands{CommandID: "abort", ActAs: []string{carol},
		Commands: []ledgerapi.Command{exerciseCmd(pingTmpl, ping.ContractID, "AbortPing", `{"anyone":"`+carol+`"}`)}}
	if _, err = f.eng.Submit(context.Background(), abort, "user1"); errorID(err) != "CONTRACT_NOT_FOUND" {
		t.Errorf("AbortPing by carol, undisclosed: %v", err)
	}
	stored, _ := f.ledger.LookupContract(context.Background(), ping.ContractID)
	blob, err := f.eng.CreatedEventBlob(stored)
	if err != nil {
		t.Fatal(err)
	}
	abort.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: ping.ContractID, TemplateID: pingTmpl, CreatedEventBlob: blob}}
	if o, err = f.eng.Submit(context.Background(), abort, "user1"); err != nil {
		t.Fatalf("AbortPing by carol, disclosed: %v", err)
	}
	if o.Transaction.Archived[0] != ping.ContractID {
		t.Errorf("AbortPing by carol archives %v", o.Transaction.Archived)
	}
}

// TestDamlSeedsAndContractIDs prepares a create and checks the contract id
// and node seed against the derivation Canton uses, and lf_version.
func TestDamlSeedsAndContractIDs(t *testing.T) {
	f := damlFixture(t)
	p, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, createCmd(pingTmpl, pingArgs(f.alice, f.bob))), "user1")
	if err != nil {
		t.Fatal(err)
	}
	ptx := p.PreparedTransaction.GetTransaction()
	c := createNode(t, p)
	seed := ptx.GetNodeSeeds()[0].GetSeed()
	prep := value.Timestamp(p.PreparedTransaction.GetMetadata().GetPreparationTime())
	if want := tx.ContractIDV1(tx.Hash(seed), prep, c.GetStakeholders()); c.GetContractId() != string(want) {
		t.Errorf("contract id %s, derived %s", c.GetContractId(), want)
	}
	if ptx.GetVersion() != "2.1" || c.GetLfVersion() != "2.1" || len(ptx.GetNodeSeeds()) != 1 || ptx.GetNodeSeeds()[0].GetNodeId() != 0 {
		t.Errorf("versions %q %q, seeds %v", ptx.GetVersion(), c.GetLfVersion(), ptx.GetNodeSeeds())
	}
	if md := p.PreparedTransaction.GetMetadata(); md.MinLedgerEffectiveTime != nil || md.MaxLedgerEffectiveTime != nil {
		t.Errorf("a Ping create does not read the time, yet has bounds %v %v", md.MinLedgerEffectiveTime, md.MaxLedgerEffectiveTime)
	}
}

// resign re-encodes a tampered prepared transaction and signs its new hash:
// what an attacker holding the key could send.
func (f *fixture) resign(p *Prepared, pt *damlpb.PreparedTransaction) ledgerapi.ExecuteSubmissionRequest {
	f.t.Helper()
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		f.t.Fatal(err)
	}
	res, err := hashing.Compute(raw, p.Scheme, hashing.Options{})
	if err != nil {
		f.t.Fatal(err)
	}
	q := &Prepared{PreparedTransaction: pt, Bytes: raw, Hash: res.Hash, Scheme: p.Scheme}
	return executeReq(q, f.alice, f.aliceK)
}

// TestDamlExecuteRefusesTampering changes a prepared transaction after
// prepare and signs the changed hash: execute re-interprets the root
// commands and refuses every change the Daml code would not make.
func TestDamlExecuteRefusesTampering(t *testing.T) {
	f := damlFixture(t)
	carol := f.ledger.party("carol")
	create, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, createCmd(pingTmpl, pingArgs(f.alice, f.bob))), "user1")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		tamper func(pt *damlpb.PreparedTransaction)
		want   string
	}{
		{"argument", func(pt *damlpb.PreparedTransaction) {
			pt.Transaction.Nodes[0].GetV1().GetCreate().Argument.GetRecord().Fields[2].Value = &damlpb.Value{Sum: &damlpb.Value_Party{Party: carol}}
		}, "node 0 (create) differs in contract_id"},
		{"signatory", func(pt *damlpb.PreparedTransaction) {
			c := pt.Transaction.Nodes[0].GetV1().GetCreate()
			c.Signatories = sortedSet(map[string]bool{f.alice: true, f.bob: true})
		}, "node 0 (create) differs in signatories"},
		{"node seed", func(pt *damlpb.PreparedTransaction) {
			pt.Transaction.NodeSeeds[0].Seed[0] ^= 1
		}, "node 0 (create) differs in contract_id"},
		{"label", func(pt *damlpb.PreparedTransaction) {
			pt.Transaction.Nodes[0].GetV1().GetCreate().Argument.GetRecord().Fields[0].Label = ""
		}, "node 0 (create) differs in argument"},
		{"time bound", func(pt *damlpb.PreparedTransaction) {
			v := uint64(1)
			pt.Metadata.MinLedgerEffectiveTime = &v
		}, "ledger-time bounds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pt := proto.Clone(create.PreparedTransaction).(*damlpb.PreparedTransaction)
			c.tamper(pt)
			_, err := f.eng.Execute(context.Background(), f.resign(create, pt), "user1", f.ledger.lookupKeys)
			je, ok := err.(*ledgerapi.JsCantonError)
			if !ok || je.Code != "FAILED_TO_EXECUTE_TRANSACTION" || !strings.Contains(je.Cause, "model conformance") || !strings.Contains(je.Cause, c.want) {
				t.Errorf("%v, want FAILED_TO_EXECUTE_TRANSACTION naming %q", err, c.want)
			}
		})
	}
	// Untouched, it executes.
	o, err := f.eng.Execute(context.Background(), executeReq(create, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	f.ledger.commit(t, o, f.now)
	cid := o.Transaction.Created[0].ContractID

	// An exercise: its input contract and its result are checked too.
	abort, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, exerciseCmd(pingTmpl, cid, "AbortPing", `{"anyone":"`+f.alice+`"}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	md := abort.PreparedTransaction.GetMetadata()
	if len(md.GetInputContracts()) != 1 || md.GetInputContracts()[0].GetV1().GetContractId() != cid || md.GetInputContracts()[0].GetCreatedAt() != uint64(f.now.UnixMicro()) {
		t.Fatalf("input contracts %v", md.GetInputContracts())
	}
	for name, tamper := range map[string]func(pt *damlpb.PreparedTransaction){
		"input argument": func(pt *damlpb.PreparedTransaction) {
			pt.Metadata.InputContracts[0].GetV1().Argument.GetRecord().Fields[0].Value = &damlpb.Value{Sum: &damlpb.Value_Text{Text: "other"}}
		},
		"result": func(pt *damlpb.PreparedTransaction) {
			pt.Transaction.Nodes[0].GetV1().GetExercise().ExerciseResult = &damlpb.Value{Sum: &damlpb.Value_Bool{Bool: true}}
		},
		"consuming": func(pt *damlpb.PreparedTransaction) {
			pt.Transaction.Nodes[0].GetV1().GetExercise().Consuming = false
		},
	} {
		pt := proto.Clone(abort.PreparedTransaction).(*damlpb.PreparedTransaction)
		tamper(pt)
		_, err := f.eng.Execute(context.Background(), f.resign(abort, pt), "user1", f.ledger.lookupKeys)
		if je, ok := err.(*ledgerapi.JsCantonError); !ok || je.Code != "FAILED_TO_EXECUTE_TRANSACTION" || !strings.Contains(je.Cause, "model conformance") {
			t.Errorf("%s: %v", name, err)
		}
	}
	o, err = f.eng.Execute(context.Background(), executeReq(abort, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Transaction.Archived) != 1 || o.Transaction.Archived[0] != cid {
		t.Errorf("AbortPing archives %v", o.Transaction.Archived)
	}
}

// TestDamlChildren accepts a BongProposal twice: the second Accept's
// exercise has a child create, which the tree nests under it and whose
// witnesses include the parent's.
func TestDamlChildren(t *testing.T) {
	f := damlFixture(t)
	carol := f.ledger.party("carol")
	_, err := f.eng.Submit(context.Background(), submitCmds(f.alice, createCmd(bongModule+"BongProposal",
		`{"id":"b","initiator":"`+f.alice+`","candidates":["`+f.bob+`","`+f.bob+`"],"validators":[],"responders":[],"maxLevel":"2","timeout":"2026-01-01T00:00:00Z"}`)), "user1")
	if je, ok := err.(*ledgerapi.JsCantonError); !ok || je.Code != "DAML_FAILURE" || je.Context["error_id"] != "UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:PreconditionFailed" {
		t.Fatalf("duplicate candidates: %v", err)
	}
	o, _ := f.submit([]string{f.alice}, createCmd(bongModule+"BongProposal",
		`{"id":"b","initiator":"`+f.alice+`","candidates":["`+f.bob+`","`+carol+`"],"validators":[],"responders":["`+f.alice+`"],"maxLevel":"2","timeout":"2026-01-01T00:00:00Z"}`))
	o, tree := f.submit([]string{f.bob}, exerciseCmd(bongModule+"BongProposal", o.Transaction.Created[0].ContractID, "Accept", `{"validator":"`+f.bob+`"}`))
	x, child := tree.EventsByID["0"].Exercised, tree.EventsByID["1"].Created
	if x == nil || child == nil || x.LastDescendantNodeID != 1 || !strings.HasPrefix(string(x.ExerciseResult), `{"tag":"Left","value":"00`) {
		t.Fatalf("Accept tree %+v", tree.EventsByID)
	}
	_, tree = f.submit([]string{carol}, exerciseCmd(bongModule+"BongProposal", o.Transaction.Created[0].ContractID, "Accept", `{"validator":"`+carol+`"}`))
	explode := tree.EventsByID["1"].Created
	if explode == nil || !strings.HasSuffix(explode.TemplateID, ":Canton.Internal.Bong:Explode") ||
		strings.Join(explode.Signatories, ",") != strings.Join(sortedSet(map[string]bool{f.alice: true, f.bob: true, carol: true}), ",") {
		t.Fatalf("Explode %+v", explode)
	}
	js, _ := json.Marshal(tree)
	if !strings.Contains(string(js), `"exerciseResult":{"tag":"Right","value":"`+explode.ContractID+`"}`) {
		t.Errorf("Accept result: %s", js)
	}
}

// TestDamlCreateAndExerciseExecuted prepares a CreateAndExerciseCommand
// (two roots) and, on a node that allows several roots, executes it: the
// re-interpretation creates the contract and exercises the choice on it
// from the two root nodes.
func TestDamlCreateAndExerciseExecuted(t *testing.T) {
	f := newFixture(t, withPackages(PackageSetOf(pingPackages(t)...)), func(c *Config) { c.AllowMultipleRoots = true })
	cmd := ledgerapi.Command{CreateAndExercise: &ledgerapi.CreateAndExerciseCommand{TemplateID: pingTmpl,
		CreateArguments: []byte(pingArgs(f.alice, f.bob)), Choice: "AbortPing", ChoiceArgument: []byte(`{"anyone":"` + f.alice + `"}`)}}
	p, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, cmd), "user1")
	if err != nil {
		t.Fatal(err)
	}
	if roots := p.PreparedTransaction.GetTransaction().GetRoots(); len(roots) != 2 {
		t.Fatalf("roots %v", roots)
	}
	o, err := f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	tree := o.Tree(f.ledger.commit(t, o, f.now))
	c, x := tree.EventsByID["0"].Created, tree.EventsByID["1"].Exercised
	if c == nil || x == nil || x.ContractID != c.ContractID || c.ACSDelta || x.ACSDelta || len(o.Transaction.Archived) != 1 {
		t.Errorf("create-and-exercise tree %+v", tree.EventsByID)
	}
}

// TestDamlTimeBounds: the interpreter's ledger-time bounds become the
// metadata's min/max_ledger_effective_time (unbounded sides left out), and
// execute moves its ledger time into them.
func TestDamlTimeBounds(t *testing.T) {
	set := PackageSetOf(pingPackages(t)...)
	id := &value.Identifier{PackageID: pingID, ModuleName: "Canton.Internal.Ping", EntityName: "Ping"}
	arg := &value.Record{TypeCon: id, Fields: []value.Field{{Label: "id", Value: value.Text("p")},
		{Label: "initiator", Value: value.Party("a::1220")}, {Label: "responder", Value: value.Party("b::1220")}}}
	res := &interp.Result{Transaction: &tx.Transaction{Version: "2.1", Roots: []tx.NodeID{0},
		Nodes: []tx.Node{&tx.Create{ContractID: "00aa", PackageName: pingName, TemplateID: id, Argument: arg,
			Signatories: []string{"a::1220"}, Stakeholders: []string{"a::1220", "b::1220"}, Version: "2.1"}}}}
	lo, hi := value.Timestamp(1000), value.MaxTimestamp
	res.DependsOnTime, res.TimeBounds = true, tx.TimeBounds{Min: &lo, Max: &hi}
	b, err := (&Engine{}).builtOf(damlengine.ResultOf(res), nil, set, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.minLedgerTime == nil || *b.minLedgerTime != 1000 || b.maxLedgerTime != nil {
		t.Errorf("bounds %v %v", b.minLedgerTime, b.maxLedgerTime)
	}
	md := &damlpb.Metadata{MinLedgerEffectiveTime: b.minLedgerTime}
	if got := clampLedgerTime(time.UnixMicro(10), md); got.UnixMicro() != 1000 {
		t.Errorf("ledger time before the bound moves to it, got %v", got)
	}
	v := uint64(2000)
	md.MaxLedgerEffectiveTime = &v
	if got := clampLedgerTime(time.UnixMicro(5000), md); got.UnixMicro() != 2000 {
		t.Errorf("ledger time after the bound moves to it, got %v", got)
	}
	res.DependsOnTime = false
	if b, _ = (&Engine{}).builtOf(damlengine.ResultOf(res), nil, set, true); b.minLedgerTime != nil || b.maxLedgerTime != nil {
		t.Error("a transaction that does not read the time has bounds")
	}
}
