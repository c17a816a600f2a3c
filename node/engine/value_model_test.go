package engine

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/value"
)

// TestRewriteValueIDs: local ids are replaced wherever a value holds a
// contract id — records, variants, optionals, lists, text and generic
// maps — keeping type constructors and labels; a value without them is
// returned as it is, uncopied.
func TestRewriteValueIDs(t *testing.T) {
	local, suffixed := value.ContractID("00"+strings.Repeat("a", 64)), value.ContractID("00"+strings.Repeat("a", 64)+"ca12"+strings.Repeat("b", 68))
	ids := map[string]string{string(local): string(suffixed)}
	tc := &value.Identifier{PackageID: "p", ModuleName: "M", EntityName: "T"}
	tm, err := value.NewTextMap([]value.TextMapEntry{{Key: "k", Value: local}, {Key: "l", Value: value.Int64(1)}})
	if err != nil {
		t.Fatal(err)
	}
	build := func(cid value.ContractID, m *value.TextMap) value.Value {
		return &value.Record{TypeCon: tc, Fields: []value.Field{
			{Label: "n", Value: value.Int64(1)},
			{Label: "v", Value: &value.Variant{TypeCon: tc, Constructor: "C", Rank: 2, Value: value.Some(cid)}},
			{Label: "l", Value: value.NewList(value.Text("x"), cid)},
			{Label: "g", Value: value.GenMapInOrder([]value.GenMapEntry{{Key: cid, Value: cid}})},
			{Label: "m", Value: m},
		}}
	}
	got, changed := rewriteValueIDs(build(local, tm), ids, 0)
	wantMap, _ := value.NewTextMap([]value.TextMapEntry{{Key: "k", Value: suffixed}, {Key: "l", Value: value.Int64(1)}})
	want := build(suffixed, wantMap)
	if eq, err := value.Equal(got, want); err != nil || !eq || !changed || got.String() != want.String() {
		t.Errorf("rewritten %v (changed %v), want %v", got, changed, want)
	}
	if v := got.(*value.Record).Fields[1].Value.(*value.Variant); v.Rank != 2 || v.TypeCon != tc {
		t.Errorf("variant lost its type or rank: %+v", v)
	}
	untouched := build(value.ContractID("00"+strings.Repeat("c", 64)), nil)
	if same, changed := rewriteValueIDs(untouched, ids, 0); changed || same != untouched {
		t.Error("a value without local ids was copied")
	}
}
