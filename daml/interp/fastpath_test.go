package interp

import (
	"context"
	"testing"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// outcome renders a result or an error for comparison.
func outcome(v value.Value, err error) string {
	if err != nil {
		if ie, ok := err.(*Error); ok {
			return ie.ID + ": " + ie.Cause
		}
		return "error: " + err.Error()
	}
	return v.String()
}

// TestFastPathsAgree runs the expression, builtin and Ping suites with the
// machine's fast paths on and off, and requires the same outcomes.
func TestFastPathsAgree(t *testing.T) {
	for _, c := range evalPureCases() {
		fast := outcome(evalLimits(t, c.e, Limits{}))
		plain := outcome(evalLimits(t, c.e, Limits{plain: true}))
		if fast != plain {
			t.Errorf("%s: fast %s, plain %s", c.name, fast, plain)
		}
	}
	for f, cs := range builtinCases(t) {
		for _, c := range cs {
			fast := outcome(callBuiltinLimits(t, Limits{}, f, c.args...))
			plain := outcome(callBuiltinLimits(t, Limits{plain: true}, f, c.args...))
			if fast != plain {
				t.Errorf("%s %s: fast %s, plain %s", f, c.name, fast, plain)
			}
		}
	}
	for _, e := range []struct {
		name string
		n    int64
	}{{"sumTo", 500}, {"count", 500}} {
		args := app(val(e.name), i64(e.n))
		if e.name == "count" {
			args = app(val(e.name), i64(e.n), i64(0))
		}
		fast := outcome(evalLimits(t, args, Limits{}))
		plain := outcome(evalLimits(t, args, Limits{plain: true}))
		if fast != plain {
			t.Errorf("%s: fast %s, plain %s", e.name, fast, plain)
		}
	}
	// The Bong workflow's transactions, node by node.
	eng, pkg := pingEngine(t)
	plainEng := NewEngine(eng.Packages(), Limits{plain: true})
	id := ident(pkg, "Canton.Internal.Bong", "BongProposal")
	arg := record(id, "id", value.Text("b"), "initiator", value.Party(alice), "candidates", parties(bob),
		"validators", parties(), "responders", parties(alice), "maxLevel", value.Int64(2), "timeout", value.Timestamp(0))
	s := testSubmission([]string{alice}, &CreateCommand{Template: id, Argument: arg})
	a, errA := eng.Submit(context.Background(), s, newMemLedger())
	b, errB := plainEng.Submit(context.Background(), s, newMemLedger())
	if errA != nil || errB != nil || describe(a.Transaction) != describe(b.Transaction) ||
		a.Transaction.Nodes[0].(*tx.Create).ContractID != b.Transaction.Nodes[0].(*tx.Create).ContractID {
		t.Errorf("Bong proposal: %v %v", errA, errB)
	}
}
