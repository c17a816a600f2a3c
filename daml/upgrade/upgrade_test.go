package upgrade

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

func bt(b lf.BuiltinType, args ...lf.Type) lf.Type { return lf.App(lf.TBuiltin{Builtin: b}, args...) }

var (
	tText = bt(lf.BuiltinText)
	tInt  = bt(lf.BuiltinInt64)
	tUnit = bt(lf.BuiltinUnit)
)

// version builds package "pkg" with id and a module M holding a template T
// (its record fields), a variant V, an enum E; edit changes the module
// before it is indexed.
func version(id, ver string, edit func(m *lf.Module)) *lf.Package {
	self := lf.PackageID(id)
	con := func(n string) lf.Type {
		return lf.TCon{Con: lf.TypeConName{Package: self, Module: lf.DottedName{"M"}, Name: lf.DottedName{n}}}
	}
	m := lf.Module{
		Name: lf.DottedName{"M"},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"T"}, Serializable: true, Kind: lf.DataRecord, Fields: []lf.Field{{Name: "a", Type: tText}, {Name: "v", Type: con("V")}}},
			{Name: lf.DottedName{"V"}, Serializable: true, Kind: lf.DataVariant, Fields: []lf.Field{{Name: "A", Type: tInt}, {Name: "B", Type: tUnit}}},
			{Name: lf.DottedName{"E"}, Serializable: true, Kind: lf.DataEnum, EnumCons: []string{"X", "Y"}},
		},
		Templates: []*lf.Template{{
			Name:    lf.DottedName{"T"},
			Choices: []*lf.Choice{{Name: "Go", Consuming: true, ArgBinder: lf.Binder{Name: "arg", Type: tUnit}, ReturnType: con("E")}},
		}},
	}
	if edit != nil {
		edit(&m)
	}
	mod, _ := lf.NewModule(m)
	return lf.NewPackage(lf.Package{ID: self, Name: "pkg", Version: ver, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Modules: []*lf.Module{mod}})
}

