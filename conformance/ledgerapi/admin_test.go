package ledgerapi

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"

	"github.com/google/uuid"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// alphanumeric is the test tool's Random.alphanumeric.take(n).
func alphanumeric(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rand.IntN(len(chars))]
	}
	return string(b)
}

// PartyManagementServiceIT.scala.
func TestPartyManagementServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	var version ledgerapi.GetVersionResponse
	p.ok(t, "GET", "/v2/version", nil, &version)

	t.Run("PMRejectLongPartyHints", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/parties", map[string]any{"partyIdHint": alphanumeric(256)},
			failure{code: "INVALID_ARGUMENT", cause: "Party is too long"})
	})

	t.Run("PMRejectInvalidPartyHints", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/parties", map[string]any{"partyIdHint": "\U0001F600"},
			failure{code: "INVALID_ARGUMENT", cause: "non expected character"})
	})

	t.Run("PMPagedListKnownPartiesWithInvalidRequest", func(t *testing.T) {
		p.mustFail(t, "GET", "/v2/parties?pageSize=0&pageToken="+url.QueryEscape(uuid.NewString()), nil, failure{code: "INVALID_ARGUMENT"})
		p.mustFail(t, "GET", "/v2/parties?pageSize=-100", nil, failure{code: "INVALID_ARGUMENT"})
	})

	t.Run("PMPagedListKnownPartiesMaxPageSize", func(t *testing.T) {
		max := int(version.Features.PartyManagement.MaxPartiesPageSize)
		if max <= 0 {
			t.Skip("requires party management feature with parties page size limit")
		}
		p.mustFail(t, "GET", "/v2/parties?pageSize="+strconv.Itoa(max+1), nil,
			failure{code: "INVALID_ARGUMENT", cause: "Page size must not exceed the server's maximum"})
	})
}
