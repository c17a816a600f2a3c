package integration

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// acsPagesContracts is more than every cap a page passes through: the
// node's ReadsPerBatch (500), a page of 1000 and the client's default
// page; bob sees every second contract, every seventh is of another
// template.
const acsPagesContracts = 1303

const otherTemplate = "#iou-pkg:Iou:Other"

// TestACSPagesCoverTheWholeSet pages through a set bigger than every cap,
// at every page size boundary, with and without party and template
// filters: the pages together are the set, in order, each contract once,
// and only the last page lacks a next token.
func TestACSPagesCoverTheWholeSet(t *testing.T) {
	n := startCommandNode(t, auth.ModeHS256, node.Config{})
	alice, bob := n.allocate("Alice").Party, n.allocate("Bob").Party
	n.createUser("alice", ledgerapi.CanActAs(alice), ledgerapi.CanReadAs(bob))
	tok := n.token("alice")

	began := time.Now()
	var want, wantBob, wantOther []string
	const perSubmission = 100
	for first := 0; first < acsPagesContracts; first += perSubmission {
		var cmds []map[string]any
		for i := first; i < min(first+perSubmission, acsPagesContracts); i++ {
			tmpl, args := iouTemplate, map[string]any{"owner": alice, "n": i}
			if i%2 == 0 {
				args["observer"] = bob
			}
			if i%7 == 0 {
				tmpl = otherTemplate
			}
			cmds = append(cmds, map[string]any{"CreateCommand": map[string]any{"templateId": tmpl, "createArguments": args}})
		}
		var tr treeResponse
		n.ok("POST", "/v2/commands/submit-and-wait-for-transaction-tree", tok,
			commands("seed-"+strconv.Itoa(first), []string{alice}, cmds, nil), &tr)
		for i := range cmds {
			cid := tr.TransactionTree.EventsByID[strconv.Itoa(i)].Created.ContractID
			want = append(want, cid)
			if (first+i)%2 == 0 {
				wantBob = append(wantBob, cid)
			}
			if (first+i)%7 == 0 {
				wantOther = append(wantOther, cid)
			}
		}
	}
	t.Logf("seeded %d contracts in %v", len(want), time.Since(began))

	templateOf := func(party, tmpl string) map[string]any {
		return map[string]any{"filtersByParty": map[string]any{party: map[string]any{"cumulative": []any{
			map[string]any{"identifierFilter": map[string]any{"TemplateFilter": map[string]any{"value": map[string]any{
				"templateId": tmpl}}}}}}}}
	}
	// bob sees the Others of even numbers: every 14th contract
	var bobOther []string
	for i, cid := range want {
		if i%14 == 0 {
			bobOther = append(bobOther, cid)
		}
	}
	filters := []struct {
		name   string
		format map[string]any
		want   []string
		sizes  []int
	}{
		{"alice", byParty(alice), want, []int{10, 499, 500, 501, 1302, 1303, 1304, 2000, 0}},
		{"bob", byParty(bob), wantBob, []int{1, 2, 499, 500, 501, 651, 652, 653, 0}},
		{"alice, the sparse template", templateOf(alice, otherTemplate), wantOther, []int{1, 2, 10, 100, 186, 187, 188, 500, 0}},
		{"bob, the sparse template", templateOf(bob, otherTemplate), bobOther, []int{1, 10, 93, 94, 95, 0}},
	}

	began = time.Now()
	for _, f := range filters {
		for i, size := range f.sizes {
			// every other size with activeAtOffset, the others without
			at := int64(-1)
			name := fmt.Sprintf("%s, pages of %d", f.name, size)
			if i%2 == 1 {
				at = n.run.Server.Node.LedgerEnd()
				name += fmt.Sprintf(", at %d", at)
			}
			got, pages := readACSPages(n, tok, f.format, size, at)
			if err := sameIDs(got, f.want); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			page := size
			if size == 0 {
				page = server.DefaultACSPageSize
			}
			if wantPages := max(1, (len(f.want)+page-1)/page); pages != wantPages {
				t.Errorf("%s: %d pages, want %d", name, pages, wantPages)
			}
		}
	}
	t.Logf("paged in %v", time.Since(began))
}

