package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// Version calls GET /v2/version (needs no token). Idempotent.
func (c *Client) Version(ctx context.Context) (*ledgerapi.GetVersionResponse, error) {
	var out ledgerapi.GetVersionResponse
	return &out, c.do(ctx, call{method: http.MethodGet, path: "/v2/version", out: &out, idempotent: true})
}

// LedgerEnd calls GET /v2/state/ledger-end. Idempotent.
func (c *Client) LedgerEnd(ctx context.Context) (int64, error) {
	var out ledgerapi.GetLedgerEndResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v2/state/ledger-end", out: &out, idempotent: true})
	return int64(out.Offset), err
}

// ConnectedSynchronizers calls GET /v2/state/connected-synchronizers; party
// and participantID are optional filters. Idempotent.
func (c *Client) ConnectedSynchronizers(ctx context.Context, party, participantID string) (*ledgerapi.GetConnectedSynchronizersResponse, error) {
	q := url.Values{}
	if party != "" {
		q.Set("party", party)
	}
	if participantID != "" {
		q.Set("participantId", participantID)
	}
	var out ledgerapi.GetConnectedSynchronizersResponse
	return &out, c.do(ctx, call{method: http.MethodGet, path: "/v2/state/connected-synchronizers", query: q, out: &out, idempotent: true})
}

// AuthenticatedUser calls GET /v2/authenticated-user (Canton 3.4+): the
// token's user. Idempotent.
func (c *Client) AuthenticatedUser(ctx context.Context) (*ledgerapi.User, error) {
	var out ledgerapi.GetUserResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v2/authenticated-user", out: &out, idempotent: true})
	return &out.User, err
}

// ParticipantID calls GET /v2/parties/participant-id. Idempotent.
func (c *Client) ParticipantID(ctx context.Context) (string, error) {
	var out ledgerapi.GetParticipantIDResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v2/parties/participant-id", out: &out, idempotent: true})
	return out.ParticipantID, err
}

// --- users ---

// ListUsers calls GET /v2/users for one page ("" token: the first).
// Idempotent.
func (c *Client) ListUsers(ctx context.Context, pageSize int, pageToken string) (*ledgerapi.ListUsersResponse, error) {
	q := url.Values{}
	if pageSize > 0 {
		q.Set("pageSize", strconv.Itoa(pageSize))
	}
	if pageToken != "" {
		q.Set("pageToken", pageToken)
	}
	var out ledgerapi.ListUsersResponse
	return &out, c.do(ctx, call{method: http.MethodGet, path: "/v2/users", query: q, out: &out, idempotent: true})
}

// AllUsers follows ListUsers' pages to the end.
func (c *Client) AllUsers(ctx context.Context) ([]ledgerapi.User, error) {
	var all []ledgerapi.User
	token := ""
	for {
		page, err := c.ListUsers(ctx, 0, token)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Users...)
		if page.NextPageToken == "" || page.NextPageToken == token {
			return all, nil
		}
		token = page.NextPageToken
	}
}

// GetUser calls GET /v2/users/{id}. Idempotent.
func (c *Client) GetUser(ctx context.Context, userID string) (*ledgerapi.User, error) {
	var out ledgerapi.GetUserResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v2/users/" + pathEscape(userID), out: &out, idempotent: true})
	return &out.User, err
}

// CreateUser calls POST /v2/users. Not idempotent (a retry may meet
// USER_ALREADY_EXISTS).
func (c *Client) CreateUser(ctx context.Context, req ledgerapi.CreateUserRequest) (*ledgerapi.User, error) {
	var out ledgerapi.CreateUserResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/users", body: req, out: &out})
	return &out.User, err
}

// UpdateUser calls PATCH /v2/users/{id}. Not idempotent.
func (c *Client) UpdateUser(ctx context.Context, req ledgerapi.UpdateUserRequest) (*ledgerapi.User, error) {
	id := ""
	if req.User != nil {
		id = req.User.ID
	}
	var out ledgerapi.UpdateUserResponse
	err := c.do(ctx, call{method: http.MethodPatch, path: "/v2/users/" + pathEscape(id), body: req, out: &out})
	return &out.User, err
}

