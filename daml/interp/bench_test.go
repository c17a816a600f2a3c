package interp

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// BenchmarkPingFlow interprets the Ping flow of issue 15: create a Ping as
// the initiator, then Respond as the responder (on a Ping already on the
// ledger, so the ledger does not grow). One iteration is both commands.
func BenchmarkPingFlow(b *testing.B) {
	e, pkg := pingEngine(b)
	ctx := context.Background()
	l := newMemLedger()
	pingID := ident(pkg, "Canton.Internal.Ping", "Ping")
	create := testSubmission([]string{alice}, &CreateCommand{Template: pingID, Argument: pingArg(e, pingID)})
	res, err := e.Submit(ctx, create, l)
	if err != nil {
		b.Fatal(err)
	}
	cid := l.commit(res.Transaction, 1)[res.Transaction.Nodes[0].(*tx.Create).ContractID]
	respond := testSubmission([]string{bob}, &ExerciseCommand{Template: pingID, ContractID: cid, Choice: "Respond",
		Argument: record(ident(pkg, "Canton.Internal.Ping", "Respond"))})
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := e.Submit(ctx, create, l); err != nil {
			b.Fatal(err)
		}
		if _, err := e.Submit(ctx, respond, l); err != nil {
			b.Fatal(err)
		}
	}
	cpu = processCPU() - cpu
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "flows/s")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkBongExplode runs Bong's whole explode and merge with maxLevel 6:
// 63 ProcessExplode and 63 ProcessMerge commands (127 Explode, 63 Merge and
// 126 Collapse contracts), each interpreted and committed to an in-memory
// ledger, after the two Accepts that make the Explode.
func BenchmarkBongExplode(b *testing.B) {
	e, pkg := pingEngine(b)
	const maxLevel = 6
	b.ReportAllocs()
	commands := 0
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		commands += runBong(b, e, pkg, maxLevel)
	}
	cpu = processCPU() - cpu
	b.ReportMetric(float64(commands)/b.Elapsed().Seconds(), "commands/s")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(commands)/float64(b.N), "commands/op")
}

// runBong drives the Bong workflow and returns the number of commands.
func runBong(b *testing.B, e *Engine, pkg lf.PackageID, maxLevel int64) int {
	ctx := context.Background()
	l := newMemLedger()
	id := func(name string) *value.Identifier { return ident(pkg, "Canton.Internal.Bong", name) }
	n := 0
	submit := func(actAs string, cmd Command) (*tx.Transaction, map[value.ContractID]value.ContractID) {
		n++
		s := testSubmission([]string{actAs}, cmd)
		s.SubmissionSeed[0], s.SubmissionSeed[1] = byte(n), byte(n>>8)
		res, err := e.Submit(ctx, s, l)
		if err != nil {
			b.Fatal(err)
		}
		return res.Transaction, l.commit(res.Transaction, value.Timestamp(n))
	}
	arg := record(id("BongProposal"), "id", value.Text("b"), "initiator", value.Party(alice),
		"candidates", parties(bob, carol), "validators", parties(), "responders", parties(alice),
		"maxLevel", value.Int64(maxLevel), "timeout", value.Timestamp(0))
	tr, ids := submit(alice, &CreateCommand{Template: id("BongProposal"), Argument: arg})
	p := created(tr, ids, "BongProposal")[0]
	tr, ids = submit(bob, &ExerciseCommand{Template: id("BongProposal"), ContractID: p, Choice: "Accept", Argument: record(id("Accept"), "validator", value.Party(bob))})
	p = created(tr, ids, "BongProposal")[0]
	tr, ids = submit(carol, &ExerciseCommand{Template: id("BongProposal"), ContractID: p, Choice: "Accept", Argument: record(id("Accept"), "validator", value.Party(carol))})
	queue := created(tr, ids, "Explode")
	type merge struct {
		cid  value.ContractID
		path string
	}
	var merges []merge
	collapses := map[string][]value.ContractID{}
	winner := record(id("ProcessExplode"), "winner", value.Party(alice))
	for len(queue) > 0 {
		cid := queue[0]
		queue = queue[1:]
		tr, ids = submit(alice, &ExerciseCommand{Template: id("Explode"), ContractID: cid, Choice: "ProcessExplode", Argument: winner})
		mc := tr.Nodes[1].(*tx.Create)
		path := string(mc.Argument.(*value.Record).Field("path").(value.Text))
		merges = append(merges, merge{ids[mc.ContractID], path})
		queue = append(queue, created(tr, ids, "Explode")...)
		collapses[path] = append(collapses[path], created(tr, ids, "Collapse")...)
	}
	for i := len(merges) - 1; i >= 0; i-- {
		m := merges[i]
		cs := collapses[m.path]
		tr, ids = submit(alice, &ExerciseCommand{Template: id("Merge"), ContractID: m.cid, Choice: "ProcessMerge",
			Argument: record(id("ProcessMerge"), "winner", value.Party(alice), "leftId", cs[0], "rightId", cs[1])})
		p := parentPath(m.path)
		collapses[p] = append(collapses[p], created(tr, ids, "Collapse")...)
	}
	if len(merges) != 1<<maxLevel-1 {
		b.Fatalf("%d merges", len(merges))
	}
	return n
}

// BenchmarkSumTo measures raw evaluation: a non-tail recursion of 10,000
// calls with Int64 arithmetic.
func BenchmarkSumTo(b *testing.B) {
	lamb, err := testEngine.Packages().Closed("bench", app(val("sumTo"), i64(10_000)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var steps int64
	cpu := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op") }()
	for i := 0; i < b.N; i++ {
		_, s, err := testEngine.EvalLambda(context.Background(), lamb, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		steps += s
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

// TestConcurrentSubmissions runs Ping flows from several goroutines on one
// engine: resolved code and top-level values are shared (run with -race).
func TestConcurrentSubmissions(t *testing.T) {
	e, pkg := pingEngine(t)
	pingID := ident(pkg, "Canton.Internal.Ping", "Ping")
	done := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			l := newMemLedger()
			for i := 0; i < 20; i++ {
				s := testSubmission([]string{alice}, &CreateAndExerciseCommand{Template: pingID, CreateArgument: pingArg(e, pingID),
					Choice: "AbortPing", ChoiceArgument: record(ident(pkg, "Canton.Internal.Ping", "AbortPing"), "anyone", value.Party(alice))})
				s.SubmissionSeed[0], s.SubmissionSeed[1] = byte(g), byte(i)
				if _, err := e.Submit(context.Background(), s, l); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
