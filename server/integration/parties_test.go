package integration

import (
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/sqlite"
	"github.com/ledger-cli/ledger/server/auth"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/topology"
)

func TestAllocateAndReadParties(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	n.createUser("alice")
	var resp ledgerapi.AllocatePartyResponse
	n.ok("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": "Alice", "userId": "alice",
		"localMetadata": map[string]any{"annotations": map[string]string{"example.com/kind": "person"}}}, &resp)
	alice := resp.PartyDetails
	if alice.Party != "Alice::"+n.partyNS || !alice.IsLocal || alice.LocalMetadata.ResourceVersion != "0" ||
		alice.LocalMetadata.Annotations["example.com/kind"] != "person" {
		t.Errorf("allocated %+v", alice)
	}
	// userId got CanActAs on the new party
	var rights ledgerapi.ListUserRightsResponse
	n.ok("GET", "/v2/users/alice/rights", n.admin, nil, &rights)
	if len(rights.Rights) != 1 || rights.Rights[0] != ledgerapi.CanActAs(alice.Party) {
		t.Errorf("alice's rights %+v", rights.Rights)
	}
	// errors
	n.fail("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": "Alice"}, 400, "INVALID_ARGUMENT")
	n.fail("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": "bad/hint"}, 400, "INVALID_ARGUMENT")
	n.fail("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": "Has::Colons"}, 400, "INVALID_ARGUMENT")
	n.fail("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": "U", "userId": "ghost"}, 404, "USER_NOT_FOUND")
	n.fail("POST", "/v2/parties", n.admin, map[string]any{"partyIdHint": "S", "synchronizerId": "other::1220ab"}, 400, "INVALID_ARGUMENT")
	// an empty hint gets a generated one
	n.ok("POST", "/v2/parties", n.admin, map[string]any{}, &resp)
	if !strings.HasPrefix(resp.PartyDetails.Party, "party-") {
		t.Errorf("generated party %q", resp.PartyDetails.Party)
	}

	for _, h := range []string{"Bob", "Bobby", "Carol"} {
		n.allocate(h)
	}
	// list: paged, filtered by prefix
	var list ledgerapi.ListPartiesResponse
	var seen []string
	tok := ""
	for i := 0; i < 10; i++ {
		n.ok("GET", "/v2/parties?pageSize=2&filter-party=Bob&pageToken="+tok, n.admin, nil, &list)
		for _, p := range list.PartyDetails {
			seen = append(seen, strings.Split(p.Party, "::")[0])
		}
		if tok = list.NextPageToken; tok == "" {
			break
		}
	}
	if strings.Join(seen, ",") != "Bob,Bobby" {
		t.Errorf("filtered parties %v", seen)
	}
	n.ok("GET", "/v2/parties", n.admin, nil, &list)
	if len(list.PartyDetails) != 5 || list.NextPageToken != "" {
		t.Errorf("all parties: %d, token %q", len(list.PartyDetails), list.NextPageToken)
	}

	// get: the path party and extra parties; unknown ones are left out
	var got ledgerapi.GetPartiesResponse
	n.ok("GET", partyPath(alice.Party)+"?parties="+urlPathEscape("Bob::"+n.partyNS)+"&parties="+urlPathEscape("Nobody::"+n.partyNS), n.admin, nil, &got)
	if len(got.PartyDetails) != 2 {
		t.Errorf("get parties %+v", got)
	}
	n.fail("GET", partyPath("bad/party"), n.admin, nil, 400, "INVALID_FIELD")
	n.fail("GET", partyPath(alice.Party)+"?parties=bad%21", n.admin, nil, 400, "INVALID_FIELD")
	// a user with a right on the party may read it, not others
	n.ok("GET", partyPath(alice.Party), n.token("alice"), nil, &got)
	if len(got.PartyDetails) != 1 {
		t.Errorf("alice reads Alice: %+v", got)
	}
	n.fail("GET", partyPath("Bob::"+n.partyNS), n.token("alice"), nil, 403, ledgerapi.RedactedCode)
	// connected synchronizers of a hosted party
	var syncs ledgerapi.GetConnectedSynchronizersResponse
	n.ok("GET", "/v2/state/connected-synchronizers?party="+urlPathEscape(alice.Party), n.token("alice"), nil, &syncs)
	if len(syncs.ConnectedSynchronizers) != 1 {
		t.Errorf("alice's synchronizers %+v", syncs)
	}
}

// patch sends PATCH /v2/parties/{party} with details and mask paths.
func patchBody(party, version string, ann map[string]string, paths ...string) map[string]any {
	return map[string]any{
		"partyDetails": map[string]any{"party": party, "isLocal": true,
			"localMetadata": map[string]any{"resourceVersion": version, "annotations": ann}, "identityProviderId": ""},
		"updateMask": map[string]any{"paths": paths},
	}
}

