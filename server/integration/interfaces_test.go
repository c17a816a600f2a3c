package integration

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// holdingV1 is the package of splice-api-token-holding-v1 1.0.0, which
// my-exercise-app.dar carries.
const holdingV1 = "718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b"

// interfaceFormat is an eventFormat reading, for party, the contracts of
// the templates implementing iface.
func interfaceFormat(party, iface string, view bool) map[string]any {
	return map[string]any{"filtersByParty": map[string]any{party: map[string]any{"cumulative": []any{
		map[string]any{"identifierFilter": map[string]any{"InterfaceFilter": map[string]any{"value": map[string]any{
			"interfaceId": iface, "includeInterfaceView": view}}}}}}}}
}

// holdingView is the Holding view of TokenHolding.daml: owner,
// instrumentId and amount from the holding, no lock, its meta.
type holdingView struct {
	Owner        string `json:"owner"`
	InstrumentID struct {
		Admin string `json:"admin"`
		ID    string `json:"id"`
	} `json:"instrumentId"`
	Amount string          `json:"amount"`
	Lock   json.RawMessage `json:"lock"`
	Meta   struct {
		Values map[string]string `json:"values"`
	} `json:"meta"`
}

// checkHoldingView checks the one interface view of a TokenHolding event.
func checkHoldingView(t *testing.T, what string, ev *ledgerapi.CreatedEvent, owner, admin, amount string) {
	t.Helper()
	if len(ev.InterfaceViews) != 1 {
		t.Fatalf("%s: interface views %+v", what, ev.InterfaceViews)
	}
	v := ev.InterfaceViews[0]
	pkg := strings.SplitN(ev.TemplateID, ":", 2)[0]
	if v.InterfaceID != holdingV1+":Splice.Api.Token.HoldingV1:Holding" || v.ViewStatus.Code != 0 || v.ViewStatus.Message != "" ||
		len(v.ViewStatus.Details) != 0 || v.ImplementationPackageID == nil || *v.ImplementationPackageID != pkg {
		t.Errorf("%s: view %+v", what, v)
	}
	var hv holdingView
	mustUnmarshal(t, v.ViewValue, &hv)
	if hv.Owner != owner || hv.InstrumentID.Admin != admin || hv.InstrumentID.ID != "TOK" || hv.Amount != amount ||
		string(hv.Lock) != "null" || hv.Meta.Values == nil || len(hv.Meta.Values) != 0 {
		t.Errorf("%s: view value %s", what, v.ViewValue)
	}
}

