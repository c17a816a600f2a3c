package node

import (
	"errors"
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/engine"
)

// The filter packages: "api" defines interfaces Api:Shape and Api:Colour
// (views of record Api:V {}); "app" 1.0.0 has App:Circle implementing
// Shape and App:Plain implementing nothing; "app" 2.0.0 adds App:Square
// implementing Shape and Colour.

const (
	apiPkg lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000b1"
	appV1  lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000b2"
	appV2  lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000b3"
)

var (
	shape   = string(apiPkg) + ":Api:Shape"
	colour  = string(apiPkg) + ":Api:Colour"
	circle1 = string(appV1) + ":App:Circle"
	plain1  = string(appV1) + ":App:Plain"
	circle2 = string(appV2) + ":App:Circle"
	plain2  = string(appV2) + ":App:Plain"
	square2 = string(appV2) + ":App:Square"
)

func tc(pkg lf.PackageID, module, name string) lf.TypeConName {
	return lf.TypeConName{Package: pkg, Module: lf.DottedName{module}, Name: lf.DottedName{name}}
}

func filterAPIPackage() *lf.Package {
	view := lf.TCon{Con: tc(apiPkg, "Api", "V")}
	mod, dup := lf.NewModule(lf.Module{
		Name: lf.DottedName{"Api"},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Shape"}, Kind: lf.DataInterface},
			{Name: lf.DottedName{"Colour"}, Kind: lf.DataInterface},
			{Name: lf.DottedName{"V"}, Kind: lf.DataRecord, Serializable: true},
		},
		Interfaces: []*lf.Interface{{Name: lf.DottedName{"Shape"}, Param: "this", View: view}, {Name: lf.DottedName{"Colour"}, Param: "this", View: view}},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: apiPkg, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "api", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

func filterAppPackage(id lf.PackageID, version int) *lf.Package {
	party := lf.TBuiltin{Builtin: lf.BuiltinParty}
	instance := func(iface string) *lf.InterfaceInstance {
		return &lf.InterfaceInstance{Interface: tc(apiPkg, "Api", iface), View: &lf.ERecCon{Type: lf.TypeConApp{Con: tc(apiPkg, "Api", "V")}}}
	}
	template := func(name string, implements ...*lf.InterfaceInstance) *lf.Template {
		return &lf.Template{Name: lf.DottedName{name}, Param: "this", Precond: &lf.EBuiltinCon{Con: lf.ConTrue},
			Signatories: &lf.ENil{Type: party}, Observers: &lf.ENil{Type: party}, Implements: implements}
	}
	record := func(name string) *lf.DataType {
		return &lf.DataType{Name: lf.DottedName{name}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: party}}}
	}
	m := lf.Module{Name: lf.DottedName{"App"}, DataTypes: []*lf.DataType{record("Circle"), record("Plain")},
		Templates: []*lf.Template{template("Circle", instance("Shape")), template("Plain")}}
	if version == 2 {
		m.DataTypes = append(m.DataTypes, record("Square"))
		m.Templates = append(m.Templates, template("Square", instance("Shape"), instance("Colour")))
	}
	mod, dup := lf.NewModule(m)
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: id, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "app",
		Version: []string{"", "1.0.0", "2.0.0"}[version], Modules: []*lf.Module{mod}})
}

func ifaceFilter(views bool, ids ...string) *TemplateSet {
	t := &TemplateSet{Templates: map[string]bool{}}
	for _, id := range ids {
		t.Interfaces = append(t.Interfaces, InterfaceFilter{InterfaceID: id, View: views})
	}
	return t
}

