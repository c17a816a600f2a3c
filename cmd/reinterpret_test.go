package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/wallet"
)

// TestPrepareWithPackages: prepare --with-packages puts into the envelope
// every package of the Ping DAR the transaction needs — the one it names
// and those it depends on — each the payload whose SHA-256 is its id, and
// says so in the summary.
func TestPrepareWithPackages(t *testing.T) {
	n := startLiveNode(t)
	runCLI(t, "", "dars", "upload", pingDarPath, "--url", n.url, "--token", n.admin).must(t, 0)
	party, _, _, tok := n.externalParty("initiator")
	tx := filepath.Join(t.TempDir(), "ping.json")
	r := runCLI(t, "", "prepare", "--create", "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping",
		"--args", `{"id":"p1","initiator":"`+party+`","responder":"`+party+`"}`, "--act-as", party,
		"--with-packages", "--out", tx, "--url", n.url, "--token", tok, "-o", "json").must(t, 0)
	var res PrepareResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	env, err := wallet.ReadEnvelope(tx, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := archive.ReadDarFile(pingDarPath, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range env.Info.Packages {
		sum := sha256.Sum256(p.Payload)
		if hex.EncodeToString(sum[:]) != p.PackageID {
			t.Errorf("package %s: the payload is not what its id says", p.PackageID)
		}
		if d.Package(lf.PackageID(p.PackageID)) == nil {
			t.Errorf("package %s is not in the Ping DAR", p.PackageID)
		}
		got = append(got, p.PackageID)
	}
	if !slices.Contains(got, string(d.Main)) || res.Packages != len(got) || len(got) < 2 {
		t.Errorf("packages %v (summary %d), want the Ping package %s and its dependencies", got, res.Packages, d.Main)
	}
}
