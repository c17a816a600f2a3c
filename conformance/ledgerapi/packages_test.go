package ledgerapi

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// PackageServiceIT.scala, on a node with Canton's Ping package uploaded
// (the test tool's node has its test DARs).
func TestPackageServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))
	const unknownPackageID = "unknown"

	packageIDs := func(t *testing.T) []string {
		t.Helper()
		var resp ledgerapi.ListPackagesResponse
		p.ok(t, "GET", "/v2/packages", nil, &resp)
		if len(resp.PackageIDs) == 0 {
			t.Fatal("No package found")
		}
		return resp.PackageIDs
	}

	t.Run("PackagesList", func(t *testing.T) {
		if n := len(packageIDs(t)); n < 3 {
			t.Errorf("List of packages was expected to contain at least 3 packages, got %d instead.", n)
		}
	})

	t.Run("PackagesGetKnown", func(t *testing.T) {
		id := packageIDs(t)[0]
		resp, err := http.Get(p.url + "/v2/packages/" + id)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		payload, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET package %s: %d %v", id, resp.StatusCode, err)
		}
		hash := resp.Header.Get(ledgerapi.PackageHashHeader)
		if hash == "" {
			t.Errorf("Package %s has an empty hash.", id)
		}
		if hash != id {
			t.Errorf("Package %s has hash %s, expected hash to be equal to the package ID.", id, hash)
		}
		// The payload is the archive's: its hash is the package id.
		if sum := sha256.Sum256(payload); len(payload) == 0 || hex.EncodeToString(sum[:]) != id {
			t.Errorf("Package %s: payload of %d bytes does not hash to its id", id, len(payload))
		}
	})

	t.Run("PackagesGetUnknown", func(t *testing.T) {
		p.mustFail(t, "GET", "/v2/packages/"+unknownPackageID, nil, failure{code: "PACKAGE_NOT_FOUND"})
	})

	t.Run("PackagesStatusKnown", func(t *testing.T) {
		for _, id := range packageIDs(t) {
			var resp ledgerapi.GetPackageStatusResponse
			p.ok(t, "GET", "/v2/packages/"+id+"/status", nil, &resp)
			if resp.PackageStatus == ledgerapi.PackageStatusRegistered {
				return
			}
		}
		t.Error("No registered package found")
	})

	t.Run("PackagesStatusUnknown", func(t *testing.T) {
		var resp ledgerapi.GetPackageStatusResponse
		p.ok(t, "GET", "/v2/packages/"+unknownPackageID+"/status", nil, &resp)
		if resp.PackageStatus != ledgerapi.PackageStatusUnspecified {
			t.Errorf("Package %s is not unknown: %s", unknownPackageID, resp.PackageStatus)
		}
	})
}
