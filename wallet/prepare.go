package wallet

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// NewEnvelope is the envelope of a node's answer to a prepare request: the
// execute fields the signer passes on, the node's hash to check, and what
// the online machine knew (the request, the node, the time).
func NewEnvelope(req ledgerapi.PrepareSubmissionRequest, resp *ledgerapi.PrepareSubmissionResponse, nodeURL string, now time.Time) (*Envelope, error) {
	reqJSON, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	env := &Envelope{
		PreparedTransaction:     base64.StdEncoding.EncodeToString(resp.PreparedTransaction),
		UserID:                  req.UserID,
		HashingSchemeVersion:    string(resp.HashingSchemeVersion),
		MinLedgerTime:           req.MinLedgerTime,
		PreparedTransactionHash: base64.StdEncoding.EncodeToString(resp.PreparedTransactionHash),
		HashingDetails:          resp.HashingDetails,
		CostEstimation:          resp.CostEstimation,
		Form:                    FormEnvelope,
		Info: &EnvelopeInfo{
			Format: EnvelopeFormat, Version: EnvelopeVersion, NodeURL: nodeURL,
			PreparedAt: now.UTC().Format(time.RFC3339), PrepareRequest: reqJSON,
		},
	}
	// A node before 3.4 names no scheme in its answer: it hashed under V2.
	if env.HashingSchemeVersion == "" {
		env.HashingSchemeVersion = string(ledgerapi.HashingSchemeVersionV2)
	}
	return env, nil
}
