package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pingDarPath = "../daml/archive/testdata/canton-builtin-admin-workflow-ping.dar"

// TestDarsInspectPing lists the Ping DAR offline, as its .daml sources
// declare it.
func TestDarsInspectPing(t *testing.T) {
	isolateConfig(t)
	r := runCLI(t, "", "dars", "inspect", pingDarPath).must(t, 0)
	for _, want := range []string{
		"package canton-builtin-admin-workflow-ping 3.4.0 (main)",
		"module Canton.Internal.Ping\n  template Ping with\n      id: Text\n      initiator: Party\n      responder: Party\n" +
			"    templateId #canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping\n    signatory initiator\n    observer responder\n" +
			"    choice Respond : ()\n      controller responder\n    choice Archive : () (argument Archive)\n      controller initiator\n" +
			"    choice AbortPing : () with\n        anyone: Party\n      controller anyone\n",
		"  template BongProposal with",
		"choice Accept : Either (ContractId BongProposal) (ContractId Explode) with\n        validator: Party",
		"  template Explode with",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, r.out)
		}
	}
	r = runCLI(t, "", "dars", "inspect", pingDarPath, "-o", "json").must(t, 0)
	var sig struct {
		PackageID string `json:"packageId"`
		Modules   []struct {
			Name      string `json:"name"`
			Templates []struct {
				Name    string `json:"name"`
				Choices []struct {
					Name   string `json:"name"`
					Result string `json:"result"`
				} `json:"choices"`
			} `json:"templates"`
		} `json:"modules"`
	}
	if err := json.Unmarshal([]byte(r.out), &sig); err != nil || sig.PackageID != "de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54" {
		t.Fatalf("json: %v %s", err, r.out)
	}
	runCLI(t, "", "dars", "inspect", "../daml/archive/testdata/dummy-1.15.dar").must(t, 1)
	runCLI(t, "", "dars", "inspect", "no-such-thing").must(t, 2)
}

// TestDarsAgainstServe uploads the Ping DAR to a node, validates it, lists
// the node's packages, fetches and inspects one.
func TestDarsAgainstServe(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	r := runCLI(t, "", append([]string{"dars", "upload", pingDarPath}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "uploaded and vetted canton-builtin-admin-workflow-ping 3.4.0") {
		t.Errorf("upload: %s", r.out)
	}
	runCLI(t, "", append([]string{"dars", "validate", pingDarPath}, conn...)...).must(t, 0)
	r = runCLI(t, "", append([]string{"dars", "upload", "../daml/archive/testdata/illformed.dar"}, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "illformed.dar") {
		t.Errorf("illformed: %s", r.err)
	}

	// The table has a header and columns as wide as their content, with no
	// trailing spaces.
	r = runCLI(t, "", append([]string{"packages", "list"}, conn...)...).must(t, 0)
	lines := strings.Split(strings.TrimRight(r.out, "\n"), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "PACKAGE ID") || !strings.Contains(lines[0], "VETTING") {
		t.Errorf("packages list:\n%s", r.out)
	}
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("packages list: trailing spaces in %q", l)
		}
	}
	r = runCLI(t, "", append([]string{"packages", "list", "-o", "json"}, conn...)...).must(t, 0)
	var rows []struct {
		PackageID, Name, Version string
		Vetted                   bool
	}
	if err := json.Unmarshal([]byte(r.out), &rows); err != nil || len(rows) < 2 {
		t.Fatalf("list: %v %s", err, r.out)
	}
	const ping = "de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54"
	found := false
	for _, row := range rows {
		found = found || row.PackageID == ping && row.Name == "canton-builtin-admin-workflow-ping" && row.Vetted
	}
	if !found {
		t.Errorf("list lacks Ping: %s", r.out)
	}

	out := filepath.Join(t.TempDir(), "ping.payload")
	runCLI(t, "", append([]string{"packages", "get", ping, "--out", out}, conn...)...).must(t, 0)
	b, err := os.ReadFile(out)
	sum := sha256.Sum256(b)
	if err != nil || hex.EncodeToString(sum[:]) != ping {
		t.Fatalf("get wrote %d bytes, sha256 %x (%v)", len(b), sum, err)
	}
	runCLI(t, "", append([]string{"packages", "get", ping}, conn...)...).must(t, 2)

	r = runCLI(t, "", append([]string{"dars", "inspect", ping}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "template Ping with") {
		t.Errorf("inspect of the node's package: %s", r.out)
	}

	// show --dar puts each field's type beside its value.
	alice := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "alice"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "grant", "participant_admin", "--act-as", alice}, conn...)...).must(t, 0)
	tx := filepath.Join(t.TempDir(), "tx.json")
	runCLI(t, "", append([]string{"prepare", "--create", "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping",
		"--args", `{"responder":"` + alice + `","initiator":"` + alice + `","id":"p-1"}`, "--act-as", alice, "--out", tx}, conn...)...).must(t, 0)
	r = runCLI(t, "", "show", tx, "--dar", pingDarPath).must(t, 0)
	for _, want := range []string{"Types (from --dar)", "node 0  create Canton.Internal.Ping:Ping : Ping",
		`    id: Text = "p-1"`, `    initiator: Party = "` + alice + `"`} {
		if !strings.Contains(r.out, want) {
			t.Errorf("show --dar lacks %q:\n%s", want, r.out)
		}
	}
}

