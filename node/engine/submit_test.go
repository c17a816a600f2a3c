package engine

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/node/ledger"
)

func submitCmds(party string, cmds ...ledgerapi.Command) ledgerapi.Commands {
	return ledgerapi.Commands{Commands: cmds, CommandID: "cmd-1", ActAs: []string{party}}
}

func strp(s string) *string { return &s }

func TestSubmitRules(t *testing.T) {
	f := newFixture(t)
	ts := ledgerapi.NewTimestamp(testNow.Add(time.Minute))
	rel := ledgerapi.DurationOf(time.Minute)
	cases := []struct {
		name   string
		mutate func(c *ledgerapi.Commands)
		want   string
	}{
		{"valid", func(c *ledgerapi.Commands) {}, ""},
		{"both min ledger times", func(c *ledgerapi.Commands) { c.MinLedgerTimeAbs, c.MinLedgerTimeRel = &ts, &rel }, "INVALID_ARGUMENT"},
		{"min ledger time abs", func(c *ledgerapi.Commands) { c.MinLedgerTimeAbs = &ts }, ""},
		{"min ledger time rel", func(c *ledgerapi.Commands) { c.MinLedgerTimeRel = &rel }, ""},
		{"negative min ledger time rel", func(c *ledgerapi.Commands) { d := ledgerapi.Duration{Seconds: -1}; c.MinLedgerTimeRel = &d }, "INVALID_FIELD"},
		{"invalid workflow id", func(c *ledgerapi.Commands) { c.WorkflowID = strp("w*f") }, "INVALID_ARGUMENT"},
		{"workflow id", func(c *ledgerapi.Commands) { c.WorkflowID = strp("wf-1") }, ""},
		{"invalid submission id", func(c *ledgerapi.Commands) { c.SubmissionID = strp("s*b") }, "INVALID_FIELD"},
		{"missing command id", func(c *ledgerapi.Commands) { c.CommandID = "" }, "MISSING_FIELD"},
		{"empty actAs", func(c *ledgerapi.Commands) { c.ActAs = nil }, "MISSING_FIELD"},
		{"no commands", func(c *ledgerapi.Commands) { c.Commands = nil }, "MISSING_FIELD"},
		{"other synchronizer", func(c *ledgerapi.Commands) { c.SynchronizerID = strp("x::1220ab") }, "INVALID_PRESCRIBED_SYNCHRONIZER_ID"},
		{"taps over limit", func(c *ledgerapi.Commands) { v := ledgerapi.Int32(99); c.TapsMaxPasses = &v }, "INVALID_ARGUMENT"},
		{"negative dedup offset", func(c *ledgerapi.Commands) {
			n := int64(-2)
			c.DeduplicationPeriod = &ledgerapi.DeduplicationPeriod{Offset: &n}
		}, "NEGATIVE_OFFSET"},
		{"negative dedup duration", func(c *ledgerapi.Commands) {
			d := ledgerapi.Duration{Seconds: -1}
			c.DeduplicationPeriod = &ledgerapi.DeduplicationPeriod{Duration: &d}
		}, "INVALID_FIELD"},
		{"several commands", func(c *ledgerapi.Commands) {
			c.Commands = append(c.Commands, createCmd(iouTemplate, `{}`))
		}, ""},
		{"exercise by key", func(c *ledgerapi.Commands) {
			c.Commands = []ledgerapi.Command{{ExerciseByKey: &ledgerapi.ExerciseByKeyCommand{TemplateID: iouTemplate, ContractKey: []byte(`1`), Choice: "C", ChoiceArgument: []byte(`{}`)}}}
		}, "COMMAND_PREPROCESSING_FAILED"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmds := submitCmds(f.bob, createCmd(iouTemplate, iouArgs(f.bob, f.alice)))
			c.mutate(&cmds)
			o, err := f.eng.Submit(context.Background(), cmds, "user1")
			if got := errorID(err); got != c.want {
				t.Fatalf("got %q (%v), want %q", got, err, c.want)
			}
			if err == nil && o.Transaction == nil {
				t.Fatalf("accepted without a transaction: %+v", o)
			}
		})
	}
}

