package node

import (
	"context"
	"errors"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// lineagePackage is package "app" at a version whose template T has the
// given record fields.
func lineagePackage(id, version string, fields ...lf.Field) *lf.Package {
	m, _ := lf.NewModule(lf.Module{
		Name:      lf.DottedName{"M"},
		DataTypes: []*lf.DataType{{Name: lf.DottedName{"T"}, Serializable: true, Kind: lf.DataRecord, Fields: fields}},
		Templates: []*lf.Template{{Name: lf.DottedName{"T"}}},
	})
	return lf.NewPackage(lf.Package{ID: lf.PackageID(id), Name: "app", Version: version,
		LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Modules: []*lf.Module{m}})
}

// TestCheckLineages refuses, as Canton does when vetting, two packages of
// one name and version and a package that does not upgrade the vetted
// version before it, whatever the order of upload.
func TestCheckLineages(t *testing.T) {
	var text lf.Type = lf.TBuiltin{Builtin: lf.BuiltinText}
	opt := lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinOptional}, Arg: text}
	v1 := lineagePackage("a1", "1.0.0", lf.Field{Name: "x", Type: text})
	v2ok := lineagePackage("a2", "2.0.0", lf.Field{Name: "x", Type: text}, lf.Field{Name: "y", Type: opt})
	v2bad := lineagePackage("a3", "2.0.0", lf.Field{Name: "y", Type: text})
	v1dup := lineagePackage("a4", "1.0.0", lf.Field{Name: "x", Type: text})
	cases := []struct {
		name string
		pkgs []*lf.Package
		code string
	}{
		{"valid upgrade", []*lf.Package{v1, v2ok}, ""},
		{"not an upgrade", []*lf.Package{v1, v2bad}, ledgerapi.CodeNotValidUpgradePackage.ID},
		{"same version", []*lf.Package{v1, v1dup}, ledgerapi.CodeKnownPackageVersion.ID},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			all := map[string]*lf.Package{}
			vetted := map[string]bool{}
			for _, p := range c.pkgs {
				all[string(p.ID)] = p
				vetted[string(p.ID)] = true
			}
			err := checkLineages(context.Background(), []string{"app"}, all, vetted)
			var ce *ledgerapi.JsCantonError
			switch {
			case c.code == "" && err != nil:
				t.Fatalf("unexpected %v", err)
			case c.code != "" && (!errors.As(err, &ce) || ce.Code != c.code):
				t.Fatalf("err = %v, want %s", err, c.code)
			}
		})
	}
}
