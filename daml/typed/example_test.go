package typed

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

// filled replaces an example's placeholders by valid values, as a
// developer would.
func filled(b []byte) []byte {
	s := strings.ReplaceAll(string(b), ExampleParty, "alice::1220abcd")
	return []byte(strings.ReplaceAll(s, ExampleContractID, "00"+strings.Repeat("ab", 32)))
}

// TestExamplePing: the skeleton of Ping's create arguments, filled in,
// is what the JSON API reads.
func TestExamplePing(t *testing.T) {
	dar, env := pingPackage(t)
	ping := lf.TypeConName{Package: dar.Main, Module: lf.DottedName{"Canton", "Internal", "Ping"}, Name: lf.DottedName{"Ping"}}
	p := plan(t, env, lf.TCon{Con: ping})
	got := string(p.Example())
	if want := `{"id": "", "initiator": "alice::1220…", "responder": "alice::1220…"}`; got != want {
		t.Errorf("example %s, want %s", got, want)
	}
	if _, err := p.DecodeJSON(filled(p.Example()), DecodeOptions{Path: "createArguments"}); err != nil {
		t.Error(err)
	}
}

// TestExampleSharedTemplates: every template of the real DARs has a
// skeleton that is JSON, and those not cut by the depth bound decode once
// filled in.
func TestExampleSharedTemplates(t *testing.T) {
	pkgs := sharedPackages(t)
	env := NewEnv(pkgs...)
	decoded, cut := 0, 0
	for _, pkg := range pkgs {
		for _, tpl := range pkg.Templates() {
			p, err := env.Plan(lf.TCon{Con: tpl.Name})
			if err != nil {
				t.Errorf("%s: %v", tpl.Name, err)
				continue
			}
			ex := p.Example()
			if !json.Valid(ex) {
				t.Errorf("%s: not JSON: %s", tpl.Name, ex)
				continue
			}
			if _, err := p.DecodeJSON(filled(ex), DecodeOptions{}); err != nil {
				if strings.Contains(string(ex), "{}") || strings.Contains(string(ex), "null") {
					cut++ // a record past the depth bound, or a variant there
					continue
				}
				t.Errorf("%s: %s: %v", tpl.Name, ex, err)
				continue
			}
			decoded++
		}
	}
	t.Logf("%d skeletons decode filled in, %d are cut by the depth bound", decoded, cut)
	if decoded == 0 {
		t.Error("no skeleton decodes")
	}
}

// TestExampleBounded: a record of wide records within wide records stops
// at the value budget.
func TestExampleBounded(t *testing.T) {
	leaf := &Plan{Kind: KindText}
	p := leaf
	for range 6 {
		wide := &Plan{Kind: KindRecord}
		for i := range 100 {
			wide.Fields = append(wide.Fields, FieldPlan{Name: "f" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), Plan: p})
		}
		p = wide
	}
	ex := p.Example()
	if !json.Valid(ex) || len(ex) > 100_000 {
		t.Errorf("example of %d bytes (valid %v)", len(ex), json.Valid(ex))
	}
}
