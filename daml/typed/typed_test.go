package typed

import (
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

const testPkg = lf.PackageID("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

func tcon(name string) lf.TypeConName {
	return lf.TypeConName{Package: testPkg, Module: lf.DottedName{"Main"}, Name: lf.DottedName{name}}
}

func bt(b lf.BuiltinType, args ...lf.Type) lf.Type { return lf.App(lf.TBuiltin{Builtin: b}, args...) }

var (
	tUnit      = bt(lf.BuiltinUnit)
	tBool      = bt(lf.BuiltinBool)
	tInt       = bt(lf.BuiltinInt64)
	tText      = bt(lf.BuiltinText)
	tParty     = bt(lf.BuiltinParty)
	tDate      = bt(lf.BuiltinDate)
	tTime      = bt(lf.BuiltinTimestamp)
	tNum       = func(n int) lf.Type { return bt(lf.BuiltinNumeric, lf.TNat{N: n}) }
	tOpt       = func(t lf.Type) lf.Type { return bt(lf.BuiltinOptional, t) }
	tList      = func(t lf.Type) lf.Type { return bt(lf.BuiltinList, t) }
	tCon       = func(name string, args ...lf.Type) lf.Type { return lf.App(lf.TCon{Con: tcon(name)}, args...) }
	starVar    = func(n string) lf.TypeVar { return lf.TypeVar{Name: n, Kind: lf.KStar{}} }
	allKindsID = value.IdentifierOf(tcon("Kinds"))
)

// testEnv is a package of one module with a record of every kind of field,
// a variant, an enum, a parameterized record, a synonym and a recursive
// type.
func testEnv(t testing.TB) *Env {
	t.Helper()
	m, dup := lf.NewModule(lf.Module{
		Name: lf.DottedName{"Main"},
		Synonyms: []*lf.TypeSyn{
			{Name: lf.DottedName{"Amount"}, Type: tNum(2)},
			{Name: lf.DottedName{"Pair"}, Params: []lf.TypeVar{starVar("a")}, Type: tCon("Box", lf.TVar{Name: "a"})},
		},
		DataTypes: []*lf.DataType{
			{Name: lf.DottedName{"Kinds"}, Serializable: true, Kind: lf.DataRecord, Fields: []lf.Field{
				{Name: "u", Type: tUnit},
				{Name: "b", Type: tBool},
				{Name: "i", Type: tInt},
				{Name: "n", Type: tNum(10)},
				{Name: "n0", Type: tNum(0)},
				{Name: "t", Type: tText},
				{Name: "p", Type: tParty},
				{Name: "c", Type: bt(lf.BuiltinContractID, tCon("Kinds"))},
				{Name: "ts", Type: tTime},
				{Name: "d", Type: tDate},
				{Name: "o", Type: tOpt(tInt)},
				{Name: "oo", Type: tOpt(tOpt(tInt))},
				{Name: "l", Type: tList(tText)},
				{Name: "tm", Type: bt(lf.BuiltinTextMap, tInt)},
				{Name: "gm", Type: bt(lf.BuiltinGenMap, tInt, tText)},
				{Name: "v", Type: tCon("Shape")},
				{Name: "e", Type: tCon("Color")},
				{Name: "box", Type: tCon("Box", tInt)},
				{Name: "amount", Type: lf.TSyn{Syn: tcon("Amount")}},
				{Name: "last", Type: tOpt(tText)},
			}},
			{Name: lf.DottedName{"Shape"}, Serializable: true, Kind: lf.DataVariant, Fields: []lf.Field{
				{Name: "Circle", Type: tNum(10)},
				{Name: "Square", Type: tInt},
				{Name: "Dot", Type: tUnit},
			}},
			{Name: lf.DottedName{"Color"}, Serializable: true, Kind: lf.DataEnum, EnumCons: []string{"Red", "Green", "Blue"}},
			{Name: lf.DottedName{"Box"}, Params: []lf.TypeVar{starVar("a")}, Serializable: true, Kind: lf.DataRecord, Fields: []lf.Field{
				{Name: "item", Type: lf.TVar{Name: "a"}},
				{Name: "maybe", Type: tOpt(lf.TVar{Name: "a"})},
			}},
			{Name: lf.DottedName{"Tree"}, Serializable: true, Kind: lf.DataVariant, Fields: []lf.Field{
				{Name: "Leaf", Type: tUnit},
				{Name: "Node", Type: tCon("Node")},
			}},
			{Name: lf.DottedName{"Node"}, Serializable: true, Kind: lf.DataRecord, Fields: []lf.Field{
				{Name: "label", Type: tInt},
				{Name: "kids", Type: tList(tCon("Tree"))},
			}},
		},
	})
	if dup != "" {
		t.Fatal(dup)
	}
	return NewEnv(lf.NewPackage(lf.Package{ID: testPkg, Name: "test", Version: "1.0.0", Modules: []*lf.Module{m}}))
}

func plan(t testing.TB, env *Env, typ lf.Type) *Plan {
	t.Helper()
	p, err := env.Plan(typ)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const cid = "0011223344556677889900112233445566778899001122334455667788990011aa"

const kindsJSON = `{"u":{},"b":true,"i":"-42","n":"1.5000000000","n0":"7.","t":"hé\"llo\n",` +
	`"p":"alice::1220ab","c":"` + cid + `","ts":"2026-07-24T11:59:01.1234Z","d":"2026-07-24",` +
	`"o":"5","oo":[[]],"l":["a","b"],"tm":{"x":"1","y":"2"},"gm":[["1","one"],["2","two"]],` +
	`"v":{"tag":"Circle","value":"2.5000000000"},"e":"Green","box":{"item":"3","maybe":"4"},` +
	`"amount":"9.99","last":"end"}`

// TestRoundTrip decodes one value of every kind and writes it back
// unchanged.
func TestRoundTrip(t *testing.T) {
	env := testEnv(t)
	p := plan(t, env, tCon("Kinds"))
	v, err := p.DecodeJSON([]byte(kindsJSON), DecodeOptions{Path: "createArguments"})
	if err != nil {
		t.Fatal(err)
	}
	r := v.(*value.Record)
	if len(r.Fields) != 20 || r.TypeCon.String() != allKindsID.String() {
		t.Fatalf("record %v", r)
	}
	checks := map[string]string{
		"i": "-42", "n": "1.5000000000", "n0": "7.", "ts": "2026-07-24T11:59:01.123400Z", "d": "2026-07-24",
		"oo": "Option(None)", "e": "Main:Color@01234567:Green", "amount": "9.99",
		"v": "Main:Shape@01234567:Circle(1.5000000000)",
	}
	checks["v"] = "Main:Shape@01234567:Circle(2.5000000000)"
	for label, want := range checks {
		if got := r.Field(label).String(); got != want {
			t.Errorf("%s = %s, want %s", label, got, want)
		}
	}
	if e := r.Field("e").(*value.Enum); e.Rank != 1 {
		t.Errorf("rank of Green = %d", e.Rank)
	}
	if x := r.Field("v").(*value.Variant); x.Rank != 0 {
		t.Errorf("rank of Circle = %d", x.Rank)
	}
	out, err := p.EncodeJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != kindsJSON {
		t.Errorf("round trip:\n got %s\nwant %s", out, kindsJSON)
	}
}

func decodeAs(t *testing.T, typ lf.Type, in string) (value.Value, string) {
	t.Helper()
	p := plan(t, testEnv(t), typ)
	v, err := p.DecodeJSON([]byte(in), DecodeOptions{Path: "arg"})
	if err != nil {
		t.Fatalf("decode %s: %v", in, err)
	}
	out, err := p.EncodeJSON(v)
	if err != nil {
		t.Fatalf("encode %v: %v", v, err)
	}
	return v, string(out)
}

// TestEncodings pins Canton's JSON for each kind, both ways: the input, the
// value it decodes to, and the JSON written back.
func TestEncodings(t *testing.T) {
	cases := []struct {
		name  string
		typ   lf.Type
		in    string
		value string
		out   string
	}{
		{"unit", tUnit, `{}`, "<unit>", `{}`},
		{"unit ignores its JSON", tUnit, `[1, "x"]`, "<unit>", `{}`},
		{"bool", tBool, `false`, "false", `false`},
		{"int64 string", tInt, `"9223372036854775807"`, "9223372036854775807", `"9223372036854775807"`},
		{"int64 number", tInt, `-12`, "-12", `"-12"`},
		{"int64 plus", tInt, `"+12"`, "12", `"12"`},
		{"numeric padded", tNum(10), `"1.5"`, "1.5000000000", `"1.5000000000"`},
		{"numeric number", tNum(10), `0.25`, "0.2500000000", `"0.2500000000"`},
		{"numeric exponent", tNum(10), `2.5e2`, "250.0000000000", `"250.0000000000"`},
		{"numeric integer", tNum(0), `"12"`, "12.", `"12."`},
		{"numeric trailing zeros", tNum(2), `"1.500000"`, "1.50", `"1.50"`},
		{"numeric leading zeros and sign", tNum(2), `"+007.1"`, "7.10", `"7.10"`},
		{"numeric negative zero", tNum(2), `"-0.0"`, "0.00", `"0.00"`},
		{"text escapes", tText, `"a\"b\\c\u0001\u00e9\ud83d\ude00"`, `"a"b\c` + "\x01é😀" + `"`, `"a\"b\\c\u0001é😀"`},
		{"party", tParty, `"Alice::1220"`, "'Alice::1220'", `"Alice::1220"`},
		{"date", tDate, `"0001-01-01"`, "0001-01-01", `"0001-01-01"`},
		{"timestamp offset", tTime, `"2026-07-24T13:59:01+02:00"`, "2026-07-24T11:59:01Z", `"2026-07-24T11:59:01Z"`},
		{"timestamp nanos dropped", tTime, `"2026-07-24T11:59:01.100000999Z"`, "2026-07-24T11:59:01.100Z", `"2026-07-24T11:59:01.1Z"`},
		{"timestamp without seconds", tTime, `"2026-07-24T11:59Z"`, "2026-07-24T11:59:00Z", `"2026-07-24T11:59:00Z"`},
		{"optional none", tOpt(tInt), `null`, "None", `null`},
		{"optional some", tOpt(tInt), `"1"`, "Option(1)", `"1"`},
		{"nested none", tOpt(tOpt(tInt)), `[]`, "None", `[]`},
		{"nested null is none", tOpt(tOpt(tInt)), `null`, "None", `[]`},
		{"nested some none", tOpt(tOpt(tInt)), `[[]]`, "Option(None)", `[[]]`},
		{"nested some some", tOpt(tOpt(tInt)), `[["5"]]`, "Option(Option(5))", `[["5"]]`},
		{"triple", tOpt(tOpt(tOpt(tInt))), `[[["5"]]]`, "Option(Option(Option(5)))", `[[["5"]]]`},
		{"optional list of optional", tOpt(tList(tOpt(tInt))), `[null,"1"]`, "Option([None, Option(1)])", `[null,"1"]`},
		{"list", tList(tInt), `["1", 2]`, "[1, 2]", `["1","2"]`},
		{"empty list", tList(tInt), `[ ]`, "[]", `[]`},
		{"text map sorted", bt(lf.BuiltinTextMap, tInt), `{"b":"2","a":"1"}`, "TextMap(a -> 1, b -> 2)", `{"a":"1","b":"2"}`},
		{"text map later key wins", bt(lf.BuiltinTextMap, tInt), `{"a":"1","a":"3"}`, "TextMap(a -> 3)", `{"a":"3"}`},
		{"gen map sorted", bt(lf.BuiltinGenMap, tInt, tText), `[["2","b"],["1","a"]]`, `GenMap(1 -> "a", 2 -> "b")`, `[["1","a"],["2","b"]]`},
		{"gen map later key wins", bt(lf.BuiltinGenMap, tInt, tText), `[["1","a"],["1","z"]]`, `GenMap(1 -> "z")`, `[["1","z"]]`},
		{"variant value first", tCon("Shape"), `{"value":"3","tag":"Square"}`, "Main:Shape@01234567:Square(3)", `{"tag":"Square","value":"3"}`},
		{"variant unit", tCon("Shape"), `{"tag":"Dot","value":{}}`, "Main:Shape@01234567:Dot(<unit>)", `{"tag":"Dot","value":{}}`},
		{"enum", tCon("Color"), `"Blue"`, "Main:Color@01234567:Blue", `"Blue"`},
		{"record any order, omitted optional", tCon("Box", tInt), `{"maybe":null,"item":"1"}`, "Main:Box@01234567{ item = 1, maybe = None }", `{"item":"1"}`},
		{"record unknown null field", tCon("Box", tInt), `{"item":"1","extra":null}`, "Main:Box@01234567{ item = 1, maybe = None }", `{"item":"1"}`},
		{"type argument optional", tCon("Box", tOpt(tInt)), `{"item":null,"maybe":"2"}`, "Main:Box@01234567{ item = None, maybe = Option(Option(2)) }", `{"item":null,"maybe":"2"}`},
		{"synonym", lf.TSyn{Syn: tcon("Pair"), Args: []lf.Type{tText}}, `{"item":"x"}`, `Main:Box@01234567{ item = "x", maybe = None }`, `{"item":"x"}`},
		{"recursive", tCon("Tree"), `{"tag":"Node","value":{"label":"1","kids":[{"tag":"Leaf","value":{}}]}}`,
			"Main:Tree@01234567:Node(Main:Node@01234567{ label = 1, kids = [Main:Tree@01234567:Leaf(<unit>)] })",
			`{"tag":"Node","value":{"label":"1","kids":[{"tag":"Leaf","value":{}}]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, out := decodeAs(t, c.typ, c.in)
			if v.String() != c.value {
				t.Errorf("value %s, want %s", v, c.value)
			}
			if out != c.out {
				t.Errorf("JSON %s, want %s", out, c.out)
			}
		})
	}
}

// TestErrors checks each refusal: its kind, its path and its message.
func TestErrors(t *testing.T) {
	cases := []struct {
		name string
		typ  lf.Type
		in   string
		kind ErrorKind
		path string
		msg  string
	}{
		{"missing field", tCon("Box", tInt), `{"maybe":"1"}`, ErrMissingFields, "arg", "Missing non-optional fields: Set(item)"},
		{"missing nested", tCon("Tree"), `{"tag":"Node","value":{"kids":[{"tag":"Node","value":{}}]}}`, ErrMissingFields, "arg.value.kids[0].value", "Missing non-optional fields: Set(kids, label)"},
		{"unexpected field", tCon("Box", tInt), `{"item":"1","zz":1,"aa":"x"}`, ErrUnexpectedFields, "arg", "Unexpected fields: aa, zz"},
		{"variant without value", tCon("Shape"), `{"tag":"Square"}`, ErrVariant, "arg", "Variant type json must have 'tag' and 'value' fields."},
		{"variant not an object", tCon("Shape"), `"Square"`, ErrVariant, "arg", "Variant type json must have 'tag' and 'value' fields."},
		{"variant unknown tag", tCon("Shape"), `{"tag":"Star","value":1}`, ErrVariant, "arg", "Unexpected variant tag: Star (Main:Shape has Circle, Square, Dot)"},
		{"enum unknown", tCon("Color"), `"Pink"`, ErrVariant, "arg", "Unexpected enum constructor: Pink (Main:Color has Red, Green, Blue)"},
		{"text given a number", tCon("Box", tText), `{"item":5}`, ErrInvalidValue, "arg.item", "expected Text (a JSON string), found a JSON number"},
		{"bool given a string", tBool, `"true"`, ErrInvalidValue, "arg", "expected Bool (true or false), found a JSON string"},
		{"record given an array", tCon("Box", tInt), `["1"]`, ErrInvalidValue, "arg", "expected Box Int (a JSON object of its fields), found a JSON array"},
		{"null for a non-optional field", tCon("Box", tInt), `{"item":null}`, ErrInvalidValue, "arg.item", "expected Int (a JSON string of decimal digits), found null"},
		{"int64 text", tInt, `"12a"`, ErrInvalidValue, "arg", `For input string: "12a" (expected an Int64)`},
		{"int64 overflow", tInt, `"9223372036854775808"`, ErrInvalidValue, "arg", `For input string: "9223372036854775808" (expected an Int64)`},
		{"int64 fraction", tInt, `1.5`, ErrInvalidValue, "arg", `For input string: "1.5" (expected an Int64)`},
		{"numeric syntax", tNum(10), `"1,5"`, ErrInvalidValue, "arg", `Could not read Numeric string "1,5"`},
		{"numeric precision", tNum(10), `"` + strings.Repeat("1", 39) + `"`, ErrInvalidValue, "arg", `Could not read Numeric string "` + strings.Repeat("1", 39) + `"`},
		{"numeric scale", tNum(1), `"1.55"`, ErrTypeMismatch, "arg", "Cannot represent 1.55 as (Numeric 1) without loss of precision"},
		{"numeric bounds", tNum(10), `"` + strings.Repeat("9", 29) + `"`, ErrTypeMismatch, "arg", "Out-of-bounds (Numeric 10) " + strings.Repeat("9", 29) + ".0000000000"},
		{"party", tParty, `"alice@x"`, ErrInvalidValue, "arg", `non expected character 0x40 in Daml-LF Party "alice@x"`},
		{"contract id", tCon("Kinds"), strings.Replace(kindsJSON, cid, "zz", 1), ErrInvalidValue, "arg.c", `contract id "zz": 'z' is not a lower-case hex digit`},
		{"date", tDate, `"2026-13-01"`, ErrInvalidValue, "arg", `Text "2026-13-01" could not be parsed as a Date (yyyy-mm-dd)`},
		{"timestamp without offset", tTime, `"2026-07-24T11:59:01"`, ErrInvalidValue, "arg", `timestamp text "2026-07-24T11:59:01" could not be parsed (ISO-8601 with an offset, e.g. 2026-01-02T03:04:05.123456Z)`},
		{"list element", tList(tInt), `["1","x"]`, ErrInvalidValue, "arg[1]", `For input string: "x" (expected an Int64)`},
		{"text map value", bt(lf.BuiltinTextMap, tInt), `{"k":true}`, ErrInvalidValue, `arg["k"]`, "expected Int (a JSON string of decimal digits), found a JSON boolean"},
		{"gen map entry", bt(lf.BuiltinGenMap, tInt, tText), `[["1"]]`, ErrInvalidValue, "arg[0]", "expected an entry of Map Int Text as a JSON array [key, value], found fewer elements"},
		{"nested optional two elements", tOpt(tOpt(tInt)), `[[],[]]`, ErrInvalidValue, "arg", "expected Optional (Optional Int) as [] or a one-element array, found more elements"},
		{"malformed", tList(tInt), `["1",`, ErrMalformedJSON, "arg[1]", "malformed JSON: unexpected end of input"},
		{"trailing data", tInt, `"1" "2"`, ErrMalformedJSON, "arg", "unexpected data after the JSON value"},
		{"too deep", tCon("Tree"), strings.Repeat(`{"tag":"Node","value":{"label":"1","kids":[`, 40) + strings.Repeat(`]}}`, 40), ErrTooLarge, "", "Provided value exceeds maximum nesting level of 100"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := plan(t, testEnv(t), c.typ)
			_, err := p.DecodeJSON([]byte(c.in), DecodeOptions{Path: "arg"})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if e.Kind != c.kind || e.Message != c.msg || c.path != "" && e.Path != c.path {
				t.Errorf("got kind %d path %q message %q\nwant kind %d path %q message %q", e.Kind, e.Path, e.Message, c.kind, c.path, c.msg)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	p := plan(t, testEnv(t), tList(tInt))
	budget := 3
	_, err := p.DecodeJSON([]byte(`["1","2","3"]`), DecodeOptions{Budget: &budget})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrTooLarge {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func TestPlanErrors(t *testing.T) {
	env := testEnv(t)
	for _, typ := range []lf.Type{
		tCon("Missing"),
		lf.App(lf.TCon{Con: lf.TypeConName{Package: "other", Module: lf.DottedName{"M"}, Name: lf.DottedName{"T"}}}),
		lf.TVar{Name: "a"},
		bt(lf.BuiltinArrow, tInt, tInt),
		tCon("Box"),
	} {
		if _, err := env.Plan(typ); err == nil {
			t.Errorf("Plan(%s) succeeded", typ)
		}
	}
	// A failed compilation leaves nothing behind.
	if _, err := env.Plan(tCon("Kinds")); err != nil {
		t.Fatal(err)
	}
}

// TestProto converts a value to Canton's transaction protobuf and back:
// type ids and labels are filled in, trailing None fields left out.
func TestProto(t *testing.T) {
	env := testEnv(t)
	p := plan(t, env, tCon("Kinds"))
	in := strings.Replace(kindsJSON, `,"last":"end"`, "", 1)
	v, err := p.DecodeJSON([]byte(in), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pv, err := ToProto(v)
	if err != nil {
		t.Fatal(err)
	}
	r := pv.GetRecord()
	if len(r.GetFields()) != 19 || r.GetRecordId().GetEntityName() != "Kinds" || r.GetFields()[0].GetLabel() != "u" {
		t.Fatalf("proto record: %v", r)
	}
	if got := r.GetFields()[15].GetValue().GetVariant().GetVariantId().GetEntityName(); got != "Shape" {
		t.Errorf("variant id %q", got)
	}
	if got := r.GetFields()[16].GetValue().GetEnum().GetEnumId().GetEntityName(); got != "Color" {
		t.Errorf("enum id %q", got)
	}
	if got := r.GetFields()[3].GetValue().GetNumeric(); got != "1.5000000000" {
		t.Errorf("numeric %q", got)
	}
	back, err := p.FromProto(pv)
	if err != nil {
		t.Fatal(err)
	}
	if eq, err := value.Equal(v, back); err != nil || !eq {
		t.Errorf("FromProto(ToProto(v)) = %v, want %v", back, v)
	}
}