func TestUpdatePartyDetails(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	p := n.allocate("Alice").Party
	path := partyPath(p)
	var resp ledgerapi.UpdatePartyDetailsResponse

	// merge, then delete with ""
	n.ok("PATCH", path, n.admin, patchBody(p, "0", map[string]string{"example.com/team": "payments", "old": "x"}, "local_metadata.annotations"), &resp)
	if resp.PartyDetails.LocalMetadata.ResourceVersion != "1" || len(resp.PartyDetails.LocalMetadata.Annotations) != 2 {
		t.Errorf("after first update %+v", resp.PartyDetails)
	}
	n.ok("PATCH", path, n.admin, patchBody(p, "1", map[string]string{"old": "", "new": "y"}, "local_metadata.annotations"), &resp)
	ann := resp.PartyDetails.LocalMetadata.Annotations
	if resp.PartyDetails.LocalMetadata.ResourceVersion != "2" || len(ann) != 2 || ann["example.com/team"] != "payments" || ann["new"] != "y" {
		t.Errorf("after merge %+v", resp.PartyDetails)
	}
	// coarse path with empty annotations: no change, but the version moves
	n.ok("PATCH", path, n.admin, patchBody(p, "", map[string]string{}, "local_metadata"), &resp)
	if resp.PartyDetails.LocalMetadata.ResourceVersion != "3" || len(resp.PartyDetails.LocalMetadata.Annotations) != 2 {
		t.Errorf("coarse no-op %+v", resp.PartyDetails)
	}
	// non-modifiable fields pass when equal
	n.ok("PATCH", path, n.admin, patchBody(p, "", nil, "is_local", "party", "identity_provider_id", "local_metadata.resource_version"), &resp)
	// the response has every field
	r := n.call("PATCH", path, n.admin, patchBody(p, "", nil, "party"))
	if want := `"identityProviderId":""`; !strings.Contains(string(r.body), want) {
		t.Errorf("response lacks %s: %s", want, r.body)
	}

	cases := []struct {
		name   string
		path   string
		body   any
		status int
		code   string
	}{
		{"stale resource version", path, patchBody(p, "1", map[string]string{"a": "b"}, "local_metadata.annotations"), 409, "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED"},
		{"camelCase mask path", path, patchBody(p, "", nil, "localMetadata.annotations"), 400, "INVALID_PARTY_DETAILS_UPDATE_REQUEST"},
		{"empty mask", path, patchBody(p, "", nil), 400, "INVALID_PARTY_DETAILS_UPDATE_REQUEST"},
		{"duplicate mask path", path, patchBody(p, "", nil, "party", "party"), 400, "INVALID_PARTY_DETAILS_UPDATE_REQUEST"},
		{"modify is_local", path, map[string]any{"partyDetails": map[string]any{"party": p, "isLocal": false},
			"updateMask": map[string]any{"paths": []string{"is_local"}}}, 400, "INVALID_PARTY_DETAILS_UPDATE_REQUEST"},
		{"missing update mask", path, map[string]any{"partyDetails": map[string]any{"party": p}}, 400, "MISSING_FIELD"},
		{"missing party details", path, map[string]any{"updateMask": map[string]any{"paths": []string{"party"}}}, 400, "INVALID_ARGUMENT"},
		{"path/body mismatch", path, patchBody("Bob::"+n.partyNS, "", nil, "party"), 400, "INVALID_ARGUMENT"},
		{"bad resource version", path, patchBody(p, "v1", nil, "party"), 400, "INVALID_FIELD"},
		{"bad annotation key", path, patchBody(p, "", map[string]string{"-bad-": "x"}, "local_metadata.annotations"), 400, "INVALID_ARGUMENT"},
		{"invalid party id", partyPath("NoNamespace"), patchBody("NoNamespace", "", nil, "party"), 400, "INVALID_ARGUMENT"},
		{"unknown party", partyPath("Ghost::" + n.partyNS), patchBody("Ghost::"+n.partyNS, "", nil, "party"), 404, "PARTY_NOT_FOUND"},
		{"unknown identity provider", path, map[string]any{"partyDetails": map[string]any{"party": p, "identityProviderId": "idp1"},
			"updateMask": map[string]any{"paths": []string{"party"}}}, 400, "INVALID_ARGUMENT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n.t = t
			n.fail("PATCH", c.path, n.admin, c.body, c.status, c.code)
		})
	}
	n.t = t

	// the size limit applies after the merge: six 40 KiB values fit in 256 KiB, seven do not
	big := strings.Repeat("x", 40<<10)
	var last ledgerapi.UpdatePartyDetailsResponse
	for i := 0; i < 6; i++ {
		n.ok("PATCH", path, n.admin, patchBody(p, "", map[string]string{fmt.Sprintf("big%d", i): big}, "local_metadata.annotations"), &last)
	}
	n.fail("PATCH", path, n.admin, patchBody(p, "", map[string]string{"big6": big}, "local_metadata.annotations"), 400, "MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED")
	// nothing of the refused update was stored; deleting makes room again
	var got ledgerapi.GetPartiesResponse
	n.ok("GET", path, n.admin, nil, &got)
	if _, ok := got.PartyDetails[0].LocalMetadata.Annotations["big6"]; ok || got.PartyDetails[0].LocalMetadata.ResourceVersion != last.PartyDetails.LocalMetadata.ResourceVersion {
		t.Errorf("refused update left traces: version %s", got.PartyDetails[0].LocalMetadata.ResourceVersion)
	}
	n.ok("PATCH", path, n.admin, patchBody(p, "", map[string]string{"big0": "", "big6": big}, "local_metadata.annotations"), nil)
}

