package cmd

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/signer"
)

func TestPartiesAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	r := runCLI(t, "", append([]string{"parties", "allocate", "bank", "--annotation", "example.com/team=payments"}, conn...)...).must(t, 0)
	bank := strings.TrimSpace(r.out)
	if !strings.HasPrefix(bank, "bank::1220") {
		t.Fatalf("allocate printed %q", r.out)
	}
	r = runCLI(t, "", append([]string{"parties", "get", bank, "-o", "json"}, conn...)...).must(t, 0)
	var ps []ledgerapi.PartyDetails
	if err := json.Unmarshal([]byte(r.out), &ps); err != nil || len(ps) != 1 || ps[0].LocalMetadata.Annotations["example.com/team"] != "payments" {
		t.Fatalf("get: %v %s", err, r.out)
	}
	v0 := ps[0].LocalMetadata.ResourceVersion

	// update reads the version itself, merges, and deletes with --unset.
	r = runCLI(t, "", append([]string{"parties", "update", bank, "--set", "example.com/tier=gold", "--unset", "example.com/team", "-o", "json"}, conn...)...).must(t, 0)
	ps = nil
	json.Unmarshal([]byte(r.out), &ps)
	ann := ps[0].LocalMetadata.Annotations
	if ann["example.com/tier"] != "gold" || ann["example.com/team"] != "" || len(ann) != 1 || ps[0].LocalMetadata.ResourceVersion == v0 {
		t.Fatalf("update (version before %q): %s", v0, r.out)
	}
	// A stale --resource-version is a 409 (exit 1 with a hint) …
	r = runCLI(t, "", append([]string{"parties", "update", bank, "--set", "example.com/x=1", "--resource-version", v0}, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED") || !strings.Contains(r.err, "--retry") {
		t.Errorf("stale version: %s", r.err)
	}
	// … that --retry cures by reading the party again.
	r = runCLI(t, "", append([]string{"parties", "update", bank, "--set", "example.com/x=1", "--resource-version", v0, "--retry"}, conn...)...).must(t, 0)
	if !strings.Contains(r.err, "changed concurrently") || !strings.Contains(r.out, "example.com/x=1") {
		t.Errorf("retry: out %s err %s", r.out, r.err)
	}

	r = runCLI(t, "", append([]string{"parties", "list"}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, bank) {
		t.Errorf("list lacks %s:\n%s", bank, r.out)
	}
	r = runCLI(t, "", append([]string{"parties", "list", "--filter", "nobody", "-o", "json"}, conn...)...).must(t, 0)
	if strings.TrimSpace(r.out) != "[]" {
		t.Errorf("filtered list: %s", r.out)
	}

	// Without a token the node answers a redacted 401: exit 1, explained.
	r = runCLI(t, "", "parties", "list", "--url", n.url).must(t, 1)
	if !strings.Contains(r.err, "not authenticated") {
		t.Errorf("no token: %s", r.err)
	}
	runCLI(t, "", append([]string{"parties", "update", bank}, conn...)...).must(t, 2)
	runCLI(t, "", append([]string{"parties", "allocate", "bad::hint"}, conn...)...).must(t, 2)
}

// TestPartyUpdateRetriesOnlyConflicts runs update --retry against a fake
// node that reports a conflict twice: each retry reads the version again.
func TestPartyUpdateRetriesOnlyConflicts(t *testing.T) {
	isolateConfig(t)
	var reads, patches atomic.Int32
	var lastVersion atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodGet:
			v := reads.Add(1)
			json.NewEncoder(w).Encode(ledgerapi.GetPartiesResponse{PartyDetails: []ledgerapi.PartyDetails{{Party: "p::1", IsLocal: true,
				LocalMetadata: ledgerapi.ObjectMeta{ResourceVersion: string(rune('0' + v))}}}})
		case http.MethodPatch:
			var req ledgerapi.UpdatePartyDetailsRequest
			json.NewDecoder(r.Body).Decode(&req)
			lastVersion.Store(req.PartyDetails.LocalMetadata.ResourceVersion)
			if req.UpdateMask == nil || len(req.UpdateMask.Paths) != 1 || req.UpdateMask.Paths[0] != "local_metadata.annotations" {
				w.WriteHeader(400)
				return
			}
			if patches.Add(1) < 3 {
				e := ledgerapi.NewError(ledgerapi.CodeConcurrentPartyDetailsUpdate, "version moved", nil)
				w.WriteHeader(e.HTTPStatus())
				json.NewEncoder(w).Encode(e)
				return
			}
			json.NewEncoder(w).Encode(ledgerapi.UpdatePartyDetailsResponse{PartyDetails: *req.PartyDetails})
		}
	}))
	defer srv.Close()
	runCLI(t, "", "parties", "update", "p::1", "--set", "a=b", "--retry", "--url", srv.URL).must(t, 0)
	if reads.Load() != 3 || patches.Load() != 3 || lastVersion.Load() != "3" {
		t.Errorf("reads %d patches %d last version %v", reads.Load(), patches.Load(), lastVersion.Load())
	}
	reads.Store(0)
	patches.Store(0)
	runCLI(t, "", "parties", "update", "p::1", "--set", "a=b", "--url", srv.URL).must(t, 1)
	if patches.Load() != 1 {
		t.Errorf("without --retry: %d patches", patches.Load())
	}
}

