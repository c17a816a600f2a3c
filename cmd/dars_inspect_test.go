package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive/archivetest"
)

// sharedDarPath is a DAR of the shared folder beside the repository, or
// skips the test.
func sharedDarPath(t *testing.T, name string) string {
	t.Helper()
	path := "../../shared/dars/" + name
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real DAR %s not found (the shared folder beside the repository); skipping", path)
	}
	return path
}

// TestDarsInspectClauses: inspect shows what writing a command needs, read
// from the Daml-LF as the .daml sources write it: Canton Coin's Amulet
// (keyless, with ensure), its ids and the records its fields mention.
func TestDarsInspectClauses(t *testing.T) {
	isolateConfig(t)
	dar := sharedDarPath(t, "splice-amulet-0.1.14.dar")
	r := runCLI(t, "", "dars", "inspect", dar).must(t, 0)
	for _, want := range []string{
		"  template Amulet with\n      dso: Party\n      owner: Party\n      amount: ExpiringAmount\n" +
			"    templateId #splice-amulet:Splice.Amulet:Amulet\n    signatory concat [owner, dso]\n    ensure validExpiringAmount amount\n" +
			"    implements #splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding\n",
		"    templateId #splice-amulet:Splice.Amulet:AppRewardCoupon\n    signatory dso\n    observer concat [beneficiary, provider]\n    ensure amount > 0.0\n",
		"    ensure 0.0 < weight && weight <= 1.0\n",
		"    choice Amulet_Expire : Amulet_ExpireResult with\n        roundCid: ContractId OpenMiningRound\n      controller dso\n",
		"\ndata types\n",
		"  record ExpiringAmount with\n      initialAmount: Numeric 10\n      createdAt: Round\n      ratePerRound: RatePerRound\n    id #splice-amulet:Splice.Fees:ExpiringAmount\n",
		"    id #splice-api-token-metadata-v1:Splice.Api.Token.MetadataV1:Metadata\n",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("inspect lacks %q", want)
		}
	}
	if strings.Contains(r.out, "<expression>") || strings.Contains(r.out, "$c") {
		t.Errorf("a clause is left unread or mangled")
	}

	// -o json carries the same.
	r = runCLI(t, "", "dars", "inspect", dar, "-o", "json").must(t, 0)
	var sig struct {
		Modules []struct {
			Templates []struct {
				Name, ID, Signatories, Observers, Ensure string
				Choices                                  []struct{ Name, Controllers string }
			}
		}
		DataTypes []struct {
			Name, ID, Kind string
			Fields         []struct{ Name, Type string }
		}
	}
	if err := json.Unmarshal([]byte(r.out), &sig); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range sig.Modules {
		for _, tpl := range m.Templates {
			if tpl.Name == "Amulet" {
				found = tpl.ID == "#splice-amulet:Splice.Amulet:Amulet" && tpl.Signatories == "concat [owner, dso]" &&
					tpl.Observers == "[]" && tpl.Ensure == "validExpiringAmount amount" && len(tpl.Choices) > 0 && tpl.Choices[0].Controllers != ""
			}
		}
	}
	if !found {
		t.Errorf("json: Amulet is not as the text shows it:\n%.2000s", r.out)
	}
	types := map[string]string{}
	for _, d := range sig.DataTypes {
		types[d.ID] = d.Kind
	}
	if types["#splice-amulet:Splice.Fees:ExpiringAmount"] != "record" || types["#splice-amulet:Splice.Types:Round"] != "record" {
		t.Errorf("json data types: %v", types)
	}
}

