package integration

import (
	"bytes"
	"regexp"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/value"
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

func mustUnmarshalProto(t *testing.T, b []byte, m proto.Message) {
	t.Helper()
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
}
