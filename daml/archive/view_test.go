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
	t.Logf("templates with keys:\n%s", strings.Join(keyed, "\n"))
	t.Logf("templates implementing interfaces:\n%s", strings.Join(implementing, "\n"))
	t.Logf("interfaces:\n%s", strings.Join(ifaces, "\n"))
	if len(keyed) == 0 || len(implementing) == 0 || len(ifaces) == 0 {
		t.Errorf("found %d keyed templates, %d implementing an interface, %d interfaces; want some of each",
			len(keyed), len(implementing), len(ifaces))
	}
}
