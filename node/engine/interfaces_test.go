package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// The interface-view packages, written here to have a view that fails:
// "shown" defines interface Shown:Shown with view ShownView {n: Int64};
// "assets" 1.0.0 has Assets:Asset {owner, n}, which does not implement it,
// and Assets:Broken {owner}, whose view aborts; "assets" 2.0.0 adds an
// optional note to Asset and the Shown instance (view n), keeping Broken.

const (
	shownPkg   lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000a1"
	assetsV1   lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000a2"
	assetsV2   lf.PackageID = "00000000000000000000000000000000000000000000000000000000000000a3"
	shownIface              = string(shownPkg) + ":Shown:Shown"
)

func tcon(pkg lf.PackageID, module, name string) lf.TypeConName {
	return lf.TypeConName{Package: pkg, Module: lf.DottedName{module}, Name: lf.DottedName{name}}
}

func shownPackage() *lf.Package {
	mod, dup := lf.NewModule(lf.Module{
		Name: lf.DottedName{"Shown"},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Shown"}, Kind: lf.DataInterface},
			{Name: lf.DottedName{"ShownView"}, Kind: lf.DataRecord, Serializable: true,
				Fields: []lf.Field{{Name: "n", Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}}}},
		},
		Interfaces: []*lf.Interface{{Name: lf.DottedName{"Shown"}, Param: "this", View: lf.TCon{Con: tcon(shownPkg, "Shown", "ShownView")}}},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: shownPkg, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "shown", Version: "1.0.0", Modules: []*lf.Module{mod}})
}

func assetsPackage(id lf.PackageID, version int) *lf.Package {
	party := lf.TBuiltin{Builtin: lf.BuiltinParty}
	field := func(tmpl, name string) lf.Expr {
		return &lf.ERecProj{Type: lf.TypeConApp{Con: tcon(id, "Assets", tmpl)}, Field: name, Record: &lf.EVar{Name: "this"}}
	}
	owner := func(tmpl string) lf.Expr {
		return &lf.ECons{Type: party, Front: []lf.Expr{field(tmpl, "owner")}, Tail: &lf.ENil{Type: party}}
	}
	viewType := lf.TCon{Con: tcon(shownPkg, "Shown", "ShownView")}
	broken := &lf.InterfaceInstance{Interface: tcon(shownPkg, "Shown", "Shown"),
		View: &lf.EApp{Fun: &lf.ETyApp{Expr: &lf.EBuiltinFun{Fun: lf.BuiltinError}, Types: []lf.Type{viewType}},
			Args: []lf.Expr{&lf.EText{Value: "this view is broken"}}}}
	assetFields := []lf.Field{{Name: "owner", Type: party}, {Name: "n", Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}}}
	asset := &lf.Template{Name: lf.DottedName{"Asset"}, Param: "this", Precond: &lf.EBuiltinCon{Con: lf.ConTrue},
		Signatories: owner("Asset"), Observers: &lf.ENil{Type: party}}
	if version == 2 {
		assetFields = append(assetFields, lf.Field{Name: "note", Type: lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinOptional}, Arg: lf.TBuiltin{Builtin: lf.BuiltinText}}})
		asset.Implements = []*lf.InterfaceInstance{{Interface: tcon(shownPkg, "Shown", "Shown"),
			View: &lf.ERecCon{Type: lf.TypeConApp{Con: tcon(shownPkg, "Shown", "ShownView")}, Fields: []lf.FieldExpr{{Name: "n", Expr: field("Asset", "n")}}}}}
	}
	mod, dup := lf.NewModule(lf.Module{
		Name: lf.DottedName{"Assets"},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Asset"}, Kind: lf.DataRecord, Serializable: true, Fields: assetFields},
			{Name: lf.DottedName{"Broken"}, Kind: lf.DataRecord, Serializable: true, Fields: []lf.Field{{Name: "owner", Type: party}}},
		},
		Templates: []*lf.Template{asset, {Name: lf.DottedName{"Broken"}, Param: "this", Precond: &lf.EBuiltinCon{Con: lf.ConTrue},
			Signatories: owner("Broken"), Observers: &lf.ENil{Type: party}, Implements: []*lf.InterfaceInstance{broken}}},
	})
	if dup != "" {
		panic(dup)
	}
	return lf.NewPackage(lf.Package{ID: id, LanguageVersion: lf.LanguageVersion{Major: 2, Minor: 1}, Name: "assets",
		Version: []string{"", "1.0.0", "2.0.0"}[version], Modules: []*lf.Module{mod}})
}

// viewPackages is the three packages, every one uploaded; vetted lists
// those vetted.
func viewPackages(vetted ...lf.PackageID) *PackageSet {
	pkgs := []*lf.Package{shownPackage(), assetsPackage(assetsV1, 1), assetsPackage(assetsV2, 2)}
	names := map[string]string{}
	var vs []VettedPackage
	for _, p := range pkgs {
		names[string(p.ID)] = p.Name
		for _, id := range vetted {
			if id == p.ID {
				vs = append(vs, VettedPackage{ID: string(p.ID), Name: p.Name, Version: p.Version})
			}
		}
	}
	return NewPackageSet(typed.NewEnv(pkgs...), names, vs)
}

