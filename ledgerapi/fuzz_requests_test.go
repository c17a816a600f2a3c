package ledgerapi

import "testing"

// FuzzDecodeRequests covers the request bodies the other fuzz targets leave
// out: party allocation, user update, rights grant and revoke, the identity
// provider move, submit-and-wait-for-transaction and the 3.5.7 completions
// query. Each must decode or fail, never panic, and re-encode stably.
func FuzzDecodeRequests(f *testing.F) {
	addSeeds(f, "testdata/golden/allocate_party_request.json", "testdata/golden/update_user_request.json",
		"testdata/lenient/rights.*.json", "testdata/golden/completion_request.json", "testdata/golden/commands.json")
	for _, s := range []string{
		`{"commands":{"commands":[],"commandId":"c","actAs":["A::1220ab"]},"transactionFormat":{"eventFormat":{"filtersByParty":{},"filtersForAnyParty":null,"verbose":true},"transactionShape":"TRANSACTION_SHAPE_ACS_DELTA"}}`,
		`{"userId":"u","sourceIdentityProviderId":"","targetIdentityProviderId":"idp"}`,
		`{"userId":"u","rights":[{"kind":{"CanActAs":{"value":{"party":"A::1220ab"}}}},{"kind":{"Empty":{}}}],"identityProviderId":""}`,
		`{"userId":"u","parties":["A::1220ab"],"beginExclusive":"7"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip[AllocatePartyRequest](t, data)
		fuzzRoundTrip[UpdateUserRequest](t, data)
		fuzzRoundTrip[GrantUserRightsRequest](t, data)
		fuzzRoundTrip[RevokeUserRightsRequest](t, data)
		fuzzRoundTrip[UpdateUserIdentityProviderIDRequest](t, data)
		fuzzRoundTrip[SubmitAndWaitForTransactionRequest](t, data)
		fuzzRoundTrip[GetCompletionsRequest](t, data)
	})
}

// TestTimestampRange: an offset must not carry a timestamp out of Daml's
// years 0001–9999, where its own output (a negative or five-digit year)
// would no longer parse (found by FuzzDecodeExecuteRequest).
func TestTimestampRange(t *testing.T) {
	for s, ok := range map[string]bool{
		"0001-01-01T00:00:00.000001Z":      true,
		"9999-12-31T23:59:59.999999Z":      true,
		"0001-01-01T00:30:00+01:00":        false, // 0000-12-31T23:30Z
		"0000-01-01T00:00:00,0+01:00":      false,
		"9999-12-31T23:00:00-02:00":        false, // 10000-01-01T01:00Z
		"2027-01-15T10:00:00.5+02:00":      true,
		"2027-01-15T10:00:00.123456789Z":   true,
		"9999-12-31T23:59:59.999999+00:00": true,
	} {
		ts, err := ParseTimestamp(s)
		if (err == nil) != ok {
			t.Errorf("ParseTimestamp(%q): %v, want ok=%v", s, err, ok)
			continue
		}
		if err == nil && !ts.IsZero() {
			if _, err := ParseTimestamp(ts.String()); err != nil {
				t.Errorf("%q prints as %q, which does not parse: %v", s, ts.String(), err)
			}
		}
	}
}
