package ledgerapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// The test token's interfaces and its templates implementing several.
const (
	holdingInterface   = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	instructionIface   = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction"
	allocationRequest  = "#splice-api-token-allocation-request-v1:Splice.Api.Token.AllocationRequestV1:AllocationRequest"
	testTokenAlloc     = "#splice-test-token-v1:Splice.Testing.Tokens.TestTokenV1:TokenAllocation"
	holdingSuffix      = ":Splice.Api.Token.HoldingV1:Holding"
	instructionSuffix  = ":Splice.Api.Token.TransferInstructionV1:TransferInstruction"
	tokenTemplateShort = ":Splice.Testing.Tokens.TestTokenV1:Token"
)

// filtersOf is a Filters of template and interface filters: interfaces
// maps an interface id to whether its view is included.
func filtersOf(templates []string, interfaces [][2]any, blob bool) ledgerapi.Filters {
	var f ledgerapi.Filters
	for _, t := range templates {
		f.Cumulative = append(f.Cumulative, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
			Template: &ledgerapi.TemplateFilter{TemplateID: t, IncludeCreatedEventBlob: blob}}})
	}
	for _, i := range interfaces {
		f.Cumulative = append(f.Cumulative, ledgerapi.CumulativeFilter{IdentifierFilter: ledgerapi.IdentifierFilter{
			Interface: &ledgerapi.InterfaceFilter{InterfaceID: i[0].(string), IncludeInterfaceView: i[1].(bool), IncludeCreatedEventBlob: blob}}})
	}
	return f
}

// transactionsWith reads the transactions after begin up to the ledger end
// under format, of shape.
func (p *participant) transactionsWith(t *testing.T, format ledgerapi.EventFormat, shape ledgerapi.TransactionShape, begin int64) []ledgerapi.Transaction {
	t.Helper()
	return p.transactionsIn(t, format, shape, begin, 0)
}

// transactionsIn reads the transactions in (begin, end] (end 0: the ledger
// end) under format, of shape.
func (p *participant) transactionsIn(t *testing.T, format ledgerapi.EventFormat, shape ledgerapi.TransactionShape, begin, end int64) []ledgerapi.Transaction {
	t.Helper()
	if end == 0 {
		end = p.ledgerEnd(t)
	}
	var els []struct {
		Update ledgerapi.JsUpdate `json:"update"`
	}
	p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": begin, "endInclusive": end,
		"updateFormat": map[string]any{"includeTransactions": map[string]any{"eventFormat": format, "transactionShape": shape}}}, &els)
	var out []ledgerapi.Transaction
	for _, el := range els {
		if el.Update.Transaction != nil {
			out = append(out, *el.Update.Transaction)
		}
	}
	return out
}

func createdOf(txs []ledgerapi.Transaction) []ledgerapi.CreatedEvent {
	var out []ledgerapi.CreatedEvent
	for _, tx := range txs {
		for _, ev := range tx.Events {
			if ev.Created != nil {
				out = append(out, *ev.Created)
			}
		}
	}
	return out
}

// viewOf is the successful view of the interface whose id ends in suffix;
// it fails unless there is exactly one.
func viewOf(t *testing.T, ev ledgerapi.CreatedEvent, suffix string) map[string]any {
	t.Helper()
	var found []ledgerapi.InterfaceView
	for _, v := range ev.InterfaceViews {
		if strings.HasSuffix(v.InterfaceID, suffix) {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		t.Fatalf("Only one view of interfaceId=%s must be defined, there are: %+v", suffix, ev.InterfaceViews)
	}
	if found[0].ViewStatus.Code != 0 {
		t.Fatalf("Status must be successful: %+v", found[0].ViewStatus)
	}
	var value map[string]any
	if err := json.Unmarshal(found[0].ViewValue, &value); err != nil {
		t.Fatalf("view value %s: %v", found[0].ViewValue, err)
	}
	return value
}

// The InterfaceSubscriptionsIT compositions the first port left out, on the
// test token (docs/conformance.md): I is Holding, I2 TransferInstruction;
// T1..T3 are Tokens of amounts 1..3 (all implement Holding), T4 a
// TokenRules (implements neither), T5 and T6 TokenTransferOffers
// (implementing both); INoTemplate is the token standard's
// AllocationRequest, which no uploaded template implements.

// InterfaceSubscriptionsIT's ISTransactionsSubscribeBeforeTemplateCreated,
// the one case its port on built models (interfacesubs_built_test.go)
// cannot express: a stream opened while only the interface's package is
// uploaded sees a template uploaded and created later. On the real token
// standard: Holding, then the test token's Token.
func TestInterfaceSubscriptionsITSubscribeBeforeTemplateCreated(t *testing.T) {
	acs := ledgerapi.TransactionShapeACSDelta
	byParty := func(fs map[string]ledgerapi.Filters, verbose bool) ledgerapi.EventFormat {
		return ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters](fs), Verbose: verbose}
	}
	iface := func(id string, view bool) [2]any { return [2]any{id, view} }
	holdingAmount := func(t *testing.T, ev ledgerapi.CreatedEvent) string {
		t.Helper()
		s, _ := viewOf(t, ev, holdingSuffix)["amount"].(string)
		return s
	}
	t.Run("ISTransactionsSubscribeBeforeTemplateCreated", func(t *testing.T) {
		// A node of its own: only the interface's package is there when
		// the stream starts; the implementing template comes after.
		q := startParticipant(t, node.Config{})
		q.upload(t, sharedDar(t, "splice-api-token-holding-v1-1.0.0.dar"))
		party := q.allocate(t, "party")
		begin := q.ledgerEnd(t)
		type result struct {
			els []ledgerapi.JsGetUpdatesResponse
			a   answer
		}
		done := make(chan result, 1)
		go func() {
			a := q.do(t, "POST", "/v2/updates?limit=1&stream_idle_timeout_ms=5000", q.admin, map[string]any{"beginExclusive": begin,
				"updateFormat": map[string]any{"includeTransactions": map[string]any{
					"eventFormat":      byParty(map[string]ledgerapi.Filters{party: filtersOf(nil, [][2]any{iface(holdingInterface, true)}, false)}, true),
					"transactionShape": acs}}})
			var els []ledgerapi.JsGetUpdatesResponse
			_ = json.Unmarshal(a.body, &els)
			done <- result{els, a}
		}()
		time.Sleep(100 * time.Millisecond)
		select {
		case r := <-done:
			t.Fatalf("the stream ended before the template was created: %d %s", r.a.status, r.a.body)
		default:
		}
		q.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))
		args := tokenArgs(party, party)
		args["holding"].(map[string]any)["amount"] = "21.0"
		cid := q.create(t, party, testToken, args)
		r := <-done
		if r.a.status != 200 || len(r.els) != 1 || r.els[0].Update.Transaction == nil {
			t.Fatalf("transaction should be found: %d %s", r.a.status, r.a.body)
		}
		created := createdOf([]ledgerapi.Transaction{*r.els[0].Update.Transaction})
		if len(created) != 1 || created[0].ContractID != cid || len(created[0].InterfaceViews) != 1 {
			t.Fatalf("Create event has a view: %+v", created)
		}
		if got := holdingAmount(t, created[0]); !strings.HasPrefix(got, "21.0") {
			t.Errorf("View amount %q, want 21.0", got)
		}
	})
}
