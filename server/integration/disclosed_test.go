package integration

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestDisclosedBlobAnswersOutsidersAlike: a party that is no stakeholder
// of a Ping sends AbortPing with the blob the active contract set gave
// (Canton's FatContractInstance, byte for byte: no field of the node's
// own), which goes through, also after a restart. The same blob with
// another salt, another created_at or another argument is
// DISCLOSED_CONTRACT_AUTHENTICATION_FAILED, and answered with the same
// bytes as the same blob under a contract id the node does not hold: the
// answer cannot confirm a guess of the Ping.
func TestDisclosedBlobAnswersOutsidersAlike(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	n.ok("POST", "/v2/dars", "", archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), nil)
	initiator, responder := n.allocate("Initiator").Party, n.allocate("Responder").Party
	outsider := n.allocate("Outsider").Party
	cid := n.tree("ping-1", []string{initiator}, pingCreate(initiator, responder, "p1")).EventsByID["0"].Created.ContractID
	if len(cid) != 138 || cid[66:70] != "ca12" {
		t.Fatalf("contract id %s is not a suffixed ca12 id", cid)
	}

	var page ledgerapi.JsGetActiveContractsPageResponse
	n.ok("POST", "/v2/state/active-contracts-page", "", map[string]any{"eventFormat": map[string]any{"filtersByParty": map[string]any{
		initiator: map[string]any{"cumulative": []any{map[string]any{"identifierFilter": map[string]any{"WildcardFilter": map[string]any{
			"value": map[string]any{"includeCreatedEventBlob": true}}}}}}}}}, &page)
	given := []byte(page.ActiveContracts[0].ContractEntry.ActiveContract.CreatedEvent.CreatedEventBlob)
	c, err := contract.DecodeBlob(given)
	if err != nil {
		t.Fatalf("the node's blob is not Canton's: %v", err)
	}
	if again, _ := contract.EncodeBlob(c); !bytes.Equal(again, given) {
		t.Fatalf("the node's blob is not exactly Canton's encoding of its contract:\n %x\n %x", given, again)
	}
	variant := func(edit func(c *contract.Contract)) []byte {
		c, _ := contract.DecodeBlob(given)
		edit(c)
		b, err := contract.EncodeBlob(c)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	unheld := cid[:2] + "ff" + cid[4:]
	if unheld == cid {
		unheld = cid[:2] + "00" + cid[4:]
	}
	abort := func(id string, blob []byte) response {
		r := n.call("POST", "/v2/commands/submit-and-wait", "", commands("abort", []string{outsider},
			[]map[string]any{damlExercise(pingTemplate, id, "AbortPing", map[string]any{"anyone": outsider})},
			map[string]any{"userId": damlUser, "submissionId": "s-1", "disclosedContracts": []any{map[string]any{
				"contractId": id, "templateId": pingTemplate, "createdEventBlob": blob}}}))
		r.body = bytes.ReplaceAll(withoutRequestIDs(r.body), []byte(id), []byte("CID"))
		return r
	}
	for name, edit := range map[string]func(c *contract.Contract){
		"another salt":       func(c *contract.Contract) { c.AuthenticationData = contract.AuthenticationDataV1(contract.Salt{7}) },
		"another created_at": func(c *contract.Contract) { c.CreatedAt-- },
		"another argument": func(c *contract.Contract) {
			r := c.Argument.(*value.Record)
			fields := append([]value.Field(nil), r.Fields...)
			fields[0].Value = value.Text("p2")
			c.Argument = &value.Record{Fields: fields}
		},
	} {
		held := variant(edit)
		none := variant(func(c *contract.Contract) { edit(c); c.ID = value.ContractID(unheld) })
		a, b := abort(cid, held), abort(unheld, none)
		if a.status != 400 || !bytes.Contains(a.body, []byte("DISCLOSED_CONTRACT_AUTHENTICATION_FAILED")) {
			t.Fatalf("%s: %d %s", name, a.status, a.body)
		}
		if a.status != b.status || !bytes.Equal(a.body, b.body) {
			t.Errorf("%s: the answers tell the Ping from a contract the node does not hold:\n held %d %s\n none %d %s", name, a.status, a.body, b.status, b.body)
		}
	}
	// The blob needs no secret of the node: it outlives a restart.
	if err := n.run.Close(); err != nil {
		t.Fatal(err)
	}
	n.run = serve(t, local.Config{DBPath: n.dbPath}, server.Config{Auth: auth.Config{Mode: auth.ModeNone}})
	n.url = n.run.URL()
	if r := abort(cid, given); r.status != 200 {
		t.Errorf("the blob the node gave out, after a restart: %d %s", r.status, r.body)
	}
}

var requestIDs = regexp.MustCompile(`"(correlationId|traceId|tid)":"[0-9a-f]*"`)

func withoutRequestIDs(body []byte) []byte {
	return requestIDs.ReplaceAll(body, []byte(`"$1":""`))
}

// TestRealCantonContractsOnServe is issue 22's item 4 on a started node:
// the five input contracts of a real Canton Coin transfer
// (testdata/vectors/npm-peers/golden-ledgerhq-v2.tsv: ca10 and ca11 ids
// Canton made, blobs from the prepared transaction's metadata), disclosed
// to commands of a local party that read them: AmuletRules_Fetch,
// OpenMiningRound_Fetch, and ExternalPartyAmuletRules_CreateTransferCommand
// on the ExternalPartyAmuletRules created under splice-amulet 0.1.6
// (979ec710…) and exercised through 0.1.14.
func TestRealCantonContractsOnServe(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	for _, dar := range []string{"splice-amulet-0.1.14.dar", "splice-amulet-0.1.6.dar"} {
		n.ok("POST", "/v2/dars", "", sharedDar(t, dar), nil)
	}
	validator := n.allocate("Validator").Party
	pt, err := vectors.FirstPrepared(filepath.Join("..", "..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	var disclosed []any
	ids := map[string]string{}
	dso := ""
	for _, ic := range pt.GetMetadata().GetInputContracts() {
		c, err := contract.DecodeBlob(ic.GetEventBlob())
		if err != nil {
			t.Fatal(err)
		}
		ids[c.TemplateID.EntityName] = string(c.ID)
		dso = c.Signatories[0]
		disclosed = append(disclosed, map[string]any{"contractId": string(c.ID), "createdEventBlob": ic.GetEventBlob()})
	}
	const pkg = "3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1"
	for i, tc := range []struct {
		entity, tmpl, choice string
		arg                  map[string]any
	}{
		{"AmuletRules", pkg + ":Splice.AmuletRules:AmuletRules", "AmuletRules_Fetch", map[string]any{"p": validator}},
		{"OpenMiningRound", pkg + ":Splice.Round:OpenMiningRound", "OpenMiningRound_Fetch", map[string]any{"p": validator}},
		{"ExternalPartyAmuletRules", pkg + ":Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules", "ExternalPartyAmuletRules_CreateTransferCommand",
			map[string]any{"sender": validator, "receiver": validator, "delegate": validator, "amount": "1.0",
				"expiresAt": "2100-01-01T00:00:00Z", "nonce": "0", "description": nil, "expectedDso": dso}},
	} {
		r := n.call("POST", "/v2/commands/submit-and-wait", "", commands(fmt.Sprint("real-", i), []string{validator},
			[]map[string]any{damlExercise(tc.tmpl, ids[tc.entity], tc.choice, tc.arg)},
			map[string]any{"userId": damlUser, "disclosedContracts": disclosed}))
		if r.status != 200 {
			t.Errorf("%s with the real contracts disclosed: %d %s", tc.choice, r.status, r.body)
		}
	}
}
