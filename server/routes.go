package server

import (
	"net/http"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// routes is the node's route table. Add an endpoint with one line here (or
// with Server.Handle); the handler does its own rights check through
// req.Caller.
func (s *Server) routes() []Route {
	base := append([]Route{
		{Method: http.MethodGet, Pattern: "/v2/version", Public: true, Handler: s.getVersion},
		{Method: http.MethodGet, Pattern: "/v2/state/ledger-end", Handler: s.getLedgerEnd},
		{Method: http.MethodGet, Pattern: "/v2/state/connected-synchronizers", Handler: s.getConnectedSynchronizers},
		{Method: http.MethodGet, Pattern: "/v2/authenticated-user", Handler: s.getAuthenticatedUser},

		{Method: http.MethodGet, Pattern: "/v2/users", Handler: s.listUsers},
		{Method: http.MethodPost, Pattern: "/v2/users", Handler: s.createUser},
		{Method: http.MethodGet, Pattern: "/v2/users/{userID}", Handler: s.getUser},
		{Method: http.MethodDelete, Pattern: "/v2/users/{userID}", Handler: s.deleteUser},
		{Method: http.MethodPatch, Pattern: "/v2/users/{userID}", Handler: s.updateUser},
		{Method: http.MethodGet, Pattern: "/v2/users/{userID}/rights", Handler: s.listUserRights},
		{Method: http.MethodPost, Pattern: "/v2/users/{userID}/rights", Handler: s.grantUserRights},
		{Method: http.MethodPatch, Pattern: "/v2/users/{userID}/rights", Handler: s.revokeUserRights},

		{Method: http.MethodPost, Pattern: "/v2/parties", Handler: s.allocateParty},
		{Method: http.MethodGet, Pattern: "/v2/parties", Handler: s.listParties},
		{Method: http.MethodGet, Pattern: "/v2/parties/participant-id", Handler: s.getParticipantID},
		{Method: http.MethodGet, Pattern: "/v2/parties/{party}", Handler: s.getParties},
		{Method: http.MethodPatch, Pattern: "/v2/parties/{party}", Handler: s.updatePartyDetails},
		{Method: http.MethodPost, Pattern: "/v2/parties/external/generate-topology", Handler: s.generateExternalPartyTopology},
		{Method: http.MethodPost, Pattern: "/v2/parties/external/allocate", Handler: s.allocateExternalParty},

		{Method: http.MethodPost, Pattern: "/v2/interactive-submission/prepare", Handler: s.prepareSubmission},
		{Method: http.MethodPost, Pattern: "/v2/interactive-submission/execute", Handler: s.executeSubmission},
		{Method: http.MethodPost, Pattern: "/v2/interactive-submission/executeAndWait", Handler: s.executeSubmissionAndWait},
		{Method: http.MethodPost, Pattern: "/v2/interactive-submission/executeAndWaitForTransaction", Handler: s.executeSubmissionAndWaitForTransaction},
		{Method: http.MethodPost, Pattern: "/v2/commands/submit-and-wait", Handler: s.submitAndWait},
		{Method: http.MethodPost, Pattern: "/v2/commands/submit-and-wait-for-transaction", Handler: s.submitAndWaitForTransaction},
		{Method: http.MethodPost, Pattern: "/v2/commands/submit-and-wait-for-transaction-tree", Handler: s.submitAndWaitForTransactionTree},
		{Method: http.MethodPost, Pattern: "/v2/commands/async/submit", Handler: s.submitAsync},
		{Method: http.MethodPost, Pattern: "/v2/commands/completions", Handler: s.listCompletions},
		// Public: the websocket authenticates from its subprotocols itself.
		{Method: http.MethodGet, Pattern: "/v2/commands/completions", Public: true, Handler: s.streamCompletions},
	}, s.packageRoutes()...)
	base = append(base, s.timeRoutes()...)
	return append(base, s.readRoutes()...)
}

func (s *Server) getVersion(req *Request) (any, error) {
	return node.VersionInfo(), nil
}

func (s *Server) getLedgerEnd(req *Request) (any, error) {
	return ledgerapi.GetLedgerEndResponse{Offset: ledgerapi.Int64(s.Node.LedgerEnd())}, nil
}

// synchronizerAlias is the alias of the node's one synchronizer.
const synchronizerAlias = "local"

// getConnectedSynchronizers lists the node's one synchronizer. With ?party=
// it lists it only when the party is hosted here, with the party's
// permission (external parties: confirmation); with ?participantId= naming
// another participant it lists nothing.
func (s *Server) getConnectedSynchronizers(req *Request) (any, error) {
	q := req.URL.Query()
	resp := ledgerapi.GetConnectedSynchronizersResponse{ConnectedSynchronizers: []ledgerapi.ConnectedSynchronizer{}}
	if pid := q.Get("participantId"); pid != "" && !s.Node.IsParticipant(pid) {
		return resp, nil
	}
	perm := ledgerapi.ParticipantPermissionSubmission
	if party := q.Get("party"); party != "" {
		if err := ledgerapi.ValidatePartyID("party", party); err != nil {
			return nil, ledgerapi.InvalidField("party", fieldReason(err))
		}
		if !req.Caller.CanReadAs(party) && !req.Caller.IsAdminOf(req.Caller.IdentityProviderID) {
			return nil, permissionDenied("user %q may not read as party %q", req.Caller.UserID, party)
		}
		p, hosted, err := s.Node.HostingPermission(req.Context(), party)
		if err != nil {
			return nil, err
		}
		if !hosted {
			return resp, nil
		}
		perm = p
	}
	resp.ConnectedSynchronizers = append(resp.ConnectedSynchronizers, ledgerapi.ConnectedSynchronizer{
		SynchronizerAlias: synchronizerAlias,
		SynchronizerID:    s.Node.Identity().SynchronizerID,
		Permission:        perm,
	})
	return resp, nil
}

func (s *Server) getParticipantID(req *Request) (any, error) {
	return ledgerapi.GetParticipantIDResponse{ParticipantID: s.Node.Identity().ParticipantID}, nil
}
