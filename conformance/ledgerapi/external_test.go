package ledgerapi

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/internal/dalfedit"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/signer"
)

// externalParty is the test tool's ExternalParty: a party whose
// transactions are signed by a key the node never holds.
type externalParty struct {
	id  string
	key *signer.Key
}

// synchronizer is the one synchronizer the node is connected to.
func (p *participant) synchronizer(t *testing.T) string {
	t.Helper()
	var resp ledgerapi.GetConnectedSynchronizersResponse
	p.ok(t, "GET", "/v2/state/connected-synchronizers", nil, &resp)
	if len(resp.ConnectedSynchronizers) == 0 {
		t.Fatal("no connected synchronizer")
	}
	return resp.ConnectedSynchronizers[0].SynchronizerID
}

// allocateExternal is the test tool's allocateExternalPartyFromHint: a
// fresh ed25519 key, generate-topology, the multi-hash signed, allocate.
func (p *participant) allocateExternal(t *testing.T, hint string) externalParty {
	t.Helper()
	key, allocate := p.externalAllocation(t, hint, "")
	var alloc ledgerapi.AllocateExternalPartyResponse
	p.ok(t, "POST", "/v2/parties/external/allocate", allocate, &alloc)
	return externalParty{id: alloc.PartyID, key: key}
}