// DeleteUser calls DELETE /v2/users/{id}. Not idempotent (a retry meets
// USER_NOT_FOUND).
func (c *Client) DeleteUser(ctx context.Context, userID string) error {
	return c.do(ctx, call{method: http.MethodDelete, path: "/v2/users/" + pathEscape(userID)})
}

// ListUserRights calls GET /v2/users/{id}/rights. Idempotent.
func (c *Client) ListUserRights(ctx context.Context, userID string) ([]ledgerapi.Right, error) {
	var out ledgerapi.ListUserRightsResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v2/users/" + pathEscape(userID) + "/rights", out: &out, idempotent: true})
	return out.Rights, err
}

// GrantUserRights calls POST /v2/users/{id}/rights and returns the rights
// the user did not have before. Idempotent: rights are a set.
func (c *Client) GrantUserRights(ctx context.Context, userID string, rights []ledgerapi.Right, idp string) ([]ledgerapi.Right, error) {
	req := ledgerapi.GrantUserRightsRequest{UserID: userID, Rights: rights, IdentityProviderID: idp}
	var out ledgerapi.GrantUserRightsResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/users/" + pathEscape(userID) + "/rights", body: req, out: &out, idempotent: true})
	return out.NewlyGrantedRights, err
}

// RevokeUserRights calls PATCH /v2/users/{id}/rights and returns the rights
// the user had and lost. Idempotent: rights are a set.
func (c *Client) RevokeUserRights(ctx context.Context, userID string, rights []ledgerapi.Right, idp string) ([]ledgerapi.Right, error) {
	req := ledgerapi.RevokeUserRightsRequest{UserID: userID, Rights: rights, IdentityProviderID: idp}
	var out ledgerapi.RevokeUserRightsResponse
	err := c.do(ctx, call{method: http.MethodPatch, path: "/v2/users/" + pathEscape(userID) + "/rights", body: req, out: &out, idempotent: true})
	return out.NewlyRevokedRights, err
}

// --- parties ---

// AllocateParty calls POST /v2/parties. Not idempotent.
func (c *Client) AllocateParty(ctx context.Context, req ledgerapi.AllocatePartyRequest) (*ledgerapi.PartyDetails, error) {
	var out ledgerapi.AllocatePartyResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/parties", body: req, out: &out})
	return &out.PartyDetails, err
}

// ListPartiesOptions are the query parameters of GET /v2/parties.
type ListPartiesOptions struct {
	// FilterParty keeps parties whose id starts with it (3.4.10+/3.5.1+).
	FilterParty        string
	IdentityProviderID string
	PageSize           int
	PageToken          string
}

// ListParties calls GET /v2/parties for one page. Idempotent.
func (c *Client) ListParties(ctx context.Context, o ListPartiesOptions) (*ledgerapi.ListPartiesResponse, error) {
	q := url.Values{}
	if o.FilterParty != "" {
		q.Set("filter-party", o.FilterParty)
	}
	if o.IdentityProviderID != "" {
		q.Set("identity-provider-id", o.IdentityProviderID)
	}
	if o.PageSize > 0 {
		q.Set("pageSize", strconv.Itoa(o.PageSize))
	}
	if o.PageToken != "" {
		q.Set("pageToken", o.PageToken)
	}
	var out ledgerapi.ListPartiesResponse
	return &out, c.do(ctx, call{method: http.MethodGet, path: "/v2/parties", query: q, out: &out, idempotent: true})
}

