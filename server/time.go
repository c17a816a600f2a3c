package server

import (
	"net/http"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// timeRoutes are the endpoints of a node with static time: read and set
// its clock (Daml Script's getTime, setTime and passTime against ledger
// serve --static-time). A node on wall-clock time has none: 404.
func (s *Server) timeRoutes() []Route {
	if s.Clock == nil {
		return nil
	}
	return []Route{
		{Method: http.MethodGet, Pattern: "/v2/testing/time", Handler: s.getTime},
		{Method: http.MethodPost, Pattern: "/v2/testing/time", Handler: s.setTime},
	}
}

func (s *Server) getTime(req *Request) (any, error) {
	return ledgerapi.GetTimeResponse{CurrentTime: ledgerapi.Timestamp{Time: s.Clock.Now()}}, nil
}

func (s *Server) setTime(req *Request) (any, error) {
	if !req.Caller.IsParticipantAdmin() {
		return nil, permissionDenied("user %q may not set the node's time: it needs the participant admin right", req.Caller.UserID)
	}
	var body ledgerapi.SetTimeRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if body.CurrentTime.IsZero() {
		return nil, ledgerapi.InvalidField("current_time", "give the node's current time, as GET /v2/testing/time answers it")
	}
	if body.NewTime.IsZero() {
		return nil, ledgerapi.InvalidField("new_time", "give the time to set")
	}
	if err := s.Clock.Set(body.CurrentTime.Time, body.NewTime.Time); err != nil {
		return nil, ledgerapi.InvalidArgument("%v", err)
	}
	return ledgerapi.GetTimeResponse{CurrentTime: ledgerapi.Timestamp{Time: s.Clock.Now()}}, nil
}
