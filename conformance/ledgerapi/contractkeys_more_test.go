package ledgerapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

const (
	ckMultiParty = "#ck-keys-tests:Test:MultiPartyContract"
	ckTKO        = "#ck-keys-tests:Test:TextKeyOperations"
)

// ContractKeysMultiPartySubmissionIT.scala: fetch and lookup by key of a
// MultiPartyContract (keyed by itself, maintained by its parties) through
// another, with read delegation (readAs), without enough authorization,
// and without visibility.
func TestContractKeysMultiPartySubmissionIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, keysModel()))
	const submitAndWait = "/v2/commands/submit-and-wait"
	// createMPC creates a MultiPartyContract of submitters and returns it and its key.
	createMPC := func(t *testing.T, submitters ...string) (string, map[string]any) {
		t.Helper()
		args := map[string]any{"parties": submitters, "value": p.next("value")}
		tx := p.transaction(t, submitters, createCmd(ckMultiParty, args))
		return createdEvents(tx)[0].ContractID, args
	}
	four := func(t *testing.T) (string, string, string, string) {
		return p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "charlie"), p.allocate(t, "david")
	}
	// exercise is the choice on contractB as charlie and david, reading as readAs.
	exercise := func(contractB, choice string, arg map[string]any, charlie, david string, readAs ...string) map[string]any {
		body := p.jsCommands([]string{charlie, david}, exerciseCmd(ckMultiParty, contractB, choice, arg))
		body["readAs"] = readAs
		return body
	}
	fetchArg := func(key map[string]any, actors ...string) map[string]any {
		return map[string]any{"keyToFetch": key, "actors": actors}
	}
	lookupArg := func(key map[string]any, expected string, actors ...string) map[string]any {
		return map[string]any{"keyToFetch": key, "actors": actors, "expectedCid": expected}
	}

	t.Run("MPSFetchOtherByKeyOtherSuccess", func(t *testing.T) {
		alice, bob, charlie, david := four(t)
		_, keyA := createMPC(t, alice, bob)
		contractB, _ := createMPC(t, alice, bob, charlie, david)
		p.ok(t, "POST", submitAndWait, exercise(contractB, "MPFetchOtherByKey", fetchArg(keyA, charlie, david), charlie, david, alice), nil)
	})
	t.Run("MPSFetchOtherByKeyInsufficientAuthorization", func(t *testing.T) {
		alice, bob, charlie, david := four(t)
		_, keyA := createMPC(t, alice, bob)
		contractB, _ := createMPC(t, charlie, david)
		p.mustFail(t, "POST", submitAndWait, exercise(contractB, "MPFetchOtherByKey", fetchArg(keyA, charlie, david), charlie, david, bob, alice),
			failure{code: "DAML_AUTHORIZATION_ERROR", cause: "of the fetched contract to be an authorizer, but authorizers were", definite: true})
	})
	t.Run("MPSFetchOtherByKeyInvisible", func(t *testing.T) {
		alice, bob, charlie, david := four(t)
		_, keyA := createMPC(t, alice, bob)
		contractB, _ := createMPC(t, alice, bob, charlie, david)
		p.mustFail(t, "POST", submitAndWait, exercise(contractB, "MPFetchOtherByKey", fetchArg(keyA, charlie, david), charlie, david),
			failure{code: "CONTRACT_KEY_NOT_FOUND", cause: "dependency error: couldn't find key", definite: true})
	})
	t.Run("MPSLookupOtherByKeyOtherSuccess", func(t *testing.T) {
		alice, bob, charlie, david := four(t)
		contractA, keyA := createMPC(t, alice, bob)
		contractB, _ := createMPC(t, alice, bob, charlie, david)
		p.ok(t, "POST", submitAndWait, exercise(contractB, "MPLookupOtherByKey", lookupArg(keyA, contractA, charlie, david), charlie, david, alice), nil)
	})
	t.Run("MPSLookupOtherByKeyInsufficientAuthorization", func(t *testing.T) {
		alice, bob, charlie, david := four(t)
		contractA, keyA := createMPC(t, alice, bob)
		contractB, _ := createMPC(t, charlie, david)
		e := p.mustFail(t, "POST", submitAndWait, exercise(contractB, "MPLookupOtherByKey", lookupArg(keyA, contractA, charlie, david), charlie, david, bob, alice),
			failure{code: "DAML_AUTHORIZATION_ERROR", definite: true})
		if re := regexp.MustCompile("requires authorizers (.*) for lookup by key, but it only has"); e != nil && !re.MatchString(e.Cause) {
			t.Errorf("cause %q does not match %s", e.Cause, re)
		}
	})
	t.Run("MPSLookupOtherByKeyInvisible", func(t *testing.T) {
		alice, bob, charlie, david := four(t)
		contractA, keyA := createMPC(t, alice, bob)
		contractB, _ := createMPC(t, alice, bob, charlie, david)
		e := p.mustFail(t, "POST", submitAndWait, exercise(contractB, "MPLookupOtherByKey", lookupArg(keyA, contractA, charlie, david), charlie, david),
			failure{code: "DAML_FAILURE", cause: "LookupOtherByKey value matches", definite: true})
		const choice = "[0-9a-f]{8}:Test:MultiPartyContract:MPLookupOtherByKey"
		trace := regexp.MustCompile(`    in choice ` + choice + ` on contract [0-9a-f]{10} \(#0\)\n    in exercise command ` + choice + ` on contract [0-9a-f]{10}\.`)
		if e != nil && !trace.MatchString(e.Context["exercise_trace"]) {
			t.Errorf("exercise_trace %q does not match %s", e.Context["exercise_trace"], trace)
		}
		if e != nil && e.ErrorCategory != 9 {
			t.Errorf("category %d, want 9 (InvalidGivenCurrentSystemStateOther)", e.ErrorCategory)
		}
	})
}

