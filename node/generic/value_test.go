package generic

import (
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

// The expected values are written as the transactions and the store
// carry them (typed.ToProtoAsIs of the model's values), so that these
// tests also pin those bytes.

func vInt(n int64) *damlpb.Value { return &damlpb.Value{Sum: &damlpb.Value_Int64{Int64: n}} }
func vNum(s string) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: s}}
}
func vText(s string) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_Text{Text: s}}
}
func vParty(s string) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_Party{Party: s}}
}
func vBool(b bool) *damlpb.Value { return &damlpb.Value{Sum: &damlpb.Value_Bool{Bool: b}} }
func vNone() *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_Optional{Optional: &damlpb.Optional{}}}
}
func vSome(v *damlpb.Value) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_Optional{Optional: &damlpb.Optional{Value: v}}}
}
func vList(vs ...*damlpb.Value) *damlpb.Value {
	return &damlpb.Value{Sum: &damlpb.Value_List{List: &damlpb.List{Elements: vs}}}
}

// vRec builds a record from label, value pairs.
func vRec(kv ...any) *damlpb.Value {
	r := &damlpb.Record{}
	for i := 0; i < len(kv); i += 2 {
		r.Fields = append(r.Fields, &damlpb.RecordField{Label: kv[i].(string), Value: kv[i+1].(*damlpb.Value)})
	}
	return &damlpb.Value{Sum: &damlpb.Value_Record{Record: r}}
}

const knownParty = "alice::12200123"

func testPartyCheck(p string) (bool, error) { return p == knownParty, nil }

