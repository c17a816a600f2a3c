package engine

import (
	"bytes"
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
)

var updateGeneric = flag.Bool("update-generic", false, "rewrite testdata/generic_model.golden")

// genericArgs is a create argument that exercises every kind the generic
// model reads from JSON: parties and text, int64 and numerics (scale 0
// beyond int64, fractions, exponents), bool, lists, nested records, null
// (None) including a trailing one, which the model keeps.
func genericArgs(issuer, owner string) string {
	return `{"issuer":"` + issuer + `","owner":"` + owner + `","amount":"10.0","value":12.50,"count":3,` +
		`"big":123456789012345678901234567890,"tiny":1.5e-3,"flag":true,"tags":["a","` + owner + `"],` +
		`"nested":{"z":null,"a":{"b":[1,{"c":null}]}},"zz":null}`
}

// TestGenericModelGolden pins, byte for byte, what the generic contract
// model makes of a create, an exercise of the stored contract (prepared,
// with its input contract, and executed) and a submitted createAndExercise:
// the prepared transactions, the stored arguments, their JSON and the
// stored events. Run with -update-generic to rewrite the golden file.
func TestGenericModelGolden(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var out bytes.Buffer
	record := func(name string, b []byte) {
		fmt.Fprintf(&out, "%s %s\n", name, hex.EncodeToString(b))
	}

	p, err := f.eng.Prepare(ctx, prepareReq(f.alice, createCmd(iouTemplate, genericArgs(f.alice, f.bob))), "user1")
	if err != nil {
		t.Fatal(err)
	}
	record("create.prepared", p.Bytes)
	o, err := f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	f.ledger.commit(t, o, f.now)
	c := o.Transaction.Created[0]
	record("create.contract_id", []byte(c.ContractID))
	record("create.argument", c.Argument)
	record("create.argument_json", c.ArgumentJSON)
	record("create.salt", c.Salt)
	record("create.events", o.Transaction.Events)

	req := prepareReq(f.alice, exerciseCmd(iouTemplate, c.ContractID, "Transfer",
		`{"newOwner":"`+f.bob+`","memo":null,"when":{"at":"now","cid":"`+c.ContractID+`"}}`))
	req.CommandID = "cmd-2"
	p, err = f.eng.Prepare(ctx, req, "user1")
	if err != nil {
		t.Fatal(err)
	}
	record("exercise.prepared", p.Bytes)
	o, err = f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	f.ledger.commit(t, o, f.now)
	record("exercise.events", o.Transaction.Events)

	cmd := ledgerapi.Command{CreateAndExercise: &ledgerapi.CreateAndExerciseCommand{
		TemplateID: iouTemplate, CreateArguments: []byte(genericArgs(f.bob, f.alice)),
		Choice: "Observe", ChoiceArgument: []byte(`{"by":"` + f.bob + `","n":[null,2.0]}`)}}
	o, err = f.eng.Submit(ctx, submitCmds(f.bob, cmd), "user1")
	if err != nil {
		t.Fatal(err)
	}
	f.ledger.commit(t, o, f.now)
	c = o.Transaction.Created[0]
	record("submit.contract_id", []byte(c.ContractID))
	record("submit.argument", c.Argument)
	record("submit.events", o.Transaction.Events)

	path := filepath.Join("testdata", "generic_model.golden")
	if *updateGeneric {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-generic to write it)", err)
	}
	gotLines, wantLines := bytes.Split(out.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range max(len(gotLines), len(wantLines)) {
		var g, w []byte
		if i < len(gotLines) {
			g = gotLines[i]
		}
		if i < len(wantLines) {
			w = wantLines[i]
		}
		if !bytes.Equal(g, w) {
			t.Fatalf("line %d differs from %s:\n got %s\nwant %s", i+1, path, g, w)
		}
	}
}