// ContractKeysDivulgenceIT.scala: an owner accepts a proposal by
// transferring a keyed asset; the workflow ending is the test.
func TestContractKeysDivulgenceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, keysModel()))
	t.Run("DivulgenceKeys", func(t *testing.T) {
		proposer, owner := p.allocate(t, "proposer"), p.allocate(t, "owner")
		offer := p.create(t, proposer, "#ck-keys-tests:Test:Proposal", map[string]any{"from": proposer, "to": owner})
		asset := p.create(t, owner, "#ck-keys-tests:Test:Asset", map[string]any{"issuer": owner, "owner": owner})
		p.exercise(t, owner, "#ck-keys-tests:Test:Proposal", offer, "ProposalAccept", map[string]any{"asset": asset})
	})
}

// postStatus posts body to path as the admin and returns the HTTP status
// (0 when the request could not be sent): safe from any goroutine.
func (p *participant) postStatus(path string, body any) int {
	raw, err := json.Marshal(body)
	if err != nil {
		return 0
	}
	req, err := http.NewRequest("POST", p.url+path, bytes.NewReader(raw))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	if p.admin != "" {
		req.Header.Set("Authorization", "Bearer "+p.admin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// ContractKeysCommandDeduplicationIT.scala: of two competing
// TKOFetchAndRecreate on one key, one may fail; the failed command,
// resubmitted with a fresh submission id, is not deduplicated and succeeds.
func TestContractKeysCommandDeduplicationIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, keysModel()))
	t.Run("StopOnCompletionFailure", func(t *testing.T) {
		party := p.allocate(t, "party")
		key := p.next("key")
		ko := p.create(t, party, ckTKO, map[string]any{"tkoParty": party})
		p.create(t, party, ckTextKey, map[string]any{"tkParty": party, "tkKey": key, "tkDisclosedTo": []string{}})
		requests := make([]map[string]any, 2)
		for i := range requests {
			requests[i] = p.jsCommands([]string{party}, exerciseCmd(ckTKO, ko, "TKOFetchAndRecreate",
				map[string]any{"keyToFetch": map[string]any{"_1": party, "_2": key}}))
		}
		status := make([]int, 2)
		var wg sync.WaitGroup
		for i, r := range requests {
			wg.Add(1)
			go func() { defer wg.Done(); status[i] = p.postStatus("/v2/commands/submit-and-wait", r) }()
		}
		wg.Wait()
		for i, s := range status {
			if s == 0 {
				t.Fatalf("request %d could not be sent", i)
			}
			if s != 200 {
				requests[i]["submissionId"] = p.next("submission")
				p.ok(t, "POST", "/v2/commands/submit-and-wait", requests[i], nil)
				break
			}
		}
	})
}

// ContractKeysExplicitDisclosureIT.scala: a party that does not see a
// keyed contract exercises it by key once given it as a disclosed contract.
func TestContractKeysExplicitDisclosureIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, keysModel()))
	t.Run("EDExerciseByKeyDisclosedContract", func(t *testing.T) {
		owner, divulgee := p.allocate(t, "owner"), p.allocate(t, "divulgee")
		p.ok(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{owner}, createCmd(ckWithKey, map[string]any{"p": owner})), nil)
		txs := p.transactionsIn(t, ledgerapi.EventFormatOf([]string{owner}, []string{ckWithKey}, nil, true), ledgerapi.TransactionShapeACSDelta, 0, p.ledgerEnd(t))
		if len(txs) != 1 {
			t.Fatalf("%d transactions, want one", len(txs))
		}
		disclosed := disclosedOf(createdEvents(txs[0])[0])
		request := func() map[string]any {
			return p.jsCommands([]string{divulgee}, exerciseByKeyCmd(ckWithKey, owner, "WithKey_NoOp", map[string]any{"divulgee": divulgee}))
		}
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", request(), failure{code: "CONTRACT_KEY_NOT_FOUND", definite: true})
		body := request()
		body["disclosedContracts"] = []any{disclosed}
		p.ok(t, "POST", "/v2/commands/submit-and-wait", body, nil)
	})
}