func TestValueFromJSON(t *testing.T) {
	cases := []struct {
		name string
		json string
		want *damlpb.Value
	}{
		{"small int", `42`, vInt(42)},
		{"negative int", `-7`, vInt(-7)},
		{"zero", `0`, vInt(0)},
		{"int64 beyond 2^53", `9007199254740993`, vInt(9007199254740993)},
		{"int64 max", `9223372036854775807`, vInt(9223372036854775807)},
		{"int64 min", `-9223372036854775808`, vInt(-9223372036854775808)},
		{"beyond int64 is numeric scale 0", `9223372036854775808`, vNum("9223372036854775808.")},
		{"negative beyond int64", `-9223372036854775809`, vNum("-9223372036854775809.")},
		{"fraction keeps its scale", `1.50`, vNum("1.50")},
		{"fraction", `1.5`, vNum("1.5")},
		{"leading zero fraction", `0.0015`, vNum("0.0015")},
		{"negative fraction", `-12.340`, vNum("-12.340")},
		{"negative zero numeric loses its sign", `-0.00`, vNum("0.00")},
		{"negative zero int", `-0`, vInt(0)},
		{"exponent making an integer", `1.5e3`, vInt(1500)},
		{"exponent making a fraction", `1.5e-3`, vNum("0.0015")},
		{"exponent one", `1E0`, vInt(1)},
		{"exponent keeping a fraction", `1.50e1`, vNum("15.0")},
		{"zero with exponent", `0e5`, vInt(0)},
		{"zero with negative exponent", `0.0e-2`, vNum("0.000")},
		{"38 digit numeric", `12345678901234567890.123456789012345678`, vNum("12345678901234567890.123456789012345678")},
		{"max scale", `0.` + strings.Repeat("1", 37), vNum("0." + strings.Repeat("1", 37))},
		{"true", `true`, vBool(true)},
		{"false", `false`, vBool(false)},
		{"null is none", `null`, vNone()},
		{"text", `"hello"`, vText("hello")},
		{"unicode text", `"h\u00e9llo 🙂"`, vText("héllo 🙂")},
		{"known party", `"` + knownParty + `"`, vParty(knownParty)},
		{"unknown party-looking string is text", `"bob::12200123"`, vText("bob::12200123")},
		{"contract id stays text", `"00aa"`, vText("00aa")},
		{"empty list", `[]`, vList()},
		{"list", `[1,"a",null]`, vList(vInt(1), vText("a"), vNone())},
		{"empty object is empty record", `{}`, vRec()},
		{"object keys sorted", `{"b":1,"a":2,"C":3}`, vRec("C", vInt(3), "a", vInt(2), "b", vInt(1))},
		{"nested nulls", `{"o":null,"l":[null,{"x":null}]}`, vRec("l", vList(vNone(), vRec("x", vNone())), "o", vNone())},
		{"whitespace", " {\n \"a\" : [ 1 , 2 ] } ", vRec("a", vList(vInt(1), vInt(2)))},
		{"party inside record", `{"owner":"` + knownParty + `"}`, vRec("owner", vParty(knownParty))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := ValueFromJSON([]byte(c.json), "arg", testPartyCheck)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			got, err := typed.ToProtoAsIs(v)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestValueFromJSONErrors(t *testing.T) {
	cases := []struct {
		name, json, wantPath, wantReason string
	}{
		{"malformed", `{"a":}`, "arg", "malformed JSON"},
		{"truncated", `[1,2`, "arg", "malformed JSON"},
		{"trailing data", `1 2`, "arg", "trailing data"},
		{"duplicate key", `{"a":1,"a":2}`, "arg.a", "appears twice"},
		{"empty key", `{"":1}`, "arg.", "name is empty"},
		{"key not a Daml name", `{"my-field":1}`, "arg.my-field", "not a Daml identifier"},
		{"key starting with a digit", `{"1a":1}`, "arg.1a", "not a Daml identifier"},
		{"scale above 37", `0.` + strings.Repeat("0", 37) + "1", "arg", "scale 38"},
		{"too many digits", `123456789012345678901234567890.123456789`, "arg", "more than 38 digits"},
		{"huge integer", `1` + strings.Repeat("0", 38), "arg", "more than 38 digits"},
		{"huge exponent", `1e400000000000`, "arg", "more than 38 digits"},
		{"tiny exponent", `1e-400000000000`, "arg", "scale"},
		{"nested too deep", strings.Repeat("[", MaxValueNesting+2) + strings.Repeat("]", MaxValueNesting+2), "arg", "nested deeper"},
		{"error path in list", `{"items":[1,{"bad-key":1}]}`, "arg.items[1].bad-key", "not a Daml identifier"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ValueFromJSON([]byte(c.json), "arg", nil)
			var ve *ValueError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *ValueError", err)
			}
			if !strings.HasPrefix(ve.Path, c.wantPath) || !strings.Contains(ve.Reason, c.wantReason) {
				t.Fatalf("got %q / %q, want path %q and reason containing %q", ve.Path, ve.Reason, c.wantPath, c.wantReason)
			}
		})
	}
}

func TestValueFromJSONPartyCheckError(t *testing.T) {
	boom := errors.New("directory down")
	_, err := ValueFromJSON([]byte(`"a::b"`), "arg", func(string) (bool, error) { return false, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the directory's error", err)
	}
}

func TestValueToJSON(t *testing.T) {
	enum := &damlpb.Value{Sum: &damlpb.Value_Enum{Enum: &damlpb.Enum{Constructor: "Red"}}}
	variant := &damlpb.Value{Sum: &damlpb.Value_Variant{Variant: &damlpb.Variant{Constructor: "Left", Value: vInt(1)}}}
	textMap := &damlpb.Value{Sum: &damlpb.Value_TextMap{TextMap: &damlpb.TextMap{Entries: []*damlpb.TextMap_Entry{
		{Key: "a", Value: vInt(1)}, {Key: "b", Value: vText("x")}}}}}
	genMap := &damlpb.Value{Sum: &damlpb.Value_GenMap{GenMap: &damlpb.GenMap{Entries: []*damlpb.GenMap_Entry{
		{Key: vInt(1), Value: vText("one")}}}}}
	unlabelled := &damlpb.Value{Sum: &damlpb.Value_Record{Record: &damlpb.Record{Fields: []*damlpb.RecordField{{Value: vInt(1)}, {Value: vBool(true)}}}}}
	cases := []struct {
		name string
		v    *damlpb.Value
		want string
	}{
		{"int64 as string", vInt(9007199254740993), `"9007199254740993"`},
		{"numeric as written", vNum("1.50"), `"1.50"`},
		{"numeric scale 0 without point", vNum("12."), `"12"`},
		{"text", vText(`a"b`), `"a\"b"`},
		{"party", vParty(knownParty), `"` + knownParty + `"`},
		{"contract id", &damlpb.Value{Sum: &damlpb.Value_ContractId{ContractId: "00ab"}}, `"00ab"`},
		{"bool", vBool(false), `false`},
		{"unit via Empty", &damlpb.Value{Sum: &damlpb.Value_Unit{Unit: &emptypb.Empty{}}}, `{}`},
		{"date", &damlpb.Value{Sum: &damlpb.Value_Date{Date: 20658}}, `"2026-07-24"`},
		{"timestamp", &damlpb.Value{Sum: &damlpb.Value_Timestamp{Timestamp: 1784894400123456}}, `"2026-07-24T12:00:00.123456Z"`},
		{"none", vNone(), `null`},
		{"some", vSome(vInt(1)), `"1"`},
		{"some none", vSome(vNone()), `[]`},
		{"some some", vSome(vSome(vInt(1))), `["1"]`},
		{"some some none", vSome(vSome(vNone())), `[[]]`},
		{"list", vList(vInt(1), vNone()), `["1",null]`},
		{"record", vRec("a", vInt(1), "b", vList()), `{"a":"1","b":[]}`},
		{"unlabelled record", unlabelled, `["1",true]`},
		{"enum", enum, `"Red"`},
		{"variant", variant, `{"tag":"Left","value":"1"}`},
		{"text map", textMap, `{"a":"1","b":"x"}`},
		{"gen map", genMap, `[["1","one"]]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := typed.FromProtoAsIs(c.v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ValueToJSON(v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
	if _, err := ValueToJSON(Unit()); err != nil {
		t.Fatalf("unit: %v", err)
	}
	if _, err := ValueToJSON(nil); err == nil {
		t.Fatal("an unset value rendered without error")
	}
}

// TestValueRoundTrip: JSON → value → JSON gives Daml-LF JSON in which
// numbers are strings; converting that again keeps records, lists, parties,
// bools and nulls, and turns numbers into text.
func TestValueRoundTrip(t *testing.T) {
	in := `{"owner":"` + knownParty + `","n":12,"x":1.50,"tags":["a",null],"ok":true,"sub":{"z":null}}`
	v, err := ValueFromJSON([]byte(in), "arg", testPartyCheck)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ValueToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":"12","ok":true,"owner":"` + knownParty + `","sub":{"z":null},"tags":["a",null],"x":"1.50"}`
	if string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
	again, err := ValueFromJSON(out, "arg", testPartyCheck)
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := ValueToJSON(again)
	if string(out2) != want {
		t.Fatalf("second round gave %s", out2)
	}
}
