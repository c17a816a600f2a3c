package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/tamper"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/proto/damlpb"
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

// goldenResponse writes the golden Canton Coin transfer as the prepare
// response Canton answered, with its hash.
func goldenResponse(t *testing.T) string {
	t.Helper()
	pt, err := vectors.FirstPrepared(filepath.Join("..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	return writeResponse(t, "golden.json", pt)
}

// writeResponse writes pt as a prepare response whose hash (V2) is
// recomputed here.
func writeResponse(t *testing.T, name string, pt *damlpb.PreparedTransaction) string {
	t.Helper()
	b, err := tamper.PrepareResponse(pt, hashing.V2)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// splicePath is a DAR of ../shared/dars, or skips.
func splicePath(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "dars", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found in ../shared/dars (the shared folder beside the repository); skipping", name)
	}
	return path
}

// TestVerifyNamesMissingPackages: with splice-amulet 0.1.14 alone, the
// golden transfer lacks the package its ExternalPartyAmuletRules was
// created with; verify, show and sign exit 1 naming it and the command
// that fetches it, and sign writes nothing.
func TestVerifyNamesMissingPackages(t *testing.T) {
	tx := goldenResponse(t)
	dar := splicePath(t, "splice-amulet-0.1.14.dar")
	const old = "979ec710c3ae3a05cb44edf8461a9b4d7dd2053add95664f94fc89e5f18df80f"
	key := filepath.Join(t.TempDir(), "k.key")
	runCLI(t, "", "keys", "generate", "--out", key, "--insecure-plaintext").must(t, 0)
	out := filepath.Join(t.TempDir(), "signed.json")
	for _, args := range [][]string{
		{"verify", tx, "--dar", dar},
		{"show", tx, "--dar", dar},
		{"sign", tx, "--dar", dar, "--key", key, "--yes", "--out", out},
	} {
		r := runCLI(t, "", args...).must(t, 1)
		for _, want := range []string{old, "ledger packages get " + old + " --out DIR/" + old + ".payload", "--with-packages"} {
			if !strings.Contains(r.err, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", args[0], want, r.err)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("sign wrote %s", out)
	}
}

// goldenDarDir is a directory holding the golden transfer's DARs:
// splice-amulet 0.1.14 and 0.1.6, each with its dependencies.
func goldenDarDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"splice-amulet-0.1.14.dar", "splice-amulet-0.1.6.dar"} {
		abs, err := filepath.Abs(splicePath(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGoldenReinterpretedOffline: the real Canton Coin transfer verifies
// with exit 0 once its Daml code is re-run from the DARs alone (no node:
// the test has none to talk to), show opens with the re-interpreted line,
// and sign signs it; each tampered variant, its hash recomputed so that
// the hash check alone passes, exits 3 from verify, show and sign, naming
// the node and the field, and sign writes nothing.
func TestGoldenReinterpretedOffline(t *testing.T) {
	dars := goldenDarDir(t)
	tx := goldenResponse(t)
	key := filepath.Join(t.TempDir(), "k.key")
	runCLI(t, "", "keys", "generate", "--out", key, "--insecure-plaintext").must(t, 0)

	r := runCLI(t, "", "verify", tx, "--dar", dars).must(t, 0)
	if !strings.Contains(r.out, "OK: re-interpreted: matches the Daml code of splice-amulet 0.1.14 and 3 more") {
		t.Errorf("verify:\n%s", r.out)
	}
	r = runCLI(t, "", "verify", tx, "--dar", dars, "-o", "json").must(t, 0)
	var out struct {
		Match, Reinterpreted, MatchesDamlCode bool
		DamlCode, DamlDifference              string
	}
	if err := json.Unmarshal([]byte(r.out), &out); err != nil || !out.Match || !out.Reinterpreted || !out.MatchesDamlCode ||
		out.DamlCode != "splice-amulet 0.1.14 and 3 more" || out.DamlDifference != "" {
		t.Errorf("verify -o json: %v %s", err, r.out)
	}
	r = runCLI(t, "", "show", tx, "--dar", dars).must(t, 0)
	if first, _, _ := strings.Cut(r.out, "\n"); first != "re-interpreted: matches the Daml code of splice-amulet 0.1.14 and 3 more" {
		t.Errorf("show opens with %q", first)
	}
	if !strings.Contains(r.out, "whether its 5 input contract(s) are still active is the synchronizer's to decide") {
		t.Errorf("show does not say who decides whether the inputs are active:\n%s", r.out)
	}
	if strings.Contains(r.out, "came in the envelope") {
		t.Errorf("the code came from --dar, not the envelope:\n%s", r.out)
	}
	signed := filepath.Join(t.TempDir(), "signed.json")
	runCLI(t, "", "sign", tx, "--dar", dars, "--key", key, "--allow-foreign-key", "--yes", "--out", signed).must(t, 0)
	// Without packages, the review says whose word the effects are.
	r = runCLI(t, "", "show", tx).must(t, 0)
	if !strings.Contains(r.out, "not re-interpreted: the effects shown are the preparing node's word") {
		t.Errorf("show without packages:\n%s", r.out)
	}

	pt, err := vectors.FirstPrepared(filepath.Join("..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	variants, err := tamper.Golden(pt)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		t.Run(strings.ReplaceAll(v.Name, " ", "_"), func(t *testing.T) {
			tx := writeResponse(t, "tampered.json", v.Prepared)
			runCLI(t, "", "verify", tx).must(t, 0) // the hash alone passes
			words := append([]string(nil), v.Words...)
			if v.Node != "" {
				words = append(words, "node "+v.Node+", ")
			}
			out := filepath.Join(t.TempDir(), "signed.json")
			for _, args := range [][]string{
				{"verify", tx, "--dar", dars},
				{"show", tx, "--dar", dars},
				{"sign", tx, "--dar", dars, "--key", key, "--allow-foreign-key", "--yes", "--out", out},
			} {
				r := runCLI(t, "", args...).must(t, 3)
				if args[0] == "verify" {
					t.Logf("%s%s", r.out, r.err)
					js := runCLI(t, "", "verify", tx, "--dar", dars, "-o", "json").must(t, 3)
					if !strings.Contains(js.out, `"matchesDamlCode": false`) && !strings.Contains(js.out, `"damlDifference": "`) {
						t.Errorf("verify -o json:\n%s", js.out)
					}
				}
				for _, w := range words {
					if !strings.Contains(r.out+r.err, w) {
						t.Errorf("%s does not say %q:\n%s\n%s", args[0], w, r.out, r.err)
					}
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("sign wrote %s", out)
			}
		})
	}
}

// TestPrepareWithPackagesOfGenericTemplate: a template no package defines
// (the node's generic contract model) has no package to carry; prepare
// --with-packages says so and still writes the envelope, whose review
// warns that the effects are the preparing node's word.
func TestPrepareWithPackagesOfGenericTemplate(t *testing.T) {
	n := startLiveNode(t)
	party, _, _, tok := n.externalParty("alice")
	tx := filepath.Join(t.TempDir(), "iou.json")
	r := runCLI(t, "", "prepare", "--create", "#iou:Iou:Iou", "--args", `{"owner":"`+party+`"}`, "--act-as", party,
		"--with-packages", "--out", tx, "--url", n.url, "--token", tok).must(t, 0)
	if !strings.Contains(r.err, "warning: the node has no package ") || !strings.Contains(r.err, "no Daml code for the signer to re-run") {
		t.Errorf("prepare's warning:\n%s", r.err)
	}
	r = runCLI(t, "", "show", tx).must(t, 0)
	if !strings.Contains(r.out, "not re-interpreted: the effects shown are the preparing node's word") {
		t.Errorf("show:\n%s", r.out)
	}
}