// PrefetchContractKeysIT.scala: prefetchContractKeys on submit and on
// prepare, a key of the wrong type refused, and a thousand prefetched
// keys looked up in one submission. CSprefetchContractPrepareKeysMany and
// the two wrongly typed cases are differences (Canton excludes them:
// docs/conformance.md).
func TestPrefetchContractKeysIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, withTuple2(t, keysModel()))
	const submitAndWait, prepare = "/v2/commands/submit-and-wait", "/v2/interactive-submission/prepare"
	prefetch := func(template string, key any) map[string]any {
		return map[string]any{"templateId": template, "contractKey": key}
	}
	createWithKey := func(party string) map[string]any { return createCmd(ckWithKey, map[string]any{"p": party}) }

	t.Run("CSprefetchContractKeysBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.jsCommands([]string{party}, createWithKey(party))
		body["prefetchContractKeys"] = []any{prefetch(ckWithKey, party)}
		p.ok(t, "POST", submitAndWait, body, nil)
		active := p.activeContracts(t, party)
		if len(active) != 1 {
			t.Fatalf("%d active contracts, want 1", len(active))
		}
		if !strings.HasSuffix(active[0].TemplateID, ":Test:WithKey") {
			t.Errorf("template %s, want WithKey", active[0].TemplateID)
		}
	})
	t.Run("CSprefetchContractKeysPrepareEndpointBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		body := p.prepareRequest(party, createWithKey(party))
		body["hashingSchemeVersion"] = "HASHING_SCHEME_VERSION_V3"
		body["prefetchContractKeys"] = []any{prefetch(ckWithKey, party)}
		if resp := p.prepare(t, body); len(resp.PreparedTransaction) == 0 {
			t.Error("no prepared transaction")
		}
	})
	// CSprefetchContractKeysWronglyTyped and its prepare twin expect the
	// engine's COMMAND_PREPROCESSING_FAILED "mismatching type" for a typed
	// gRPC Value; Canton's JSON run excludes both (ExcludedTests.scala:
	// jsonApiExcludedTests). Over JSON the key is read against the named
	// template's key type, so a WithKey key (a party) under TextKey is
	// refused there: INVALID_ARGUMENT naming the field (docs/conformance.md).
	t.Run("WronglyTypedKeyIsInvalidJSON", func(t *testing.T) {
		party := p.allocate(t, "party")
		invalid := failure{code: "INVALID_ARGUMENT", cause: "found a JSON string at prefetchContractKeys[0].contractKey"}
		body := p.jsCommands([]string{party}, createWithKey(party))
		body["prefetchContractKeys"] = []any{prefetch(ckTextKey, party)}
		p.mustFail(t, "POST", submitAndWait, body, invalid)
		body = p.prepareRequest(party, createWithKey(party))
		body["prefetchContractKeys"] = []any{prefetch(ckTextKey, party)}
		p.mustFail(t, "POST", prepare, body, invalid)
	})
	t.Run("CSprefetchContractKeysMany", func(t *testing.T) {
		party := p.allocate(t, "party")
		const numPrefetches, existingKeyIndex = 1000, 10
		textKey := p.create(t, party, ckTextKey, map[string]any{"tkParty": party, "tkKey": "key10", "tkDisclosedTo": []string{}})
		ops := p.create(t, party, ckTKO, map[string]any{"tkoParty": party})
		var prefetches []any
		var cmds []map[string]any
		for i := 1; i <= numPrefetches; i++ {
			key := map[string]any{"_1": party, "_2": fmt.Sprintf("key%d", i)}
			prefetches = append(prefetches, prefetch(ckTextKey, key))
			var expected any
			if i == existingKeyIndex {
				expected = textKey
			}
			cmds = append(cmds, exerciseCmd(ckTKO, ops, "TKOLookup", map[string]any{"keyToLookup": key, "expected": expected}))
		}
		body := p.jsCommands([]string{party}, cmds...)
		body["prefetchContractKeys"] = prefetches
		p.ok(t, "POST", submitAndWait, body, nil)
	})
}
