package ledgerapi

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// InterfaceSubscriptionsIT.scala (prefix IS). The test tool's interface
// package is Canton's Ping package here: its package name with a template
// and an interface that do not exist. Its T1, T2, T3 (implementing the
// interface I) and T4 (not) are three test-token Tokens of amounts 1, 2
// and 3, which implement the token standard's Holding, and a TokenRules,
// which does not; the template filter names Token, as T1's.
func TestInterfaceSubscriptionsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))
	p.upload(t, sharedDar(t, "splice-test-token-v1-1.0.0.dar"))

	const holding = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	format := func(party string, views bool) ledgerapi.EventFormat {
		f := ledgerapi.Filters{Cumulative: []ledgerapi.CumulativeFilter{
			{IdentifierFilter: ledgerapi.IdentifierFilter{Template: &ledgerapi.TemplateFilter{TemplateID: testToken}}},
			{IdentifierFilter: ledgerapi.IdentifierFilter{Interface: &ledgerapi.InterfaceFilter{InterfaceID: holding, IncludeInterfaceView: views}}}}}
		return ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{party: f}, Verbose: true}
	}
	// setup creates T1..T4 and returns the ids of T1..T3.
	setup := func(t *testing.T, party string) (holdings []string, rules string) {
		t.Helper()
		for _, amount := range []string{"1.0", "2.0", "3.0"} {
			args := tokenArgs(party, party)
			args["holding"].(map[string]any)["amount"] = amount
			holdings = append(holdings, p.create(t, party, testToken, args))
		}
		return holdings, p.create(t, party, testTokenRules, map[string]any{"admin": party})
	}
	archive := func(t *testing.T, party string, holdings []string, rules string) {
		t.Helper()
		for _, cid := range holdings {
			p.exercise(t, party, testToken, cid, "Archive", nil)
		}
		p.exercise(t, party, testTokenRules, rules, "Archive", nil)
	}
	// basic is the test tool's basicAssertions: three creates in order,
	// each with one Holding view (verbose, its amount) or none.
	basic := func(t *testing.T, created []ledgerapi.CreatedEvent, holdings []string, views bool) {
		t.Helper()
		if len(created) != 3 {
			t.Fatalf("3 created events found: %d", len(created))
		}
		for i, ev := range created {
			if ev.ContractID != holdings[i] {
				t.Errorf("Create event %d contract ID %s, want %s", i+1, ev.ContractID, holdings[i])
			}
			if len(ev.CreateArgument) == 0 {
				t.Errorf("Create event %d createArguments must NOT be empty", i+1)
			}
			if !views {
				if len(ev.InterfaceViews) != 0 {
					t.Errorf("Create event %d has views though none were asked: %v", i+1, ev.InterfaceViews)
				}
				continue
			}
			if len(ev.InterfaceViews) != 1 {
				t.Fatalf("Create event %d has a view: %d", i+1, len(ev.InterfaceViews))
			}
			v := ev.InterfaceViews[0]
			if !strings.HasSuffix(v.InterfaceID, ":Splice.Api.Token.HoldingV1:Holding") ||
				!strings.Contains(string(v.ViewValue), fmt.Sprintf(`"amount":"%d.0`, i+1)) {
				t.Errorf("View%d: %s %s", i+1, v.InterfaceID, v.ViewValue)
			}
		}
	}

	t.Run("ISTransactionsBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		begin := p.ledgerEnd(t)
		holdings, rules := setup(t, party)
		archive(t, party, holdings, rules)
		read := func(views bool) (created []ledgerapi.CreatedEvent, implemented [][]string) {
			var els []struct {
				Update ledgerapi.JsUpdate `json:"update"`
			}
			p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": begin,
				"updateFormat": map[string]any{"includeTransactions": map[string]any{
					"eventFormat": format(party, views), "transactionShape": ledgerapi.TransactionShapeACSDelta}}}, &els)
			for _, el := range els {
				if tx := el.Update.Transaction; tx != nil {
					for _, ev := range tx.Events {
						if ev.Created != nil {
							created = append(created, *ev.Created)
						}
						if ev.Archived != nil {
							implemented = append(implemented, ev.Archived.ImplementedInterfaces)
						}
					}
				}
			}
			return created, implemented
		}
		created, implemented := read(true)
		basic(t, created, holdings, true)
		if len(implemented) != 3 {
			t.Fatalf("3 archived events should be found: %d", len(implemented))
		}
		for i, ii := range implemented {
			if len(ii) != 1 || !strings.HasSuffix(ii[0], ":Splice.Api.Token.HoldingV1:Holding") {
				t.Errorf("Archive event %d has implemented_interfaces %v, want Holding", i+1, ii)
			}
		}
		created, implemented = read(false)
		basic(t, created, holdings, false)
		for i, ii := range implemented {
			if len(ii) != 0 {
				t.Errorf("If no inclusion of interface views requested, no implemented_interfaces: archive %d has %v", i+1, ii)
			}
		}
	})

	t.Run("ISAcsBasic", func(t *testing.T) {
		party := p.allocate(t, "party")
		holdings, rules := setup(t, party)
		var els []ledgerapi.JsGetActiveContractsResponse
		p.ok(t, "POST", "/v2/state/active-contracts", map[string]any{"activeAtOffset": p.ledgerEnd(t),
			"eventFormat": format(party, true)}, &els)
		var created []ledgerapi.CreatedEvent
		for _, el := range els {
			if ac := el.ContractEntry.ActiveContract; ac != nil {
				created = append(created, ac.CreatedEvent)
			}
		}
		archive(t, party, holdings, rules)
		basic(t, created, holdings, true)
	})

	t.Run("ISTransactionsUnknownTemplateOrInterface", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, pingTemplate, pingArgs(party, party))
		const unknownTemplate = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:TemplateDoesNotExist"
		const unknownInterface = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:InterfaceDoesNotExist"
		request := func(templates, interfaces []string) map[string]any {
			return map[string]any{"beginExclusive": 0, "updateFormat": map[string]any{"includeTransactions": map[string]any{
				"eventFormat":      ledgerapi.EventFormatOf([]string{party}, templates, interfaces, false),
				"transactionShape": ledgerapi.TransactionShapeACSDelta}}}
		}
		e := p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", request([]string{unknownTemplate}, nil),
			failure{code: "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"})
		if re := regexp.MustCompile("The following package-name/template qualified-name pairs do not reference any template-id uploaded on this participant.*TemplateDoesNotExist"); !re.MatchString(e.Cause) {
			t.Errorf("cause %q does not match %s", e.Cause, re)
		}
		e = p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", request(nil, []string{unknownInterface}),
			failure{code: "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"})
		if re := regexp.MustCompile("The following package-name/interface qualified-name pairs do not reference any interface-id uploaded on this participant.*InterfaceDoesNotExist"); !re.MatchString(e.Cause) {
			t.Errorf("cause %q does not match %s", e.Cause, re)
		}
	})
}