func TestInterfaceFilterResolution(t *testing.T) {
	v1 := engine.PackageSetOf(filterAPIPackage(), filterAppPackage(appV1, 1))
	both := engine.PackageSetOf(filterAPIPackage(), filterAppPackage(appV1, 1), filterAppPackage(appV2, 2))

	for _, c := range []struct {
		id, code, cause string
	}{
		{"#nope:Api:Shape", "PACKAGE_NAMES_NOT_FOUND", "The following package names do not match upgradable packages uploaded on this participant: [nope]."},
		{"#api:Api:Circle", "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
			"The following package-name/interface qualified-name pairs do not reference any interface-id uploaded on this participant: [(api,Api:Circle)]."},
		{circle1, "TEMPLATES_OR_INTERFACES_NOT_FOUND", "Interfaces do not exist: [" + circle1 + "]."},
	} {
		f := &EventFilter{ByParty: map[string]*TemplateSet{"alice": ifaceFilter(true, "#api:Api:Shape", c.id)}}
		err := f.resolve(v1, false)
		var je *ledgerapi.JsCantonError
		if !errors.As(err, &je) || je.Code != c.code || je.Cause != c.cause || je.HTTPStatus() != 404 {
			t.Errorf("%s: %v", c.id, err)
		}
		if f.packages != nil || f.ByParty["alice"].implementors != nil {
			t.Errorf("%s: a failed resolution changed the filter", c.id)
		}
	}

	// Alice reads Shape with views, Bob Colour without; any party reads
	// Colour with blobs.
	f := &EventFilter{ByParty: map[string]*TemplateSet{
		"alice": ifaceFilter(true, "#api:Api:Shape"),
		"bob":   ifaceFilter(false, shape, "#api:Api:Colour"),
	}}
	if err := f.resolve(v1, false); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		party, template string
		want            bool
	}{
		{"alice", circle1, true}, {"alice", plain1, false}, {"bob", circle1, true}, {"carol", circle1, false},
		{"alice", circle2, false}, // not uploaded yet
	} {
		if ok, _ := f.matches(c.party, c.template, "app"); ok != c.want {
			t.Errorf("%s reads %s: %v", c.party, c.template, ok)
		}
	}
	if got := f.interfaces([]string{"alice", "bob"}, circle1); !slices.Equal(got, []string{shape}) {
		t.Errorf("views of a Circle for Alice and Bob: %v", got)
	}
	if got := f.interfaces([]string{"bob"}, circle1); got != nil {
		t.Errorf("views of a Circle for Bob (no view asked): %v", got)
	}
	if got := f.templatePushdown(); !slices.Equal(sorted(got), []string{circle1}) {
		t.Errorf("pushdown %v", got)
	}

	// Version 2 uploaded: the filter resolves again; every version of an
	// implementor is selected, Plain still not.
	if err := f.resolve(both, false); err != nil {
		t.Fatal(err)
	}
	if got := sorted(f.templatePushdown()); !slices.Equal(got, []string{circle1, circle2, square2}) {
		t.Errorf("pushdown after the upgrade %v", got)
	}
	if ok, _ := f.matches("alice", plain2, "app"); ok {
		t.Error("Plain 2.0.0 matched")
	}
	if got := f.interfaces([]string{"alice"}, square2); !slices.Equal(got, []string{shape}) {
		t.Errorf("views of a Square for Alice: %v", got)
	}

	// Views of two interfaces, blobs asked by an interface filter, and a
	// template filter by package name beside them (no pushdown).
	f = &EventFilter{AnyParty: ifaceFilter(true, "#api:Api:Colour"), ByParty: map[string]*TemplateSet{"alice": ifaceFilter(true, shape)}}
	f.AnyParty.Interfaces[0].Blob = true
	if err := f.resolve(both, false); err != nil {
		t.Fatal(err)
	}
	if got := f.interfaces([]string{"alice"}, square2); !slices.Equal(got, sorted([]string{shape, colour})) {
		t.Errorf("views of a Square: %v", got)
	}
	if ok, blob := f.matches("bob", square2, "app"); !ok || !blob || !f.wantsBlobs() {
		t.Errorf("Bob reads a Square through any party: %v, blob %v", ok, blob)
	}
	if _, blob := f.matches("alice", circle2, "app"); blob {
		t.Error("a Circle with a blob: no filter asks for it")
	}
	f.ByParty["alice"].Templates["#app:App:Plain"] = false
	if got := f.templatePushdown(); got != nil {
		t.Errorf("pushdown with a template by package name: %v", got)
	}

	// An interface no template implements selects nothing; no pushdown
	// (an empty list would read everything).
	colourOnly := engine.PackageSetOf(filterAPIPackage(), filterAppPackage(appV1, 1))
	f = &EventFilter{ByParty: map[string]*TemplateSet{"alice": ifaceFilter(false, colour)}}
	if err := f.resolve(colourOnly, false); err != nil || f.templatePushdown() != nil {
		t.Errorf("colour on version 1: %v %v", err, f.templatePushdown())
	}
	if ok, _ := f.matches("alice", circle1, "app"); ok {
		t.Error("Colour matched a Circle")
	}
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// A template filter of a package name never uploaded is the generic
// model's on an ordinary node; on a strict one (--strict-packages) it is
// Canton's PACKAGE_NAMES_NOT_FOUND (UpgradingIT
// USubscriptionsUnknownPackageNames).
func TestTemplateFilterOfUnknownPackageName(t *testing.T) {
	v1 := engine.PackageSetOf(filterAPIPackage(), filterAppPackage(appV1, 1))
	filter := func() *EventFilter {
		return &EventFilter{ByParty: map[string]*TemplateSet{"alice": {Templates: map[string]bool{"#nope:M:T": true, "#app:App:Circle": true}}}}
	}
	if err := filter().resolve(v1, false); err != nil {
		t.Errorf("not strict: %v", err)
	}
	err := filter().resolve(v1, true)
	var je *ledgerapi.JsCantonError
	if !errors.As(err, &je) || je.Code != "PACKAGE_NAMES_NOT_FOUND" ||
		je.Cause != "The following package names do not match upgradable packages uploaded on this participant: [nope]." {
		t.Errorf("strict: %v", err)
	}
}