func TestUpdatePartyRights(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	p := n.allocate("Alice").Party
	n.createUser("alice", ledgerapi.CanActAs(p))
	n.createUser("idpadmin", adminRight(ledgerapi.RightIdentityProviderAdmin))
	// acting as the party is not enough
	n.fail("PATCH", partyPath(p), n.token("alice"), patchBody(p, "", map[string]string{"a": "b"}, "local_metadata.annotations"), 403, ledgerapi.RedactedCode)
	// an identity-provider admin of the party's provider may
	n.ok("PATCH", partyPath(p), n.token("idpadmin"), patchBody(p, "", map[string]string{"a": "b"}, "local_metadata.annotations"), nil)
	n.fail("PATCH", partyPath(p), "", patchBody(p, "", nil, "party"), 401, ledgerapi.RedactedCode)
}

// TestConcurrentPartyUpdates: 50 clients update the same party with the
// same resource version; exactly one wins and only its change is stored.
func TestConcurrentPartyUpdates(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	p := n.allocate("Contended").Party
	const clients = 50
	statuses := make([]int, clients)
	bodies := make([][]byte, clients)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			r := n.call("PATCH", partyPath(p), n.admin, patchBody(p, "0", map[string]string{fmt.Sprintf("client-%02d", i): "won"}, "local_metadata.annotations"))
			statuses[i], bodies[i] = r.status, r.body
		}(i)
	}
	close(start)
	wg.Wait()
	winner := -1
	conflicts := 0
	for i, s := range statuses {
		switch s {
		case 200:
			if winner >= 0 {
				t.Fatalf("clients %d and %d both succeeded", winner, i)
			}
			winner = i
		case 409:
			e, err := ledgerapi.DecodeError(bodies[i])
			if err != nil || e.Code != "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED" || !e.Retryable() {
				t.Errorf("client %d: %s", i, bodies[i])
			}
			conflicts++
		default:
			t.Errorf("client %d: status %d: %s", i, s, bodies[i])
		}
	}
	if winner < 0 || conflicts != clients-1 {
		t.Fatalf("winner %d, conflicts %d", winner, conflicts)
	}
	var got ledgerapi.GetPartiesResponse
	n.ok("GET", partyPath(p), n.admin, nil, &got)
	ann := got.PartyDetails[0].LocalMetadata.Annotations
	if len(ann) != 1 || ann[fmt.Sprintf("client-%02d", winner)] != "won" || got.PartyDetails[0].LocalMetadata.ResourceVersion != "1" {
		t.Errorf("stored %+v, winner %d", got.PartyDetails[0], winner)
	}
}

