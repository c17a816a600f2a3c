package ledgerapi

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// testToken is splice-test-token-v1's Token (../shared/dars): two
// signatories, the holding's owner and its instrument's admin, so that one
// of them alone cannot create it (the test tool's PaintAgree).
const testToken = "#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:Token"

func tokenArgs(owner, admin string) map[string]any {
	return map[string]any{"holding": map[string]any{
		"owner": owner, "instrumentId": map[string]any{"admin": admin, "id": "TOK"},
		"amount": "10.0", "lock": nil, "meta": map[string]any{"values": map[string]any{}}}}
}

// pingDar is Canton's Ping workflow, committed under daml/archive/testdata.
func pingDar(t *testing.T) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pingArgs(initiator, responder string) map[string]any {
	return map[string]any{"id": "ping", "initiator": initiator, "responder": responder}
}

// SemanticTests.scala: the Iou of the test tool is Ping here (the
// initiator creates it, only the responder may Respond, which consumes it).
func TestSemanticTests(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))

	t.Run("SemanticDoubleSpendBasic", func(t *testing.T) {
		payer, owner := p.allocate(t, "payer"), p.allocate(t, "owner")
		iou := p.create(t, payer, pingTemplate, pingArgs(payer, owner))
		p.exercise(t, owner, pingTemplate, iou, "Respond", nil)
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{owner}, exerciseCmd(pingTemplate, iou, "Respond", nil)),
			failure{code: "CONTRACT_NOT_FOUND", cause: "Contract could not be found", definite: true})
	})

	t.Run("SemanticDoubleSpendSameTx", func(t *testing.T) {
		payer, owner := p.allocate(t, "payer"), p.allocate(t, "owner")
		iou := p.create(t, payer, pingTemplate, pingArgs(payer, owner))
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{owner},
			exerciseCmd(pingTemplate, iou, "Respond", nil), exerciseCmd(pingTemplate, iou, "Respond", nil)),
			failure{code: "CONTRACT_NOT_ACTIVE", cause: "Update failed due to fetch of an inactive contract", definite: true})
	})

	t.Run("SemanticPartialSignatories", func(t *testing.T) {
		p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))
		houseOwner, painter := p.allocate(t, "houseOwner"), p.allocate(t, "painter")
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{houseOwner}, createCmd(testToken, tokenArgs(houseOwner, painter))),
			failure{code: "DAML_AUTHORIZATION_ERROR", cause: "requires authorizers", definite: true})
	})

	t.Run("SemanticAcceptOnBehalf", func(t *testing.T) {
		painter, houseOwner := p.allocate(t, "painter"), p.allocate(t, "houseOwner")
		offer := p.create(t, painter, pingTemplate, pingArgs(painter, houseOwner))
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", p.jsCommands([]string{painter}, exerciseCmd(pingTemplate, offer, "Respond", nil)),
			failure{code: "DAML_AUTHORIZATION_ERROR", cause: "requires authorizers", definite: true})
	})
}