func TestSubmitTimesAndDedup(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	now := testNow.Truncate(time.Microsecond)

	later := ledgerapi.NewTimestamp(now.Add(time.Hour))
	cmds := submitCmds(f.bob, createCmd(iouTemplate, `{}`))
	cmds.MinLedgerTimeAbs = &later
	o, err := f.eng.Submit(ctx, cmds, "user1")
	if err != nil || !o.Transaction.EffectiveAt.Equal(later.Time) {
		t.Fatalf("abs: %v, %v", o.Transaction.EffectiveAt, err)
	}
	earlier := ledgerapi.NewTimestamp(now.Add(-time.Hour))
	cmds.MinLedgerTimeAbs = &earlier
	if o, err = f.eng.Submit(ctx, cmds, "user1"); err != nil || !o.Transaction.EffectiveAt.Equal(now) {
		t.Fatalf("abs in the past: %v, %v", o.Transaction.EffectiveAt, err)
	}
	cmds.MinLedgerTimeAbs = nil
	rel := ledgerapi.DurationOf(90 * time.Second)
	cmds.MinLedgerTimeRel = &rel
	if o, err = f.eng.Submit(ctx, cmds, "user1"); err != nil || !o.Transaction.EffectiveAt.Equal(now.Add(90*time.Second)) {
		t.Fatalf("rel: %v, %v", o.Transaction.EffectiveAt, err)
	}
	if !o.Transaction.Created[0].CreatedAt.Equal(o.Transaction.EffectiveAt) {
		t.Fatal("createdAt is not the effective time")
	}

	// Dedup inputs are carried to the outcome; the change id parts are there.
	off := int64(3)
	cmds = submitCmds(f.bob, createCmd(iouTemplate, `{}`))
	cmds.ActAs = []string{f.bob, f.alice, f.bob}
	cmds.DeduplicationPeriod = &ledgerapi.DeduplicationPeriod{Offset: &off}
	cmds.SubmissionID = strp("sub-9")
	cmds.WorkflowID = strp("wf")
	o, err = f.eng.Submit(ctx, cmds, "user1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Dedup.Offset == nil || *o.Dedup.Offset != 3 || o.SubmissionID != "sub-9" || o.UserID != "user1" || o.CommandID != "cmd-1" ||
		strings.Join(o.ActAs, ",") != strings.Join(sortedSet(map[string]bool{f.alice: true, f.bob: true}), ",") || o.Transaction.WorkflowID != "wf" {
		t.Fatalf("outcome %+v", o)
	}
	// No submission id: one is generated.
	cmds.SubmissionID = nil
	cmds.DeduplicationPeriod = nil
	if o, err = f.eng.Submit(ctx, cmds, "user1"); err != nil || len(o.SubmissionID) != 36 || !o.Dedup.IsEmpty() {
		t.Fatalf("generated submission id %q, dedup %+v, %v", o.SubmissionID, o.Dedup, err)
	}
	// A duration above the node maximum is an asynchronous rejection.
	d := ledgerapi.DurationOf(ledger.DefaultMaxDeduplication + time.Second)
	cmds.DeduplicationPeriod = &ledgerapi.DeduplicationPeriod{Duration: &d}
	o, err = f.eng.Submit(ctx, cmds, "user1")
	if err != nil || o.Transaction != nil || o.Rejection == nil || o.Rejection.Code != "INVALID_DEDUPLICATION_PERIOD" {
		t.Fatalf("too long: %+v, %v", o, err)
	}
	d = ledgerapi.DurationOf(ledger.DefaultMaxDeduplication)
	if o, err = f.eng.Submit(ctx, cmds, "user1"); err != nil || o.Rejection != nil {
		t.Fatalf("maximum itself: %+v, %v", o, err)
	}
}

// treeRoots derives the roots of a tree the way a client must: nodes not
// inside any exercised node's (nodeId, lastDescendantNodeId] range.
func treeRoots(tree ledgerapi.TransactionTree) []int {
	var roots []int
	for k, ev := range tree.EventsByID {
		id, _ := strconv.Atoi(k)
		inside := false
		for _, other := range tree.EventsByID {
			if x := other.Exercised; x != nil && int(x.NodeID) < id && id <= int(x.LastDescendantNodeID) {
				inside = true
			}
		}
		if int(ev.NodeID()) != id {
			return nil
		}
		if !inside {
			roots = append(roots, id)
		}
	}
	sort.Ints(roots)
	return roots
}

func TestTreeShape(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	existing := f.createContract(iouTemplate, iouArgs(f.alice, f.bob))
	cmds := submitCmds(f.alice,
		createCmd(iouTemplate, `{"owner":"`+f.bob+`","n":1}`),
		ledgerapi.Command{CreateAndExercise: &ledgerapi.CreateAndExerciseCommand{
			TemplateID: iouTemplate, CreateArguments: []byte(`{"x":null}`), Choice: "Go", ChoiceArgument: []byte(`{"why":"test"}`)}},
		exerciseCmd(iouTemplate, existing, "Observe", `{}`),
		exerciseCmd(iouTemplate, existing, "Transfer", `{"to":"`+f.bob+`"}`),
	)
	o, err := f.eng.Submit(ctx, cmds, "user1")
	if err != nil {
		t.Fatal(err)
	}
	tx := o.Transaction
	if len(tx.Created) != 2 || len(tx.Archived) != 2 || tx.Archived[1] != existing || len(tx.Inputs) != 0 {
		t.Fatalf("created %d archived %v inputs %v", len(tx.Created), tx.Archived, tx.Inputs)
	}
	at := f.ledger.commit(t, o, testNow.Add(time.Second))

	// The stored events decode to the same tree.
	ev, err := events.Unmarshal(tx.Events)
	if err != nil {
		t.Fatal(err)
	}
	tree := ev.Tree(at, o.ActAs)
	direct := o.Tree(at)
	a, _ := json.Marshal(tree)
	b, _ := json.Marshal(direct)
	if string(a) != string(b) {
		t.Fatal("stored events give another tree")
	}
	if tree.UpdateID != tx.UpdateID || !strings.HasPrefix(tree.UpdateID, "1220") || tree.CommandID != "cmd-1" ||
		int64(tree.Offset) != at.Offset || !tree.RecordTime.Equal(at.RecordTime) || tree.SynchronizerID != testSynchronizer {
		t.Fatalf("tree header %+v", tree)
	}
	if len(tree.EventsByID) != 5 {
		t.Fatalf("%d events, want 5", len(tree.EventsByID))
	}
	if got := treeRoots(tree); len(got) != 5 {
		t.Fatalf("roots %v, want all five nodes (no Daml code, no children)", got)
	}
	c0 := tree.EventsByID["0"].Created
	if c0 == nil || c0.NodeID != 0 || int64(c0.Offset) != at.Offset || !c0.ACSDelta || c0.PackageName != "iou-pkg" ||
		c0.RepresentativePackageID != generic.PackageIDForName("iou-pkg") || c0.TemplateID != generic.PackageIDForName("iou-pkg")+":Iou:Iou" ||
		strings.Join(c0.Signatories, ",") != f.alice || strings.Join(c0.Observers, ",") != f.bob ||
		!c0.CreatedAt.Equal(tx.EffectiveAt) || len(c0.InterfaceViews) != 0 || c0.ContractKey != nil || len(c0.ContractKeyHash) != 0 {
		t.Fatalf("created event %+v", c0)
	}
	if string(c0.CreateArgument) != `{"n":"1","owner":"`+f.bob+`"}` {
		t.Fatalf("create argument %s", c0.CreateArgument)
	}
	c1 := tree.EventsByID["1"].Created
	x2 := tree.EventsByID["2"].Exercised
	if c1 == nil || c1.ACSDelta || x2 == nil || x2.ContractID != c1.ContractID || !x2.Consuming || x2.ACSDelta ||
		x2.LastDescendantNodeID != 2 || x2.Choice != "Go" || string(x2.ChoiceArgument) != `{"why":"test"}` || string(x2.ExerciseResult) != `{}` {
		t.Fatalf("create-and-exercise events %+v / %+v", c1, x2)
	}
	x3 := tree.EventsByID["3"].Exercised
	x4 := tree.EventsByID["4"].Exercised
	if x3.Consuming || x3.ACSDelta || !x4.Consuming || !x4.ACSDelta || x4.ContractID != existing || x3.LastDescendantNodeID != 3 ||
		len(x4.ImplementedInterfaces) != 0 || x4.InterfaceID != nil {
		t.Fatalf("exercises %+v / %+v", x3, x4)
	}
	// Witnesses: bob sees the creates he is a stakeholder of and the
	// consuming exercise on a contract he observes, not the rest.
	bobTree := ev.Tree(at, []string{f.bob})
	var seen []string
	for k := range bobTree.EventsByID {
		seen = append(seen, k)
	}
	sort.Strings(seen)
	if strings.Join(seen, ",") != "0,4" {
		t.Fatalf("bob sees %v", seen)
	}

	// The ACS delta: the create of node 0 and the archive of the existing
	// contract; the create-and-exercise contract is transient.
	flat := ev.Transaction(at, ledgerapi.TransactionShapeACSDelta, nil)
	var kinds []string
	for _, e := range flat.Events {
		switch {
		case e.Created != nil:
			kinds = append(kinds, "created:"+strconv.Itoa(int(e.Created.NodeID)))
		case e.Archived != nil:
			kinds = append(kinds, "archived:"+strconv.Itoa(int(e.Archived.NodeID)))
		default:
			kinds = append(kinds, "exercised")
		}
	}
	if strings.Join(kinds, " ") != "created:0 archived:4" || flat.ExternalTransactionHash != nil {
		t.Fatalf("ACS delta %v", kinds)
	}
	effects := ev.Transaction(at, ledgerapi.TransactionShapeLedgerEffects, nil)
	if len(effects.Events) != 5 {
		t.Fatalf("ledger effects has %d events", len(effects.Events))
	}
}

func TestSubmitExerciseOfContractConsumedEarlier(t *testing.T) {
	f := newFixture(t)
	cid := f.createContract(iouTemplate, `{}`)
	cmds := submitCmds(f.alice, exerciseCmd(iouTemplate, cid, "Archive", `{}`), exerciseCmd(iouTemplate, cid, "Observe", `{}`))
	_, err := f.eng.Submit(context.Background(), cmds, "user1")
	if got := errorID(err); got != "CONTRACT_NOT_FOUND" {
		t.Fatalf("got %q (%v)", got, err)
	}
}

func TestMultipleRootsWhenAllowed(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.AllowMultipleRoots = true })
	ctx := context.Background()
	req := prepareReq(f.alice, ledgerapi.Command{CreateAndExercise: &ledgerapi.CreateAndExerciseCommand{
		TemplateID: iouTemplate, CreateArguments: []byte(`{"a":1}`), Choice: "Go", ChoiceArgument: []byte(`{"b":2}`)}})
	req.HashingSchemeVersion = ledgerapi.HashingSchemeVersionV3
	p, err := f.eng.Prepare(ctx, req, "user1")
	if err != nil {
		t.Fatal(err)
	}
	tx := p.PreparedTransaction.Transaction
	if len(tx.Roots) != 2 || tx.Nodes[1].GetV1().GetExercise().GetChosenValue().GetRecord().GetRecordId().GetEntityName() != "Go" {
		t.Fatalf("transaction %v", tx)
	}
	o, err := f.eng.Execute(ctx, executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Transaction.Created) != 1 || len(o.Transaction.Archived) != 1 || o.Transaction.Archived[0] != o.Transaction.Created[0].ContractID {
		t.Fatalf("outcome %+v", o.Transaction)
	}
}