// AllParties follows ListParties' pages to the end.
func (c *Client) AllParties(ctx context.Context, o ListPartiesOptions) ([]ledgerapi.PartyDetails, error) {
	var all []ledgerapi.PartyDetails
	for {
		page, err := c.ListParties(ctx, o)
		if err != nil {
			return nil, err
		}
		all = append(all, page.PartyDetails...)
		if page.NextPageToken == "" || page.NextPageToken == o.PageToken {
			return all, nil
		}
		o.PageToken = page.NextPageToken
	}
}

// GetParties calls GET /v2/parties/{party}, asking for more parties at once
// with the parties query parameter. Idempotent.
func (c *Client) GetParties(ctx context.Context, party string, more ...string) ([]ledgerapi.PartyDetails, error) {
	q := url.Values{}
	for _, p := range more {
		q.Add("parties", p)
	}
	var out ledgerapi.GetPartiesResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v2/parties/" + pathEscape(party), query: q, out: &out, idempotent: true})
	return out.PartyDetails, err
}

// UpdatePartyDetails calls PATCH /v2/parties/{party} with the party of
// req.PartyDetails. Not idempotent: a 409 CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED
// needs the current resourceVersion read again before a retry.
func (c *Client) UpdatePartyDetails(ctx context.Context, req ledgerapi.UpdatePartyDetailsRequest) (*ledgerapi.PartyDetails, error) {
	party := ""
	if req.PartyDetails != nil {
		party = req.PartyDetails.Party
	}
	var out ledgerapi.UpdatePartyDetailsResponse
	err := c.do(ctx, call{method: http.MethodPatch, path: "/v2/parties/" + pathEscape(party), body: req, out: &out})
	return &out.PartyDetails, err
}

// GenerateExternalPartyTopology calls POST
// /v2/parties/external/generate-topology. Idempotent: it changes nothing.
func (c *Client) GenerateExternalPartyTopology(ctx context.Context, req ledgerapi.GenerateExternalPartyTopologyRequest) (*ledgerapi.GenerateExternalPartyTopologyResponse, error) {
	var out ledgerapi.GenerateExternalPartyTopologyResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/parties/external/generate-topology", body: req, out: &out, idempotent: true})
}

// AllocateExternalParty calls POST /v2/parties/external/allocate. Not
// idempotent.
func (c *Client) AllocateExternalParty(ctx context.Context, req ledgerapi.AllocateExternalPartyRequest) (string, error) {
	var out ledgerapi.AllocateExternalPartyResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/parties/external/allocate", body: req, out: &out})
	return out.PartyID, err
}

// --- interactive submission ---

// Prepare calls POST /v2/interactive-submission/prepare. Idempotent:
// preparing changes nothing on the ledger.
func (c *Client) Prepare(ctx context.Context, req ledgerapi.PrepareSubmissionRequest) (*ledgerapi.PrepareSubmissionResponse, error) {
	var out ledgerapi.PrepareSubmissionResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/interactive-submission/prepare", body: req, out: &out, idempotent: true})
}

// Execute calls POST /v2/interactive-submission/execute; the outcome arrives
// as a completion. Not idempotent: retry with a fresh submission id.
func (c *Client) Execute(ctx context.Context, req ledgerapi.ExecuteSubmissionRequest) error {
	return c.do(ctx, call{method: http.MethodPost, path: "/v2/interactive-submission/execute", body: req})
}

// ExecuteAndWait calls POST /v2/interactive-submission/executeAndWait
// (Canton 3.4+). Not idempotent.
func (c *Client) ExecuteAndWait(ctx context.Context, req ledgerapi.ExecuteSubmissionAndWaitRequest) (*ledgerapi.ExecuteSubmissionAndWaitResponse, error) {
	var out ledgerapi.ExecuteSubmissionAndWaitResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/interactive-submission/executeAndWait", body: req, out: &out})
}

