package server

import (
	"net/http"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// PrunePath is `ledger serve`'s own pruning endpoint. Canton prunes through
// its admin API, outside the JSON Ledger API; this node has no admin API,
// so the participant admin prunes here: POST {"pruneUpTo": n}.
const PrunePath = "/admin/prune"

// prune prunes the ledger up to the offset asked, waiting until done.
func (s *Server) prune(req *Request) (any, error) {
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	var body ledgerapi.PruneRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	upTo := int64(body.PruneUpTo)
	if body.PruneBefore != nil {
		if upTo != 0 {
			return nil, ledgerapi.InvalidArgument("give pruneUpTo or pruneBefore, not both")
		}
		off, err := s.Node.OffsetBefore(req.Context(), body.PruneBefore.Time)
		if err != nil {
			return nil, err
		}
		if end := s.Node.LedgerEnd(); off >= end {
			off = end - 1 // Canton prunes only below the ledger end
		}
		if off <= s.Node.PrunedUpTo() {
			return ledgerapi.PruneResponse{PrunedUpTo: ledgerapi.Int64(s.Node.PrunedUpTo())}, nil
		}
		upTo = off
	}
	var last ledger.PruneProgress
	if err := s.Node.Prune(req.Context(), upTo, func(p ledger.PruneProgress) { last = p }); err != nil {
		return nil, err
	}
	return ledgerapi.PruneResponse{PrunedUpTo: ledgerapi.Int64(s.Node.PrunedUpTo()),
		CompletionsRemoved: ledgerapi.Int64(last.Entries), ContractsRemoved: ledgerapi.Int64(last.Contracts)}, nil
}

// livez and readyz answer Canton's health checks without a token: alive
// while serving, ready until the node shuts its streams down.
func (s *Server) livez(req *Request) (any, error) {
	req.W.WriteHeader(http.StatusOK)
	return nil, nil
}

func (s *Server) readyz(req *Request) (any, error) {
	select {
	case <-s.Node.Stopping():
		return nil, ledgerapi.Errorf(ledgerapi.CodeServiceNotRunning, "The node is shutting down.")
	default:
	}
	req.W.Header().Set("Content-Type", "text/plain; charset=utf-8")
	req.W.WriteHeader(http.StatusOK)
	_, _ = req.W.Write([]byte("ready\n"))
	return nil, nil
}

// ---- reassignment ----

// reassignmentCommands is the part of a reassignment request this node
// reads: the submitter and the synchronizers each command names.
type reassignmentCommands struct {
	CommandID string `json:"commandId"`
	Submitter string `json:"submitter"`
	Commands  []struct {
		Command map[string]struct {
			Value struct {
				Source string `json:"source"`
				Target string `json:"target"`
			} `json:"value"`
		} `json:"command"`
	} `json:"commands"`
}

// submitReassignment answers async/submit-reassignment and
// submit-and-wait-for-reassignment: both bodies hold reassignmentCommands.
func (s *Server) submitReassignment(req *Request) (any, error) {
	var body struct {
		ReassignmentCommands *reassignmentCommands `json:"reassignmentCommands"`
	}
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.reassign(req, body.ReassignmentCommands)
}

// reassign answers a reassignment as Canton does on a participant connected
// to one synchronizer: after the act-as check, a source or target that is
// not a connected synchronizer is INVALID_ARGUMENT (CantonSyncService's
// "Unable to resolve … to a connected physical synchronizer id"), and
// reassigning to the one synchronizer it has is refused too.
func (s *Server) reassign(req *Request, rc *reassignmentCommands) (any, error) {
	if rc == nil {
		return nil, ledgerapi.MissingField("reassignment_commands")
	}
	if rc.Submitter == "" {
		return nil, ledgerapi.MissingField("submitter")
	}
	if err := ledgerapi.ValidatePartyID("submitter", rc.Submitter); err != nil {
		return nil, ledgerapi.InvalidArgument("%s", fieldReason(err))
	}
	if !req.Caller.CanActAs(rc.Submitter) {
		return nil, permissionDenied("user %q may not act as party %q", req.Caller.UserID, rc.Submitter)
	}
	if rc.CommandID == "" {
		return nil, ledgerapi.MissingField("command_id")
	}
	if len(rc.Commands) == 0 {
		return nil, ledgerapi.MissingField("commands")
	}
	own := s.Node.Identity().SynchronizerID
	for _, c := range rc.Commands {
		for _, arm := range c.Command {
			for _, id := range []string{arm.Value.Source, arm.Value.Target} {
				if id != "" && id != own {
					return nil, ledgerapi.InvalidArgument("Unable to resolve %s to a connected physical synchronizer id", id)
				}
			}
		}
	}
	return nil, ledgerapi.InvalidArgument("Cannot reassign contracts from synchronizer %s to itself: this participant is connected to no other synchronizer", own)
}
