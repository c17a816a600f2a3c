package hashing

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Value constructors for building test inputs tersely.
func vText(s string) *damlpb.Value { return &damlpb.Value{Sum: &damlpb.Value_Text{Text: s}} }
func vInt(i int64) *damlpb.Value   { return &damlpb.Value{Sum: &damlpb.Value_Int64{Int64: i}} }
func vBool(b bool) *damlpb.Value   { return &damlpb.Value{Sum: &damlpb.Value_Bool{Bool: b}} }
func vNum(s string) *damlpb.Value  { return &damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: s}} }
func vCid(s string) *damlpb.Value  { return &damlpb.Value{Sum: &damlpb.Value_ContractId{ContractId: s}} }
func vList(vs ...*damlpb.Value) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_List{List: &damlpb.List{Elements: vs}}}
}
func vOpt(v *damlpb.Value) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_Optional{Optional: &damlpb.Optional{Value: v}}}
}
func vRecord(id *damlpb.Identifier, kv ...any) *damlpb.Value {
	r := &damlpb.Record{RecordId: id}
	for i := 0; i < len(kv); i += 2 {
		r.Fields = append(r.Fields, &damlpb.RecordField{Label: kv[i].(string), Value: kv[i+1].(*damlpb.Value)})
	}
	return &damlpb.Value{Sum: &damlpb.Value_Record{Record: r}}
}
func defRef(module, name string) *damlpb.Identifier {
	return &damlpb.Identifier{PackageId: "package", ModuleName: module, EntityName: name}
}

// scalaValueInputs renders the Scala inputs of values_release-line-3.5.json
// as protobuf Values.
var scalaValueInputs = map[string]*damlpb.Value{
	"encode unit value":        {Sum: &damlpb.Value_Unit{Unit: &emptypb.Empty{}}},
	"encode true value":        vBool(true),
	"encode false value":       vBool(false),
	"encode text value":        vText("hello world!"),
	"encode numeric value":     vNum("125.1002"),
	"encode contract id value": vCid("0059b59ad7a6b6066e77b91ced54b8282f0e24e7089944685cb8f22f32fcbc4e1b"),
	"encode enum value":        {Sum: &damlpb.Value_Enum{Enum: &damlpb.Enum{EnumId: defRef("module", "name"), Constructor: "ENUM"}}},
	"encode int64 value":       vInt(10),
	"encode variant value": {Sum: &damlpb.Value_Variant{Variant: &damlpb.Variant{
		VariantId: defRef("module", "name"), Constructor: "ENUM", Value: vBool(true)}}},
	"encode list value": vList(vText("five"), vInt(5), vBool(true)),
	"encode text map value": {Sum: &damlpb.Value_TextMap{TextMap: &damlpb.TextMap{Entries: []*damlpb.TextMap_Entry{
		{Key: "bar", Value: vText("1284")}, {Key: "foo", Value: vNum("31380.0")}}}}},
	"encode gen map value": {Sum: &damlpb.Value_GenMap{GenMap: &damlpb.GenMap{Entries: []*damlpb.GenMap_Entry{
		{Key: vInt(5), Value: vText("five")}, {Key: vInt(10), Value: vText("ten")}}}}},
	"encode optional empty value":   {Sum: &damlpb.Value_Optional{Optional: &damlpb.Optional{}}},
	"encode optional defined value": vOpt(vText("hello")),
	"encode timestamp value":        {Sum: &damlpb.Value_Timestamp{Timestamp: 1729788226000000}},
	"encode date value":             {Sum: &damlpb.Value_Date{Date: 20020}},
	"encode record value":           vRecord(defRef("module", "name"), "field1", vBool(true), "field2", vText("hello")),
}

// encodeValue returns the bare encoding of a serialized Value.
func encodeValue(b []byte) ([]byte, error) {
	e := &encoder{}
	err := e.value(b, 0)
	return e.buf, err
}

func checkValueVectors(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Values map[string]struct {
			Expected string `json:"expected_sha256_hex"`
			Preimage string `json:"preimage_hex"`
		} `json:"values"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Values) == 0 {
		t.Fatal("no values")
	}
	for name, want := range f.Values {
		checkPreimage(t, name, want.Preimage, want.Expected)
		in, ok := scalaValueInputs[name]
		if !ok {
			t.Errorf("%s: no protobuf rendering of this Scala input", name)
			continue
		}
		b, _ := proto.Marshal(in)
		got, err := encodeValue(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if hex.EncodeToString(got) != want.Preimage {
			t.Errorf("%s:\n got %x\nwant %s", name, got, want.Preimage)
		}
	}
}