// TestDarsInspectTemplate: --template shows one template with a skeleton
// of its create arguments and the commands that use it; a template that is
// not there is a usage error naming those that are.
func TestDarsInspectTemplate(t *testing.T) {
	isolateConfig(t)
	r := runCLI(t, "", "dars", "inspect", pingDarPath, "--template", "Canton.Internal.Ping:Ping").must(t, 0)
	for _, want := range []string{
		"package canton-builtin-admin-workflow-ping 3.4.0 (de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54), module Canton.Internal.Ping\n  template Ping with\n",
		"    signatory initiator\n    observer responder\n",
		"--args skeleton (replace alice::1220… by party ids, 00… by contract ids):\n  {\n    \"id\": \"\",\n    \"initiator\": \"alice::1220…\",\n    \"responder\": \"alice::1220…\"\n  }\n",
		"create one:\n  ledger submit --create '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping' --act-as alice --args '{\"id\": \"\", \"initiator\": \"alice::1220…\", \"responder\": \"alice::1220…\"}'\n",
		"  ledger submit --exercise '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping' --contract-id \"$CID\" --choice AbortPing --act-as alice --arg '{\"anyone\": \"alice::1220…\"}'\n",
		"  ledger submit --exercise '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping' --contract-id \"$CID\" --choice Respond --act-as alice\n",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("inspect --template lacks %q:\n%s", want, r.out)
		}
	}
	if strings.Contains(r.out, "template Bong") {
		t.Errorf("inspect --template shows other templates:\n%s", r.out)
	}
	// The copy-ready id is accepted back, and -o json has the same.
	r = runCLI(t, "", "dars", "inspect", pingDarPath, "--template", "#canton-builtin-admin-workflow-ping:Canton.Internal.Bong:BongProposal", "-o", "json").must(t, 0)
	var d struct {
		Template struct {
			ID     string
			Ensure string
		}
		ExampleArgs    map[string]any
		ExampleCommand string
	}
	if err := json.Unmarshal([]byte(r.out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Template.ID != "#canton-builtin-admin-workflow-ping:Canton.Internal.Bong:BongProposal" ||
		d.Template.Ensure != "unique candidates && unique validators && length candidates > 0" ||
		d.ExampleArgs["maxLevel"] != "0" || d.ExampleArgs["timeout"] != "1970-01-01T00:00:00Z" || len(d.ExampleArgs["candidates"].([]any)) != 0 ||
		!strings.HasPrefix(d.ExampleCommand, "ledger submit --create '#canton-builtin-admin-workflow-ping:Canton.Internal.Bong:BongProposal' --act-as alice --args '{") {
		t.Errorf("json: %s", r.out)
	}

	r = runCLI(t, "", "dars", "inspect", pingDarPath, "--template", "Canton.Internal.Ping:Pong").must(t, 2)
	if !strings.Contains(r.err, `--template "Canton.Internal.Ping:Pong": no such template in package canton-builtin-admin-workflow-ping 3.4.0; its templates: Canton.Internal.Ping:Ping, Canton.Internal.Bong:Bong,`) ||
		!strings.Contains(r.err, "Canton.Internal.Ping:Ping") {
		t.Errorf("unknown template: %s", r.err)
	}
	r = runCLI(t, "", "dars", "inspect", pingDarPath, "--template", "Ping").must(t, 2)
	if !strings.Contains(r.err, "write Module:Entity or #package-name:Module:Entity") {
		t.Errorf("malformed: %s", r.err)
	}
	r = runCLI(t, "", "dars", "inspect", pingDarPath, "--template", "#no-such-package:Canton.Internal.Ping:Ping").must(t, 2)
	if !strings.Contains(r.err, "no package #no-such-package in package canton-builtin-admin-workflow-ping 3.4.0") {
		t.Errorf("unknown package: %s", r.err)
	}
}

// TestDarsInspectTemplateKeyed: a keyed template of a dependency, named by
// its package, shows its key and maintainers and a skeleton of its nested
// records and variants.
func TestDarsInspectTemplateKeyed(t *testing.T) {
	isolateConfig(t)
	dar := sharedDarPath(t, "DamlDefinitionsServiceMain.dar")
	r := runCLI(t, "", "dars", "inspect", dar, "--template", "#DamlDefinitionsServiceDep:ExternalDep:TemplateFoo").must(t, 0)
	for _, want := range []string{
		"    templateId #DamlDefinitionsServiceDep:ExternalDep:TemplateFoo\n    signatory someParty\n    key someParty : Party\n    maintainer key\n",
		"  variant SomeVariant with constructors\n",
		"--args skeleton",
		`"someRecordField": {`,
		`"tag": `,
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("inspect --template lacks %q:\n%s", want, r.out)
		}
	}
}

// TestDarsInspectTemplateHostile: --template on a DAR whose choice
// argument and a record have a type of 2^41 leaves prints at once, with a
// bounded skeleton.
func TestDarsInspectTemplateHostile(t *testing.T) {
	isolateConfig(t)
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	doubling := filepath.Join(t.TempDir(), "doubling.dar")
	if err := os.WriteFile(doubling, archivetest.Doubling(t, ping, 40, "3.5.0"), 0o600); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for _, format := range []string{"table", "json"} {
		r := runCLI(t, "", "dars", "inspect", doubling, "--template", "Canton.Internal.Ping:Ping", "-o", format).must(t, 0)
		if len(r.out) > 64<<10 || !strings.Contains(r.out, "--choice Respond") {
			t.Errorf("-o %s: %d bytes of output:\n%.3000s", format, len(r.out), r.out)
		}
	}
	runtime.ReadMemStats(&after)
	took, alloc := time.Since(start), after.TotalAlloc-before.TotalAlloc
	if took > 5*time.Second || alloc > 256<<20 {
		t.Errorf("inspect --template took %v and allocated %d bytes", took, alloc)
	}
	t.Logf("inspect --template, text and json: %v, %d MiB allocated", took, alloc>>20)
}

// TestDarsInspectTemplateOnNode: --template on a package the node has,
// named by its id.
func TestDarsInspectTemplateOnNode(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	runCLI(t, "", append([]string{"dars", "upload", pingDarPath}, conn...)...).must(t, 0)
	r := runCLI(t, "", append([]string{"dars", "inspect", "de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54", "--template", "Canton.Internal.Ping:Ping"}, conn...)...).must(t, 0)
	if !strings.Contains(r.out, "    signatory initiator\n") || !strings.Contains(r.out, `"responder": "alice::1220…"`) ||
		!strings.Contains(r.out, "ledger submit --create '#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping' --act-as alice --args '{") {
		t.Errorf("inspect --template by package id:\n%s", r.out)
	}
}