func TestCheck(t *testing.T) {
	v1 := version("p1", "1.0.0", nil)
	cases := []struct {
		name string
		edit func(m *lf.Module)
		want string // "" when valid
	}{
		{"same", nil, ""},
		{"optional field added", func(m *lf.Module) {
			m.DataTypes[0].Fields = append(m.DataTypes[0].Fields, lf.Field{Name: "c", Type: bt(lf.BuiltinOptional, tInt)})
		}, ""},
		{"constructors added", func(m *lf.Module) {
			m.DataTypes[1].Fields = append(m.DataTypes[1].Fields, lf.Field{Name: "C", Type: tText})
			m.DataTypes[2].EnumCons = append(m.DataTypes[2].EnumCons, "Z")
		}, ""},
		{"non-optional field added", func(m *lf.Module) {
			m.DataTypes[0].Fields = append(m.DataTypes[0].Fields, lf.Field{Name: "c", Type: tInt})
		}, "The upgraded template T has added new fields, but those fields are not Optional."},
		{"field removed", func(m *lf.Module) { m.DataTypes[0].Fields = m.DataTypes[0].Fields[:1] },
			"The upgraded template T is missing some of its original fields."},
		{"fields reordered", func(m *lf.Module) {
			f := m.DataTypes[0].Fields
			m.DataTypes[0].Fields = []lf.Field{f[1], f[0]}
		}, "The upgraded template T has changed the order of its fields - any new fields must be added at the end of the record."},
		{"field type changed", func(m *lf.Module) { m.DataTypes[0].Fields[0].Type = tInt },
			"The upgraded template T has changed the types of some of its original fields."},
		{"template removed", func(m *lf.Module) { m.Templates = nil },
			"Template T appears in package that is being upgraded, but does not appear in the upgrading package."},
		{"choice removed", func(m *lf.Module) { m.Templates[0].Choices = nil },
			"Choice Go appears in package that is being upgraded, but does not appear in the upgrading package."},
		{"return type changed", func(m *lf.Module) { m.Templates[0].Choices[0].ReturnType = tUnit },
			"The upgraded choice Go cannot change its return type."},
		{"key added", func(m *lf.Module) { m.Templates[0].Key = &lf.TemplateKey{Type: tText} },
			"The upgraded template T cannot add a key."},
		{"variant constructor removed", func(m *lf.Module) { m.DataTypes[1].Fields = m.DataTypes[1].Fields[1:] },
			"The upgraded data type V has removed an existing variant."},
		{"enum reordered", func(m *lf.Module) { m.DataTypes[2].EnumCons = []string{"Y", "X"} },
			"The upgraded data type E has changed the order of its variants - any new variant must be added at the end of the enum."},
		{"variety changed", func(m *lf.Module) { m.DataTypes[2].Kind, m.DataTypes[2].EnumCons = lf.DataRecord, nil },
			"The upgraded data type E has changed from a enum to a record. Datatypes cannot change variety via upgrades."},
		{"data type removed", func(m *lf.Module) { m.DataTypes = m.DataTypes[:2] },
			"Data type E appears in package that is being upgraded, but does not appear in the upgrading package."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v2 := version("p2", "2.0.0", c.edit)
			err := Check(v1, v2, nil)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("Check = %q, want %q", got, c.want)
			}
		})
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"1.0.0", "1.0.0", 0}, {"1.0.0", "1.0.1", -1}, {"1.10.0", "1.9.0", 1}, {"1.0", "1.0.0", -1}, {"0.1.14", "0.1.4", 1}} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestCheckCantonRules pins rules where Canton 3.5's checker differs from a
// stricter reading: exceptions and interfaces may be kept, a module may not
// be dropped even when nothing in it is serializable, interface instances
// are compared by exact interface id, and kinds of type parameters count.
func TestCheckCantonRules(t *testing.T) {
	withExceptionAndInterface := func(m *lf.Module) {
		m.DataTypes = append(m.DataTypes,
			&lf.DataType{Name: lf.DottedName{"X"}, Serializable: true, Kind: lf.DataRecord, Fields: []lf.Field{{Name: "msg", Type: tText}}},
			&lf.DataType{Name: lf.DottedName{"I"}, Kind: lf.DataInterface})
		m.Exceptions = []*lf.Exception{{Name: lf.DottedName{"X"}}}
		m.Interfaces = []*lf.Interface{{Name: lf.DottedName{"I"}, View: tUnit}}
	}
	iface := func(pkg string) lf.TypeConName {
		return lf.TypeConName{Package: lf.PackageID(pkg), Module: lf.DottedName{"Api"}, Name: lf.DottedName{"I"}}
	}
	implements := func(pkg string) func(m *lf.Module) {
		return func(m *lf.Module) { m.Templates[0].Implements = []*lf.InterfaceInstance{{Interface: iface(pkg)}} }
	}
	extraModule := func(p *lf.Package) *lf.Package {
		util, _ := lf.NewModule(lf.Module{Name: lf.DottedName{"Util"}})
		cp := *p
		cp.Modules = append(append([]*lf.Module{}, p.Modules...), util)
		return lf.NewPackage(cp)
	}
	for _, c := range []struct {
		name          string
		past, present *lf.Package
		want          string
	}{
		{"exception and interface kept", version("p1", "1.0.0", withExceptionAndInterface), version("p2", "2.0.0", withExceptionAndInterface), ""},
		{"module without serializable types dropped", extraModule(version("p1", "1.0.0", nil)), version("p2", "2.0.0", nil),
			"Module Util appears in package that is being upgraded, but does not appear in the upgrading package."},
		{"instance kept", version("p1", "1.0.0", implements("api1")), version("p2", "2.0.0", implements("api1")), ""},
		{"instance of another interface package", version("p1", "1.0.0", implements("api1")), version("p2", "2.0.0", implements("api2")),
			"Implementation of interface api1:Api:I by template T appears in package that is being upgraded, but does not appear in this package."},
		{"parameter kind changed",
			version("p1", "1.0.0", func(m *lf.Module) { m.DataTypes[1].Params = []lf.TypeVar{{Name: "a", Kind: lf.KStar{}}} }),
			version("p2", "2.0.0", func(m *lf.Module) { m.DataTypes[1].Params = []lf.TypeVar{{Name: "a", Kind: lf.KNat{}}} }),
			"The upgraded data type V has changed the kind of one of its type variables."},
		{"parameter renamed",
			version("p1", "1.0.0", func(m *lf.Module) {
				m.DataTypes[1].Params = []lf.TypeVar{{Name: "a", Kind: lf.KStar{}}}
				m.DataTypes[1].Fields[0].Type = lf.TVar{Name: "a"}
			}),
			version("p2", "2.0.0", func(m *lf.Module) {
				m.DataTypes[1].Params = []lf.TypeVar{{Name: "b", Kind: lf.KStar{}}}
				m.DataTypes[1].Fields[0].Type = lf.TVar{Name: "b"}
			}), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.past, c.present, nil)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("Check = %q, want %q", got, c.want)
			}
		})
	}
}

// TestOrigin names where a record comes from as Canton's dataTypeOrigin.
func TestOrigin(t *testing.T) {
	m, _ := lf.NewModule(lf.Module{
		Name: lf.DottedName{"M"},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"V"}, Kind: lf.DataVariant, Fields: []lf.Field{{Name: "C", Type: lf.TCon{Con: lf.TypeConName{Package: "p", Module: lf.DottedName{"M"}, Name: lf.DottedName{"V", "C"}}}}}},
		},
		Templates: []*lf.Template{{Name: lf.DottedName{"T"}, Choices: []*lf.Choice{{Name: "Go"}}}},
	})
	for name, want := range map[string]string{
		"T":   "template T",
		"Go":  "input type of choice Go on template T",
		"V.C": "variant constructor V.C from variant V",
		"R":   "data type R",
	} {
		if got, _ := origin(m, lf.DottedName(strings.Split(name, "."))); got != want {
			t.Errorf("origin(%s) = %q, want %q", name, got, want)
		}
	}
}
