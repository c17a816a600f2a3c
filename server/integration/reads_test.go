package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// readNode is a node with a small history: alice creates three Ious
// (offsets 1–3) and archives the first (4). Bob reads nothing of it.
type readNode struct {
	*testNode
	alice, bob string
	tok        string // alice's user, CanActAs(alice)
	ious       []string
	updateIDs  []string
}

func startReadNode(t *testing.T) *readNode {
	t.Helper()
	n := &readNode{testNode: startCommandNode(t, auth.ModeHS256, node.Config{})}
	n.alice = n.allocate("Alice").Party
	n.bob = n.allocate("Bob").Party
	n.createUser("alice", ledgerapi.CanActAs(n.alice))
	n.createUser("bob", ledgerapi.CanReadAs(n.bob))
	n.tok = n.token("alice")
	for i := 1; i <= 3; i++ {
		var tr treeResponse
		n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", n.tok,
			commands("create-"+strconv.Itoa(i), []string{n.alice}, []map[string]any{create(n.alice, strconv.Itoa(i))}, nil), &tr)
		n.ious = append(n.ious, onlyCreated(t, tr.TransactionTree))
		n.updateIDs = append(n.updateIDs, tr.TransactionTree.UpdateID)
	}
	var tr treeResponse
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", n.tok,
		commands("archive", []string{n.alice}, []map[string]any{exercise(n.ious[0], "Archive")}, nil), &tr)
	n.updateIDs = append(n.updateIDs, tr.TransactionTree.UpdateID)
	return n
}

func byParty(p string) map[string]any {
	return map[string]any{"filtersByParty": map[string]any{p: map[string]any{}}, "verbose": true}
}

func txFormat(p, shape string) map[string]any {
	return map[string]any{"includeTransactions": map[string]any{"eventFormat": byParty(p), "transactionShape": shape}}
}