// externalAllocation makes a fresh ed25519 key, generates the party's
// topology for hint and signs its multi-hash: the key and the body of
// /v2/parties/external/allocate, granting user (if not "") the party.
func (p *participant) externalAllocation(t *testing.T, hint, user string) (*signer.Key, map[string]any) {
	t.Helper()
	key, err := signer.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sync := p.synchronizer(t)
	var gen ledgerapi.GenerateExternalPartyTopologyResponse
	p.ok(t, "POST", "/v2/parties/external/generate-topology", map[string]any{
		"synchronizer": sync, "partyHint": hint,
		"publicKey": map[string]any{"format": "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
			"keyData": key.Public().SPKIDER(), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"},
	}, &gen)
	sig, err := key.SignMultiHash(gen.MultiHash)
	if err != nil {
		t.Fatal(err)
	}
	onboarding := make([]map[string]any, len(gen.TopologyTransactions))
	for i, tx := range gen.TopologyTransactions {
		onboarding[i] = map[string]any{"transaction": tx, "signatures": []any{}}
	}
	allocate := map[string]any{"synchronizer": sync, "onboardingTransactions": onboarding,
		"multiHashSignatures": []any{sig}, "identityProviderId": ""}
	if user != "" {
		allocate["userId"] = user
	}
	return key, allocate
}

// prepareRequest is the test tool's prepareSubmissionRequest: one
// command as party, hashing scheme V2.
func (p *participant) prepareRequest(party string, cmds ...map[string]any) map[string]any {
	return map[string]any{"userId": p.user, "commandId": p.next("cmd"), "commands": cmds,
		"actAs": []string{party}, "readAs": []string{party}, "synchronizerId": "",
		"packageIdSelectionPreference": []string{}, "verboseHashing": false,
		"hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2"}
}

// prepare prepares and checks that the answer is Canton's shape.
func (p *participant) prepare(t *testing.T, body map[string]any) ledgerapi.PrepareSubmissionResponse {
	t.Helper()
	var resp ledgerapi.PrepareSubmissionResponse
	p.ok(t, "POST", "/v2/interactive-submission/prepare", body, &resp)
	return resp
}

// executeRequest is the test tool's executeSubmissionRequest: the
// prepared transaction signed by party's key.
func (p *participant) executeRequest(party externalParty, prepared ledgerapi.PrepareSubmissionResponse) map[string]any {
	var h [32]byte
	copy(h[:], prepared.PreparedTransactionHash)
	sig := party.key.SignHash(h)
	return map[string]any{
		"preparedTransaction": prepared.PreparedTransaction,
		"partySignatures": map[string]any{"signatures": []any{
			map[string]any{"party": party.id, "signatures": []any{sig}}}},
		"deduplicationPeriod":  map[string]any{"Empty": map[string]any{}},
		"submissionId":         p.next("sub"),
		"userId":               p.user,
		"hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2",
	}
}

// firstCompletion is the test tool's firstCompletions: the first
// completion of party after offset, which must be a success.
func (p *participant) firstCompletion(t *testing.T, party string, after int64) ledgerapi.Completion {
	t.Helper()
	var els []ledgerapi.CompletionStreamResponse
	p.ok(t, "POST", "/v2/commands/completions?limit=1&stream_idle_timeout_ms=2000", map[string]any{"userId": p.user, "parties": []string{party}, "beginExclusive": after}, &els)
	for _, el := range els {
		if el.Completion != nil {
			if !el.Completion.Succeeded() {
				t.Fatalf("completion failed: %+v", el.Completion.Status)
			}
			return *el.Completion
		}
	}
	t.Fatal("No completion has been produced")
	return ledgerapi.Completion{}
}

// preparedOf decodes the prepared transaction's metadata.
func preparedOf(t *testing.T, prepared []byte) *damlpb.PreparedTransaction {
	t.Helper()
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(prepared, &pt); err != nil {
		t.Fatalf("prepared transaction: %v", err)
	}
	return &pt
}

// editPrepared re-encodes the prepared transaction of an execute request
// after edit, as the test tool's lenses do on the typed request.
func editPrepared(t *testing.T, req map[string]any, edit func(*damlpb.PreparedTransaction)) {
	t.Helper()
	pt := preparedOf(t, req["preparedTransaction"].(ledgerapi.Bytes))
	edit(pt)
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	req["preparedTransaction"] = ledgerapi.Bytes(b)
}

// mainPackage is the main package id of a DAR.
func mainPackage(t *testing.T, dar []byte) string {
	t.Helper()
	id, err := dalfedit.MainPackageID(dar)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// transactionFormat is the test tool's transactionFormat(parties, shape,
// templateIds).
func transactionFormat(parties []string, shape ledgerapi.TransactionShape, templates ...string) map[string]any {
	return map[string]any{"eventFormat": ledgerapi.EventFormatOf(parties, templates, nil, false), "transactionShape": shape}
}

// The test tool's Dummy is the generic model's; its DummyFactory, whose
// DummyFactoryCall creates a Dummy and a DummyWithParam, is Ping's Explode
// here: ProcessExplode at the last level creates a Merge and two Collapses.
const (
	explodeTemplate = "#canton-builtin-admin-workflow-ping:Canton.Internal.Bong:Explode"
	mergeTemplate   = "#canton-builtin-admin-workflow-ping:Canton.Internal.Bong:Merge"
)

func explodeArgs(initiator string) map[string]any {
	return map[string]any{"id": "explode", "initiator": initiator, "validators": []string{}, "responders": []string{},
		"path": "", "maxLevel": "1", "timeout": "2100-01-01T00:00:00Z"}
}

// InteractiveSubmissionServiceIT.scala.
func TestInteractiveSubmissionServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	ping := pingDar(t)
	token := sharedDar(t, "splice-test-token-v1-1.0.0.dar")
	p.upload(t, ping)
	p.upload(t, token)
	sync := p.synchronizer(t)
	dummyCreate := func(party string) map[string]any { return createCmd(dummy, map[string]any{"operator": party}) }

	// testExplicitDisclosure: the owner's TokenRules (DummyFlexibleController
	// in Scala) and its disclosure; the stranger's nonconsuming
	// TransferFactory_PublicFetch stands in for FlexibleConsume.
	testExplicitDisclosure := func(t *testing.T, owner string, ext *externalParty) (string, map[string]any) {
		t.Helper()
		args := map[string]any{"admin": owner}
		var cid string
		if ext == nil {
			cid = p.create(t, owner, testTokenRules, args)
		} else {
			var resp ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
			prepared := p.prepare(t, p.prepareRequest(owner, createCmd(testTokenRules, args)))
			p.ok(t, "POST", "/v2/interactive-submission/executeAndWaitForTransaction", p.executeRequest(*ext, prepared), &resp)
			cid = resp.Transaction.Events[0].Created.ContractID
		}
		return cid, disclosure(t, p, owner, cid)
	}
	publicFetch := func(owner, stranger, cid string) map[string]any {
		return exerciseCmd(transferFactory, cid, "TransferFactory_PublicFetch", map[string]any{"expectedAdmin": owner, "actor": stranger})
	}
	// executeAndWaitForTransaction prepares cmd as party, signs and
	// executes it, with format when not nil.
	executeAndWaitForTransaction := func(t *testing.T, party externalParty, cmd map[string]any, format map[string]any) ledgerapi.Transaction {
		t.Helper()
		prepared := p.prepare(t, p.prepareRequest(party.id, cmd))
		req := p.executeRequest(party, prepared)
		if format != nil {
			req["transactionFormat"] = format
		}
		var resp ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
		p.ok(t, "POST", "/v2/interactive-submission/executeAndWaitForTransaction", req, &resp)
		return resp.Transaction
	}
	// assertOnTransactionResponse: an update id and a Dummy created first.
	assertOnTransactionResponse := func(t *testing.T, tx ledgerapi.Transaction) {
		t.Helper()
		if tx.UpdateID == "" {
			t.Error("The transaction identifier was empty but shouldn't.")
		}
		if len(tx.Events) == 0 || tx.Events[0].Created == nil {
			t.Fatalf("The returned transaction should contain a created-event, but was %+v", tx.Events)
		}
		if got := tx.Events[0].Created.TemplateID; got == "" || !strings.HasSuffix(got, ":Test:Dummy") {
			t.Errorf("The template ID of the created-event should be Test:Dummy, but was %s", got)
		}
	}
	// withSignatureCut drops the first byte of every signature: Scala's
	// _.signature.modify(_.substring(1)).
	withSignatureCut := func(req map[string]any) map[string]any {
		ps := req["partySignatures"].(map[string]any)["signatures"].([]any)
		for _, one := range ps {
			sigs := one.(map[string]any)["signatures"].([]any)
			for i, s := range sigs {
				sig := s.(signer.Signature)
				sig.Signature = sig.Signature[1:]
				sigs[i] = sig
			}
		}
		return req
	}

	t.Run("ISSPrepareSubmissionRequestBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		resp := p.prepare(t, p.prepareRequest(party, dummyCreate(party)))
		if len(resp.PreparedTransaction) == 0 {
			t.Error("The transaction was empty but shouldn't.")
		}
		if resp.CostEstimation == nil {
			t.Error("Cost estimation should be defined by default")
		}
		if len(resp.PreparedTransactionHash) == 0 {
			t.Error("The hash was empty but shouldn't.")
		}
	})

	t.Run("ISSPrepareSubmissionRequestWithoutCostEstimation", func(t *testing.T) {
		party := p.allocate(t, "party")
		req := p.prepareRequest(party, dummyCreate(party))
		req["estimateTrafficCost"] = map[string]any{"disabled": true}
		resp := p.prepare(t, req)
		if len(resp.PreparedTransaction) == 0 || len(resp.PreparedTransactionHash) == 0 {
			t.Errorf("empty transaction or hash: %+v", resp)
		}
		if resp.CostEstimation != nil {
			t.Errorf("Cost estimation should be empty: %+v", resp.CostEstimation)
		}
	})

	t.Run("ISSPrepareSubmissionRequestExplicitDisclosure", func(t *testing.T) {
		owner, stranger := p.allocate(t, "owner"), p.allocate(t, "stranger")
		cid, d := testExplicitDisclosure(t, owner, nil)
		req := p.prepareRequest(stranger, publicFetch(owner, stranger, cid))
		req["disclosedContracts"] = []any{d}
		resp := p.prepare(t, req)
		pt := preparedOf(t, resp.PreparedTransaction)
		var ids []string
		for _, in := range pt.GetMetadata().GetInputContracts() {
			if in.GetV1() == nil {
				t.Fatal("Received empty input contract")
			}
			ids = append(ids, in.GetV1().GetContractId())
		}
		if len(ids) != 1 || ids[0] != cid {
			t.Errorf("Unexpected input contract id: %v, want [%s]", ids, cid)
		}
	})

	t.Run("ISSPrepareSubmissionRequestFailOnUnknownContract", func(t *testing.T) {
		owner, stranger := p.allocate(t, "owner"), p.allocate(t, "stranger")
		cid, _ := testExplicitDisclosure(t, owner, nil)
		p.mustFail(t, "POST", "/v2/interactive-submission/prepare", p.prepareRequest(stranger, publicFetch(owner, stranger, cid)),
			failure{code: "CONTRACT_NOT_FOUND"})
	})

	t.Run("ISSPrepareSubmissionRequestSynchronizerId", func(t *testing.T) {
		party := p.allocate(t, "party")
		req := p.prepareRequest(party, dummyCreate(party))
		req["synchronizerId"] = sync
		resp := p.prepare(t, req)
		if got := preparedOf(t, resp.PreparedTransaction).GetMetadata().GetSynchronizerId(); got != sync {
			t.Errorf("Unexpected synchronizer ID, expected %s, got %s", sync, got)
		}
	})

	t.Run("ISSPrepareSubmissionRequestMinLedgerTime", func(t *testing.T) {
		party := p.allocate(t, "party")
		at := ledgerapi.Timestamp{Time: time.Now().Add(20 * time.Second).Truncate(time.Microsecond)}
		req := p.prepareRequest(party, createAndExerciseCmd(dummy, map[string]any{"operator": party}, "ConsumeIfTimeIsBetween"))
		req["minLedgerTime"] = map[string]any{"time": map[string]any{"MinLedgerTimeAbs": map[string]any{"value": at}}}
		resp := p.prepare(t, req)
		got := preparedOf(t, resp.PreparedTransaction).GetMetadata().GetMinLedgerEffectiveTime()
		if want := uint64(at.UnixMicro()); got != want {
			t.Errorf("Incorrect min ledger time. Received: %d, expected: %d", got, want)
		}
	})

	t.Run("ISSPrepareSubmissionExecuteBasic", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		before := p.ledgerEnd(t)
		prepared := p.prepare(t, p.prepareRequest(ext.id, dummyCreate(ext.id)))
		a := p.do(t, "POST", "/v2/interactive-submission/execute", p.admin, p.executeRequest(ext, prepared))
		if a.status != 200 {
			t.Fatalf("execute: %d %s", a.status, a.body)
		}
		p.firstCompletion(t, ext.id, before)
		txs := p.updates(t, ext.id, 0, nil, ledgerapi.TransactionShapeLedgerEffects)
		if len(txs) != 1 {
			t.Fatalf("expected one transaction, got %d", len(txs))
		}
		tx := txs[0].Transaction
		if len(tx.Events) == 0 || tx.Events[0].Created == nil {
			t.Errorf("not a create: %+v", tx.Events)
		}
		if tx.ExternalTransactionHash == nil || *tx.ExternalTransactionHash != hex.EncodeToString(prepared.PreparedTransactionHash) {
			t.Errorf("external transaction hash %v, want %x", tx.ExternalTransactionHash, prepared.PreparedTransactionHash)
		}
	})

	t.Run("ISSExecuteSubmissionAndWaitBasic", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		prepared := p.prepare(t, p.prepareRequest(ext.id, dummyCreate(ext.id)))
		var resp ledgerapi.ExecuteSubmissionAndWaitResponse
		p.ok(t, "POST", "/v2/interactive-submission/executeAndWait", p.executeRequest(ext, prepared), &resp)
		var byID struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/updates/transaction-by-id", map[string]any{"updateId": resp.UpdateID,
			"transactionFormat": transactionFormat([]string{ext.id}, ledgerapi.TransactionShapeLedgerEffects)}, &byID)
		tx := byID.Transaction
		if resp.UpdateID != tx.UpdateID {
			t.Error("ExecuteAndWait does not contain the expected updateId")
		}
		if resp.CompletionOffset != tx.Offset {
			t.Error("ExecuteAndWait does not contain the expected completion offset")
		}
		if len(tx.Events) == 0 || tx.Events[0].Created == nil {
			t.Error("Expected created event")
		}
		if tx.ExternalTransactionHash == nil || *tx.ExternalTransactionHash != hex.EncodeToString(prepared.PreparedTransactionHash) {
			t.Error("Transaction hash was not set or incorrect")
		}
	})

	invalidSignature := failure{code: "FAILED_TO_EXECUTE_TRANSACTION", cause: "Received 0 valid signatures from distinct keys (1 invalid)"}
	t.Run("ISSPrepareSubmissionFailExecuteOnInvalidSignature", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		prepared := p.prepare(t, p.prepareRequest(ext.id, dummyCreate(ext.id)))
		p.mustFail(t, "POST", "/v2/interactive-submission/execute", withSignatureCut(p.executeRequest(ext, prepared)), invalidSignature)
	})

	t.Run("ISSPrepareSubmissionFailExecuteAndWaitOnInvalidSignature", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		prepared := p.prepare(t, p.prepareRequest(ext.id, dummyCreate(ext.id)))
		p.mustFail(t, "POST", "/v2/interactive-submission/executeAndWait", withSignatureCut(p.executeRequest(ext, prepared)), invalidSignature)
	})

	t.Run("ISSPrepareSubmissionFailExecuteOnInvalidSignatory", func(t *testing.T) {
		alice, bob := p.allocateExternal(t, p.next("alice")), p.allocateExternal(t, p.next("bob"))
		prepared := p.prepare(t, p.prepareRequest(alice.id, dummyCreate(alice.id)))
		p.mustFail(t, "POST", "/v2/interactive-submission/execute", p.executeRequest(bob, prepared),
			failure{code: "FAILED_TO_EXECUTE_TRANSACTION", cause: "The following actAs parties did not provide an external signature"})
	})

	t.Run("ISSExecuteSubmissionRequestWithInputContracts", func(t *testing.T) {
		owner, stranger := p.allocateExternal(t, p.next("owner")), p.allocateExternal(t, p.next("stranger"))
		cid, d := testExplicitDisclosure(t, owner.id, &owner)
		req := p.prepareRequest(stranger.id, publicFetch(owner.id, stranger.id, cid))
		req["disclosedContracts"] = []any{d}
		prepared := p.prepare(t, req)
		before := p.ledgerEnd(t)
		p.ok(t, "POST", "/v2/interactive-submission/execute", p.executeRequest(stranger, prepared), nil)
		p.firstCompletion(t, stranger.id, before)
		txs := p.updates(t, stranger.id, 0, nil, ledgerapi.TransactionShapeLedgerEffects)
		if len(txs) == 0 {
			t.Fatal("no transaction of the stranger")
		}
		tx := txs[0].Transaction
		if len(tx.Events) == 0 || tx.Events[0].Exercised == nil {
			t.Errorf("not an exercise: %+v", tx.Events)
		}
		if tx.ExternalTransactionHash == nil || *tx.ExternalTransactionHash != hex.EncodeToString(prepared.PreparedTransactionHash) {
			t.Errorf("external transaction hash %v, want %x", tx.ExternalTransactionHash, prepared.PreparedTransactionHash)
		}
	})

	t.Run("ISSExecuteSubmissionRequestFailOnEmptyInputContracts", func(t *testing.T) {
		owner, stranger := p.allocateExternal(t, p.next("owner")), p.allocateExternal(t, p.next("stranger"))
		cid, d := testExplicitDisclosure(t, owner.id, &owner)
		req := p.prepareRequest(stranger.id, publicFetch(owner.id, stranger.id, cid))
		req["disclosedContracts"] = []any{d}
		prepared := p.prepare(t, req)
		exec := p.executeRequest(stranger, prepared)
		editPrepared(t, exec, func(pt *damlpb.PreparedTransaction) { pt.Metadata.InputContracts = nil })
		p.mustFail(t, "POST", "/v2/interactive-submission/execute", exec,
			failure{code: "FAILED_TO_EXECUTE_TRANSACTION", cause: "Missing input contracts"})
	})

	duplicate := failure{code: "DUPLICATE_COMMAND", definite: true}
	t.Run("ISSDuplicateExecuteAndWaitForTransactionData", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		prepared := p.prepare(t, p.prepareRequest(ext.id, dummyCreate(ext.id)))
		req := p.executeRequest(ext, prepared)
		p.ok(t, "POST", "/v2/interactive-submission/executeAndWaitForTransaction", req, nil)
		p.mustFail(t, "POST", "/v2/interactive-submission/executeAndWaitForTransaction", req, duplicate)
	})

	t.Run("ISSDuplicateExecuteAndWaitData", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		prepared := p.prepare(t, p.prepareRequest(ext.id, dummyCreate(ext.id)))
		req := p.executeRequest(ext, prepared)
		p.ok(t, "POST", "/v2/interactive-submission/executeAndWait", req, nil)
		p.mustFail(t, "POST", "/v2/interactive-submission/executeAndWait", req, duplicate)
	})

	t.Run("ISSExecuteSubmissionAndWaitForTransactionFilterByTemplateId", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		created := executeAndWaitForTransaction(t, ext, createCmd(explodeTemplate, explodeArgs(ext.id)),
			transactionFormat([]string{ext.id}, ledgerapi.TransactionShapeACSDelta))
		if len(created.Events) == 0 || created.Events[0].Created == nil {
			t.Fatalf("The transaction should be defined: %+v", created)
		}
		cid := created.Events[0].Created.ContractID
		exercised := executeAndWaitForTransaction(t, ext, exerciseCmd(explodeTemplate, cid, "ProcessExplode", map[string]any{"winner": ext.id}),
			transactionFormat([]string{ext.id}, ledgerapi.TransactionShapeACSDelta, mergeTemplate))
		// The exercise creates a Merge and two Collapses; filtered by Merge,
		// only that one is left.
		if len(exercised.Events) != 1 || exercised.Events[0].Created == nil {
			t.Fatalf("want one created event, got %+v", exercised.Events)
		}
		if got, want := exercised.Events[0].Created.TemplateID, mainPackage(t, ping)+":Canton.Internal.Bong:Merge"; got != want {
			t.Errorf("template id %s, want %s", got, want)
		}
	})

	t.Run("ISSExecuteAndWaitForTransactionBasic", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		assertOnTransactionResponse(t, executeAndWaitForTransaction(t, ext, dummyCreate(ext.id),
			transactionFormat([]string{ext.id}, ledgerapi.TransactionShapeACSDelta)))
	})

	t.Run("ISSExecuteAndWaitForTransactionNoFilter", func(t *testing.T) {
		ext := p.allocateExternal(t, p.next("ext"))
		assertOnTransactionResponse(t, executeAndWaitForTransaction(t, ext, dummyCreate(ext.id), nil))
	})

	t.Run("ISSExecuteAndWaitForTransactionFilterByWrongParty", func(t *testing.T) {
		ext, other := p.allocateExternal(t, p.next("ext")), p.allocateExternal(t, p.next("other"))
		for _, shape := range []ledgerapi.TransactionShape{ledgerapi.TransactionShapeACSDelta, ledgerapi.TransactionShapeLedgerEffects} {
			tx := executeAndWaitForTransaction(t, ext, dummyCreate(ext.id), transactionFormat([]string{other.id}, shape))
			if len(tx.Events) != 0 {
				t.Errorf("%s: No events should have been into the transaction: %+v", shape, tx.Events)
			}
		}
	})

	invalidSynchronizer := failure{code: "INVALID_FIELD", definite: true,
		cause: "Invalid field synchronizer_id: Unable to convert field `synchronizer_id`: Unable to parse `invalidSynchronizerId` as physical synchronizer id"}
	for _, c := range []struct{ name, path string }{
		{"ISSExecuteAndWaitInvalidSynchronizerId", "/v2/interactive-submission/executeAndWait"},
		{"ISSExecuteAndWaitForTransactionInvalidSynchronizerId", "/v2/interactive-submission/executeAndWaitForTransaction"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ext := p.allocateExternal(t, p.next("ext"))
			prepared := p.prepare(t, p.prepareRequest(ext.id, dummyCreate(ext.id)))
			req := p.executeRequest(ext, prepared)
			editPrepared(t, req, func(pt *damlpb.PreparedTransaction) { pt.Metadata.SynchronizerId = "invalidSynchronizerId" })
			p.mustFail(t, "POST", c.path, req, invalidSynchronizer)
		})
	}

	// Dummy's package (model-tests) and DivulgenceProposal's
	// (semantic-tests) are Ping's and the test token's here.
	pingRef := ledgerapi.PackageReference{PackageID: mainPackage(t, ping), PackageName: "canton-builtin-admin-workflow-ping", PackageVersion: "3.4.0"}
	tokenRef := ledgerapi.PackageReference{PackageID: mainPackage(t, token), PackageName: "splice-test-token-v1", PackageVersion: "1.0.0"}
	preferredPackages := func(name string, parties []string, synchronizerID string, more ...ledgerapi.PackageVettingRequirement) map[string]any {
		reqs := append([]ledgerapi.PackageVettingRequirement{{Parties: parties, PackageName: name}}, more...)
		return map[string]any{"packageVettingRequirements": reqs, "synchronizerId": synchronizerID}
	}
	preferredVersion := func(name string, parties []string, synchronizerID string) string {
		q := "/v2/interactive-submission/preferred-package-version?package-name=" + name
		for _, party := range parties {
			q += "&parties=" + party
		}
		if synchronizerID != "" {
			q += "&synchronizer-id=" + synchronizerID
		}
		return q
	}

	t.Run("ISSPreferredPackagesKnown", func(t *testing.T) {
		a, b := p.allocate(t, "party"), p.allocate(t, "party")
		var resp ledgerapi.GetPreferredPackagesResponse
		p.ok(t, "POST", "/v2/interactive-submission/preferred-packages",
			preferredPackages(pingRef.PackageName, []string{a, b}, "", ledgerapi.PackageVettingRequirement{Parties: []string{a, b}, PackageName: tokenRef.PackageName}), &resp)
		got := map[string]ledgerapi.PackageReference{}
		for _, r := range resp.PackageReferences {
			got[r.PackageID] = r
		}
		if len(got) != 2 || got[pingRef.PackageID] != pingRef || got[tokenRef.PackageID] != tokenRef {
			t.Errorf("package references %+v, want %+v and %+v", resp.PackageReferences, pingRef, tokenRef)
		}
	})

	t.Run("ISSPreferredPackagesUnknownParty", func(t *testing.T) {
		for _, party := range []string{"invalid-party", "unknownParty::ns"} {
			p.mustFail(t, "POST", "/v2/interactive-submission/preferred-packages", preferredPackages(pingRef.PackageName, []string{party}, ""),
				failure{code: "UNKNOWN_INFORMEES"})
		}
	})

	t.Run("ISSPreferredPackagesUnknownPackageName", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/interactive-submission/preferred-packages", preferredPackages("What-Is-A-Package-Name?", []string{party}, ""),
			failure{code: "INVALID_FIELD", cause: "package_name/packageName"})
		p.mustFail(t, "POST", "/v2/interactive-submission/preferred-packages", preferredPackages("NoSuchPackage", []string{party}, ""),
			failure{code: "PACKAGE_NAMES_NOT_FOUND"})
	})

	t.Run("ISSPreferredPackagesUnknownSynchronizerId", func(t *testing.T) {
		a, b := p.allocate(t, "party"), p.allocate(t, "party")
		p.mustFail(t, "POST", "/v2/interactive-submission/preferred-packages", preferredPackages(pingRef.PackageName, []string{a, b}, "invalidSyncId"),
			failure{code: "INVALID_FIELD", cause: "synchronizer_id/synchronizerId"})
		p.mustFail(t, "POST", "/v2/interactive-submission/preferred-packages", preferredPackages(pingRef.PackageName, []string{a, b}, "unknownSynchronizerId::ns"),
			failure{code: "INVALID_PRESCRIBED_SYNCHRONIZER_ID"})
	})

	t.Run("ISSPreferredPackageVersionKnown", func(t *testing.T) {
		a, b := p.allocate(t, "party"), p.allocate(t, "party")
		var resp ledgerapi.GetPreferredPackageVersionResponse
		p.ok(t, "GET", preferredVersion(pingRef.PackageName, []string{a, b}, ""), nil, &resp)
		if resp.PackagePreference == nil || resp.PackagePreference.PackageReference != pingRef {
			t.Errorf("Invalid preference response: %+v", resp)
		}
	})

	t.Run("ISSPreferredPackageVersionUnknownParty", func(t *testing.T) {
		for _, party := range []string{"invalid-party", "unknownParty::ns"} {
			p.mustFail(t, "GET", preferredVersion(pingRef.PackageName, []string{party}, ""), nil, failure{code: "UNKNOWN_INFORMEES"})
		}
	})

	t.Run("ISSPreferredPackageVersionUnknownPackageName", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.mustFail(t, "GET", preferredVersion("What-Is-A-Package-Name%3F", []string{party}, ""), nil,
			failure{code: "INVALID_FIELD", cause: "package_name/packageName"})
		p.mustFail(t, "GET", preferredVersion("NoSuchPackage", []string{party}, ""), nil, failure{code: "PACKAGE_NAMES_NOT_FOUND"})
	})

	t.Run("ISSPreferredPackageVersionUnknownSynchronizerId", func(t *testing.T) {
		a, b := p.allocate(t, "party"), p.allocate(t, "party")
		p.mustFail(t, "GET", preferredVersion(pingRef.PackageName, []string{a, b}, "invalidSyncId"), nil,
			failure{code: "INVALID_FIELD", cause: "synchronizer_id/synchronizerId"})
		p.mustFail(t, "GET", preferredVersion(pingRef.PackageName, []string{a, b}, "unknownSynchronizerId%3A%3Ans"), nil,
			failure{code: "INVALID_PRESCRIBED_SYNCHRONIZER_ID"})
	})
}

// ExternalPartyManagementServiceIT.scala.
func TestExternalPartyManagementServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	t.Run("PMAllocateExternalPartyBasic", func(t *testing.T) {
		party := p.allocateExternal(t, "alice")
		if !strings.HasPrefix(party.id, "alice::") {
			t.Errorf("The allocated party identifier %s does not contain the party hint", party.id)
		}
		var get ledgerapi.GetPartiesResponse
		p.ok(t, "GET", "/v2/parties/"+party.id, nil, &get)
		found := false
		for _, d := range get.PartyDetails {
			found = found || d.Party == party.id
		}
		if !found {
			t.Errorf("Expected to list allocated party: %+v", get.PartyDetails)
		}
	})
}
