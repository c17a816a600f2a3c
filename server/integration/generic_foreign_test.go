package integration

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestGenericForeignDisclosedExecute (issue 22): an external party of one
// node prepares a nonconsuming exercise of a generic-model contract of
// another node, given by its created_event_blob as a disclosed contract,
// signs it and executes it. Execute authenticates the input contract's
// blob and uses it, as Canton does with a disclosed contract, instead of
// looking for it in the store (CONTRACT_NOT_ACTIVE before); the store is
// asked neither to check nor to archive a contract it does not hold.
func TestGenericForeignDisclosedExecute(t *testing.T) {
	a := startCommandNode(t, auth.ModeNone, node.Config{})
	owner := a.allocate("Owner").Party
	cid := a.tree("c-1", []string{owner}, create(owner, "10")).EventsByID["0"].Created.ContractID
	var page ledgerapi.JsGetActiveContractsPageResponse
	a.ok("POST", "/v2/state/active-contracts-page", "", map[string]any{"eventFormat": map[string]any{"filtersByParty": map[string]any{
		owner: map[string]any{"cumulative": []any{map[string]any{"identifierFilter": map[string]any{"WildcardFilter": map[string]any{
			"value": map[string]any{"includeCreatedEventBlob": true}}}}}}}}}, &page)
	if len(page.ActiveContracts) != 1 {
		t.Fatalf("active contracts of the owner: %+v", page.ActiveContracts)
	}
	blob := page.ActiveContracts[0].ContractEntry.ActiveContract.CreatedEvent.CreatedEventBlob

	b := startCommandNode(t, auth.ModeHS256, node.Config{NonconsumingChoices: []string{"Observe"}})
	ext, key := b.onboard("Ext", "wallet")
	wallet := b.token("wallet")
	body := prepareBody("observe-1", []string{ext}, exercise(cid, "Observe"))
	body["disclosedContracts"] = []any{map[string]any{"contractId": cid, "templateId": iouTemplate, "createdEventBlob": blob}}
	p := b.prepare(wallet, body)
	var done ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
	b.ok("POST", "/v2/interactive-submission/executeAndWaitForTransaction", wallet, executeBody(p, ext, key, "s-1"), &done)
	if done.Transaction.ExternalTransactionHash == nil {
		t.Errorf("transaction %+v has no external hash", done.Transaction)
	}
	// A blob changed in one byte is refused at prepare.
	bad := []byte(blob)
	bad[len(bad)/2] ^= 1
	body["disclosedContracts"] = []any{map[string]any{"contractId": cid, "templateId": iouTemplate, "createdEventBlob": ledgerapi.Bytes(bad)}}
	body["commandId"] = "observe-2"
	if r := b.call("POST", "/v2/interactive-submission/prepare", wallet, body); r.status == 200 {
		t.Errorf("prepare with a changed blob: %d %s", r.status, r.body)
	}
}