func TestActiveContractsOverHTTP(t *testing.T) {
	n := startReadNode(t)
	var list []ledgerapi.JsGetActiveContractsResponse
	n.ok("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 4, "eventFormat": byParty(n.alice)}, &list)
	if len(list) != 2 || list[0].ContractEntry.ActiveContract.CreatedEvent.ContractID != n.ious[1] {
		t.Fatalf("active contracts at 4: %+v", list)
	}
	ac := list[0].ContractEntry.ActiveContract
	if ac.SynchronizerID != n.identity().SynchronizerID || ac.CreatedEvent.Offset != 2 || ac.CreatedEvent.NodeID != 0 ||
		list[0].StreamContinuationToken == "" {
		t.Errorf("active contract %+v", list[0])
	}
	// the deprecated form, at an earlier offset
	n.ok("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 3,
		"filter": map[string]any{"filtersByParty": map[string]any{n.alice: map[string]any{}}}, "verbose": true}, &list)
	if len(list) != 3 {
		t.Errorf("deprecated filter at 3: %d contracts", len(list))
	}
	// resuming after the first element
	n.ok("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 3, "eventFormat": byParty(n.alice),
		"streamContinuationToken": list[0].StreamContinuationToken}, &list)
	if len(list) != 2 {
		t.Errorf("after the continuation token: %d contracts", len(list))
	}
	// a template filter with the blob
	tmpl := map[string]any{"filtersByParty": map[string]any{n.alice: map[string]any{"cumulative": []any{
		map[string]any{"identifierFilter": map[string]any{"TemplateFilter": map[string]any{"value": map[string]any{
			"templateId": iouTemplate, "includeCreatedEventBlob": true}}}}}}}}
	n.ok("POST", "/v2/state/active-contracts?limit=1", n.tok, map[string]any{"activeAtOffset": 4, "eventFormat": tmpl}, &list)
	if len(list) != 1 || len(list[0].ContractEntry.ActiveContract.CreatedEvent.CreatedEventBlob) == 0 {
		t.Errorf("template filter with blob, limit 1: %+v", list)
	}
	// rights: bob may not read as alice; any party needs CanReadAsAnyParty
	n.fail("POST", "/v2/state/active-contracts", n.token("bob"), map[string]any{"activeAtOffset": 4, "eventFormat": byParty(n.alice)}, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 4,
		"eventFormat": map[string]any{"filtersForAnyParty": map[string]any{}}}, 403, ledgerapi.RedactedCode)
	n.fail("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 9, "eventFormat": byParty(n.alice)}, 400, "OFFSET_AFTER_LEDGER_END")

	// pages, POST and the deprecated GET with a body
	var page ledgerapi.JsGetActiveContractsPageResponse
	n.ok("POST", "/v2/state/active-contracts-page", n.tok, map[string]any{"eventFormat": byParty(n.alice), "maxPageSize": 1}, &page)
	if page.ActiveAtOffset != 4 || len(page.ActiveContracts) != 1 || page.NextPageToken == "" {
		t.Fatalf("first page %+v", page)
	}
	n.ok("GET", "/v2/state/active-contracts-page", n.tok, map[string]any{"eventFormat": byParty(n.alice), "maxPageSize": 1,
		"pageToken": page.NextPageToken}, &page)
	if len(page.ActiveContracts) != 1 || page.NextPageToken != "" ||
		page.ActiveContracts[0].ContractEntry.ActiveContract.CreatedEvent.ContractID != n.ious[2] {
		t.Errorf("last page %+v", page)
	}

	// the websocket
	frames := wsRead(t, n.testNode, "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 4, "eventFormat": byParty(n.alice)})
	if len(frames) != 2 || !strings.Contains(frames[0], n.ious[1]) {
		t.Errorf("websocket frames %q", frames)
	}
}

// wsRead opens a websocket stream, sends req and returns the frames until
// the server closes the stream (a finite stream) or idle passes.
func wsRead(t *testing.T, n *testNode, path, token string, req any) []string {
	t.Helper()
	conn, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(n.url, "http")+path,
		&websocket.DialOptions{Subprotocols: []string{"daml.ws.auth", "jwt.token." + token}})
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	defer conn.CloseNow()
	b, _ := json.Marshal(req)
	if err := conn.Write(t.Context(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		_, data, err := conn.Read(ctx)
		cancel()
		if err != nil {
			return out
		}
		out = append(out, string(data))
	}
}

func TestUpdatesOverHTTP(t *testing.T) {
	n := startReadNode(t)
	var ups []ledgerapi.JsGetUpdatesResponse
	n.ok("POST", "/v2/updates?stream_idle_timeout_ms=50", n.tok, map[string]any{"beginExclusive": 0,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, &ups)
	if len(ups) != 4 || ups[3].Update.Transaction == nil || ups[3].Update.Transaction.Events[0].Archived == nil {
		t.Fatalf("updates: %+v", ups)
	}
	n.ok("POST", "/v2/updates", n.tok, map[string]any{"beginExclusive": 2, "endInclusive": 4, "descendingOrder": true,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_LEDGER_EFFECTS")}, &ups)
	if len(ups) != 2 || ups[0].Update.Offset() != 4 || ups[0].Update.Transaction.Events[0].Exercised == nil {
		t.Errorf("ledger effects, descending: %+v", ups)
	}
	// the deprecated flats and trees
	n.ok("POST", "/v2/updates/flats", n.tok, map[string]any{"beginExclusive": 0, "endInclusive": 4,
		"filter": map[string]any{"filtersByParty": map[string]any{n.alice: map[string]any{}}}, "verbose": true}, &ups)
	if len(ups) != 4 || ups[0].Update.Transaction == nil {
		t.Errorf("flats: %+v", ups)
	}
	n.ok("POST", "/v2/updates/trees", n.tok, map[string]any{"beginExclusive": 0, "endInclusive": 4,
		"filter": map[string]any{"filtersByParty": map[string]any{n.alice: map[string]any{}}}, "verbose": true}, &ups)
	if len(ups) != 4 || ups[3].Update.TransactionTree == nil || len(ups[3].Update.TransactionTree.EventsByID) != 1 {
		t.Errorf("trees: %+v", ups)
	}
	// bob sees nothing
	n.ok("POST", "/v2/updates", n.token("bob"), map[string]any{"beginExclusive": 0, "endInclusive": 4,
		"updateFormat": txFormat(n.bob, "TRANSACTION_SHAPE_ACS_DELTA")}, &ups)
	if len(ups) != 0 {
		t.Errorf("bob's updates: %+v", ups)
	}
	n.fail("POST", "/v2/updates", n.tok, map[string]any{"beginExclusive": 0,
		"updateFormat": map[string]any{"includeTransactions": map[string]any{"eventFormat": byParty(n.alice)}}}, 400, "MISSING_FIELD")
	n.fail("POST", "/v2/updates", n.tok, map[string]any{"beginExclusive": 0, "endInclusive": 0,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, 400, "NON_POSITIVE_OFFSET")
	n.fail("POST", "/v2/updates", n.tok, map[string]any{"beginExclusive": 0, "descendingOrder": true,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, 400, "DESCENDING_ORDER_MISSING_END")
	n.fail("POST", "/v2/updates", n.tok, map[string]any{"beginExclusive": 9,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, 400, "OFFSET_AFTER_LEDGER_END")

	// the websocket follows the ledger
	frames := wsRead(t, n.testNode, "/v2/updates", n.tok, map[string]any{"beginExclusive": 1,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")})
	if len(frames) != 3 || !strings.Contains(frames[0], `"Transaction":{"value":{`) {
		t.Errorf("websocket frames %q", frames)
	}

	// pages
	var page ledgerapi.JsGetUpdatesPageResponse
	n.ok("POST", "/v2/updates/get-updates-page", n.tok, map[string]any{"maxPageSize": 3,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, &page)
	if len(page.Updates) != 3 || page.HighestPageOffsetInclusive != 3 || page.NextPageToken == "" {
		t.Fatalf("first page %+v", page)
	}
	n.ok("POST", "/v2/updates/get-updates-page", n.tok, map[string]any{"maxPageSize": 3, "pageToken": page.NextPageToken,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, &page)
	if len(page.Updates) != 1 || page.Updates[0].Update.Offset() != 4 || page.NextPageToken == "" {
		t.Errorf("second page (tailing keeps a token) %+v", page)
	}
	n.ok("POST", "/v2/updates/get-updates-page", n.tok, map[string]any{"maxPageSize": 3, "descendingOrder": true, "endOffsetInclusive": 4,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, &page)
	if len(page.Updates) != 3 || page.Updates[0].Update.Offset() != 4 || page.LowestPageOffsetExclusive != 1 || page.NextPageToken == "" {
		t.Errorf("descending page %+v", page)
	}

	// lookups
	var one ledgerapi.JsGetUpdateResponse
	n.ok("POST", "/v2/updates/update-by-offset", n.tok, map[string]any{"offset": 2,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, &one)
	if one.Update.Transaction == nil || one.Update.Transaction.UpdateID != n.updateIDs[1] {
		t.Errorf("update by offset %+v", one)
	}
	n.ok("POST", "/v2/updates/update-by-id", n.tok, map[string]any{"updateId": n.updateIDs[3],
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_LEDGER_EFFECTS")}, &one)
	if one.Update.Offset() != 4 {
		t.Errorf("update by id %+v", one)
	}
	n.fail("POST", "/v2/updates/update-by-id", n.token("bob"), map[string]any{"updateId": n.updateIDs[3],
		"updateFormat": txFormat(n.bob, "TRANSACTION_SHAPE_LEDGER_EFFECTS")}, 404, "UPDATE_NOT_FOUND")
	var tx ledgerapi.JsGetTransactionResponse
	n.ok("POST", "/v2/updates/transaction-by-offset", n.tok, map[string]any{"offset": 1, "requestingParties": []string{n.alice}}, &tx)
	if tx.Transaction.UpdateID != n.updateIDs[0] {
		t.Errorf("transaction by offset %+v", tx)
	}
	n.ok("POST", "/v2/updates/transaction-by-id", n.tok, map[string]any{"updateId": n.updateIDs[0], "requestingParties": []string{n.alice}}, &tx)
	var tree ledgerapi.JsGetTransactionTreeResponse
	n.ok("GET", "/v2/updates/transaction-tree-by-offset/4?parties="+url.QueryEscape(n.alice), n.tok, nil, &tree)
	if tree.Transaction.UpdateID != n.updateIDs[3] {
		t.Errorf("tree by offset %+v", tree)
	}
	n.ok("GET", "/v2/updates/transaction-tree-by-id/"+n.updateIDs[3]+"?parties="+url.QueryEscape(n.alice), n.tok, nil, &tree)

	// created events carry their blob where the filter asks for it, in both
	// shapes, and it is the blob the active contract set gives
	var acs []ledgerapi.JsGetActiveContractsResponse
	n.ok("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 4, "eventFormat": blobFilter(n.alice)}, &acs)
	if len(acs) != 2 || len(acs[0].ContractEntry.ActiveContract.CreatedEvent.CreatedEventBlob) == 0 {
		t.Fatalf("active contracts with blobs: %+v", acs)
	}
	acsBlob := acs[0].ContractEntry.ActiveContract.CreatedEvent.CreatedEventBlob
	for _, shape := range []string{"TRANSACTION_SHAPE_ACS_DELTA", "TRANSACTION_SHAPE_LEDGER_EFFECTS"} {
		f := map[string]any{"includeTransactions": map[string]any{"eventFormat": blobFilter(n.alice), "transactionShape": shape}}
		n.ok("POST", "/v2/updates", n.tok, map[string]any{"beginExclusive": 1, "endInclusive": 2, "updateFormat": f}, &ups)
		if len(ups) != 1 || ups[0].Update.Transaction == nil {
			t.Fatalf("%s with blobs: %+v", shape, ups)
		}
		if got := ups[0].Update.Transaction.Events[0].Created.CreatedEventBlob; string(got) != string(acsBlob) {
			t.Errorf("%s: the created event's blob is %d bytes, not the active contract set's (%d)", shape, len(got), len(acsBlob))
		}
	}
	n.ok("POST", "/v2/updates/update-by-offset", n.tok, map[string]any{"offset": 2,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, &one)
	if b := one.Update.Transaction.Events[0].Created.CreatedEventBlob; len(b) != 0 {
		t.Errorf("a filter without includeCreatedEventBlob gave a %d-byte blob", len(b))
	}
	n.ok("POST", "/v2/updates/trees", n.tok, map[string]any{"beginExclusive": 1, "endInclusive": 2,
		"filter": blobFilter(n.alice), "verbose": true}, &ups)
	if len(ups) != 1 || string(ups[0].Update.TransactionTree.EventsByID["0"].Created.CreatedEventBlob) != string(acsBlob) {
		t.Errorf("trees with blobs: %+v", ups)
	}
}

// blobFilter reads p's Ious with their created event blobs.
func blobFilter(p string) map[string]any {
	return map[string]any{"filtersByParty": map[string]any{p: map[string]any{"cumulative": []any{
		map[string]any{"identifierFilter": map[string]any{"TemplateFilter": map[string]any{"value": map[string]any{
			"templateId": iouTemplate, "includeCreatedEventBlob": true}}}}}}}}
}

func TestEventsContractsAndCommandCompletionsOverHTTP(t *testing.T) {
	n := startReadNode(t)
	var ev ledgerapi.JsGetEventsByContractIDResponse
	n.ok("POST", "/v2/events/events-by-contract-id", n.tok, map[string]any{"contractId": n.ious[0], "eventFormat": byParty(n.alice)}, &ev)
	if ev.Created == nil || ev.Archived == nil || ev.Archived.ArchivedEvent.Offset != 4 || ev.Created.CreatedEvent.Offset != 1 {
		t.Errorf("events of the archived iou: %+v", ev)
	}
	n.fail("POST", "/v2/events/events-by-contract-id", n.token("bob"), map[string]any{"contractId": n.ious[0], "eventFormat": byParty(n.bob)},
		404, "CONTRACT_EVENTS_NOT_FOUND")
	var c ledgerapi.GetContractResponse
	n.ok("POST", "/v2/contracts/contract-by-id", n.tok, map[string]any{"contractId": n.ious[1], "queryingParties": []string{n.alice}}, &c)
	if c.CreatedEvent.ContractID != n.ious[1] {
		t.Errorf("contract by id %+v", c)
	}
	n.fail("POST", "/v2/contracts/contract-by-id", n.tok, map[string]any{"contractId": n.ious[1]}, 403, ledgerapi.RedactedCode)

	var cs []ledgerapi.CompletionStreamResponse
	n.ok("POST", "/v2/commands/command-completions?stream_idle_timeout_ms=50", n.tok, map[string]any{"parties": []string{n.alice}}, &cs)
	if len(cs) != 4 || cs[0].Completion == nil || cs[0].Completion.UserID != "alice" {
		t.Errorf("command completions %+v", cs)
	}
	n.createUser("reader", adminRight(ledgerapi.RightCanReadAsAnyParty))
	n.ok("POST", "/v2/commands/command-completions?stream_idle_timeout_ms=50", n.token("reader"), map[string]any{"parties": []string{}}, &cs)
	if len(cs) != 4 || len(cs[0].Completion.ActAs) != 1 {
		t.Errorf("every party's completions %+v", cs)
	}
	n.fail("POST", "/v2/commands/command-completions", n.tok, map[string]any{}, 403, ledgerapi.RedactedCode)
}

func TestPruningOverHTTP(t *testing.T) {
	n := startReadNode(t)
	n.fail("POST", server.PrunePath, n.tok, map[string]any{"pruneUpTo": 2}, 403, ledgerapi.RedactedCode)
	// Canton prunes only below the ledger end: one more transaction (at 5)
	// lets offset 4 be pruned.
	n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", n.tok,
		commands("create-5", []string{n.alice}, []map[string]any{create(n.alice, "5")}, nil), nil)
	n.fail("POST", server.PrunePath, n.admin, map[string]any{"pruneUpTo": 5}, 400, "OFFSET_OUT_OF_RANGE")
	var pr ledgerapi.PruneResponse
	n.ok("POST", server.PrunePath, n.admin, map[string]any{"pruneUpTo": 4}, &pr)
	if pr.PrunedUpTo != 4 || pr.ContractsRemoved != 1 || pr.CompletionsRemoved != 4 {
		t.Errorf("prune %+v", pr)
	}
	var lp ledgerapi.GetLatestPrunedOffsetsResponse
	n.ok("GET", "/v2/state/latest-pruned-offsets", n.tok, nil, &lp)
	if lp.ParticipantPrunedUpToInclusive != 4 {
		t.Errorf("latest pruned offsets %+v", lp)
	}
	e := n.fail("POST", "/v2/updates", n.tok, map[string]any{"beginExclusive": 0, "updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")},
		400, "PARTICIPANT_PRUNED_DATA_ACCESSED")
	if e.Context["earliest_offset"] != "4" {
		t.Errorf("pruned error context %v", e.Context)
	}
	n.fail("POST", "/v2/commands/completions", n.tok, map[string]any{"parties": []string{n.alice}, "beginExclusive": 3}, 400, "PARTICIPANT_PRUNED_DATA_ACCESSED")
	n.fail("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 3, "eventFormat": byParty(n.alice)}, 400, "PARTICIPANT_PRUNED_DATA_ACCESSED")
	// A lookup of a pruned offset finds nothing, as on Canton (ParticipantPruningIT PRPruneByOffset).
	n.fail("POST", "/v2/updates/update-by-offset", n.tok, map[string]any{"offset": 2, "updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")},
		404, "UPDATE_NOT_FOUND")
	// at and above the pruning offset reads go on, with the active contracts intact
	var list []ledgerapi.JsGetActiveContractsResponse
	n.ok("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 4, "eventFormat": byParty(n.alice)}, &list)
	if len(list) != 2 {
		t.Errorf("active contracts after pruning: %d", len(list))
	}
	var cs []ledgerapi.CompletionStreamResponse
	n.ok("POST", "/v2/commands/completions?stream_idle_timeout_ms=50", n.tok, map[string]any{"parties": []string{n.alice}, "beginExclusive": 4}, &cs)
	if len(cs) != 1 || cs[0].Completion == nil || cs[0].Completion.CommandID != "create-5" {
		t.Errorf("completions after the pruning offset: %+v", cs)
	}
}

func TestIdentityProvidersOverHTTP(t *testing.T) {
	n := startReadNode(t)
	idp := map[string]any{"identityProviderId": "idp1", "issuer": "https://issuer.example", "jwksUrl": "https://issuer.example/jwks"}
	var got ledgerapi.IdentityProviderConfigResponse
	n.ok("POST", "/v2/idps", n.admin, map[string]any{"identityProviderConfig": idp}, &got)
	if got.IdentityProviderConfig.Issuer != "https://issuer.example" {
		t.Errorf("created %+v", got)
	}
	n.fail("POST", "/v2/idps", n.admin, map[string]any{"identityProviderConfig": idp}, 409, "IDP_CONFIG_ALREADY_EXISTS")
	n.fail("POST", "/v2/idps", n.tok, map[string]any{"identityProviderConfig": idp}, 403, ledgerapi.RedactedCode)
	n.ok("PATCH", "/v2/idps/idp1", n.admin, map[string]any{"identityProviderConfig": map[string]any{"identityProviderId": "idp1", "audience": "aud"},
		"updateMask": map[string]any{"paths": []string{"audience"}}}, &got)
	if got.IdentityProviderConfig.Audience != "aud" || got.IdentityProviderConfig.JwksURL == "" {
		t.Errorf("updated %+v", got)
	}
	var list ledgerapi.ListIdentityProviderConfigsResponse
	n.ok("GET", "/v2/idps", n.admin, nil, &list)
	if len(list.IdentityProviderConfigs) != 1 {
		t.Errorf("list %+v", list)
	}
	// Parties are listed across providers, other providers' ones blinded
	// (Canton's blindAndConvertToProto).
	var carol ledgerapi.AllocatePartyResponse
	n.ok("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": "Carol", "identityProviderId": "idp1",
		"localMetadata": map[string]any{"annotations": map[string]string{"example.com/k": "v"}}}, &carol)
	blinded := func(idp string) map[string]ledgerapi.PartyDetails {
		var ps ledgerapi.ListPartiesResponse
		n.ok("GET", "/v2/parties?identity-provider-id="+idp, n.admin, nil, &ps)
		m := map[string]ledgerapi.PartyDetails{}
		for _, p := range ps.PartyDetails {
			m[p.Party] = p
		}
		return m
	}
	c := carol.PartyDetails.Party
	if ps := blinded(""); len(ps) != 3 || ps[c].IdentityProviderID != "" || !ps[c].IsLocal || len(ps[c].LocalMetadata.Annotations) != 0 ||
		ps[c].LocalMetadata.ResourceVersion != "" || !ps[n.alice].IsLocal || ps[n.alice].LocalMetadata.ResourceVersion == "" {
		t.Errorf("parties in the default provider: %+v", ps)
	}
	if ps := blinded("idp1"); len(ps) != 3 || ps[c].IdentityProviderID != "idp1" || ps[c].LocalMetadata.Annotations["example.com/k"] != "v" ||
		ps[n.alice].IsLocal || ps[n.alice].IdentityProviderID != "" {
		t.Errorf("parties in idp1: %+v", ps)
	}
	var got1 ledgerapi.GetPartiesResponse
	n.ok("GET", "/v2/parties/"+url.PathEscape(c), n.admin, nil, &got1)
	if len(got1.PartyDetails) != 1 || got1.PartyDetails[0].IdentityProviderID != "" || !got1.PartyDetails[0].IsLocal {
		t.Errorf("carol from the default provider: %+v", got1)
	}
	n.ok("GET", "/v2/parties/"+url.PathEscape(c)+"?identity-provider-id=idp1", n.admin, nil, &got1)
	if len(got1.PartyDetails) != 1 || got1.PartyDetails[0].IdentityProviderID != "idp1" {
		t.Errorf("carol from idp1: %+v", got1)
	}
	// users move between providers; listing by provider scopes them
	n.ok("PATCH", "/v2/users/bob/identity-provider-id", n.admin, map[string]any{"userId": "bob",
		"sourceIdentityProviderId": "", "targetIdentityProviderId": "idp1"}, nil)
	var u ledgerapi.GetUserResponse
	n.ok("GET", "/v2/users/bob?identity-provider-id=idp1", n.admin, nil, &u)
	if u.User.IdentityProviderID != "idp1" {
		t.Errorf("bob's provider %+v", u.User)
	}
	var users ledgerapi.ListUsersResponse
	n.ok("GET", "/v2/users?identity-provider-id=idp1", n.admin, nil, &users)
	if len(users.Users) != 1 || users.Users[0].ID != "bob" {
		t.Errorf("users of idp1 %+v", users)
	}
	// Lookups are scoped by provider: bob, of idp1, is refused through the
	// default one as Canton's user store refuses a user of another
	// provider (PERMISSION_DENIED "User bob belongs to another Identity
	// Provider", redacted); a user of no provider is not found.
	n.fail("GET", "/v2/users/bob", n.admin, nil, 403, ledgerapi.RedactedCode)
	n.fail("GET", "/v2/users/bob/rights", n.admin, nil, 403, ledgerapi.RedactedCode)
	n.fail("PATCH", "/v2/users/bob", n.admin, map[string]any{"user": map[string]any{"id": "bob", "isDeactivated": true},
		"updateMask": map[string]any{"paths": []string{"is_deactivated"}}}, 403, ledgerapi.RedactedCode)
	n.fail("GET", "/v2/users/nobody", n.admin, nil, 404, "USER_NOT_FOUND")
	// Creating bob again: through idp1 he exists; through the default
	// provider he is another provider's (Canton's withoutUser).
	n.fail("POST", "/v2/users", n.admin, map[string]any{"user": map[string]any{"id": "bob", "identityProviderId": "idp1"}},
		409, "USER_ALREADY_EXISTS")
	n.fail("POST", "/v2/users", n.admin, map[string]any{"user": map[string]any{"id": "bob"}}, 403, ledgerapi.RedactedCode)
	n.ok("PATCH", "/v2/users/bob", n.admin, map[string]any{"user": map[string]any{"id": "bob", "identityProviderId": "idp1",
		"metadata": map[string]any{"annotations": map[string]string{"example.com/k": "v"}}},
		"updateMask": map[string]any{"paths": []string{"metadata.annotations"}}}, nil)
	var rights ledgerapi.ListUserRightsResponse
	n.ok("GET", "/v2/users/bob/rights?identity-provider-id=idp1", n.admin, nil, &rights)
	n.fail("PATCH", "/v2/users/bob/identity-provider-id", n.admin, map[string]any{"userId": "bob",
		"sourceIdentityProviderId": "", "targetIdentityProviderId": "nope"}, 400, "INVALID_ARGUMENT")
	n.fail("PATCH", "/v2/users/bob/identity-provider-id", n.admin, map[string]any{"userId": "bob",
		"sourceIdentityProviderId": "", "targetIdentityProviderId": "idp1"}, 403, ledgerapi.RedactedCode)
	n.ok("GET", "/v2/idps/idp1", n.admin, nil, &got)
	n.ok("PATCH", "/v2/users/bob/identity-provider-id", n.admin, map[string]any{"userId": "bob",
		"sourceIdentityProviderId": "idp1", "targetIdentityProviderId": ""}, nil)
	n.ok("GET", "/v2/users/bob", n.admin, nil, &u)
	n.ok("DELETE", "/v2/idps/idp1", n.admin, nil, nil)
	n.fail("GET", "/v2/idps/idp1", n.admin, nil, 404, "IDP_CONFIG_NOT_FOUND")
}

func TestHealthAndReassignment(t *testing.T) {
	n := startReadNode(t)
	if r := n.call("GET", "/livez", "", nil); r.status != 200 {
		t.Errorf("livez without a token: %d", r.status)
	}
	if r := n.call("GET", "/readyz", "", nil); r.status != 200 || !strings.Contains(string(r.body), "ready") {
		t.Errorf("readyz without a token: %d %s", r.status, r.body)
	}
	unassign := func(source, target string) map[string]any {
		return map[string]any{"reassignmentCommands": map[string]any{"commandId": "r-1", "submitter": n.alice,
			"commands": []any{map[string]any{"command": map[string]any{"UnassignCommand": map[string]any{"value": map[string]any{
				"contractId": n.ious[1], "source": source, "target": target}}}}}}}
	}
	sync := n.identity().SynchronizerID
	e := n.fail("POST", "/v2/commands/submit-and-wait-for-reassignment", n.tok, unassign(sync, "other::1220aa"), 400, "INVALID_ARGUMENT")
	if !strings.Contains(e.Cause, "Unable to resolve other::1220aa to a connected physical synchronizer id") {
		t.Errorf("cause %q", e.Cause)
	}
	n.fail("POST", "/v2/commands/async/submit-reassignment", n.tok, unassign(sync, sync), 400, "INVALID_ARGUMENT")
	n.fail("POST", "/v2/commands/async/submit-reassignment", n.token("bob"), unassign(sync, sync), 403, ledgerapi.RedactedCode)
}

// TestReadAnswersMatchOpenAPI calls every read endpoint and validates each
// answer (and each websocket frame, against the element schema of the
// list form) against Canton 3.5's OpenAPI document.
func TestReadAnswersMatchOpenAPI(t *testing.T) {
	openAPISpec(t)
	n := startReadNode(t)
	n.createUser("reader", adminRight(ledgerapi.RightCanReadAsAnyParty))
	delta, effects := txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA"), txFormat(n.alice, "TRANSACTION_SHAPE_LEDGER_EFFECTS")
	legacy := map[string]any{"filtersByParty": map[string]any{n.alice: map[string]any{}}}
	for _, c := range []struct {
		method, spec, path string
		body               any
	}{
		{"POST", "/v2/state/active-contracts", "/v2/state/active-contracts", map[string]any{"activeAtOffset": 4, "eventFormat": byParty(n.alice)}},
		{"POST", "/v2/state/active-contracts-page", "/v2/state/active-contracts-page", map[string]any{"eventFormat": byParty(n.alice), "maxPageSize": 1}},
		{"GET", "/v2/state/active-contracts-page", "/v2/state/active-contracts-page", map[string]any{"eventFormat": byParty(n.alice)}},
		{"GET", "/v2/state/latest-pruned-offsets", "/v2/state/latest-pruned-offsets", nil},
		{"POST", "/v2/updates", "/v2/updates", map[string]any{"beginExclusive": 0, "endInclusive": 4, "updateFormat": delta}},
		{"POST", "/v2/updates", "/v2/updates", map[string]any{"beginExclusive": 0, "endInclusive": 4, "updateFormat": effects}},
		{"POST", "/v2/updates/flats", "/v2/updates/flats", map[string]any{"beginExclusive": 0, "endInclusive": 4, "filter": legacy}},
		{"POST", "/v2/updates/trees", "/v2/updates/trees", map[string]any{"beginExclusive": 0, "endInclusive": 4, "filter": legacy}},
		{"POST", "/v2/updates/get-updates-page", "/v2/updates/get-updates-page", map[string]any{"maxPageSize": 2, "updateFormat": delta}},
		{"POST", "/v2/updates/update-by-offset", "/v2/updates/update-by-offset", map[string]any{"offset": 4, "updateFormat": effects}},
		{"POST", "/v2/updates/update-by-id", "/v2/updates/update-by-id", map[string]any{"updateId": n.updateIDs[0], "updateFormat": delta}},
		{"POST", "/v2/updates/transaction-by-offset", "/v2/updates/transaction-by-offset", map[string]any{"offset": 4, "requestingParties": []string{n.alice}}},
		{"POST", "/v2/updates/transaction-by-id", "/v2/updates/transaction-by-id", map[string]any{"updateId": n.updateIDs[0], "requestingParties": []string{n.alice}}},
		{"GET", "/v2/updates/transaction-tree-by-offset/{offset}", "/v2/updates/transaction-tree-by-offset/4?parties=" + url.QueryEscape(n.alice), nil},
		{"GET", "/v2/updates/transaction-tree-by-id/{update-id}", "/v2/updates/transaction-tree-by-id/" + n.updateIDs[3] + "?parties=" + url.QueryEscape(n.alice), nil},
		{"POST", "/v2/events/events-by-contract-id", "/v2/events/events-by-contract-id", map[string]any{"contractId": n.ious[0], "eventFormat": byParty(n.alice)}},
		{"POST", "/v2/contracts/contract-by-id", "/v2/contracts/contract-by-id", map[string]any{"contractId": n.ious[1], "queryingParties": []string{n.alice}}},
		{"POST", "/v2/commands/command-completions", "/v2/commands/command-completions?stream_idle_timeout_ms=20", map[string]any{"parties": []string{n.alice}}},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := n.call(c.method, c.path, n.tok, c.body)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			checkOpenAPI(t, c.method, c.spec, r.body)
		})
	}
	// The websocket frames are the list forms' elements.
	item := func(path string) any {
		return responseSchema(t, "POST", path).(map[string]any)["items"]
	}
	for _, c := range []struct {
		path string
		req  any
	}{
		{"/v2/state/active-contracts", map[string]any{"activeAtOffset": 4, "eventFormat": byParty(n.alice)}},
		{"/v2/updates", map[string]any{"beginExclusive": 0, "updateFormat": effects}},
		{"/v2/updates/flats", map[string]any{"beginExclusive": 0, "filter": legacy}},
		{"/v2/updates/trees", map[string]any{"beginExclusive": 0, "filter": legacy}},
	} {
		frames := wsRead(t, n.testNode, c.path, n.tok, c.req)
		if len(frames) == 0 {
			t.Errorf("websocket %s: no frames", c.path)
		}
		for _, f := range frames {
			d := json.NewDecoder(strings.NewReader(f))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if errs := validate(spec, item(c.path), v, "$"); len(errs) > 0 {
				t.Errorf("websocket %s frame does not match the OpenAPI document: %v\n%s", c.path, errs, f)
			}
		}
	}
}

// TestTopologyUpdatesOverHTTP: with topology events on, a party allocation
// is a TopologyTransaction in /v2/updates, as the OpenAPI document shapes it.
func TestTopologyUpdatesOverHTTP(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{TopologyEvents: true})
	alice := n.allocate("Alice").Party
	n.createUser("alice", ledgerapi.CanReadAs(alice))
	body := map[string]any{"beginExclusive": 0, "endInclusive": 1, "updateFormat": map[string]any{
		"includeTopologyEvents": map[string]any{"includeParticipantAuthorizationEvents": map[string]any{"parties": []string{alice}}}}}
	r := n.call("POST", "/v2/updates", n.token("alice"), body)
	if r.status != 200 || !strings.Contains(string(r.body), `"ParticipantAuthorizationAdded":{"value":{"partyId":"`+alice) {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "..", "shared")); err == nil {
		checkOpenAPI(t, "POST", "/v2/updates", r.body)
	}
	var ups []ledgerapi.JsGetUpdatesResponse
	mustUnmarshal(t, r.body, &ups)
	if len(ups) != 1 || ups[0].Update.TopologyTransaction == nil || ups[0].Update.Offset() != 1 {
		t.Errorf("updates %+v", ups)
	}
	if end := n.ledgerEnd(); end != 1 {
		t.Errorf("ledger end %d after one allocation", end)
	}
}

// TestListLimitBeyondABatch asks the list forms for more elements than one
// read batch holds: exactly limit come back (a read ahead may not add more).
func TestListLimitBeyondABatch(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ledger.db")
	st, err := seedStore(db)
	if err != nil {
		t.Fatal(err)
	}
	err = seedEntries(st, 1200, func(i int64) ledger.Entry {
		cid := fmt.Sprintf("00%064x", i)
		return ledger.Entry{UserID: "seed", CommandID: fmt.Sprintf("seed-%d", i), SubmissionID: "s", ActAs: []string{seedParty},
			Transaction: &ledger.Transaction{UpdateID: fmt.Sprintf("1220%060x", i), EffectiveAt: time.Now(), Events: []byte(`{}`),
				Created: []ledger.Contract{{ContractID: cid, TemplateID: "pkg:Iou:Iou", PackageName: "iou", Argument: []byte{1},
					ArgumentJSON: []byte(`{}`), Signatories: []string{seedParty}, Stakeholders: []string{seedParty}, CreatedAt: time.Now()}}}}
	})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	run := serve(t, local.Config{DBPath: db}, server.Config{CompletionsMax: 2000})
	n := &testNode{t: t, url: run.URL()}
	body := map[string]any{"activeAtOffset": 1200, "eventFormat": map[string]any{
		"filtersByParty": map[string]any{seedParty: map[string]any{}}}, "userId": "seed"}
	var list []ledgerapi.JsGetActiveContractsResponse
	n.ok("POST", "/v2/state/active-contracts?limit=700", "", body, &list)
	if len(list) != 700 {
		t.Errorf("limit 700: %d contracts", len(list))
	}
	n.ok("POST", "/v2/state/active-contracts?limit=2000", "", body, &list)
	if len(list) != 1200 {
		t.Errorf("limit 2000: %d contracts", len(list))
	}
	var cs []ledgerapi.CompletionStreamResponse
	n.ok("POST", "/v2/commands/completions?limit=1100&stream_idle_timeout_ms=50", "", map[string]any{
		"userId": "seed", "parties": []string{seedParty}}, &cs)
	if len(cs) != 1100 {
		t.Errorf("completions, limit 1100: %d", len(cs))
	}
}

// TestTokensBoundToTheirRequest: as in Canton, a continuation or page token
// continues the request it came from only; any other use is the token
// error of its kind, a token that is not one INVALID_FIELD.
func TestTokensBoundToTheirRequest(t *testing.T) {
	n := startReadNode(t)
	terse := map[string]any{"filtersByParty": map[string]any{n.alice: map[string]any{}}, "verbose": false}

	var list []ledgerapi.JsGetActiveContractsResponse
	n.ok("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 4, "eventFormat": byParty(n.alice)}, &list)
	tok := list[0].StreamContinuationToken
	n.fail("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 4, "eventFormat": terse,
		"streamContinuationToken": tok}, 400, "INVALID_CONTINUATION_TOKEN")
	n.fail("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 3, "eventFormat": byParty(n.alice),
		"streamContinuationToken": tok}, 400, "INVALID_CONTINUATION_TOKEN")
	n.fail("POST", "/v2/state/active-contracts", n.tok, map[string]any{"activeAtOffset": 4, "eventFormat": byParty(n.alice),
		"streamContinuationToken": "nonsense"}, 400, "INVALID_FIELD")

	var acs ledgerapi.JsGetActiveContractsPageResponse
	n.ok("POST", "/v2/state/active-contracts-page", n.tok, map[string]any{"eventFormat": byParty(n.alice), "maxPageSize": 1}, &acs)
	n.fail("POST", "/v2/state/active-contracts-page", n.tok, map[string]any{"eventFormat": terse, "maxPageSize": 1,
		"pageToken": acs.NextPageToken}, 400, "INVALID_ACS_PAGE_TOKEN")
	n.fail("POST", "/v2/state/active-contracts-page", n.tok, map[string]any{"eventFormat": byParty(n.alice), "activeAtOffset": 4,
		"pageToken": acs.NextPageToken}, 400, "INVALID_ACS_PAGE_TOKEN")
	// the page size is not part of an ACS page request's checksum
	n.ok("POST", "/v2/state/active-contracts-page", n.tok, map[string]any{"eventFormat": byParty(n.alice), "maxPageSize": 5,
		"pageToken": acs.NextPageToken}, &acs)

	var ups ledgerapi.JsGetUpdatesPageResponse
	delta := txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")
	n.ok("POST", "/v2/updates/get-updates-page", n.tok, map[string]any{"maxPageSize": 2, "updateFormat": delta}, &ups)
	// for updates it is
	n.fail("POST", "/v2/updates/get-updates-page", n.tok, map[string]any{"maxPageSize": 3, "updateFormat": delta,
		"pageToken": ups.NextPageToken}, 400, "INVALID_UPDATES_PAGE_TOKEN")
	n.fail("POST", "/v2/updates/get-updates-page", n.tok, map[string]any{"maxPageSize": 2, "updateFormat": delta,
		"pageToken": "upd1.x"}, 400, "INVALID_FIELD")
	// and another node's tokens are refused
	other := startReadNode(t)
	other.fail("POST", "/v2/updates/get-updates-page", other.tok, map[string]any{"maxPageSize": 2, "updateFormat": txFormat(other.alice, "TRANSACTION_SHAPE_ACS_DELTA"),
		"pageToken": ups.NextPageToken}, 400, "INVALID_UPDATES_PAGE_TOKEN")
}