// ExecuteAndWaitForTransaction calls POST
// /v2/interactive-submission/executeAndWaitForTransaction (Canton 3.4+).
// Not idempotent.
func (c *Client) ExecuteAndWaitForTransaction(ctx context.Context, req ledgerapi.ExecuteSubmissionAndWaitForTransactionRequest) (*ledgerapi.Transaction, error) {
	var out ledgerapi.ExecuteSubmissionAndWaitForTransactionResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/interactive-submission/executeAndWaitForTransaction", body: req, out: &out})
	return &out.Transaction, err
}

// --- command submission ---

// SubmitAndWait calls POST /v2/commands/submit-and-wait. Not idempotent.
func (c *Client) SubmitAndWait(ctx context.Context, cmds ledgerapi.Commands) (*ledgerapi.SubmitAndWaitResponse, error) {
	var out ledgerapi.SubmitAndWaitResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/commands/submit-and-wait", body: cmds, out: &out})
}

// SubmitAndWaitForTransaction calls POST
// /v2/commands/submit-and-wait-for-transaction. Not idempotent.
func (c *Client) SubmitAndWaitForTransaction(ctx context.Context, req ledgerapi.SubmitAndWaitForTransactionRequest) (*ledgerapi.Transaction, error) {
	var out ledgerapi.SubmitAndWaitForTransactionResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/commands/submit-and-wait-for-transaction", body: req, out: &out})
	return &out.Transaction, err
}

// SubmitAndWaitForTransactionTree calls the deprecated (still served in 3.5)
// POST /v2/commands/submit-and-wait-for-transaction-tree, whose body is the
// commands themselves. Not idempotent.
func (c *Client) SubmitAndWaitForTransactionTree(ctx context.Context, cmds ledgerapi.Commands) (*ledgerapi.TransactionTree, error) {
	var out ledgerapi.SubmitAndWaitForTransactionTreeResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/commands/submit-and-wait-for-transaction-tree", body: cmds, out: &out})
	return &out.TransactionTree, err
}

// --- completions ---

// CompletionsOptions are the query parameters of the completion list.
type CompletionsOptions struct {
	// Limit caps the elements of one answer (0: the node's maximum; more than
	// the node's maximum is answered with 413).
	Limit int
	// IdleTimeout ends the answer when no element arrived for this long
	// (0: the node's default, 500 ms on Canton).
	IdleTimeout time.Duration
}

// Completions calls POST /v2/commands/completions: the completions (and
// offset checkpoints) after req.BeginExclusive that arrive before the idle
// timeout. Idempotent.
func (c *Client) Completions(ctx context.Context, req ledgerapi.CompletionStreamRequest, o CompletionsOptions) ([]ledgerapi.CompletionStreamResponse, error) {
	q, idle := o.query()
	var out []ledgerapi.CompletionStreamResponse
	// Completion pages are long: decode them in one pass (what the node
	// writes always takes the fast way; anything else decodes as before).
	decode := func(body []byte) error {
		var err error
		if out, err = ledgerapi.DecodeCompletions(body); err != nil {
			out = nil
			return decodeJSON(body, &out)
		}
		return nil
	}
	err := c.do(ctx, call{method: http.MethodPost, path: "/v2/commands/completions", query: q, body: req, decode: decode,
		idempotent: true, extraTimeout: 2 * idle})
	return out, err
}

// Time calls GET /v2/testing/time: the time of a node with static time
// (ledger serve --static-time). A node without static time answers 404.
func (c *Client) Time(ctx context.Context) (*ledgerapi.GetTimeResponse, error) {
	var out ledgerapi.GetTimeResponse
	return &out, c.do(ctx, call{method: http.MethodGet, path: "/v2/testing/time", out: &out, idempotent: true})
}

// SetTime calls POST /v2/testing/time: move a static-time node's clock
// from req.CurrentTime to req.NewTime. Not idempotent: a retry after a
// lost answer fails as the time has moved.
func (c *Client) SetTime(ctx context.Context, req ledgerapi.SetTimeRequest) (*ledgerapi.GetTimeResponse, error) {
	var out ledgerapi.GetTimeResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/testing/time", body: req, out: &out})
}
