package display

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/lf"
)

// TestPackageSignatureBounded: a package whose template mentions a chain
// of a thousand records, and a type of 2^60 leaves built of shared parts,
// is listed within MaxInspectDataTypes, quickly.
func TestPackageSignatureBounded(t *testing.T) {
	mod := lf.DottedName{"M"}
	con := func(name string) lf.Type {
		return lf.TCon{Con: lf.TypeConName{Package: "p", Module: mod, Name: lf.DottedName{name}}}
	}
	var dts []*lf.DataType
	for i := range 1000 {
		next := con("D" + strconv.Itoa(i+1))
		dts = append(dts, &lf.DataType{Name: lf.DottedName{"D" + strconv.Itoa(i)}, Kind: lf.DataRecord, Serializable: true,
			Fields: []lf.Field{{Name: "a", Type: next}, {Name: "b", Type: next}}})
	}
	pair := &lf.DataType{Name: lf.DottedName{"Pair"}, Kind: lf.DataRecord, Params: []lf.TypeVar{{Name: "x", Kind: lf.KStar{}}, {Name: "y", Kind: lf.KStar{}}},
		Fields: []lf.Field{{Name: "x", Type: lf.TVar{Name: "x"}}, {Name: "y", Type: lf.TVar{Name: "y"}}}}
	wide := lf.Type(lf.TBuiltin{Builtin: lf.BuiltinInt64})
	for range 60 {
		wide = lf.App(con("Pair"), wide, wide)
	}
	tpl := &lf.DataType{Name: lf.DottedName{"T"}, Kind: lf.DataRecord, Serializable: true,
		Fields: []lf.Field{{Name: "owner", Type: lf.TBuiltin{Builtin: lf.BuiltinParty}}, {Name: "wide", Type: wide}, {Name: "chain", Type: con("D0")}}}
	m, dup := lf.NewModule(lf.Module{Name: mod, DataTypes: append(dts, pair, tpl), Templates: []*lf.Template{{
		Name: lf.DottedName{"T"}, Param: "this",
		Precond:     &lf.EBuiltinCon{Con: lf.ConTrue},
		Signatories: &lf.ERecProj{Field: "owner", Record: &lf.EVar{Name: "this"}},
		Observers:   &lf.ENil{},
	}}})
	if dup != "" {
		t.Fatal(dup)
	}
	p := lf.NewPackage(lf.Package{ID: "p", Name: "hostile", Version: "1.0.0", Modules: []*lf.Module{m}})
	start := time.Now()
	s := NewPackageSignature(p, true, nil)
	var b strings.Builder
	if err := RenderPackageSignature(&b, s); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if took > 2*time.Second || len(s.DataTypes) > MaxInspectDataTypes || !s.DataTypesCut {
		t.Errorf("took %v, %d data types, cut %v", took, len(s.DataTypes), s.DataTypesCut)
	}
	if !strings.Contains(b.String(), "    signatory owner\n") || !strings.Contains(b.String(), "(the first 500 data types only)") {
		t.Errorf("rendered:\n%.600s", b.String())
	}
	t.Logf("%v, %d bytes of text", took, b.Len())
}
