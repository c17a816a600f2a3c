package engine

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/ledger"
)

func BenchmarkPrepareCreate(b *testing.B) {
	f := newFixture(b)
	req := prepareReq(f.alice, createCmd(iouTemplate, iouArgs(f.alice, f.bob)))
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		if _, err := f.eng.Prepare(ctx, req, "user1"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecuteCreate(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	p, err := f.eng.Prepare(ctx, prepareReq(f.alice, createCmd(iouTemplate, iouArgs(f.alice, f.bob))), "user1")
	if err != nil {
		b.Fatal(err)
	}
	req := executeReq(p, f.alice, f.aliceK)
	b.ReportAllocs()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		if _, err := f.eng.Execute(ctx, req, "user1", f.ledger.lookupKeys); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSubmitCreateAndTree(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	cmds := submitCmds(f.bob, createCmd(iouTemplate, iouArgs(f.bob, f.alice)))
	b.ReportAllocs()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		o, err := f.eng.Submit(ctx, cmds, "user1")
		if err != nil {
			b.Fatal(err)
		}
		ev, err := events.Unmarshal(o.Transaction.Events)
		if err != nil {
			b.Fatal(err)
		}
		_ = ev.Tree(ledger.Committed{Offset: 1}, o.ActAs)
	}
}

// BenchmarkSubmitPingFlow submits a Ping create and its Respond through the
// interpreter, committing each to the in-memory ledger: the engine's share
// of the node-level Ping flow (two commands per iteration).
func BenchmarkSubmitPingFlow(b *testing.B) {
	f := damlFixture(b)
	ctx := context.Background()
	create := submitCmds(f.alice, createCmd(pingTmpl, pingArgs(f.alice, f.bob)))
	b.ReportAllocs()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		o, err := f.eng.Submit(ctx, create, "user1")
		if err != nil {
			b.Fatal(err)
		}
		f.ledger.commit(b, o, f.now)
		respond := submitCmds(f.bob, exerciseCmd(pingTmpl, o.Transaction.Created[0].ContractID, "Respond", `{}`))
		if o, err = f.eng.Submit(ctx, respond, "user1"); err != nil {
			b.Fatal(err)
		}
		f.ledger.commit(b, o, f.now)
	}
}

// BenchmarkPrepareExercise prepares a generic-model exercise of a stored
// contract: the input contract (its create node and blob) is written into
// the prepared transaction.
func BenchmarkPrepareExercise(b *testing.B) {
	f := newFixture(b)
	cid := f.createContract(iouTemplate, iouArgs(f.alice, f.bob))
	req := prepareReq(f.alice, exerciseCmd(iouTemplate, cid, "Transfer", `{"newOwner":"`+f.bob+`"}`))
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		if _, err := f.eng.Prepare(ctx, req, "user1"); err != nil {
			b.Fatal(err)
		}
	}
}
