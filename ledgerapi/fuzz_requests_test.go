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
