package server

import (
	"net/http"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// readRoutes are the read side's routes (reads.go, idps.go,
// admin_reads.go), and stubs for the package operations that base does not
// serve yet, so that every operation of Canton's OpenAPI document answers.
func (s *Server) readRoutes(base []Route) []Route {
	rs := []Route{
		{Method: http.MethodPost, Pattern: "/v2/state/active-contracts", Handler: s.listActiveContracts},
		{Method: http.MethodGet, Pattern: "/v2/state/active-contracts", Public: true, Handler: s.streamActiveContracts},
		{Method: http.MethodPost, Pattern: "/v2/state/active-contracts-page", Handler: s.activeContractsPage},
		{Method: http.MethodGet, Pattern: "/v2/state/active-contracts-page", Handler: s.activeContractsPage},
		{Method: http.MethodGet, Pattern: "/v2/state/latest-pruned-offsets", Handler: s.getLatestPrunedOffsets},

		{Method: http.MethodPost, Pattern: "/v2/updates", Handler: s.listUpdates},
		{Method: http.MethodGet, Pattern: "/v2/updates", Public: true, Handler: s.streamUpdates},
		{Method: http.MethodPost, Pattern: "/v2/updates/flats", Handler: s.listFlats},
		{Method: http.MethodGet, Pattern: "/v2/updates/flats", Public: true, Handler: s.streamFlats},
		{Method: http.MethodPost, Pattern: "/v2/updates/trees", Handler: s.listTrees},
		{Method: http.MethodGet, Pattern: "/v2/updates/trees", Public: true, Handler: s.streamTrees},
		{Method: http.MethodPost, Pattern: "/v2/updates/get-updates-page", Handler: s.updatesPage},
		{Method: http.MethodPost, Pattern: "/v2/updates/update-by-offset", Handler: s.updateByOffset},
		{Method: http.MethodPost, Pattern: "/v2/updates/update-by-id", Handler: s.updateByID},
		{Method: http.MethodPost, Pattern: "/v2/updates/transaction-by-offset", Handler: s.transactionByOffset},
		{Method: http.MethodPost, Pattern: "/v2/updates/transaction-by-id", Handler: s.transactionByID},
		{Method: http.MethodGet, Pattern: "/v2/updates/transaction-tree-by-offset/{offset}", Handler: s.transactionTreeByOffset},
		{Method: http.MethodGet, Pattern: "/v2/updates/transaction-tree-by-id/{updateID}", Handler: s.transactionTreeByID},

		{Method: http.MethodPost, Pattern: "/v2/events/events-by-contract-id", Handler: s.eventsByContractID},
		{Method: http.MethodPost, Pattern: "/v2/contracts/contract-by-id", Handler: s.contractByID},
		{Method: http.MethodPost, Pattern: "/v2/commands/command-completions", Handler: s.listCommandCompletions},
		{Method: http.MethodGet, Pattern: "/v2/commands/command-completions", Public: true, Handler: s.streamCommandCompletions},
		{Method: http.MethodPost, Pattern: "/v2/commands/async/submit-reassignment", Handler: s.submitReassignment},
		{Method: http.MethodPost, Pattern: "/v2/commands/submit-and-wait-for-reassignment", Handler: s.submitReassignment},

		{Method: http.MethodGet, Pattern: "/v2/idps", Handler: s.listIDPs},
		{Method: http.MethodPost, Pattern: "/v2/idps", Handler: s.createIDP},
		{Method: http.MethodGet, Pattern: "/v2/idps/{idpID}", Handler: s.getIDP},
		{Method: http.MethodDelete, Pattern: "/v2/idps/{idpID}", Handler: s.deleteIDP},
		{Method: http.MethodPatch, Pattern: "/v2/idps/{idpID}", Handler: s.updateIDP},
		{Method: http.MethodPatch, Pattern: "/v2/users/{userID}/identity-provider-id", Handler: s.updateUserIDP},

		{Method: http.MethodGet, Pattern: "/livez", Public: true, Handler: s.livez},
		{Method: http.MethodGet, Pattern: "/readyz", Public: true, Handler: s.readyz},
		{Method: http.MethodPost, Pattern: PrunePath, Handler: s.prune},
	}
	have := map[string]bool{}
	for _, rt := range base {
		have[rt.Method+" "+rt.Pattern] = true
	}
	for _, rt := range packageOperations {
		if !have[rt[0]+" "+rt[1]] {
			rs = append(rs, Route{Method: rt[0], Pattern: rt[1], Handler: s.packageStub})
		}
	}
	return rs
}

// packageOperations are the DAR, package and vetting operations of the
// OpenAPI document; their own issue implements them. Until a route of base
// serves one, it answers the stub's error.
var packageOperations = [][2]string{
	{http.MethodPost, "/v2/dars/validate"},
	{http.MethodPost, "/v2/dars"},
	{http.MethodGet, "/v2/packages"},
	{http.MethodPost, "/v2/packages"},
	{http.MethodGet, "/v2/packages/{packageID}"},
	{http.MethodGet, "/v2/packages/{packageID}/status"},
	{http.MethodGet, "/v2/package-vetting"},
	{http.MethodPost, "/v2/package-vetting"},
	{http.MethodPost, "/v2/package-vetting/list"},
	{http.MethodPost, "/v2/package-vetting/update"},
	{http.MethodGet, "/v2/interactive-submission/preferred-package-version"},
	{http.MethodPost, "/v2/interactive-submission/preferred-packages"},
}

// packageStub answers a package operation this node does not implement yet
// with Canton's error for an unsupported operation (category 14, redacted
// like Canton redacts it: 501).
func (s *Server) packageStub(req *Request) (any, error) {
	return nil, ledgerapi.Errorf(ledgerapi.ErrorCode{ID: "UNSUPPORTED_OPERATION", Category: 14},
		"%s %s is not supported by this node yet", req.Method, req.URL.Path)
}

// Operations lists every route as "METHOD pattern", for documentation and
// for the test that holds the node to Canton's OpenAPI document.
func Operations() []string {
	var out []string
	for _, rt := range (&Server{}).routes() {
		out = append(out, rt.Method+" "+rt.Pattern)
	}
	return out
}
