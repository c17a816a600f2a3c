package archive

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

func TestPingView(t *testing.T) {
	dar, err := os.ReadFile("testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeDar(dar, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := d.MainPackage()
	if p.Name != "canton-builtin-admin-workflow-ping" || p.Version != "3.4.0" || p.LanguageVersion.String() != "2.2" {
		t.Errorf("package %s %s LF %s", p.Name, p.Version, p.LanguageVersion)
	}
	ping, ok := p.Template("Canton.Internal.Ping", "Ping")
	if !ok {
		t.Fatal("no template Canton.Internal.Ping:Ping")
	}
	if got, want := ping.String(), "template Ping with id: Text; initiator: Party; responder: Party"; got != want {
		t.Errorf("Ping is\n%s\nwant\n%s", got, want)
	}
	var choices []string
	for _, c := range ping.Choices {
		choices = append(choices, c.String())
	}
	slices.Sort(choices) // the archive's order is not the source's
	if got, want := strings.Join(choices, "; "), "choice AbortPing : (); choice Archive : (); choice Respond : ()"; got != want {
		t.Errorf("Ping's choices are\n%s\nwant\n%s", got, want)
	}
	abort, _ := ping.Choice("AbortPing")
	if got := abort.ArgType.String(); got != "AbortPing" {
		t.Errorf("AbortPing's argument type is %s", got)
	}
	if ping.Name.Package != p.ID {
		t.Errorf("template id %s is not in package %s", ping.Name, p.ID)
	}
	for _, name := range []string{"BongProposal", "Bong", "Explode", "Merge", "Collapse"} {
		if _, ok := p.Template("Canton.Internal.Bong", name); !ok {
			t.Errorf("no template Canton.Internal.Bong:%s", name)
		}
	}
	checkAgainstSources(t, p, zipEntries(t, dar))
}

var (
	sourceTemplate = regexp.MustCompile(`(?m)^template\s+(\w+)`)
	sourceChoice   = regexp.MustCompile(`(?m)^\s+((?:nonconsuming\s+)?choice\s+\w+\s*:\s*.*?)\s*$`)
)

// checkAgainstSources checks every template of the .daml sources in a DAR
// against the package: each is there, with the choices the source declares
// and their return types, plus Archive (in any order: the archive's is not
// the source's).
func checkAgainstSources(t *testing.T, p *lf.Package, entries map[string][]byte) {
	t.Helper()
	checked := 0
	for name, src := range entries {
		if !strings.HasSuffix(name, ".daml") {
			continue
		}
		// name is <package dir>/Canton/Internal/Ping.daml.
		module := strings.ReplaceAll(strings.TrimSuffix(name[strings.Index(name, "/")+1:], ".daml"), "/", ".")
		text := string(src)
		locs := sourceTemplate.FindAllStringSubmatchIndex(text, -1)
		for i, loc := range locs {
			tname := text[loc[2]:loc[3]]
			end := len(text)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			var want []string
			for _, m := range sourceChoice.FindAllStringSubmatch(text[loc[0]:end], -1) {
				want = append(want, strings.Join(strings.Fields(m[1]), " "))
			}
			want = append(want, "choice Archive : ()")
			sig, ok := p.Template(module, tname)
			if !ok {
				t.Errorf("source declares template %s:%s, the package has none", module, tname)
				continue
			}
			var got []string
			for _, c := range sig.Choices {
				got = append(got, c.String())
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("template %s:%s has choices\n%s\nthe source declares\n%s", module, tname,
					strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			checked++
		}
	}
	if checked < 6 {
		t.Errorf("checked %d templates against the sources, want Ping and Bong's 5", checked)
	}
}

func TestDefinitionsServiceView(t *testing.T) {
	d, err := ReadDarFile(filepath.Join(sharedDars(t), "DamlDefinitionsServiceMain.dar"), Options{AllowDev: true})
	if err != nil {
		t.Fatal(err)
	}
	var keyed, implementing, ifaces []string
	for _, p := range d.Packages {
		if !strings.HasPrefix(p.Name, "DamlDefinitionsService") {
			continue
		}
		if !p.LanguageVersion.IsDev() {
			t.Errorf("%s is Daml-LF %s, want 2.dev", p.Name, p.LanguageVersion)
		}
		for _, s := range p.Templates() {
			if s.Key != nil {
				keyed = append(keyed, s.String())
			}
			if len(s.Implements) > 0 {
				implementing = append(implementing, s.String())
			}
		}
		for _, s := range p.Interfaces() {
			ifaces = append(ifaces, s.String())
		}
	}
	bar := "template TemplateBar with anotherParty: Party; firstTemplateRef: ContractId TemplateFoo; " +
		"someRecordForKey: SomeParamRecord Int; key (Party, SomeParamRecord Int); implements MyInterface"
	foo := "template TemplateFoo with someParty: Party; someRecordField: SomeVariant; " +
		"someRecordTyped: SomeParamRecord SomeVariant; someOptionalRecField: Optional (MyList Text); key Party"
	slices.Sort(keyed)
	main := d.MainPackage()
	var mainTemplates []string
	for _, s := range main.Templates() {
		mainTemplates = append(mainTemplates, s.String())
	}
	slices.Sort(mainTemplates)
	// As MainApp.daml in the DAR declares them; Decimal is Numeric 10.
	allBuiltins := "template AllBuiltinTypesTemplate with someParty: Party; someInt: Int; someDecimal: Numeric 10; " +
		"someNumeric7: Numeric 7; someText: Text; someBool: Bool; someDate: Date; someTime: Time; relTime: RelTime"
	mainTemplate := "template MainTemplate with owner: Party; externalRecord: SomeVariant; " +
		"externalInterface: ContractId MyInterface; someList: [AnotherRecord]; someMap: Map Text AnotherRecord"
	tests := []struct {
		what      string
		got, want []string
	}{
		{"templates with keys", keyed, []string{bar, foo}},
		{"templates implementing interfaces", implementing, []string{bar}},
		{"interfaces", ifaces, []string{"interface MyInterface; viewtype MyInterfaceViewType"}},
		{"main templates", mainTemplates, []string{allBuiltins, mainTemplate}},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s:\n%s\nwant\n%s", tt.what, strings.Join(tt.got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}
