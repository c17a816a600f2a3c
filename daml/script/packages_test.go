package script

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/value"
)

func TestPackageVetting(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	r := newRunner(t, dar)
	l := NewMemoryLedger(r)
	ctx := context.Background()
	st := &run{r: r, ctx: ctx, ledger: l, res: &Result{}, limits: r.limits}
	do := func(name string, payload value.Value) (value.Value, error) {
		return st.perform(&questionValue{name: name, version: 1, payload: payload})
	}
	names := func(v value.Value) string {
		var out []string
		for _, p := range list(v) {
			out = append(out, text(field(p, "name"))+"-"+text(field(p, "version")))
		}
		return strings.Join(out, " ")
	}
	all, err := do("ListAllPackages", &value.Record{})
	if err != nil || !strings.Contains(names(all), "splice-amulet-0.1.8 ") || !strings.Contains(names(all), "splice-wallet-test-0.1.8") {
		t.Fatalf("ListAllPackages = %s, %v", names(all), err)
	}
	amulet := r.types.record(pk+"PackageName", value.Text("splice-amulet"), value.Text("0.1.8"))
	if _, err := do("UnvetPackages", &value.Record{Fields: []value.Field{{Label: "packages", Value: value.NewList(amulet)}}}); err != nil {
		t.Fatal(err)
	}
	vetted, _ := do("ListVettedPackages", &value.Record{})
	if strings.Contains(names(vetted), "splice-amulet-0.1.8 ") {
		t.Errorf("splice-amulet still vetted: %s", names(vetted))
	}
	// A command on an unvetted package's template is refused.
	var tmpl *value.Identifier
	for _, p := range dar.Packages {
		if p.Name == "splice-amulet" {
			tmpl = &value.Identifier{PackageID: string(p.ID), ModuleName: "Splice.Amulet", EntityName: "Amulet"}
		}
	}
	_, err = l.Submit(ctx, &Submission{Commands: []interp.Command{&interp.CreateCommand{Template: tmpl, Argument: &value.Record{}}}})
	var sf *SubmitFailure
	if !errors.As(err, &sf) || sf.ID != "PACKAGE_SELECTION_FAILED" {
		t.Errorf("submission on an unvetted package: %v", err)
	}
	if _, err := do("VetDar", &value.Record{Fields: []value.Field{{Label: "darName", Value: value.Text("splice-amulet")}}}); err != nil {
		t.Fatal(err)
	}
	if vetted, _ := do("ListVettedPackages", &value.Record{}); names(vetted) != names(all) {
		t.Errorf("after vetDar: %s", names(vetted))
	}
	_, err = do("VetDar", &value.Record{Fields: []value.Field{{Label: "darName", Value: value.Text("nope")}}})
	var f *Failure
	if !errors.As(err, &f) || f.Message != "VetDar: the ledger has no DAR named nope" {
		t.Errorf("vetDar nope: %v", err)
	}
}
