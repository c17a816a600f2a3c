package integration

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// operations are the 67 operations of Canton 3.5's OpenAPI document
// (shared/spec/openapi/openapi.yaml), with a request each: method, path
// (with its parameters filled in) and body.
var operations = []struct{ method, path, body string }{
	{"POST", "/v2/commands/submit-and-wait", `{}`},
	{"POST", "/v2/commands/submit-and-wait-for-transaction", `{}`},
	{"POST", "/v2/commands/submit-and-wait-for-reassignment", `{}`},
	{"POST", "/v2/commands/submit-and-wait-for-transaction-tree", `{}`},
	{"POST", "/v2/commands/async/submit", `{}`},
	{"POST", "/v2/commands/async/submit-reassignment", `{}`},
	{"POST", "/v2/commands/completions", `{}`},
	{"POST", "/v2/commands/command-completions", `{}`},
	{"POST", "/v2/events/events-by-contract-id", `{}`},
	{"GET", "/v2/version", ``},
	{"POST", "/v2/dars/validate", ``},
	{"POST", "/v2/dars", ``},
	{"GET", "/v2/packages", ``},
	{"POST", "/v2/packages", ``},
	{"GET", "/v2/packages/pkg", ``},
	{"GET", "/v2/packages/pkg/status", ``},
	{"GET", "/v2/package-vetting", `{}`},
	{"POST", "/v2/package-vetting", `{}`},
	{"POST", "/v2/package-vetting/list", `{}`},
	{"POST", "/v2/package-vetting/update", `{}`},
	{"GET", "/v2/parties", ``},
	{"POST", "/v2/parties", `{}`},
	{"POST", "/v2/parties/external/allocate", `{}`},
	{"GET", "/v2/parties/participant-id", ``},
	{"GET", "/v2/parties/someone", ``},
	{"PATCH", "/v2/parties/someone", `{}`},
	{"POST", "/v2/parties/external/generate-topology", `{}`},
	{"POST", "/v2/state/active-contracts", `{}`},
	{"GET", "/v2/state/active-contracts-page", `{}`},
	{"POST", "/v2/state/active-contracts-page", `{}`},
	{"GET", "/v2/state/connected-synchronizers", ``},
	{"GET", "/v2/state/ledger-end", ``},
	{"GET", "/v2/state/latest-pruned-offsets", ``},
	{"POST", "/v2/updates", `{}`},
	{"POST", "/v2/updates/flats", `{}`},
	{"POST", "/v2/updates/trees", `{}`},
	{"GET", "/v2/updates/transaction-tree-by-offset/1", ``},
	{"POST", "/v2/updates/transaction-by-offset", `{}`},
	{"POST", "/v2/updates/update-by-offset", `{}`},
	{"POST", "/v2/updates/transaction-by-id", `{}`},
	{"POST", "/v2/updates/update-by-id", `{}`},
	{"GET", "/v2/updates/transaction-tree-by-id/1220ab", ``},
	{"POST", "/v2/updates/get-updates-page", `{}`},
	{"GET", "/v2/users", ``},
	{"POST", "/v2/users", `{}`},
	{"GET", "/v2/users/participant_admin", ``},
	{"DELETE", "/v2/users/ghost", ``},
	{"PATCH", "/v2/users/ghost", `{}`},
	{"GET", "/v2/authenticated-user", ``},
	{"GET", "/v2/users/participant_admin/rights", ``},
	{"POST", "/v2/users/ghost/rights", `{}`},
	{"PATCH", "/v2/users/ghost/rights", `{}`},
	{"PATCH", "/v2/users/ghost/identity-provider-id", `{}`},
	{"GET", "/v2/idps", ``},
	{"POST", "/v2/idps", `{}`},
	{"GET", "/v2/idps/idp1", ``},
	{"DELETE", "/v2/idps/idp1", ``},
	{"PATCH", "/v2/idps/idp1", `{}`},
	{"POST", "/v2/interactive-submission/prepare", `{}`},
	{"POST", "/v2/interactive-submission/execute", `{}`},
	{"POST", "/v2/interactive-submission/executeAndWait", `{}`},
	{"POST", "/v2/interactive-submission/executeAndWaitForTransaction", `{}`},
	{"GET", "/v2/interactive-submission/preferred-package-version", ``},
	{"POST", "/v2/interactive-submission/preferred-packages", `{}`},
	{"GET", "/livez", ``},
	{"GET", "/readyz", ``},
	{"POST", "/v2/contracts/contract-by-id", `{}`},
}

// TestEveryOperationAnswers calls each operation of the OpenAPI document
// once, as the participant admin, and requires an answer other than the
// router's 404 and 405: the node serves it (a validation error for these
// empty requests is an answer).
func TestEveryOperationAnswers(t *testing.T) {
	if len(operations) != 67 {
		t.Fatalf("%d operations listed, the OpenAPI document has 67", len(operations))
	}
	n := startNode(t, auth.ModeHS256)
	for _, op := range operations {
		t.Run(op.method+" "+op.path, func(t *testing.T) {
			var body any
			if op.body != "" {
				body = op.body
			}
			r := n.call(op.method, op.path, n.admin, body)
			if r.status == 404 && !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || r.status == 405 {
				t.Fatalf("%s %s: %d %s: the node does not serve the operation", op.method, op.path, r.status, r.body)
			}
			if r.status >= 500 {
				t.Fatalf("%s %s: %d %s", op.method, op.path, r.status, r.body)
			}
		})
	}
}

// TestOperationsListMatchesOpenAPI checks the list above against the
// OpenAPI document, when shared/ lies beside the repository.
func TestOperationsListMatchesOpenAPI(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "..", "shared", "spec", "openapi", "openapi.yaml"))
	if err != nil {
		t.Skip("shared/spec/openapi/openapi.yaml is not beside the repository")
	}
	defer f.Close()
	var inDoc []string
	path := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "components:") {
			break
		}
		if strings.HasPrefix(line, "  /") && strings.HasSuffix(line, ":") {
			path = strings.TrimSuffix(strings.TrimSpace(line), ":")
			continue
		}
		for _, m := range []string{"get", "post", "put", "patch", "delete"} {
			if line == "    "+m+":" {
				inDoc = append(inDoc, strings.ToUpper(m)+" "+path)
			}
		}
	}
	sort.Strings(inDoc)
	have := map[string]bool{}
	for _, s := range server.Operations() {
		have[normalizeParams(s)] = true
	}
	for _, op := range inDoc {
		if !have[normalizeParams(op)] {
			t.Errorf("the OpenAPI operation %s has no route", op)
		}
	}
	if len(inDoc) != len(operations) {
		t.Errorf("the document has %d operations, the test lists %d", len(inDoc), len(operations))
	}
}

// normalizeParams replaces every {parameter} of a route by {}.
func normalizeParams(s string) string {
	var b strings.Builder
	skip := false
	for _, r := range s {
		switch {
		case r == '{':
			skip = true
			b.WriteString("{}")
		case r == '}':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}
