package integration

import (
	"bytes"
	"regexp"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestDisclosedBlobAnswersOutsidersAlike: a party that is no stakeholder
// of a Ping sends AbortPing with a hand-built blob that describes the Ping
// exactly, and with one whose id field is a wrong guess: the two answers
// are the same bytes, so the answer cannot confirm a guess. The blob the
// node gave out (the active contract set's createdEventBlob) goes through.
func TestDisclosedBlobAnswersOutsidersAlike(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	n.ok("POST", "/v2/dars", "", archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), nil)
	initiator, responder := n.allocate("Initiator").Party, n.allocate("Responder").Party
	outsider := n.allocate("Outsider").Party
	cid := n.tree("ping-1", []string{initiator}, pingCreate(initiator, responder, "p1")).EventsByID["0"].Created.ContractID

	var page ledgerapi.JsGetActiveContractsPageResponse
	n.ok("POST", "/v2/state/active-contracts-page", "", map[string]any{"eventFormat": map[string]any{"filtersByParty": map[string]any{
		initiator: map[string]any{"cumulative": []any{map[string]any{"identifierFilter": map[string]any{"WildcardFilter": map[string]any{
			"value": map[string]any{"includeCreatedEventBlob": true}}}}}}}}}, &page)
	given := []byte(page.ActiveContracts[0].ContractEntry.ActiveContract.CreatedEvent.CreatedEventBlob)

	// The blob an outsider builds by hand from a right guess: the node's
	// bytes without the seal, which is the last field.
	ic := &damlpb.Metadata_InputContract{}
	mustUnmarshalProto(t, given, ic)
	ic.ProtoReflect().SetUnknown(nil)
	right, _ := proto.MarshalOptions{Deterministic: true}.Marshal(ic)
	if !bytes.HasPrefix(given, right) || len(given)-len(right) != protowire.SizeTag(19999)+1+32 {
		t.Fatalf("the node's blob is not the contract's encoding and a seal: %x", given)
	}
	for _, f := range ic.GetV1().GetArgument().GetRecord().GetFields() {
		if f.GetLabel() == "id" {
			f.Value = &damlpb.Value{Sum: &damlpb.Value_Text{Text: "p2"}}
		}
	}
	wrong, _ := proto.MarshalOptions{Deterministic: true}.Marshal(ic)

	abort := func(blob []byte) response {
		return n.call("POST", "/v2/commands/submit-and-wait", "", commands("abort", []string{outsider},
			[]map[string]any{damlExercise(pingTemplate, cid, "AbortPing", map[string]any{"anyone": outsider})},
			map[string]any{"userId": damlUser, "submissionId": "s-1", "disclosedContracts": []any{map[string]any{
				"contractId": cid, "templateId": pingTemplate, "createdEventBlob": blob}}}))
	}
	a, b := abort(right), abort(wrong)
	if a.status != 400 || !bytes.Contains(a.body, []byte("DISCLOSED_CONTRACT_AUTHENTICATION_FAILED")) {
		t.Fatalf("a right guess: %d %s", a.status, a.body)
	}
	// Every answer has ids of its own (correlationId, traceId); the rest
	// is the same bytes.
	a.body, b.body = withoutRequestIDs(a.body), withoutRequestIDs(b.body)
	if a.status != b.status || !bytes.Equal(a.body, b.body) {
		t.Errorf("the answers tell a right guess from a wrong one:\n right %d %s\n wrong %d %s", a.status, a.body, b.status, b.body)
	}
	// The seal outlives a restart: the blob was given out before it.
	if err := n.run.Close(); err != nil {
		t.Fatal(err)
	}
	n.run = serve(t, local.Config{DBPath: n.dbPath}, server.Config{Auth: auth.Config{Mode: auth.ModeNone}})
	n.url = n.run.URL()
	if r := abort(given); r.status != 200 {
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