// TestExternalPartyOnboarding: generate-topology, sign the multi-hash with a
// signer key, allocate; the party is listed and its key recorded.
func TestExternalPartyOnboarding(t *testing.T) {
	n := startNode(t, auth.ModeHS256)
	n.createUser("wallet")
	key, err := signer.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var gen ledgerapi.GenerateExternalPartyTopologyResponse
	n.ok("POST", "/v2/parties/external/generate-topology", n.token("wallet"), map[string]any{
		"synchronizer": n.identity().SynchronizerID,
		"partyHint":    "Ext",
		"publicKey": map[string]any{"format": "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO",
			"keyData": key.Public().SPKIDER(), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"},
	}, &gen)
	if gen.PartyID != "Ext::"+key.Fingerprint() || gen.PublicKeyFingerprint != key.Fingerprint() || len(gen.TopologyTransactions) == 0 {
		t.Fatalf("generate-topology %+v", gen)
	}
	// the client checks what it is about to sign
	txs := make([][]byte, len(gen.TopologyTransactions))
	for i, tx := range gen.TopologyTransactions {
		txs[i] = tx
	}
	if _, err := topology.CheckExternalPartyOnboarding(txs, key.Public().Raw(), "Ext"); err != nil {
		t.Fatal(err)
	}
	if err := topology.VerifyMultiHash(txs, gen.MultiHash); err != nil {
		t.Fatal(err)
	}
	sig, err := key.SignMultiHash(gen.MultiHash)
	if err != nil {
		t.Fatal(err)
	}
	onboarding := make([]map[string]any, len(txs))
	for i, tx := range txs {
		onboarding[i] = map[string]any{"transaction": tx, "signatures": []any{}}
	}
	allocate := map[string]any{
		"synchronizer":           n.identity().SynchronizerID,
		"onboardingTransactions": onboarding,
		"multiHashSignatures":    []any{sig},
		"identityProviderId":     "",
		"userId":                 "wallet",
	}
	// a wrong signature is refused, nothing is stored
	other, _ := signer.Generate(rand.Reader)
	badSig, _ := other.SignMultiHash(gen.MultiHash)
	badSig.SignedBy = key.Fingerprint()
	bad := map[string]any{}
	for k, v := range allocate {
		bad[k] = v
	}
	bad["multiHashSignatures"] = []any{badSig}
	n.fail("POST", "/v2/parties/external/allocate", n.admin, bad, 400, "INVALID_ARGUMENT")
	// the wallet user is no admin
	n.fail("POST", "/v2/parties/external/allocate", n.token("wallet"), allocate, 403, ledgerapi.RedactedCode)

	var alloc ledgerapi.AllocateExternalPartyResponse
	n.ok("POST", "/v2/parties/external/allocate", n.admin, allocate, &alloc)
	if alloc.PartyID != gen.PartyID {
		t.Fatalf("allocated %q, want %q", alloc.PartyID, gen.PartyID)
	}
	n.fail("POST", "/v2/parties/external/allocate", n.admin, allocate, 400, "INVALID_ARGUMENT")

	var list ledgerapi.ListPartiesResponse
	n.ok("GET", "/v2/parties?filter-party=Ext", n.admin, nil, &list)
	if len(list.PartyDetails) != 1 || list.PartyDetails[0].Party != gen.PartyID || !list.PartyDetails[0].IsLocal {
		t.Errorf("listed %+v", list)
	}
	// what the node recorded, read from its database
	st, err := sqlite.Open(n.dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := st.SigningKeys(t.Context(), gen.PartyID)
	_ = st.Close()
	if err != nil || len(keys) != 1 || keys[0].Fingerprint != key.Fingerprint() || string(keys[0].PublicKey) != string(key.Public().Raw()) {
		t.Errorf("recorded keys %+v, %v", keys, err)
	}
	var rights ledgerapi.ListUserRightsResponse
	n.ok("GET", "/v2/users/wallet/rights", n.admin, nil, &rights)
	if len(rights.Rights) != 1 || rights.Rights[0] != ledgerapi.CanActAs(gen.PartyID) {
		t.Errorf("wallet rights %+v", rights)
	}
	var syncs ledgerapi.GetConnectedSynchronizersResponse
	n.ok("GET", "/v2/state/connected-synchronizers?party="+urlPathEscape(gen.PartyID), n.admin, nil, &syncs)
	if len(syncs.ConnectedSynchronizers) != 1 || syncs.ConnectedSynchronizers[0].Permission != ledgerapi.ParticipantPermissionConfirmation {
		t.Errorf("external party's synchronizers %+v", syncs)
	}

	// generate-topology input errors
	n.fail("POST", "/v2/parties/external/generate-topology", n.admin, map[string]any{"partyHint": "X"}, 400, "MISSING_FIELD")
	n.fail("POST", "/v2/parties/external/generate-topology", n.admin, map[string]any{"partyHint": "X",
		"publicKey": map[string]any{"format": "CRYPTO_KEY_FORMAT_RAW", "keyData": []byte{1, 2, 3}, "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"}}, 400, "INVALID_FIELD")
	r := n.call("POST", "/v2/parties/external/allocate", n.admin, `{"onboardingTransactions":[{"transaction":"%%%"}]}`)
	if r.status != 400 || !strings.HasPrefix(string(r.body), "Invalid value for: body") {
		t.Errorf("bad base64: %d %s", r.status, r.body)
	}
}