// TestInterfaceFiltersOnNode reads my-exercise-app's token through the
// token standard's Holding interface on a started node: the active
// contracts (list, page, websocket), the update stream in both shapes, an
// update by id and the events of a contract select the TokenHoldings and
// not the TokenTransferFactory Alice also sees; created events carry the
// Holding view the .daml source defines, archived and consuming exercised
// events list Holding in implementedInterfaces. Unknown interfaces answer
// Canton's errors; once the token's package is unvetted the view fails
// with NO_VETTED_INTERFACE_IMPLEMENTATION_PACKAGE in its viewStatus while
// the contracts are still returned.
func TestInterfaceFiltersOnNode(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	n.ok("POST", "/v2/dars", n.admin, sharedDar(t, "my-exercise-app.dar"), nil)
	admin := n.allocate("Admin").Party
	alice := n.allocate("Alice").Party
	bob := n.allocate("Bob").Party
	n.createUser("issuer", ledgerapi.CanActAs(admin), ledgerapi.CanReadAs(alice))
	issuer := n.token("issuer")
	submit := func(id string, cmd map[string]any) ledgerapi.TransactionTree {
		t.Helper()
		var resp treeResponse
		n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", issuer, commands(id, []string{admin}, []map[string]any{cmd}, nil), &resp)
		return resp.TransactionTree
	}
	factory := onlyCreated(t, submit("factory", splice.Factory(admin, alice, bob)))
	first := onlyCreated(t, submit("mint-alice", splice.Mint(admin, alice, "TOK", "100.0")))
	onlyCreated(t, submit("mint-bob", splice.Mint(admin, bob, "TOK", "5.0")))
	second := onlyCreated(t, submit("mint-alice-2", splice.Mint(admin, alice, "TOK", "7.5")))
	archival := submit("archive", splice.Exercise(splice.TokenHolding, first, "Archive", map[string]any{}))

	holdings := interfaceFormat(alice, splice.Holding, true)

	// The active contracts: Alice's remaining holding only (not the
	// factory, not Bob's holding), with its view.
	var list []ledgerapi.JsGetActiveContractsResponse
	n.ok("POST", "/v2/state/active-contracts", issuer, map[string]any{"activeAtOffset": n.ledgerEnd(), "eventFormat": holdings}, &list)
	if len(list) != 1 || list[0].ContractEntry.ActiveContract.CreatedEvent.ContractID != second {
		t.Fatalf("active holdings: %+v", list)
	}
	ev := list[0].ContractEntry.ActiveContract.CreatedEvent
	checkHoldingView(t, "active contracts", &ev, alice, admin, "7.5000000000")
	if fieldOf(t, ev.CreateArgument, "amount") != "7.5000000000" || !strings.HasSuffix(ev.TemplateID, ":TokenHolding:TokenHolding") {
		t.Errorf("created event %+v", ev)
	}
	var page ledgerapi.JsGetActiveContractsPageResponse
	n.ok("POST", "/v2/state/active-contracts-page", issuer, map[string]any{"eventFormat": holdings}, &page)
	if len(page.ActiveContracts) != 1 {
		t.Fatalf("page: %+v", page)
	}
	checkHoldingView(t, "active contracts page", &page.ActiveContracts[0].ContractEntry.ActiveContract.CreatedEvent, alice, admin, "7.5000000000")
	frames := wsRead(t, n, "/v2/state/active-contracts", issuer, map[string]any{"activeAtOffset": n.ledgerEnd(), "eventFormat": holdings})
	if len(frames) != 1 || !strings.Contains(frames[0], `"interfaceViews":[{"interfaceId":"`+holdingV1+`:Splice.Api.Token.HoldingV1:Holding","viewStatus":{"code":0`) {
		t.Errorf("websocket: %q", frames)
	}
	// The factory through its own interface, in package id form; without
	// includeInterfaceView no view.
	factoryIface := strings.Replace(splice.TransferFactory, "#splice-api-token-transfer-instruction-v1",
		"55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281", 1)
	n.ok("POST", "/v2/state/active-contracts", issuer, map[string]any{"activeAtOffset": n.ledgerEnd(),
		"eventFormat": interfaceFormat(alice, factoryIface, false)}, &list)
	if len(list) != 1 || list[0].ContractEntry.ActiveContract.CreatedEvent.ContractID != factory ||
		len(list[0].ContractEntry.ActiveContract.CreatedEvent.InterfaceViews) != 0 {
		t.Errorf("factories: %+v", list)
	}

	// The update stream, ACS delta: two holdings created, one archived
	// listing Holding; the factory and Bob's holding left out.
	var ups []ledgerapi.JsGetUpdatesResponse
	n.ok("POST", "/v2/updates", issuer, map[string]any{"beginExclusive": 0, "endInclusive": n.ledgerEnd(), "updateFormat": map[string]any{
		"includeTransactions": map[string]any{"eventFormat": holdings, "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA"}}}, &ups)
	var got []string
	for _, u := range ups {
		for _, e := range u.Update.Transaction.Events {
			switch {
			case e.Created != nil:
				got = append(got, "created "+e.Created.ContractID[:8])
				if e.Created.ContractID == first {
					checkHoldingView(t, "update stream", e.Created, alice, admin, "100.0000000000")
				}
			case e.Archived != nil:
				got = append(got, "archived "+e.Archived.ContractID[:8]+" implementing "+strings.Join(e.Archived.ImplementedInterfaces, ","))
			}
		}
	}
	want := []string{"created " + first[:8], "created " + second[:8], "archived " + first[:8] + " implementing " + holdingV1 + ":Splice.Api.Token.HoldingV1:Holding"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ACS delta updates:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Ledger effects of the archival, by update id: the consuming exercise
	// lists Holding. Without includeInterfaceView it lists nothing, as
	// Canton populates it only for interface filters with views.
	lookup := func(view bool) *ledgerapi.ExercisedEvent {
		var u ledgerapi.JsGetUpdateResponse
		n.ok("POST", "/v2/updates/update-by-id", issuer, map[string]any{"updateId": archival.UpdateID, "updateFormat": map[string]any{
			"includeTransactions": map[string]any{"eventFormat": interfaceFormat(alice, splice.Holding, view), "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"}}}, &u)
		if u.Update.Transaction == nil || len(u.Update.Transaction.Events) != 1 || u.Update.Transaction.Events[0].Exercised == nil {
			t.Fatalf("archival, ledger effects: %+v", u)
		}
		return u.Update.Transaction.Events[0].Exercised
	}
	if x := lookup(true); strings.Join(x.ImplementedInterfaces, ",") != holdingV1+":Splice.Api.Token.HoldingV1:Holding" {
		t.Errorf("exercised event %+v", x)
	}
	if x := lookup(false); len(x.ImplementedInterfaces) != 0 {
		t.Errorf("exercised event without views %+v", x)
	}

	// The deprecated trees: the creates carry the view, the archive lists
	// Holding.
	n.ok("POST", "/v2/updates/trees", issuer, map[string]any{"beginExclusive": 0, "endInclusive": n.ledgerEnd(),
		"filter": map[string]any{"filtersByParty": holdings["filtersByParty"]}, "verbose": true}, &ups)
	got = nil
	for _, u := range ups {
		for _, e := range u.Update.TransactionTree.EventsByID {
			switch {
			case e.Created != nil:
				got = append(got, "created "+e.Created.ContractID[:8])
				checkHoldingView(t, "tree", e.Created, alice, admin, fieldOf(t, e.Created.CreateArgument, "amount"))
			case e.Exercised != nil:
				got = append(got, "archived "+e.Exercised.ContractID[:8]+" implementing "+strings.Join(e.Exercised.ImplementedInterfaces, ","))
			}
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("trees:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The events of the archived holding.
	var evs ledgerapi.JsGetEventsByContractIDResponse
	n.ok("POST", "/v2/events/events-by-contract-id", issuer, map[string]any{"contractId": first, "eventFormat": holdings}, &evs)
	if evs.Created == nil || evs.Archived == nil || strings.Join(evs.Archived.ArchivedEvent.ImplementedInterfaces, ",") != holdingV1+":Splice.Api.Token.HoldingV1:Holding" {
		t.Fatalf("events of the archived holding: %+v", evs)
	}
	checkHoldingView(t, "events by contract id", &evs.Created.CreatedEvent, alice, admin, "100.0000000000")
	n.fail("POST", "/v2/events/events-by-contract-id", issuer, map[string]any{"contractId": factory, "eventFormat": holdings}, 404, "CONTRACT_EVENTS_NOT_FOUND")

	// Unknown interfaces.
	e := n.fail("POST", "/v2/state/active-contracts", issuer, map[string]any{"activeAtOffset": 1,
		"eventFormat": interfaceFormat(alice, "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Nope", true)}, 404, "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME")
	if !strings.Contains(e.Cause, "[(splice-api-token-holding-v1,Splice.Api.Token.HoldingV1:Nope)]") {
		t.Errorf("unknown interface: %s", e.Cause)
	}
	n.fail("POST", "/v2/updates", issuer, map[string]any{"beginExclusive": 0, "updateFormat": map[string]any{
		"includeTransactions": map[string]any{"eventFormat": interfaceFormat(alice, "#no-such-package:M:I", true), "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA"}}},
		404, "PACKAGE_NAMES_NOT_FOUND")
	n.fail("POST", "/v2/updates/get-updates-page", issuer, map[string]any{"updateFormat": map[string]any{
		"includeReassignments": interfaceFormat(alice, "#no-such-package:M:I", false)}}, 404, "PACKAGE_NAMES_NOT_FOUND")
	// also for a page whose range holds nothing
	n.fail("POST", "/v2/updates/get-updates-page", issuer, map[string]any{"beginOffsetExclusive": n.ledgerEnd(), "updateFormat": map[string]any{
		"includeTransactions": map[string]any{"eventFormat": interfaceFormat(alice, "#no-such-package:M:I", true), "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA"}}},
		404, "PACKAGE_NAMES_NOT_FOUND")

	// The token's package unvetted: the holding is still selected, its view
	// fails as Canton reports it.
	tokenPkg := strings.SplitN(ev.TemplateID, ":", 2)[0]
	n.ok("POST", "/v2/package-vetting/update", n.admin, map[string]any{
		"changes": []map[string]any{{"operation": map[string]any{"Unvet": map[string]any{"value": map[string]any{
			"packages": []map[string]any{{"packageId": tokenPkg}}}}}}}}, nil)
	n.ok("POST", "/v2/state/active-contracts-page", issuer, map[string]any{"eventFormat": holdings}, &page)
	if len(page.ActiveContracts) != 1 {
		t.Fatalf("page after unvetting: %+v", page)
	}
	views := page.ActiveContracts[0].ContractEntry.ActiveContract.CreatedEvent.InterfaceViews
	if len(views) != 1 || views[0].ViewValue != nil && string(views[0].ViewValue) != "null" || views[0].ImplementationPackageID != nil || views[0].ViewStatus.Code != ledgerapi.GRPCFailedPrecondition ||
		!strings.HasPrefix(views[0].ViewStatus.Message, "NO_VETTED_INTERFACE_IMPLEMENTATION_PACKAGE(9,") ||
		!strings.Contains(views[0].ViewStatus.Message, "No vetted package for rendering the interface view for package-name 'exercise-app'") ||
		len(views[0].ViewStatus.Details) == 0 || views[0].ViewStatus.Details[0].TypeURL != ledgerapi.TypeURLErrorInfo {
		t.Errorf("view with the package unvetted: %+v", views)
	}
}
