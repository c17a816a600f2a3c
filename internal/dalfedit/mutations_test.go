package dalfedit_test

import (
	"os"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/internal/dalfedit"
)

// TestSetVersion: Ping 3.4.0 made 3.4.1 decodes as the same package name
// at the new version, under a new package id.
func TestSetVersion(t *testing.T) {
	dar, err := os.ReadFile("../../daml/archive/testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		t.Fatal(err)
	}
	edited, err := dalfedit.EditMainDalf(dar, func(p *dalfedit.Package) error { return p.SetVersion("3.4.1") })
	if err != nil {
		t.Fatal(err)
	}
	before, err := archive.DecodeDar(dar, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	after, err := archive.DecodeDar(edited, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, a := before.MainPackage(), after.MainPackage()
	if a.Version != "3.4.1" || a.Name != b.Name || after.Main == before.Main {
		t.Errorf("edited: %s %s %s, original %s %s %s", a.Name, a.Version, after.Main, b.Name, b.Version, before.Main)
	}
}

// TestDropChoice: Ping 3.5.0 without AbortPing is a valid package that no
// longer has the choice.
func TestDropChoice(t *testing.T) {
	dar, err := os.ReadFile("../../daml/archive/testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		t.Fatal(err)
	}
	edited, err := dalfedit.EditMainDalf(dar, func(p *dalfedit.Package) error {
		if err := p.SetVersion("3.5.0"); err != nil {
			return err
		}
		return p.DropChoice("Canton.Internal.Ping", "Ping", "AbortPing")
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := archive.DecodeDar(edited, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range d.MainPackage().Modules {
		if m.Name.String() != "Canton.Internal.Ping" {
			continue
		}
		for _, tpl := range m.Templates {
			if tpl.Name.String() == "Ping" {
				for _, c := range tpl.Choices {
					if c.Name == "AbortPing" {
						t.Fatal("AbortPing is still there")
					}
				}
				return
			}
		}
	}
	t.Fatal("no template Ping")
}

// TestMainPackageID: the id read from the archive's hash field is the one
// decoding finds, for a real DAR and an edited one.
func TestMainPackageID(t *testing.T) {
	dar, err := os.ReadFile("../../daml/archive/testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		t.Fatal(err)
	}
	edited, err := dalfedit.EditMainDalf(dar, func(p *dalfedit.Package) error { return p.SetVersion("3.4.1") })
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{dar, edited} {
		id, err := dalfedit.MainPackageID(b)
		if err != nil {
			t.Fatal(err)
		}
		d, err := archive.DecodeDar(b, archive.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if id != string(d.Main) {
			t.Errorf("MainPackageID %s, decoded %s", id, d.Main)
		}
	}
}
