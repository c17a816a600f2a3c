package ledgerapi

import (
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// MultiPartySubmissionIT.scala on the built MultiPartyContract
// (Test.daml): submissions acting as several parties, reading as others.
func TestMultiPartySubmissionITBuilt(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	mp := builtTemplate("MultiPartyContract")
	authz := failure{code: "DAML_AUTHORIZATION_ERROR", definite: true}

	submit := func(actAs, readAs []string, cmd map[string]any) map[string]any {
		body := p.jsCommands(actAs, cmd)
		body["readAs"] = readAs
		return body
	}
	createMP := func(t *testing.T, parties ...string) string {
		t.Helper()
		var resp struct {
			Transaction ledgerapi.Transaction `json:"transaction"`
		}
		p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{
			"commands": submit(parties, nil, createCmd(mp, map[string]any{"parties": parties, "value": p.next("value")})),
			"transactionFormat": map[string]any{"eventFormat": ledgerapi.EventFormatOf(parties, nil, nil, false),
				"transactionShape": ledgerapi.TransactionShapeACSDelta}}, &resp)
		created := createdEvents(resp.Transaction)
		if len(created) != 1 {
			t.Fatalf("%d created events, want 1", len(created))
		}
		return created[0].ContractID
	}
	exercise := func(cid, choice string, arg any) map[string]any { return exerciseCmd(mp, cid, choice, arg) }

	t.Run("MPSSubmit", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		body := submit([]string{alice, bob}, nil, createCmd(mp, map[string]any{"parties": []string{alice, bob}, "value": ""}))
		p.ok(t, "POST", "/v2/commands/async/submit", body, nil)
		var els []ledgerapi.CompletionStreamResponse
		deadline := time.Now().Add(5 * time.Second)
		for len(els) == 0 && time.Now().Before(deadline) {
			p.ok(t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=100&limit=1",
				map[string]any{"userId": p.user, "parties": []string{bob}, "beginExclusive": 0}, &els)
		}
		if len(els) != 1 || els[0].Completion == nil || els[0].Completion.CommandID != body["commandId"] {
			t.Errorf("first completion of bob %+v, want the one of %s", els, body["commandId"])
		}
	})

	t.Run("MPSAddSignatoriesSuccess", func(t *testing.T) {
		alice, bob, charlie, david := p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "charlie"), p.allocate(t, "david")
		cid := createMP(t, alice, bob)
		all := []string{alice, bob, charlie, david}
		p.ok(t, "POST", "/v2/commands/submit-and-wait", submit(all, nil, exercise(cid, "MPAddSignatories", map[string]any{"newParties": all})), nil)
	})

	t.Run("MPSAddSignatoriesInsufficientAuthorization", func(t *testing.T) {
		alice, bob, charlie, david := p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "charlie"), p.allocate(t, "david")
		cid := createMP(t, alice, bob)
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", submit([]string{bob, charlie, david}, nil,
			exercise(cid, "MPAddSignatories", map[string]any{"newParties": []string{alice, bob, charlie, david}})), authz)
	})

	t.Run("MPSFetchOtherSuccess", func(t *testing.T) {
		alice, bob, charlie, david := p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "charlie"), p.allocate(t, "david")
		a := createMP(t, alice, bob)
		b := createMP(t, alice, bob, charlie, david)
		p.ok(t, "POST", "/v2/commands/submit-and-wait", submit([]string{charlie, david}, []string{alice},
			exercise(b, "MPFetchOther", map[string]any{"cid": a, "actors": []string{charlie, david}})), nil)
	})

	t.Run("MPSFetchOtherInsufficientAuthorization", func(t *testing.T) {
		alice, bob, charlie, david := p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "charlie"), p.allocate(t, "david")
		a := createMP(t, alice, bob)
		b := createMP(t, charlie, david)
		f := authz
		f.cause = "of the fetched contract to be an authorizer, but authorizers were"
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", submit([]string{charlie, david}, []string{bob, alice},
			exercise(b, "MPFetchOther", map[string]any{"cid": a, "actors": []string{charlie, david}})), f)
	})

	t.Run("MPSFetchOtherInvisible", func(t *testing.T) {
		alice, bob, charlie, david := p.allocate(t, "alice"), p.allocate(t, "bob"), p.allocate(t, "charlie"), p.allocate(t, "david")
		a := createMP(t, alice, bob)
		b := createMP(t, alice, bob, charlie, david)
		p.mustFail(t, "POST", "/v2/commands/submit-and-wait", submit([]string{charlie, david}, nil,
			exercise(b, "MPFetchOther", map[string]any{"cid": a, "actors": []string{charlie, david}})),
			failure{code: "CONTRACT_NOT_FOUND", cause: "Contract could not be found", definite: true})
	})
}