func TestAllocateExternalRefusesForeignTopology(t *testing.T) {
	isolateConfig(t)
	n := startLiveNode(t)
	// A proxy that swaps the hint in the node's answer: the party it names
	// is not ours, and nothing may be signed.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/parties/external/generate-topology" {
			var req map[string]any
			json.NewDecoder(r.Body).Decode(&req)
			req["partyHint"] = "mallory"
			b, _ := json.Marshal(req)
			fwd, _ := http.NewRequest(http.MethodPost, n.url+r.URL.Path, strings.NewReader(string(b)))
			fwd.Header = r.Header
			resp, err := http.DefaultClient.Do(fwd)
			if err != nil {
				w.WriteHeader(502)
				return
			}
			defer resp.Body.Close()
			w.WriteHeader(resp.StatusCode)
			var out any
			json.NewDecoder(resp.Body).Decode(&out)
			json.NewEncoder(w).Encode(out)
			return
		}
		req, _ := http.NewRequest(r.Method, n.url+r.URL.RequestURI(), r.Body)
		req.Header = r.Header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(502)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		var out any
		json.NewDecoder(resp.Body).Decode(&out)
		json.NewEncoder(w).Encode(out)
	}))
	defer proxy.Close()
	_, _, keyFile, _ := n.externalParty("carol")
	r := runCLI(t, "", "parties", "allocate-external", "--key", keyFile, "--hint", "dave", "--yes", "--url", proxy.URL, "--token", n.admin).must(t, 1)
	if !strings.Contains(r.err, "refusing to sign") {
		t.Errorf("stderr: %s", r.err)
	}
}

// TestPartyTyposAreNamed: a party id the node does not know is "not found"
// (exit 1), not an empty answer (issue 12, item 24).
func TestPartyTyposAreNamed(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	typo := "bnak" + strings.TrimPrefix(bank, "bank")

	r := runCLI(t, "", append([]string{"parties", "get", typo}, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "not found: "+typo) || strings.Contains(r.out, "no parties") {
		t.Errorf("get TYPO:\nstdout %s\nstderr %s", r.out, r.err)
	}
	r = runCLI(t, "", append([]string{"parties", "get", bank, typo}, conn...)...).must(t, 1)
	if !strings.Contains(r.out, bank) || !strings.Contains(r.err, "not found: "+typo) {
		t.Errorf("get PARTY TYPO prints the one and names the other:\nstdout %s\nstderr %s", r.out, r.err)
	}
	r = runCLI(t, "", append([]string{"parties", "get", "TYPO"}, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "not found: TYPO") {
		t.Errorf("get TYPO: %s", r.err)
	}
	r = runCLI(t, "", append([]string{"parties", "get", "bad/party"}, conn...)...).must(t, 2)
	if !strings.Contains(r.err, "PARTY") {
		t.Errorf("a malformed id names the argument: %s", r.err)
	}

	r = runCLI(t, "", append([]string{"completions", "--party", typo}, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "--party "+typo+": the node knows no such party") {
		t.Errorf("completions --party TYPO: %s", r.err)
	}

	open := startOpenNode(t) // where the admin may act as anyone
	r = runCLI(t, "", "submit", "--create", "#p:M:T", "--args", "{}", "--act-as", typo, "--url", open, "--user", "participant_admin").must(t, 4)
	if !strings.Contains(r.err, "UNKNOWN_SUBMITTERS") || !strings.Contains(r.err, "hint: not known on the node's synchronizers: "+typo) {
		t.Errorf("submit --act-as TYPO: %s", r.err)
	}
}

// TestAllocateExternalPrintsTheIDForScripts: off a terminal, stdout is the
// party id alone, so ALICE=$(ledger parties allocate-external …) works
// without jq; what was checked goes to stderr.
func TestAllocateExternalPrintsTheIDForScripts(t *testing.T) {
	n := startLiveNode(t)
	key, err := signer.Generate(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "dora.key")
	if err := signer.WriteKeyFile(keyFile, signer.MarshalPlaintextKeyFile(key), false); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "parties", "allocate-external", "--key", keyFile, "--hint", "dora", "--yes", "--url", n.url, "--token", n.admin).must(t, 0)
	if r.out != "dora::"+key.Fingerprint()+"\n" || !strings.Contains(r.err, "multi-hash to sign") {
		t.Errorf("stdout %q\nstderr %s", r.out, r.err)
	}
}
