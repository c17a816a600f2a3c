package ledgerapi

import (
	"regexp"
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// invalidSynchronizerID is the test tool's id without a namespace.
const invalidSynchronizerID = "invalidSynchronizerId"

var invalidSynchronizer = failure{code: "INVALID_FIELD", definite: true,
	cause: "Invalid field synchronizer_id: Invalid unique identifier `invalidSynchronizerId` with missing namespace."}

// CommandServiceIT.scala.
func TestCommandServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{NonconsumingChoices: []string{"DummyNonConsuming"}})
	commandServiceGeneric(t, p)

	t.Run("CSsubmitAndWaitInvalidSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["synchronizerId"] = invalidSynchronizerID
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", body, invalidSynchronizer)
	})

	t.Run("CSsubmitAndWaitForTransactionInvalidSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["synchronizerId"] = invalidSynchronizerID
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{"commands": body}, invalidSynchronizer)
	})
}

// The typed cases of CommandServiceIT: the test tool's Dummy is Ping here,
// a template of an uploaded package, so its arguments are read by type.
func TestCommandServiceITTyped(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))

	t.Run("CSRefuseBadParameter", func(t *testing.T) {
		party := p.allocate(t, "party")
		e := p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party}, createCmd(pingTemplate,
			map[string]any{"INVALID_PARAM": "ping", "initiator": party, "responder": party})),
			failure{code: "COMMAND_PREPROCESSING_FAILED", definite: true})
		// Either problem may be found first.
		if re := regexp.MustCompile("Found non-optional extra field|Missing non-optional field"); !re.MatchString(e.Cause) {
			t.Errorf("cause %q does not match %s", e.Cause, re)
		}
	})

	t.Run("CSBadCreateAndExercise", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{party},
			map[string]any{"CreateAndExerciseCommand": map[string]any{"templateId": pingTemplate,
				"createArguments": map[string]any{}, "choice": "Respond", "choiceArgument": map[string]any{}}}),
			failure{code: "COMMAND_PREPROCESSING_FAILED", cause: "Missing non-optional field", definite: true})
	})

	// The test tool's Dummy FailingClone (a choice exercising one that
	// asserts False) is the test token's failing transfer here: one
	// exercise deep, by interface, so the trace has the choice and the
	// command (daml/interp's TestExerciseTrace pins a deeper chain).
	t.Run("CSReturnStackTrace", func(t *testing.T) {
		e := p.mustFail(t, "POST", "/v2/commands/submit-and-wait", failingTransfer(t, p),
			failure{code: "DAML_FAILURE", cause: "AssertionFailed", definite: true})
		if e.ErrorCategory != 9 {
			t.Errorf("category %d, want 9 (InvalidGivenCurrentSystemStateOther)", e.ErrorCategory)
		}
		const choice = "[0-9a-f]{8}:Splice.Api.Token.TransferInstructionV1:TransferFactory:TransferFactory_Transfer"
		trace := regexp.MustCompile(`^    in choice ` + choice + ` on contract 00[0-9a-f]{8} \(#0\)\n` +
			`    in exercise command ` + choice + ` on contract 00[0-9a-f]{8}\.\n$`)
		if got := e.Context["exercise_trace"]; !trace.MatchString(got) {
			t.Errorf("exercise_trace %q does not match %s", got, trace)
		}
	})
}

// CommandSubmissionCompletionIT.scala.
// The CommandServiceIT cases on built WithObservers: a giver and two
// observers, the second on another participant in Scala, all on this node
// here.
func TestCommandServiceITBuilt(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	withObservers := func(t *testing.T) (giver, o1, o2 string, args map[string]any, cid string) {
		giver, o1, o2 = p.allocate(t, "giver"), p.allocate(t, "observer1"), p.allocate(t, "observer2")
		args = map[string]any{"giver": giver, "observers": []string{o1, o2}}
		return giver, o1, o2, args, p.create(t, giver, builtTemplate("WithObservers"), args)
	}
	view := func(t *testing.T, party string) (creates []*ledgerapi.CreatedEvent, exercises []*ledgerapi.ExercisedEvent) {
		for _, tx := range p.transactionsOf(t, ledgerapi.TransactionShapeLedgerEffects, party) {
			creates, exercises = append(creates, createdEvents(tx)...), append(exercises, exercisedEvents(tx)...)
		}
		return creates, exercises
	}
	t.Run("CSDiscloseCreateToObservers", func(t *testing.T) {
		_, o1, o2, args, _ := withObservers(t)
		c1, _ := view(t, o1)
		c2, _ := view(t, o2)
		if len(c1) != 1 || len(c2) != 1 {
			t.Fatalf("The observers should see exactly one creation each: %d and %d", len(c1), len(c2))
		}
		sameJSON(t, "The two observers should see the same creation", c1[0].CreateArgument, c2[0].CreateArgument)
		sameJSON(t, "The observers should see the created contract", c1[0].CreateArgument, args)
	})
	t.Run("CSDiscloseExerciseToObservers", func(t *testing.T) {
		giver, o1, o2, _, cid := withObservers(t)
		p.exercise(t, giver, builtTemplate("WithObservers"), cid, "Ping", nil)
		_, x1 := view(t, o1)
		_, x2 := view(t, o2)
		if len(x1) != 1 || len(x2) != 1 {
			t.Fatalf("The observers should see exactly one exercise each: %d and %d", len(x1), len(x2))
		}
		if x1[0].Choice != "Ping" || x1[0].ContractID != cid || x2[0].Choice != x1[0].Choice || x2[0].ContractID != x1[0].ContractID {
			t.Errorf("The two observers should see the same exercise: %+v and %+v", x1[0], x2[0])
		}
	})
}

func TestCommandSubmissionCompletionIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	t.Run("CSCSubmitInvalidSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["synchronizerId"] = invalidSynchronizerID
		p.mustFail(t, "POST", "/v2/commands/async/submit", body, invalidSynchronizer)
	})

	t.Run("CSCSubmitUnknownSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		body["synchronizerId"] = "unknown_" + p.run.Server.Node.Identity().SynchronizerID
		p.mustFail(t, "POST", "/v2/commands/async/submit", body, failure{code: "INVALID_PRESCRIBED_SYNCHRONIZER_ID",
			cause: "Cannot submit transaction to prescribed synchronizer", definite: true})
	})

	t.Run("CSCDisallowEmptyTransactionsSubmission", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/commands/async/submit", p.jsCommands([]string{party}),
			failure{code: "MISSING_FIELD", cause: "commands", definite: true})
	})

	// submitted submits a Dummy's create as party; completions lists
	// what the completions list answers (the test tool's firstCompletions,
	// its timeout the list's idle timeout).
	submitted := func(t *testing.T, party string) string {
		t.Helper()
		body := p.jsCommands([]string{party}, createCmd(dummy, map[string]any{"operator": party}))
		p.ok(t, "POST", "/v2/commands/async/submit", body, nil)
		return body["commandId"].(string)
	}
	completions := func(t *testing.T, user string, begin int64, party string) []ledgerapi.Completion {
		t.Helper()
		var els []ledgerapi.CompletionStreamResponse
		p.ok(t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=300", map[string]any{"userId": user, "parties": []string{party}, "beginExclusive": begin}, &els)
		var out []ledgerapi.Completion
		for _, el := range els {
			if el.Completion != nil {
				out = append(out, *el.Completion)
			}
		}
		return out
	}

	t.Run("CSCCompletions", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		cmd := submitted(t, party)
		cs := completions(t, p.user, begin, party)
		if len(cs) != 1 {
			t.Fatalf("Expected only one completion: %d", len(cs))
		}
		if cs[0].CommandID != cmd {
			t.Errorf("Wrong command identifier on completion: %s, want %s", cs[0].CommandID, cmd)
		}
		if cs[0].PaidTrafficCost <= 0 {
			t.Error("Empty traffic cost")
		}
	})

	t.Run("CSCParticipantBeginCompletions", func(t *testing.T) {
		party := p.allocate(t, "party")
		submitted(t, party)
		if len(completions(t, p.user, 0, party)) == 0 {
			t.Error("Completions should not have been empty")
		}
	})

	t.Run("CSCNoCompletionsWithoutRightUserId", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		submitted(t, party)
		if cs := completions(t, "invalid-user-id", begin, party); len(cs) != 0 {
			t.Errorf("completions of another user: %v", cs)
		}
	})

	t.Run("CSCAfterEnd", func(t *testing.T) {
		party := p.allocate(t, "party")
		submitted(t, party)
		p.mustFail(t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=300", map[string]any{"userId": p.user,
			"parties": []string{party}, "beginExclusive": p.ledgerEnd(t) + 1000},
			failure{code: "OFFSET_AFTER_LEDGER_END", cause: "is after ledger end"})
	})

	t.Run("CSCNoCompletionsWithoutRightParty", func(t *testing.T) {
		party, notTheSubmittingParty := p.allocate(t, "party"), p.allocate(t, "other")
		begin := p.ledgerEnd(t)
		submitted(t, party)
		if cs := completions(t, p.user, begin, notTheSubmittingParty); len(cs) != 0 {
			t.Errorf("completions of another party: %v", cs)
		}
	})

	t.Run("CSCHandleMultiPartySubscriptions", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		submit := func(actAs ...string) string {
			body := p.jsCommands(actAs, createCmd(dummy, map[string]any{"operator": actAs[0]}))
			p.ok(t, "POST", "/v2/commands/async/submit", body, nil)
			return body["commandId"].(string)
		}
		aliceCmd, bobCmd, aliceBobCmd := submit(alice), submit(bob), submit(alice, bob)
		find := func(cmd string, parties ...string) *ledgerapi.Completion {
			t.Helper()
			var els []ledgerapi.CompletionStreamResponse
			p.ok(t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=200", map[string]any{"userId": p.user, "parties": parties, "beginExclusive": 0}, &els)
			for _, el := range els {
				if el.Completion != nil && el.Completion.CommandID == cmd {
					return el.Completion
				}
			}
			return nil
		}
		actAs := func(c *ledgerapi.Completion) []string {
			if c == nil {
				return nil
			}
			out := slices.Clone([]string(c.ActAs))
			slices.Sort(out)
			return out
		}
		both := []string{alice, bob}
		slices.Sort(both)
		if find(aliceCmd, alice, bob) == nil || find(bobCmd, alice, bob) == nil {
			t.Error("alice and bob together should see both single-party completions")
		}
		if got := actAs(find(aliceBobCmd, alice, bob)); !slices.Equal(got, both) {
			t.Errorf("If filtered with both alice and bob, the multi-party submissions should have both act_as parties: %v", got)
		}
		if find(aliceCmd, alice) == nil || find(bobCmd, alice) != nil {
			t.Error("alice sees her command and not bob's")
		}
		if got := actAs(find(aliceBobCmd, alice)); !slices.Equal(got, []string{alice}) {
			t.Errorf("If filtered with only alice, the multi-party submissions should have only alice act_as party: %v", got)
		}
		if find(bobCmd, bob) == nil || find(aliceCmd, bob) != nil {
			t.Error("bob sees his command and not alice's")
		}
		if got := actAs(find(aliceBobCmd, bob)); !slices.Equal(got, []string{bob}) {
			t.Errorf("If filtered with only bob, the multi-party submissions should have only bob act_as party: %v", got)
		}
	})
}
