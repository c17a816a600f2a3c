package ledgerapi

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// TransactionServiceExerciseIT.scala. The test tool's Dummy with
// ConsumeIfTimeIsBetween (an `assert` on the time) is the test token's
// TokenRules here, whose TransferFactory_Transfer `require`s a positive
// amount: both fail an assertion inside the exercised choice, so the
// failure is DAML_FAILURE (Canton's FailureStatus, category 9) with the
// AssertionFailed exception; the message is the model's own, not the
// Scala model's "Assertion failed".
func TestTransactionServiceExerciseIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))

	t.Run("TXRejectOnFailingAssertion", func(t *testing.T) {
		e := p.mustFail(t, "POST", "/v2/commands/submit-and-wait", failingTransfer(t, p),
			failure{code: "DAML_FAILURE", cause: "AssertionFailed", definite: true})
		if e.ErrorCategory != 9 {
			t.Errorf("category %d, want 9 (InvalidGivenCurrentSystemStateOther)", e.ErrorCategory)
		}
	})
}

// failingTransfer is a submission whose choice fails an assertion: the
// test token's TransferFactory_Transfer (by interface, on a disclosed
// TokenRules) of a zero amount, which it `require`s to be positive.
func failingTransfer(t *testing.T, p *participant) map[string]any {
	t.Helper()
	owner, party := p.allocate(t, "admin"), p.allocate(t, "party")
	cid := p.create(t, owner, testTokenRules, map[string]any{"admin": owner})
	now := time.Now().UTC()
	arg := map[string]any{"expectedAdmin": owner, "transfer": map[string]any{
		"sender": party, "receiver": owner, "amount": "0.0",
		"instrumentId":     map[string]any{"admin": owner, "id": "TOK"},
		"requestedAt":      now.Add(-time.Minute).Format(time.RFC3339Nano),
		"executeBefore":    now.Add(time.Hour).Format(time.RFC3339Nano),
		"inputHoldingCids": []any{}, "meta": map[string]any{"values": map[string]any{}}},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}}}
	body := p.jsCommands([]string{party}, exerciseCmd(transferFactory, cid, "TransferFactory_Transfer", arg))
	body["disclosedContracts"] = []any{disclosure(t, p, owner, cid)}
	return body
}

// TransactionServiceExerciseIT.scala on the built Test.daml templates
// (DummyFactory, AgreementFactory's nonconsuming CreateAgreement,
// CreateAndFetch). TXNotArchiveNonConsuming's giver and receiver are on
// one node here (on two in Scala, synchronized).
func TestTransactionServiceExerciseITBuilt(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())

	t.Run("TXUseCreateToExercise", func(t *testing.T) {
		party := p.allocate(t, "party")
		factory := p.create(t, party, builtTemplate("DummyFactory"), map[string]any{"operator": party})
		tx := p.exercise(t, party, builtTemplate("DummyFactory"), factory, "DummyFactoryCall", nil)
		var exercised []*ledgerapi.ExercisedEvent
		roots := rootNodeIDs(tx)
		for _, ev := range tx.Events {
			if ev.Exercised != nil && slices.Contains(roots, nodeID(ev)) {
				exercised = append(exercised, ev.Exercised)
			}
		}
		if len(exercised) != 1 {
			t.Fatalf("Only one exercise expected, got %d", len(exercised))
		}
		if exercised[0].ContractID != factory {
			t.Errorf("The identifier of the exercised contract should have been %s but instead it was %s", factory, exercised[0].ContractID)
		}
	})

	t.Run("TXContractIdFromExerciseWhenFilter", func(t *testing.T) {
		party := p.allocate(t, "party")
		factory := p.create(t, party, builtTemplate("DummyFactory"), map[string]any{"operator": party})
		p.exercise(t, party, builtTemplate("DummyFactory"), factory, "DummyFactoryCall", nil)
		var creates []*ledgerapi.CreatedEvent
		for _, tx := range p.transactionsOfTemplate(t, party, builtTemplate("DummyWithParam")) {
			creates = append(creates, createdEvents(tx)...)
		}
		if len(creates) != 1 {
			t.Fatalf("GetCreate: %d created events, want 1", len(creates))
		}
		if !strings.HasSuffix(creates[0].TemplateID, ":Test:DummyWithParam") || strings.HasPrefix(creates[0].TemplateID, "#") {
			t.Errorf("Create should be of DummyWithParam (by package id): %s", creates[0].TemplateID)
		}
		var archives []*ledgerapi.ArchivedEvent
		for _, tx := range p.transactionsOfTemplate(t, party, builtTemplate("DummyFactory")) {
			for _, ev := range tx.Events {
				if ev.Archived != nil {
					archives = append(archives, ev.Archived)
				}
			}
		}
		if len(archives) != 1 {
			t.Fatalf("GetArchive: %d archived events, want 1", len(archives))
		}
		if !strings.HasSuffix(archives[0].TemplateID, ":Test:DummyFactory") || strings.HasPrefix(archives[0].TemplateID, "#") {
			t.Errorf("Archive should be of DummyFactory (by package id): %s", archives[0].TemplateID)
		}
		if archives[0].ContractID != factory {
			t.Errorf("Mismatching archived contract identifier: %s, want %s", archives[0].ContractID, factory)
		}
	})

	t.Run("TXNotArchiveNonConsuming", func(t *testing.T) {
		receiver, giver := p.allocate(t, "receiver"), p.allocate(t, "giver")
		factory := p.create(t, giver, builtTemplate("AgreementFactory"), map[string]any{"receiver": receiver, "giver": giver})
		p.exercise(t, receiver, builtTemplate("AgreementFactory"), factory, "CreateAgreement", nil)
		for _, tx := range p.transactionsOf(t, ledgerapi.TransactionShapeACSDelta, receiver, giver) {
			for _, ev := range tx.Events {
				if ev.Archived != nil {
					t.Errorf("The transaction include an archival: %+v", ev.Archived)
				}
			}
		}
	})

	t.Run("TXFetchContractCreatedInTransaction", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, builtTemplate("CreateAndFetch"), map[string]any{"p": party})
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{
			"commands": p.jsCommands([]string{party}, exerciseCmd(builtTemplate("CreateAndFetch"), cid, "CreateAndFetch_Run", nil)),
			"transactionFormat": map[string]any{
				"eventFormat":      ledgerapi.EventFormatOf([]string{party}, nil, nil, false),
				"transactionShape": ledgerapi.TransactionShapeACSDelta},
		}, &resp)
		if n := len(createdEvents(resp.Transaction)); n != 1 {
			t.Errorf("There should be only one create: %d", n)
		}
		var archives []*ledgerapi.ArchivedEvent
		for _, ev := range resp.Transaction.Events {
			if ev.Archived != nil {
				archives = append(archives, ev.Archived)
			}
		}
		if len(archives) != 1 {
			t.Fatalf("There should be only one archive: %d", len(archives))
		}
		if archives[0].ContractID != cid {
			t.Errorf("The contract identifier of the exercise does not match: %s, want %s", archives[0].ContractID, cid)
		}
	})
}