func TestResolveInterfaceAndImplementors(t *testing.T) {
	set := viewPackages(shownPkg, assetsV1, assetsV2)
	for _, c := range []struct {
		id    string
		want  string
		known bool
	}{
		{"#shown:Shown:Shown", shownIface, true},
		{shownIface, shownIface, true},
		{"#shown:Shown:Nope", "", true},
		{"#assets:Assets:Asset", "", true}, // a template is no interface
		{"#nope:Shown:Shown", "", false},
		{string(assetsV1) + ":Shown:Shown", "", true},
	} {
		id, err := ledgerapi.ParseTemplateID(c.id)
		if err != nil {
			t.Fatal(err)
		}
		got, known := set.ResolveInterface(id.PackageName, id.PackageID, id.Module+":"+id.Entity)
		if strings.Join(got, ",") != c.want || known != c.known {
			t.Errorf("%s: %v %v, want %q %v", c.id, got, known, c.want, c.known)
		}
	}
	// Asset 1.0.0 does not implement Shown, but 2.0.0 does: both versions
	// are selected, as Canton selects every version of an implementor.
	want := strings.Join([]string{string(assetsV1) + ":Assets:Asset", string(assetsV1) + ":Assets:Broken",
		string(assetsV2) + ":Assets:Asset", string(assetsV2) + ":Assets:Broken"}, ",")
	if got := strings.Join(set.Implementors(shownIface), ","); got != want {
		t.Errorf("implementors\n got  %s\n want %s", got, want)
	}
	if got := set.Implementors(string(assetsV1) + ":Assets:Asset"); got != nil {
		t.Errorf("implementors of a template: %v", got)
	}
}

func TestInterfaceViews(t *testing.T) {
	ctx := context.Background()
	const alice = "alice::1220aa"
	v1Asset := string(assetsV1) + ":Assets:Asset"
	view := func(set *PackageSet, tmpl, arg string) ledgerapi.InterfaceView {
		t.Helper()
		v, err := InterfaceView(ctx, set, tmpl, []byte(arg), shownIface, "sync::1220", nil)
		if err != nil {
			t.Fatalf("%s: %v", tmpl, err)
		}
		if v.InterfaceID != shownIface {
			t.Errorf("interfaceId %s", v.InterfaceID)
		}
		return v
	}
	all := viewPackages(shownPkg, assetsV1, assetsV2)

	// A version 1 contract, viewed with version 2's instance.
	v := view(all, v1Asset, `{"owner":"`+alice+`","n":"7"}`)
	if v.ViewStatus.Code != 0 || v.ViewStatus.Message != "" || len(v.ViewStatus.Details) != 0 || string(v.ViewValue) != `{"n":"7"}` ||
		v.ImplementationPackageID == nil || *v.ImplementationPackageID != string(assetsV2) {
		t.Errorf("view of a version 1 Asset: %+v", v)
	}

	// A view that aborts: the interpreter's error as a status, no value.
	v = view(all, string(assetsV1)+":Assets:Broken", `{"owner":"`+alice+`"}`)
	e := ledgerapi.ErrorFromStatus(&v.ViewStatus)
	if v.ViewValue != nil || e == nil || e.Code != "INTERPRETATION_USER_ERROR" || !strings.Contains(e.Cause, "this view is broken") ||
		v.ViewStatus.Code != ledgerapi.GRPCFailedPrecondition || v.ImplementationPackageID == nil || *v.ImplementationPackageID != string(assetsV2) {
		t.Errorf("broken view: %+v (%+v)", v, e)
	}

	// An argument that is not one of the template.
	v = view(all, v1Asset, `{"owner":"`+alice+`"}`)
	if e := ledgerapi.ErrorFromStatus(&v.ViewStatus); v.ViewValue != nil || e == nil || e.Code != "COMMAND_PREPROCESSING_FAILED" {
		t.Errorf("bad argument: %+v", v)
	}

	// One read keeps its choice when the vetting changes while it runs,
	// as Canton memoizes it for a stream.
	var memo ViewPackages
	if v, err := InterfaceView(ctx, all, v1Asset, []byte(`{"owner":"`+alice+`","n":"1"}`), shownIface, "", &memo); err != nil || v.ViewStatus.Code != 0 {
		t.Fatalf("memoized read: %+v %v", v, err)
	}
	if v, err := InterfaceView(ctx, viewPackages(shownPkg, assetsV1), v1Asset, []byte(`{"owner":"`+alice+`","n":"2"}`), shownIface, "", &memo); err != nil ||
		v.ViewStatus.Code != 0 || string(v.ViewValue) != `{"n":"2"}` || *v.ImplementationPackageID != string(assetsV2) {
		t.Errorf("memoized read after unvetting: %+v %v", v, err)
	}

	// Version 2 not vetted: no vetted package implements Shown.
	v = view(viewPackages(shownPkg, assetsV1), v1Asset, `{"owner":"`+alice+`","n":"7"}`)
	e = ledgerapi.ErrorFromStatus(&v.ViewStatus)
	if v.ViewValue != nil || v.ImplementationPackageID != nil || e == nil || e.Code != "NO_VETTED_INTERFACE_IMPLEMENTATION_PACKAGE" ||
		v.ViewStatus.Code != ledgerapi.GRPCFailedPrecondition ||
		!strings.Contains(e.Cause, "No vetted package for rendering the interface view for package-name 'assets'.") ||
		!strings.Contains(e.Cause, "'Package-ids with interface instances for the requested interface'=assets -> ["+string(assetsV2)+"]") ||
		!strings.Contains(e.Cause, "Candidates: ["+string(assetsV1)+"]") {
		t.Errorf("not vetted: %+v (%+v)", v, e)
	}
}
