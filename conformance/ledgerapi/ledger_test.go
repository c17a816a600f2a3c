package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// The test tool's model-tests templates that run no Daml code of interest
// (a signatory, an Archive choice) are served by the node's generic model:
// any template of a package never uploaded, the acting parties as
// signatories, every choice consuming.
const (
	dummy          = "#model-tests:Test:Dummy"
	dummyWithParam = "#model-tests:Test:DummyWithParam"
	dummyFactory   = "#model-tests:Test:DummyFactory"
)

// Ping is Canton's own Daml (../shared/dars and daml/archive/testdata):
// Respond must be exercised by the responder, so it is the model of the
// authorization and double-spend cases.
const pingTemplate = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"

// jsCommands is a JsCommands body submitted as the admin user.
func (p *participant) jsCommands(actAs []string, cmds ...map[string]any) map[string]any {
	return map[string]any{"commands": cmds, "commandId": p.next("cmd"), "actAs": actAs, "userId": p.user}
}

func createCmd(template string, args map[string]any) map[string]any {
	return map[string]any{"CreateCommand": map[string]any{"templateId": template, "createArguments": args}}
}

func exerciseCmd(template, cid, choice string, arg any) map[string]any {
	if arg == nil {
		arg = map[string]any{}
	}
	return map[string]any{"ExerciseCommand": map[string]any{"templateId": template, "contractId": cid, "choice": choice, "choiceArgument": arg}}
}

// transaction submits and waits for the ledger-effects transaction.
func (p *participant) transaction(t *testing.T, actAs []string, cmds ...map[string]any) ledgerapi.Transaction {
	t.Helper()
	var resp struct {
		Transaction ledgerapi.Transaction `json:"transaction"`
	}
	p.ok(t, "POST", "/v2/commands/submit-and-wait-for-transaction", map[string]any{
		"commands": p.jsCommands(actAs, cmds...),
		"transactionFormat": map[string]any{
			"eventFormat":      ledgerapi.EventFormatOf(actAs, nil, nil, false),
			"transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"},
	}, &resp)
	return resp.Transaction
}

// create creates one contract as party and returns its id.
func (p *participant) create(t *testing.T, party, template string, args map[string]any) string {
	t.Helper()
	tx := p.transaction(t, []string{party}, createCmd(template, args))
	for _, ev := range tx.Events {
		if ev.Created != nil {
			return ev.Created.ContractID
		}
	}
	t.Fatalf("create %s: no created event in %+v", template, tx)
	return ""
}

// exercise exercises a choice as party.
func (p *participant) exercise(t *testing.T, party, template, cid, choice string, arg any) ledgerapi.Transaction {
	t.Helper()
	return p.transaction(t, []string{party}, exerciseCmd(template, cid, choice, arg))
}

// ledgerEnd is the current ledger end.
func (p *participant) ledgerEnd(t *testing.T) int64 {
	t.Helper()
	var end ledgerapi.GetLedgerEndResponse
	p.ok(t, "GET", "/v2/state/ledger-end", nil, &end)
	return int64(end.Offset)
}

// acsRequest is a GetActiveContractsRequest of every template for parties.
func acsRequest(at int64, parties ...string) map[string]any {
	return map[string]any{"eventFormat": ledgerapi.EventFormatOf(parties, nil, nil, false), "activeAtOffset": at}
}

// activeContracts reads the ACS at the ledger end for parties.
func (p *participant) activeContracts(t *testing.T, parties ...string) []ledgerapi.CreatedEvent {
	t.Helper()
	return p.activeContractsAt(t, p.ledgerEnd(t), parties...)
}

func (p *participant) activeContractsAt(t *testing.T, at int64, parties ...string) []ledgerapi.CreatedEvent {
	t.Helper()
	var els []ledgerapi.JsGetActiveContractsResponse
	p.ok(t, "POST", "/v2/state/active-contracts", acsRequest(at, parties...), &els)
	out := make([]ledgerapi.CreatedEvent, 0, len(els))
	for _, el := range els {
		if ac := el.ContractEntry.ActiveContract; ac != nil {
			out = append(out, ac.CreatedEvent)
		}
	}
	return out
}

func contractIDs(evs []ledgerapi.CreatedEvent) []string {
	ids := make([]string, len(evs))
	for i, ev := range evs {
		ids[i] = ev.ContractID
	}
	return ids
}
