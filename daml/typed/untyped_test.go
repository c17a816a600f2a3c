package typed

import (
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

// untypedSample holds every kind of value, ids and labels, and a trailing
// None field, as the generic model and the store write them.
func untypedSample(t testing.TB) value.Value {
	t.Helper()
	id := &value.Identifier{PackageID: "p", ModuleName: "M.N", EntityName: "T"}
	num, err := value.ParseNumeric("-12.500")
	if err != nil {
		t.Fatal(err)
	}
	tm, err := value.NewTextMap([]value.TextMapEntry{{Key: "a", Value: value.Int64(1)}, {Key: "b", Value: value.None}})
	if err != nil {
		t.Fatal(err)
	}
	return &value.Record{TypeCon: id, Fields: []value.Field{
		{Label: "u", Value: value.Unit{}}, {Label: "b", Value: value.Bool(true)}, {Label: "i", Value: value.Int64(-3)},
		{Label: "n", Value: num}, {Label: "t", Value: value.Text("x")}, {Label: "p", Value: value.Party("a::1220")},
		{Label: "c", Value: value.ContractID("00ab")}, {Label: "ts", Value: value.Timestamp(1)}, {Label: "d", Value: value.Date(2)},
		{Label: "l", Value: value.NewList(value.Some(value.Some(value.None)), value.NewList())},
		{Label: "m", Value: tm},
		{Label: "g", Value: value.GenMapInOrder([]value.GenMapEntry{{Key: value.Int64(2), Value: value.Text("y")}, {Key: value.Int64(1), Value: value.Text("z")}})},
		{Label: "v", Value: &value.Variant{TypeCon: id, Constructor: "V", Value: &value.Record{Fields: []value.Field{{Value: value.Int64(1)}}}}},
		{Label: "e", Value: &value.Enum{TypeCon: id, Constructor: "Red"}},
		{Label: "z", Value: value.None},
	}}
}

// TestProtoAsIs: ToProtoAsIs keeps the trailing None field that ToProto
// leaves out, and FromProtoAsIs reads back exactly what it wrote (ids,
// labels, generic map order).
func TestProtoAsIs(t *testing.T) {
	v := untypedSample(t)
	asIs, err := ToProtoAsIs(v)
	if err != nil {
		t.Fatal(err)
	}
	canton, err := ToProto(v)
	if err != nil {
		t.Fatal(err)
	}
	if n, m := len(asIs.GetRecord().GetFields()), len(canton.GetRecord().GetFields()); n != 15 || m != 14 {
		t.Errorf("fields as is %d, as Canton writes them %d; want 15 and 14", n, m)
	}
	back, err := FromProtoAsIs(asIs)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ToProtoAsIs(back)
	if err != nil || !proto.Equal(again, asIs) {
		t.Fatalf("read back and written again:\n%v\nwant\n%v (%v)", again, asIs, err)
	}
	if got, want := back.String(), v.String(); got != want {
		t.Errorf("read back %s, want %s", got, want)
	}
}

// TestFromProtoAsIsRefuses: what no transaction or store may hold is an
// error, not a value.
func TestFromProtoAsIsRefuses(t *testing.T) {
	one := &damlpb.Value{Sum: &damlpb.Value_Int64{Int64: 1}}
	deep := one
	for range MaxNesting + 1 {
		deep = &damlpb.Value{Sum: &damlpb.Value_List{List: &damlpb.List{Elements: []*damlpb.Value{deep}}}}
	}
	for name, c := range map[string]struct {
		v    *damlpb.Value
		want string
	}{
		"unset":                 {&damlpb.Value{}, "not serializable"},
		"nil":                   {nil, "not serializable"},
		"record field unset":    {&damlpb.Value{Sum: &damlpb.Value_Record{Record: &damlpb.Record{Fields: []*damlpb.RecordField{{Label: "a"}}}}}, "not serializable"},
		"non-canonical numeric": {&damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: "01.5"}}, "Numeric"},
		"repeated text map key": {&damlpb.Value{Sum: &damlpb.Value_TextMap{TextMap: &damlpb.TextMap{Entries: []*damlpb.TextMap_Entry{
			{Key: "a", Value: one}, {Key: "a", Value: one}}}}}, "duplicate key"},
		"too deep": {deep, "nests deeper"},
	} {
		if _, err := FromProtoAsIs(c.v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, c.want)
		}
	}
}

// FuzzFromProtoAsIs: any bytes that decode as a Value either read as a
// value or fail, never panic; what reads back writes the same protobuf
// every time after the first (text maps come out sorted).
func FuzzFromProtoAsIs(f *testing.F) {
	seed, err := ToProtoAsIs(untypedSample(f))
	if err != nil {
		f.Fatal(err)
	}
	b, err := proto.Marshal(seed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		pv := &damlpb.Value{}
		if proto.Unmarshal(data, pv) != nil {
			return
		}
		v, err := FromProtoAsIs(pv)
		if err != nil {
			return
		}
		once, err := ToProtoAsIs(v)
		if err != nil {
			t.Fatalf("a value read back does not write: %v", err)
		}
		v2, err := FromProtoAsIs(once)
		if err != nil {
			t.Fatalf("a written value does not read back: %v", err)
		}
		twice, err := ToProtoAsIs(v2)
		if err != nil || !proto.Equal(once, twice) {
			t.Fatalf("written twice differently:\n%v\n%v (%v)", once, twice, err)
		}
	})
}
