package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// The continuation and page tokens of the read endpoints. As in Canton
// (AcsContinuationToken, AcsPageToken, UpdatesPageToken in ledger-api-core)
// a token carries a checksum of the participant and one of the request
// parameters it continues, and is refused when either differs: a token is
// for the same request against the same node only. The text itself is
// opaque to clients: kind.participant.request.a.b, checksums in hex.

// The errors of a token that does not fit the request (category 8).
var (
	CodeInvalidContinuationToken = ledgerapi.ErrorCode{ID: "INVALID_CONTINUATION_TOKEN", Category: 8}
	CodeInvalidACSPageToken      = ledgerapi.ErrorCode{ID: "INVALID_ACS_PAGE_TOKEN", Category: 8}
	CodeInvalidUpdatesPageToken  = ledgerapi.ErrorCode{ID: "INVALID_UPDATES_PAGE_TOKEN", Category: 8}
)

// Token kinds.
const (
	tokenACSStream = "acs1"
	tokenACSPage   = "acp1"
	tokenUpdates   = "upd1"
)

// malformedToken is Canton's reason for a token of kind that does not
// decode (AcsContinuationToken, AcsPageToken, UpdatesPageToken).
var malformedToken = map[string]string{
	tokenACSStream: "Invalid continuation token for GetActiveContractsRequest",
	tokenACSPage:   "Invalid page token for GetActiveContractsPageRequest",
	tokenUpdates:   "Invalid page token for GetUpdatesPageRequest",
}

// checksum is the first 8 bytes of the SHA-256 of purpose and the JSON of
// parts, in hex.
func checksum(purpose string, parts ...any) string {
	h := sha256.New()
	h.Write([]byte(purpose))
	enc := json.NewEncoder(h)
	for _, p := range parts {
		_ = enc.Encode(p) // plain request structs: cannot fail
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// tokenPrefix is what every token of kind for a request with checksum req
// on this node starts with; a token is the prefix, a and b.
func (s *Server) tokenPrefix(kind, req string) string {
	return kind + "." + checksum(kind, s.Node.Identity().ParticipantID) + "." + req + "."
}

func tokenWith(prefix string, a, b int64) string {
	return prefix + strconv.FormatInt(a, 10) + "." + strconv.FormatInt(b, 10)
}

// tokenMismatch says how a well-formed token does not fit: "participant",
// "request" or (updates pages) "bounds".
type tokenMismatch string

// parseToken reads a token of kind for the request with checksum req.
// A malformed token is INVALID_FIELD of field (Canton's
// validateProtobufEncodedField); one of another node or request is
// returned as a mismatch for the caller's error.
func (s *Server) parseToken(field, kind, req, tok string) (a, b int64, bad tokenMismatch, err error) {
	parts := strings.Split(tok, ".")
	malformed := ledgerapi.InvalidField(field, malformedToken[kind])
	if len(parts) != 5 || parts[0] != kind {
		return 0, 0, "", malformed
	}
	if a, err = strconv.ParseInt(parts[3], 10, 64); err != nil {
		return 0, 0, "", malformed
	}
	if b, err = strconv.ParseInt(parts[4], 10, 64); err != nil {
		return 0, 0, "", malformed
	}
	switch {
	case parts[1] != checksum(kind, s.Node.Identity().ParticipantID):
		bad = "participant"
	case parts[2] != req:
		bad = "request"
	}
	return a, b, bad, nil
}

// acsStreamChecksum covers what a continuation token of the ACS stream
// continues: the snapshot offset and the event format, the deprecated
// filter and verbose taken as the event format they stand for (Canton's
// JSON layer converts them before the checksum).
func acsStreamChecksum(body *ledgerapi.GetActiveContractsRequest) string {
	ef := body.EventFormat
	if ef == nil && body.Filter != nil {
		ef = &ledgerapi.EventFormat{FiltersByParty: body.Filter.FiltersByParty,
			FiltersForAnyParty: body.Filter.FiltersForAnyParty, Verbose: body.Verbose}
	}
	return checksum(tokenACSStream, body.ActiveAtOffset, ef)
}

// invalidContinuationToken is Canton's INVALID_CONTINUATION_TOKEN.
func invalidContinuationToken() error {
	return ledgerapi.Errorf(CodeInvalidContinuationToken, "The submitted command contains an invalid continuation token. "+
		"Tokens used in ACS requests must be taken from a valid GetActiveContractsResponse and used with the same "+
		"EventFormat settings, with the same Canton participant running the same Canton version.")
}

// acsPageChecksum covers the activeAtOffset (absent or not) and the event
// format of an ACS page request.
func acsPageChecksum(body *ledgerapi.GetActiveContractsPageRequest) string {
	return checksum(tokenACSPage, body.ActiveAtOffset, body.EventFormat)
}

// invalidACSPageToken is Canton's INVALID_ACS_PAGE_TOKEN.
func invalidACSPageToken(bad tokenMismatch) error {
	msg := "The page token was prepared with different event_format or active_at_offset."
	if bad == "participant" {
		msg = "The page token was prepared by a different participant."
	}
	return ledgerapi.Errorf(CodeInvalidACSPageToken, "The submitted command contains an invalid page token. "+
		"Tokens used in ACS requests must be taken from a valid GetActiveContractsPageResponse and used with the same "+
		"EventFormat settings, with the same Canton participant running the same Canton version. %s", msg)
}

// updatesPageChecksum covers every parameter of an updates page request
// but the token.
func updatesPageChecksum(body *ledgerapi.GetUpdatesPageRequest) string {
	return checksum(tokenUpdates, body.BeginOffsetExclusive, body.EndOffsetInclusive, body.MaxPageSize,
		body.UpdateFormat, body.DescendingOrder)
}

// invalidUpdatesPageToken is Canton's INVALID_UPDATES_PAGE_TOKEN.
func invalidUpdatesPageToken(bad tokenMismatch) error {
	msg := "Next page token was obtained with different request parameters"
	switch bad {
	case "participant":
		msg = "Next page token was obtained from an other participant node"
	case "bounds":
		msg = "lowestPageOffsetExclusive or highestPageOffsetInclusive bound is negative"
	}
	return ledgerapi.Errorf(CodeInvalidUpdatesPageToken, "The submitted command contains an invalid page token. "+
		"Tokens used in GetUpdatesPage requests must be taken from a valid GetUpdatesPageResponse and used with the "+
		"same EventFormat settings, the same begin and end with the same Canton participant running the same Canton "+
		"version. %s", msg)
}
