package ledgerapi

// GetTimeResponse is the answer of GET /v2/testing/time: the time of a node
// with static time (ledger serve --static-time). Canton's JSON API has no
// time endpoint; these are the messages of its gRPC TimeService
// (com.daml.ledger.api.v2.testing.TimeService).
type GetTimeResponse struct {
	CurrentTime Timestamp `json:"currentTime"`
}

// SetTimeRequest is the body of POST /v2/testing/time: move the node's
// static time from CurrentTime (which must be its time) to NewTime (not
// before it).
type SetTimeRequest struct {
	CurrentTime Timestamp `json:"currentTime"`
	NewTime     Timestamp `json:"newTime"`
}
