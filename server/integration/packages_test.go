package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// pingPackageID is the main package of the Ping DAR in daml/archive/testdata.
const pingPackageID = "de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54"

func archiveTestdata(t testing.TB, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "daml", "archive", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPackages uploads the Ping DAR and reads it back through every package
// endpoint, then restarts the node on the same file: the packages persist.
func TestPackages(t *testing.T) {
	n := start(t, auth.ModeHS256, node.Config{}, server.Config{})
	dar := archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar")

	var list ledgerapi.ListPackagesResponse
	n.ok("GET", "/v2/packages", n.admin, nil, &list)
	if len(list.PackageIDs) != 0 {
		t.Fatalf("fresh node lists packages %v", list.PackageIDs)
	}
	n.createUser("reader")
	n.fail("POST", "/v2/dars", n.token("reader"), dar, http.StatusForbidden, "NA")

	r := n.call("POST", "/v2/dars", n.admin, dar)
	if r.status != http.StatusOK || string(r.body) != "{}" {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	// A second upload of the same DAR changes nothing and succeeds.
	n.ok("POST", "/v2/packages", n.admin, dar, nil)

	n.ok("GET", "/v2/packages", n.token("reader"), nil, &list)
	if !slices.Contains(list.PackageIDs, pingPackageID) {
		t.Fatalf("packages %v lack Ping's %s", list.PackageIDs, pingPackageID)
	}
	count := len(list.PackageIDs)

	got := n.call("GET", "/v2/packages/"+pingPackageID, n.admin, nil)
	sum := sha256.Sum256(got.body)
	if got.status != http.StatusOK || hex.EncodeToString(sum[:]) != pingPackageID ||
		got.header.Get("Canton-Package-Hash") != pingPackageID || got.header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("get package: %d %v sha256 %x", got.status, got.header, sum)
	}
	n.fail("GET", "/v2/packages/"+pingPackageID[:60]+"0000", n.admin, nil, http.StatusNotFound, "PACKAGE_NOT_FOUND")

	var status ledgerapi.GetPackageStatusResponse
	n.ok("GET", "/v2/packages/"+pingPackageID+"/status", n.admin, nil, &status)
	if status.PackageStatus != "PACKAGE_STATUS_REGISTERED" {
		t.Errorf("status %s", status.PackageStatus)
	}
	n.ok("GET", "/v2/packages/unknown/status", n.admin, nil, &status)
	if status.PackageStatus != "PACKAGE_STATUS_UNSPECIFIED" {
		t.Errorf("unknown status %s", status.PackageStatus)
	}

	var vetted ledgerapi.ListVettedPackagesResponse
	n.ok("POST", "/v2/package-vetting/list", n.admin, map[string]any{
		"packageMetadataFilter": map[string]any{"packageNamePrefixes": []string{"canton-builtin"}}}, &vetted)
	if len(vetted.VettedPackages) != 1 || len(vetted.VettedPackages[0].Packages) != 1 ||
		vetted.VettedPackages[0].Packages[0].PackageID != pingPackageID || vetted.VettedPackages[0].TopologySerial != 1 {
		t.Fatalf("vetted: %+v", vetted)
	}

	alice := n.allocate("alice")
	var pref ledgerapi.GetPreferredPackagesResponse
	n.ok("POST", "/v2/interactive-submission/preferred-packages", n.admin, map[string]any{
		"packageVettingRequirements": []map[string]any{{"packageName": "canton-builtin-admin-workflow-ping", "parties": []string{alice.Party}}},
	}, &pref)
	if len(pref.PackageReferences) != 1 || pref.PackageReferences[0].PackageID != pingPackageID || pref.SynchronizerID != n.identity().SynchronizerID {
		t.Fatalf("preferred: %+v", pref)
	}
	n.fail("POST", "/v2/interactive-submission/preferred-packages", n.admin, map[string]any{
		"packageVettingRequirements": []map[string]any{{"packageName": "nope", "parties": []string{alice.Party}}},
	}, http.StatusNotFound, "PACKAGE_NAMES_NOT_FOUND") // a name never uploaded, as Canton's PackagePreferenceBackend
	var version ledgerapi.GetPreferredPackageVersionResponse
	n.ok("GET", "/v2/interactive-submission/preferred-package-version?package-name=canton-builtin-admin-workflow-ping&parties="+urlPathEscape(alice.Party), n.admin, nil, &version)
	if version.PackagePreference == nil || version.PackagePreference.PackageReference.PackageVersion != "3.4.0" {
		t.Fatalf("preferred version: %+v", version)
	}

	// Unvet Ping; its dependencies stay vetted. Vetting it again restores it.
	var upd ledgerapi.UpdateVettedPackagesResponse
	n.ok("POST", "/v2/package-vetting/update", n.admin, map[string]any{
		"changes": []map[string]any{{"operation": map[string]any{"Unvet": map[string]any{"value": map[string]any{
			"packages": []map[string]any{{"packageId": pingPackageID}}}}}}},
		"expectedTopologySerial": map[string]any{"serial": map[string]any{"Prior": map[string]any{"value": 1}}},
	}, &upd)
	if upd.NewVettedPackages.TopologySerial != 2 || upd.PastVettedPackages == nil || len(upd.NewVettedPackages.Packages) != len(upd.PastVettedPackages.Packages)-1 {
		t.Fatalf("unvet: %+v", upd)
	}
	n.ok("GET", "/v2/interactive-submission/preferred-package-version?package-name=canton-builtin-admin-workflow-ping&parties="+urlPathEscape(alice.Party), n.admin, nil, &version)
	if version.PackagePreference != nil {
		t.Fatalf("preferred version of an unvetted package: %+v", version)
	}
	n.fail("POST", "/v2/package-vetting/update", n.admin, map[string]any{
		"changes": []map[string]any{{"operation": map[string]any{"Vet": map[string]any{"value": map[string]any{
			"packages": []map[string]any{{"packageName": "no-such-package"}}}}}}},
	}, http.StatusNotFound, "UNRESOLVED_VETTING_REFERENCE")
	n.fail("POST", "/v2/package-vetting/update", n.admin, map[string]any{
		"changes": []map[string]any{{"operation": map[string]any{"Vet": map[string]any{"value": map[string]any{
			"packages": []map[string]any{{"packageId": pingPackageID}}}}}}},
		"expectedTopologySerial": map[string]any{"serial": map[string]any{"Prior": map[string]any{"value": 1}}},
	}, http.StatusBadRequest, "TOPOLOGY_SERIAL_MISMATCH")
	n.ok("POST", "/v2/package-vetting/update", n.admin, map[string]any{
		"changes": []map[string]any{{"operation": map[string]any{"Vet": map[string]any{"value": map[string]any{
			"packages": []map[string]any{{"packageId": pingPackageID}}}}}}},
	}, &upd)
	if upd.NewVettedPackages.TopologySerial != 3 {
		t.Fatalf("vet again: %+v", upd.NewVettedPackages)
	}

	// Bad DARs are refused with Canton's ids and nothing is stored.
	n.fail("POST", "/v2/dars", n.admin, archiveTestdata(t, "dummy-1.15.dar"), http.StatusBadRequest, "DAR_PARSE_ERROR")
	n.fail("POST", "/v2/dars/validate", n.admin, archiveTestdata(t, "illformed.dar"), http.StatusBadRequest, "DAR_PARSE_ERROR")
	n.fail("POST", "/v2/dars", n.admin, []byte("not a zip"), http.StatusBadRequest, "INVALID_DAR")
	n.ok("POST", "/v2/dars/validate", n.admin, dar, nil)

	// The packages and their vetting survive a restart.
	if err := n.run.Close(); err != nil {
		t.Fatal(err)
	}
	run := serve(t, local.Config{DBPath: n.dbPath}, server.Config{Auth: auth.Config{Mode: auth.ModeHS256, Secret: testSecret}})
	n.run, n.url = run, run.URL()
	n.ok("GET", "/v2/packages", n.admin, nil, &list)
	if len(list.PackageIDs) != count {
		t.Fatalf("after restart: %d packages, want %d", len(list.PackageIDs), count)
	}
	n.ok("POST", "/v2/package-vetting/list", n.admin, map[string]any{}, &vetted)
	if len(vetted.VettedPackages) != 1 || vetted.VettedPackages[0].TopologySerial != 3 || len(vetted.VettedPackages[0].Packages) != count {
		t.Fatalf("vetted after restart: %+v", vetted)
	}
}