// readACSPages reads every page of the snapshot at at (-1: no
// activeAtOffset, the ledger end) with pages of size (0: no maxPageSize),
// each request the first one with the last page's token, as Canton's page
// token requires; it checks that every page but the last is full.
func readACSPages(n *testNode, tok string, format map[string]any, size int, at int64) (ids []string, pages int) {
	n.t.Helper()
	req := map[string]any{"eventFormat": format}
	if size > 0 {
		req["maxPageSize"] = size
	}
	if at >= 0 {
		req["activeAtOffset"] = at
	}
	full := size
	if size == 0 {
		full = server.DefaultACSPageSize
	}
	for {
		var page ledgerapi.JsGetActiveContractsPageResponse
		n.ok("POST", "/v2/state/active-contracts-page", tok, req, &page)
		pages++
		for _, el := range page.ActiveContracts {
			ids = append(ids, el.ContractEntry.ActiveContract.CreatedEvent.ContractID)
		}
		if page.NextPageToken == "" {
			return ids, pages
		}
		if len(page.ActiveContracts) != full {
			n.t.Fatalf("page %d of %d contracts (pages of %d) has a next page token", pages, len(page.ActiveContracts), full)
		}
		if pages > acsPagesContracts+1 {
			n.t.Fatalf("more pages than contracts")
		}
		req["pageToken"] = page.NextPageToken
	}
}

func sameIDs(got, want []string) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d contracts, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("contract %d is %s, want %s", i, got[i], want[i])
		}
	}
	return nil
}

// TestACSPageRequestsAsCanton: the answers Canton's conformance suite
// expects of a page request (ActiveContractsServiceIT): maxPageSize 0 and
// one above the limit are INVALID_ARGUMENT, an activeAtOffset after the
// ledger end is OFFSET_AFTER_LEDGER_END, and a token used with another
// activeAtOffset than its request's is INVALID_ACS_PAGE_TOKEN.
func TestACSPageRequestsAsCanton(t *testing.T) {
	n := startReadNode(t)
	page := func(extra map[string]any) map[string]any {
		b := map[string]any{"eventFormat": byParty(n.alice)}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	e := n.fail("POST", "/v2/state/active-contracts-page", n.tok, page(map[string]any{"maxPageSize": 0}), 400, "INVALID_ARGUMENT")
	if e.Cause != "The submitted request has invalid arguments: Requested page size must be positive, but got 0" {
		t.Errorf("maxPageSize 0: %q", e.Cause)
	}
	e = n.fail("POST", "/v2/state/active-contracts-page", n.tok, page(map[string]any{"maxPageSize": 10000000}), 400, "INVALID_ARGUMENT")
	if e.Cause != "The submitted request has invalid arguments: Requested page size must not exceed 10000, but got 10000000" {
		t.Errorf("maxPageSize 10000000: %q", e.Cause)
	}
	n.fail("POST", "/v2/state/active-contracts-page", n.tok, page(map[string]any{"maxPageSize": -1}), 400, "INVALID_ARGUMENT")
	n.fail("POST", "/v2/updates/get-updates-page", n.tok, map[string]any{"maxPageSize": 0,
		"updateFormat": txFormat(n.alice, "TRANSACTION_SHAPE_ACS_DELTA")}, 400, "INVALID_ARGUMENT")
	e = n.fail("POST", "/v2/state/active-contracts-page", n.tok, page(map[string]any{"activeAtOffset": 9}), 400, "OFFSET_AFTER_LEDGER_END")
	if e.Cause != "active_at_offset offset (9) is after ledger end (4)" {
		t.Errorf("activeAtOffset 9: %q", e.Cause)
	}
	// the largest page is served
	var p ledgerapi.JsGetActiveContractsPageResponse
	n.ok("POST", "/v2/state/active-contracts-page", n.tok, page(map[string]any{"maxPageSize": server.MaxACSPageSize}), &p)
	if len(p.ActiveContracts) != 2 || p.NextPageToken != "" {
		t.Errorf("a page of %d: %+v", server.MaxACSPageSize, p)
	}
	// the token of a request without activeAtOffset, sent with one
	n.ok("POST", "/v2/state/active-contracts-page", n.tok, page(map[string]any{"maxPageSize": 1}), &p)
	n.fail("POST", "/v2/state/active-contracts-page", n.tok, page(map[string]any{"maxPageSize": 1,
		"activeAtOffset": p.ActiveAtOffset, "pageToken": p.NextPageToken}), 400, "INVALID_ACS_PAGE_TOKEN")
}