// TestPrepareChecksAgainstDar refuses, before sending, a prepare and a
// submit whose arguments do not fit the --dar's types, with the node's
// message; arguments that fit are sent.
func TestPrepareChecksAgainstDar(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	alice := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "alice"}, conn...)...).must(t, 0).out)
	const ping = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping"
	for _, verb := range []string{"prepare", "submit"} {
		r := runCLI(t, "", append([]string{verb, "--create", ping, "--args", `{"id":"p","initiator":"` + alice + `"}`,
			"--act-as", alice, "--dar", pingDarPath}, conn...)...).must(t, 1)
		if !strings.Contains(r.err, "Missing non-optional fields: Set(responder) at commands[0].CreateCommand.createArguments") ||
			!strings.Contains(r.err, "COMMAND_PREPROCESSING_FAILED") || !strings.Contains(r.err, "nothing was sent") {
			t.Errorf("%s with a missing field: %s", verb, r.err)
		}
	}
	// --check-types reads the node's packages the command uses: once the
	// DAR is uploaded, their types refuse the command before it is sent.
	bad := []string{"prepare", "--create", ping, "--args", `{"id":"p","initiator":"` + alice + `"}`, "--act-as", alice, "--check-types"}
	runCLI(t, "", append([]string{"dars", "upload", pingDarPath}, conn...)...).must(t, 0)
	r := runCLI(t, "", append(bad, conn...)...).must(t, 1)
	if !strings.Contains(r.err, "Missing non-optional fields: Set(responder)") || !strings.Contains(r.err, "the node's packages") {
		t.Errorf("--check-types: %s", r.err)
	}

	// What fits the types goes out.
	runCLI(t, "", append([]string{"users", "grant", "participant_admin", "--act-as", alice}, conn...)...).must(t, 0)
	runCLI(t, "", append([]string{"submit", "--create", ping, "--args", `{"id":"p","initiator":"` + alice + `","responder":"` + alice + `"}`,
		"--act-as", alice, "--dar", pingDarPath}, conn...)...).must(t, 0)
}

// TestDarsInspectKeysAndInterfaces lists the keys and interfaces of the
// JSON API's test DAR (its dependency package defines them).
func TestDarsInspectKeysAndInterfaces(t *testing.T) {
	isolateConfig(t)
	dar := "../../shared/dars/DamlDefinitionsServiceMain.dar"
	if _, err := os.Stat(dar); err != nil {
		t.Skipf("real DAR %s not found (the shared folder beside the repository); skipping", dar)
	}
	r := runCLI(t, "", "dars", "inspect", dar, "--all").must(t, 0)
	for _, want := range []string{"package DamlDefinitionsServiceMain 3.4.0 (main)", "package DamlDefinitionsServiceDep 3.4.0",
		"    key (anotherParty, someRecordForKey) : (Party, SomeParamRecord Int)\n    maintainer key._1\n    implements #DamlDefinitionsServiceDep:ExternalDep:MyInterface\n",
		"  interface MyInterface\n    interfaceId #DamlDefinitionsServiceDep:ExternalDep:MyInterface\n    viewtype MyInterfaceViewType\n    method method1 : Party\n",
		"    nonconsuming choice MyNonConsumingChoice : Int\n      controller method1 this\n"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("inspect --all lacks %q", want)
		}
	}
}
