package ledgerapi

import (
	"encoding/base64"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The test tool's Delegated/Delegation pair is splice-test-token-v1's
// TokenRules here: the owner (its admin) creates it, the delegate fetches
// it through the token standard's TransferFactory_PublicFetch, which it
// may exercise (controller actor) but cannot without seeing the contract.
const (
	testTokenRules  = "#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenRules"
	transferFactory = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"
)

// ExplicitDisclosureIT.scala.
func TestExplicitDisclosureIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))

	// initializeTest: the owner's contract and its disclosure.
	initialize := func(t *testing.T, owner string) map[string]any {
		t.Helper()
		return disclosure(t, p, owner, p.create(t, owner, testTokenRules, map[string]any{"admin": owner}))
	}
	// exerciseFetchDelegated: the delegate's fetch of the owner's contract,
	// with the given disclosed contracts.
	fetch := func(owner, delegate string, disclosed ...map[string]any) map[string]any {
		cid := ""
		if len(disclosed) > 0 {
			cid, _ = disclosed[0]["contractId"].(string)
		}
		body := p.jsCommands([]string{delegate}, exerciseCmd(transferFactory, cid, "TransferFactory_PublicFetch",
			map[string]any{"expectedAdmin": owner, "actor": delegate}))
		if disclosed != nil {
			body["disclosedContracts"] = disclosed
		}
		return body
	}
	with := func(d map[string]any, key string, v any) map[string]any {
		out := map[string]any{}
		for k, x := range d {
			out[k] = x
		}
		out[key] = v
		return out
	}

	t.Run("EDCorrectCreatedEventBlobDisclosure", func(t *testing.T) {
		owner, delegate := p.allocate(t, "owner"), p.allocate(t, "delegate")
		d := initialize(t, owner)
		undisclosed := fetch(owner, delegate, d)
		delete(undisclosed, "disclosedContracts")
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", undisclosed, failure{code: "CONTRACT_NOT_FOUND", definite: true})
		p.ok(t, "POST", "/v2/commands/submit-and-wait", fetch(owner, delegate, d), nil)
	})

	t.Run("EDMalformedDisclosedContractCreatedEventBlob", func(t *testing.T) {
		owner, delegate := p.allocate(t, "owner"), p.allocate(t, "delegate")
		d := initialize(t, owner)
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait",
			fetch(owner, delegate, with(d, "createdEventBlob", base64.StdEncoding.EncodeToString([]byte("foo")))),
			failure{code: "INVALID_ARGUMENT", definite: true,
				cause: "The submitted request has invalid arguments: Unable to decode disclosed contract event payload: DecodeError"})
	})

	t.Run("EDInconsistentDisclosedContract", func(t *testing.T) {
		// The Scala case swaps the contract's salt for another contract's;
		// here the whole blob of another TokenRules of the delegate stands
		// in for the owner's. The Scala case only asserts a failure.
		owner, delegate := p.allocate(t, "owner"), p.allocate(t, "delegate")
		d := initialize(t, owner)
		other := initialize(t, delegate)
		a := p.do(t, "POST", "/v2/commands/submit-and-wait", p.admin, fetch(owner, delegate, with(d, "createdEventBlob", other["createdEventBlob"])))
		if a.status == 200 {
			t.Errorf("an inconsistent disclosed contract was accepted: %s", a.body)
		}
	})

	t.Run("EDSuperfluousDisclosure", func(t *testing.T) {
		// The superfluous contract is another TokenRules of the owner (a
		// Dummy in Scala), archived before the last submission.
		owner, delegate := p.allocate(t, "owner"), p.allocate(t, "delegate")
		d := initialize(t, owner)
		extraCid := p.create(t, owner, testTokenRules, map[string]any{"admin": owner})
		extra := disclosure(t, p, owner, extraCid)
		p.ok(t, "POST", "/v2/commands/submit-and-wait", fetch(owner, delegate, d), nil)
		p.ok(t, "POST", "/v2/commands/submit-and-wait", fetch(owner, delegate, d, extra), nil)
		p.exercise(t, owner, testTokenRules, extraCid, "Archive", nil)
		p.ok(t, "POST", "/v2/commands/submit-and-wait", fetch(owner, delegate, d, extra), nil)
	})

	t.Run("EDArchivedDisclosedContracts", func(t *testing.T) {
		owner, delegate := p.allocate(t, "owner"), p.allocate(t, "delegate")
		d := initialize(t, owner)
		p.exercise(t, owner, testTokenRules, d["contractId"].(string), "Archive", nil)
		a := p.do(t, "POST", "/v2/commands/submit-and-wait", p.admin, fetch(owner, delegate, d))
		if a.status == 200 {
			t.Errorf("an archived disclosed contract was used: %s", a.body)
		}
	})

	t.Run("EDDuplicates", func(t *testing.T) {
		// The same disclosed contract twice, with the same payload, is
		// accepted (a create of the generic model's Dummy in Scala, the
		// fetch here).
		owner, delegate := p.allocate(t, "owner"), p.allocate(t, "delegate")
		d := initialize(t, owner)
		p.ok(t, "POST", "/v2/commands/submit-and-wait", fetch(owner, delegate, d), nil)
		p.ok(t, "POST", "/v2/commands/submit-and-wait", fetch(owner, delegate, d, d), nil)
	})

	t.Run("EDRejectOnCreatedEventBlobNotSet", func(t *testing.T) {
		owner, delegate := p.allocate(t, "owner"), p.allocate(t, "delegate")
		d := initialize(t, owner)
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", fetch(owner, delegate, with(d, "createdEventBlob", "")),
			failure{code: "MISSING_FIELD", definite: true,
				cause: "The submitted command is missing a mandatory field: DisclosedContract.createdEventBlob"})
	})
}

// disclosure is the disclosed contract of the owner's TokenRules cid, read
// from the owner's active contracts with its created event blob.
func disclosure(t *testing.T, p *participant, owner, cid string) map[string]any {
	t.Helper()
	var els []ledgerapi.JsGetActiveContractsResponse
	p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t),
		"eventFormat": ledgerapi.EventFormatOf([]string{owner}, []string{testTokenRules}, nil, true)}, &els)
	for _, el := range els {
		if ac := el.ContractEntry.ActiveContract; ac != nil && ac.CreatedEvent.ContractID == cid {
			if len(ac.CreatedEvent.CreatedEventBlob) == 0 {
				t.Fatal("the owner's active contract has no created event blob")
			}
			return map[string]any{"templateId": testTokenRules, "contractId": cid,
				"createdEventBlob": base64.StdEncoding.EncodeToString(ac.CreatedEvent.CreatedEventBlob), "synchronizerId": ""}
		}
	}
	t.Fatalf("the owner's contract %s is not in its active contracts", cid)
	return nil
}
