package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// isDescendant is EventsDescendantsIT's: who lies in of's node range (an
// event is its own descendant).
func isDescendant(who int32, of *ledgerapi.ExercisedEvent) bool {
	return who >= int32(of.NodeID) && who <= int32(of.LastDescendantNodeID)
}

// EventsDescendantsIT.scala (v2_dev in 3.5): the node ids and last
// descendants of ledger-effects events nest as the transaction does, with
// fetches and rollback nodes left out.
func TestEventsDescendantsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	p.uploadModel(t, withTuple2(t, exceptionsModel()))
	tpl := builtTemplate
	// allUnder checks every event of tx descends from of.
	allUnder := func(t *testing.T, tx ledgerapi.Transaction, of *ledgerapi.ExercisedEvent) {
		t.Helper()
		for _, ev := range tx.Events {
			if !isDescendant(nodeID(ev), of) {
				t.Errorf("event %d is not a descendant of exercise %d (%s, last %d)", nodeID(ev), of.NodeID, of.Choice, of.LastDescendantNodeID)
			}
		}
	}
	exercisedOnly := func(t *testing.T, tx ledgerapi.Transaction, n int) []*ledgerapi.ExercisedEvent {
		t.Helper()
		ex := exercisedEvents(tx)
		if len(ex) != n {
			t.Fatalf("%d exercised events, want %d", len(ex), n)
		}
		return ex
	}

	t.Run("SingleConsumingExercisedDescendants", func(t *testing.T) {
		party := p.allocate(t, "party")
		c := p.create(t, party, tpl("Dummy"), map[string]any{"operator": party})
		ex := exercisedOnly(t, p.exercise(t, party, tpl("Dummy"), c, "DummyChoice1", nil), 1)
		if !isDescendant(int32(ex[0].NodeID), ex[0]) {
			t.Error("the exercised event is not a descendant of itself")
		}
	})
	t.Run("SingleCreatedInExercisedDescendants", func(t *testing.T) {
		party := p.allocate(t, "party")
		c := p.create(t, party, tpl("Dummy"), map[string]any{"operator": party})
		tx := p.exercise(t, party, tpl("Dummy"), c, "Clone", nil)
		ex := exercisedOnly(t, tx, 1)
		if n := len(createdEvents(tx)); n != 1 {
			t.Errorf("%d created events, want 1", n)
		}
		allUnder(t, tx, ex[0])
	})
	t.Run("MultipleCreatedInExercisedDescendants", func(t *testing.T) {
		party := p.allocate(t, "party")
		f := p.create(t, party, tpl("DummyFactory"), map[string]any{"operator": party})
		tx := p.exercise(t, party, tpl("DummyFactory"), f, "DummyFactoryCall", nil)
		ex := exercisedOnly(t, tx, 1)
		if n := len(createdEvents(tx)); n != 2 {
			t.Errorf("%d created events, want 2", n)
		}
		allUnder(t, tx, ex[0])
	})
	t.Run("DeeplyNestedDescendants", func(t *testing.T) {
		party := p.allocate(t, "party")
		f := p.create(t, party, tpl("DummyFactory"), map[string]any{"operator": party})
		tx := p.exercise(t, party, tpl("DummyFactory"), f, "DummyFactoryCallWithExercise", nil)
		ex := exercisedEvents(tx)
		if len(ex) == 0 {
			t.Fatal("no exercised event")
		}
		allUnder(t, tx, ex[0])
		var last *ledgerapi.CreatedEvent
		for _, c := range createdEvents(tx) {
			if last == nil || c.NodeID > last.NodeID {
				last = c
			}
		}
		var clone *ledgerapi.ExercisedEvent
		for _, x := range ex {
			if x.Choice == "Clone" {
				clone = x
			}
		}
		if last == nil || clone == nil || !isDescendant(int32(last.NodeID), clone) {
			t.Errorf("the last created event %+v is not a descendant of the Clone exercise %+v", last, clone)
		}
	})
	t.Run("DescendantsWithFetch", func(t *testing.T) {
		operator := p.allocate(t, "operator")
		f := p.create(t, operator, tpl("AgreementFactory"), map[string]any{"receiver": operator, "giver": operator})
		created := createdEvents(p.exercise(t, operator, tpl("AgreementFactory"), f, "AgreementFactoryAccept", nil))
		if len(created) != 1 {
			t.Fatalf("AgreementFactoryAccept created %d contracts", len(created))
		}
		tri := p.create(t, operator, tpl("TriProposal"), map[string]any{"operator": operator, "receiver": operator, "giver": operator})
		tx := p.exercise(t, operator, tpl("Agreement"), created[0].ContractID, "AcceptTriProposal", map[string]any{"cid": tri})
		ex := exercisedOnly(t, tx, 2)
		c := createdEvents(tx)
		if len(c) != 1 {
			t.Fatalf("%d created events, want 1", len(c))
		}
		for _, x := range ex {
			if !isDescendant(int32(c[0].NodeID), x) || !isDescendant(int32(x.NodeID), ex[0]) {
				t.Errorf("exercise %s (%d, last %d) and the create %d do not nest under the first", x.Choice, x.NodeID, x.LastDescendantNodeID, c[0].NodeID)
			}
		}
	})
	t.Run("NonDescendantsRollbackFetch", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc, fetched := p.create(t, party, exceptionTester, map[string]any{"p": party}), p.create(t, party, exceptionTester, map[string]any{"p": party})
		tx := p.transaction(t, []string{party},
			exerciseCmd(exceptionTester, tc, "RollbackFetch", map[string]any{"cid": fetched}),
			exerciseCmd(exceptionTester, fetched, "Noop", nil))
		ex := exercisedOnly(t, tx, 2)
		if isDescendant(int32(ex[0].NodeID), ex[1]) || isDescendant(int32(ex[1].NodeID), ex[0]) {
			t.Errorf("the two root exercises (%d, last %d) and (%d, last %d) nest", ex[0].NodeID, ex[0].LastDescendantNodeID, ex[1].NodeID, ex[1].LastDescendantNodeID)
		}
	})
	t.Run("DescendantsRollbackFetch", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc, fetched := p.create(t, party, exceptionTester, map[string]any{"p": party}), p.create(t, party, exceptionTester, map[string]any{"p": party})
		tx := p.exercise(t, party, exceptionTester, tc, "RollbackFetchWithExercise", map[string]any{"cid": fetched})
		ex := exercisedOnly(t, tx, 2)
		allUnder(t, tx, ex[0])
	})
	// Rolling back a consuming exercise or a create is refused on Canton
	// 3.5's protocol version 35 (as in TestExceptionsIT).
	effectful := failure{code: "DAML_EFFECTFUL_ROLLBACK_ERROR", cause: "Tried to rollback side-effectful node(s)", definite: true}
	t.Run("DescendantsRollbackExercise", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc, other := p.create(t, party, exceptionTester, map[string]any{"p": party}), p.create(t, party, exceptionTester, map[string]any{"p": party})
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			exerciseCmd(exceptionTester, tc, "RollbackConsumingWithCreate", map[string]any{"cid": other})), effectful)
	})
	t.Run("DescendantsRollbackCreate", func(t *testing.T) {
		party := p.allocate(t, "party")
		tc := p.create(t, party, exceptionTester, map[string]any{"p": party})
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			exerciseCmd(exceptionTester, tc, "RollbackCreateWithExercise", nil)), effectful)
	})
}
