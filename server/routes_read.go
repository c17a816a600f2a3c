package server

import "net/http"

// readRoutes are the read side's routes (reads.go, idps.go,
// admin_reads.go).
func (s *Server) readRoutes() []Route {
	return []Route{
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
