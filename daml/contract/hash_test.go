package contract

import (
	"bufio"
	"crypto/sha256"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/value"
)

// readVectors reads a file of Canton's hash vectors: comment lines (#),
// then pairs of lines, a value as Canton prints it and its hash.
func readVectors(t *testing.T, path string) (names, hashes []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines []string
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines = append(lines, l)
	}
	if len(lines)%2 != 0 {
		t.Fatalf("%s: odd number of lines", path)
	}
	for i := 0; i < len(lines); i += 2 {
		names = append(names, lines[i])
		hashes = append(hashes, lines[i+1])
	}
	return names, hashes
}

func micros(t time.Time) value.Timestamp { return value.Timestamp(t.UnixMicro()) }
func days(y int, m time.Month, d int) value.Date {
	return value.Date(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func num(t *testing.T, s string) value.Numeric {
	n, err := value.ParseNumeric(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func textMap(t *testing.T, kv ...any) value.Value {
	var es []value.TextMapEntry
	for i := 0; i < len(kv); i += 2 {
		es = append(es, value.TextMapEntry{Key: kv[i].(string), Value: value.Bool(kv[i+1].(bool))})
	}
	m, err := value.NewTextMap(es)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func genMap(t *testing.T, kv ...any) value.Value {
	var es []value.GenMapEntry
	for i := 0; i < len(kv); i += 2 {
		es = append(es, value.GenMapEntry{Key: value.Text(kv[i].(string)), Value: value.Bool(kv[i+1].(bool))})
	}
	m, err := value.NewGenMap(es)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func bools(bs ...bool) value.Value {
	var vs []value.Value
	for _, b := range bs {
		vs = append(vs, value.Bool(b))
	}
	return value.NewList(vs...)
}

func modID(name string) *value.Identifier {
	return &value.Identifier{PackageID: "pkgId", ModuleName: "Mod", EntityName: name}
}

// scalarCases are the scalar values of Canton's stability tests, in order.
func scalarCases(t *testing.T) (units, bs, ints, num10, num0, dates, times, texts, parties []value.Value) {
	units = []value.Value{value.Unit{}}
	bs = []value.Value{value.Bool(true), value.Bool(false)}
	ints = []value.Value{value.Int64(-1), value.Int64(0), value.Int64(1)}
	num10 = []value.Value{num(t, "-10000.0000000000"), num(t, "0.0000000000"), num(t, "10000.0000000000")}
	num0 = []value.Value{num(t, "-10000."), num(t, "0."), num(t, "10000.")}
	dates = []value.Value{value.Date(0), days(1969, 7, 21), days(2019, 12, 16)}
	times = []value.Value{value.Timestamp(0),
		micros(time.Date(1969, 7, 21, 2, 56, 15, 0, time.UTC)),
		micros(time.Date(2019, 12, 16, 11, 17, 54, 940779000, time.UTC))}
	texts = []value.Value{value.Text(""), value.Text("someText"), value.Text("a¶‱😂")}
	parties = []value.Value{value.Party("alice"), value.Party("bob")}
	return
}

func compoundCases(t *testing.T) (optionals, lists, textMaps, genMaps, enums, records0, records2, variants []value.Value) {
	optionals = []value.Value{value.None, value.Some(value.Bool(false)), value.Some(value.Bool(true)),
		value.Some(value.None), value.Some(value.Some(value.Bool(false)))}
	lists = []value.Value{bools(), bools(false), bools(true), bools(false, false), bools(false, true), bools(true, false)}
	textMaps = []value.Value{textMap(t), textMap(t, "a", false), textMap(t, "a", true), textMap(t, "b", false),
		textMap(t, "a", false, "b", false), textMap(t, "a", true, "b", false), textMap(t, "a", false, "b", true), textMap(t, "a", false, "c", false)}
	genMaps = []value.Value{genMap(t), genMap(t, "a", false), genMap(t, "a", true), genMap(t, "b", false),
		genMap(t, "a", false, "b", false), genMap(t, "a", true, "b", false), genMap(t, "a", false, "b", true), genMap(t, "a", false, "c", false)}
	enums = []value.Value{&value.Enum{TypeCon: modID("Color"), Constructor: "Red", Rank: 0},
		&value.Enum{TypeCon: modID("Color"), Constructor: "Green", Rank: 1},
		&value.Enum{TypeCon: modID("ColorBis"), Constructor: "Green", Rank: 1}}
	records0 = []value.Value{&value.Record{TypeCon: modID("Unit")}, &value.Record{TypeCon: modID("UnitBis")}}
	tuple := func(name string, a, b bool) value.Value {
		return &value.Record{TypeCon: modID(name), Fields: []value.Field{{Label: "_1", Value: value.Bool(a)}, {Label: "_2", Value: value.Bool(b)}}}
	}
	records2 = []value.Value{tuple("Tuple", false, false), tuple("Tuple", true, false), tuple("Tuple", false, true), tuple("TupleBis", false, false)}
	either := func(name, ctor string, rank int, b bool) value.Value {
		return &value.Variant{TypeCon: modID(name), Constructor: ctor, Rank: rank, Value: value.Bool(b)}
	}
	variants = []value.Value{either("Either", "Left", 0, false), either("Either", "Left", 0, true),
		either("Either", "Right", 1, false), either("EitherBis", "Left", 0, false)}
	return
}

// hashSpecCases are HashSpec.stabilityTestCases, in order.
func hashSpecCases(t *testing.T) []value.Value {
	units, bs, ints, num10, num0, dates, times, texts, parties := scalarCases(t)
	optionals, lists, textMaps, genMaps, enums, records0, records2, variants := compoundCases(t)
	cids := []value.Value{
		value.ContractID("0007e7b5534931dfca8e1b485c105bae4e10808bd13ddc8e897f258015f9d921c5"),
		value.ContractID("0059b59ad7a6b6066e77b91ced54b8282f0e24e7089944685cb8f22f32fcbc4e1b"),
	}
	var out []value.Value
	for _, vs := range [][]value.Value{units, bs, ints, num10, num0, dates, times, texts, parties, cids,
		optionals, lists, textMaps, genMaps, enums, records0, records2, variants} {
		out = append(out, vs...)
	}
	return out
}

// TestHashSpecVectors runs Canton's value-hash stability vectors for the
// Legacy and UpgradeFriendly encodings (HashSpec.scala, "KeyHasher.addTypeValue"
// and "addTypeValue upgradable values", data in testdata/hashspec_*.txt):
// SHA-256(version ‖ purpose Testing 0x01 ‖ value), the value alone and as
// the only field of a record.
func TestHashSpecVectors(t *testing.T) {
	cases := hashSpecCases(t)
	for _, tc := range []struct {
		file     string
		method   Method
		inRecord bool
	}{
		{"testdata/hashspec_legacy.txt", Legacy, false},
		{"testdata/hashspec_upgrade_friendly.txt", UpgradeFriendly, false},
		{"testdata/hashspec_upgrade_friendly_in_record.txt", UpgradeFriendly, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			names, hashes := readVectors(t, tc.file)
			if len(names) != len(cases) {
				t.Fatalf("%d vectors, %d values", len(names), len(cases))
			}
			for i, v := range cases {
				if tc.inRecord {
					v = &value.Record{Fields: []value.Field{{Value: v}}}
				}
				var e hashEncoder
				var err error
				if tc.method == Legacy {
					e.buf = []byte{versionLegacy, 1}
					err = e.legacy(v, 0)
				} else {
					e.buf = []byte{versionUpgradeFriendly, 1}
					err = e.upgradeFriendly(v, 0)
				}
				if err != nil {
					t.Fatalf("%s: %v", names[i], err)
				}
				if got := Hash(sha256.Sum256(e.buf)).String(); got != hashes[i] {
					t.Errorf("%s (%v): hash %s, want %s", names[i], v, got, hashes[i])
				}
			}
		})
	}
}

// TestSValueHashVectors runs Canton's TypedNormalForm contract-hash
// vectors (SValueHashSpec, data in testdata/svaluehash_*.txt and the
// complex record's expected hash): HashTyped with package name
// "package-name-0" and template module:name.
func TestSValueHashVectors(t *testing.T) {
	units, bs, ints, num10, num0, dates, times, texts, parties := scalarCases(t)
	optionals, lists, textMaps, genMaps, enums, records0, records2, variants := compoundCases(t)
	var values []value.Value
	for _, vs := range [][]value.Value{units, bs, ints, num10, num0, dates, times, texts, parties,
		optionals, lists, textMaps, genMaps, enums, records0, records2, variants} {
		values = append(values, vs...)
	}
	cids := []value.Value{
		value.ContractID("0007e7b5534931dfca8e1b485c105bae4e10808bd13ddc8e897f258015f9d921c5"),
		value.ContractID("0059b59ad7a6b6066e77b91ced54b8282f0e24e7089944685cb8f22f32fcbc4e1b"),
	}
	for _, tc := range []struct {
		file   string
		values []value.Value
	}{
		{"testdata/svaluehash_values.txt", values},
		{"testdata/svaluehash_contract-id.txt", cids},
	} {
		names, hashes := readVectors(t, tc.file)
		if len(names) != len(tc.values) {
			t.Fatalf("%s: %d vectors, %d values", tc.file, len(names), len(tc.values))
		}
		for i, v := range tc.values {
			h, err := HashTyped("package-name-0", "module", "name", v)
			if err != nil {
				t.Fatalf("%s: %v", names[i], err)
			}
			if h.String() != hashes[i] {
				t.Errorf("%s: %s (%v): hash %s, want %s", tc.file, names[i], v, h, hashes[i])
			}
		}
	}

	// SValueHashSpec.complexRecord and expectedComplexRecordContractHash.
	ref := func(name string) *value.Identifier {
		return &value.Identifier{PackageID: "package", ModuleName: "Module", EntityName: name}
	}
	tm, _ := value.NewTextMap([]value.TextMapEntry{{Key: "keyA", Value: value.Int64(0)}, {Key: "keyB", Value: value.Int64(1)}})
	gm, _ := value.NewGenMap([]value.GenMapEntry{{Key: value.Text("keyA"), Value: value.Int64(0)}, {Key: value.Text("keyB"), Value: value.Int64(1)}})
	complex := &value.Record{TypeCon: ref("ComplexRecord"), Fields: []value.Field{
		{Label: "fInt0", Value: value.Int64(0)},
		{Label: "fInt1", Value: value.Int64(123456)},
		{Label: "fInt2", Value: value.Int64(-1)},
		{Label: "fNumeric0", Value: num(t, "0.0000000000")},
		{Label: "fNumeric1", Value: num(t, "0.3333333333")},
		{Label: "fBool0", Value: value.Bool(true)},
		{Label: "fBool1", Value: value.Bool(false)},
		{Label: "fDate0", Value: value.Date(0)},
		{Label: "fDate1", Value: value.Date(123456)},
		{Label: "fTime0", Value: value.Timestamp(0)},
		{Label: "fTime1", Value: value.Timestamp(123456)},
		{Label: "fText0", Value: value.Text("")},
		{Label: "fText1", Value: value.Text("abcd-äöü€")},
		{Label: "fParty", Value: value.Party("Alice")},
		{Label: "fUnit", Value: value.Unit{}},
		{Label: "fOpt0", Value: value.None},
		{Label: "fOpt1", Value: value.Some(value.Text("Some"))},
		{Label: "fList", Value: value.NewList(value.Text("A"), value.Text("B"), value.Text("C"))},
		{Label: "fVariant", Value: &value.Variant{TypeCon: ref("Variant"), Constructor: "VariantCons", Value: value.Int64(0)}},
		{Label: "fRecord", Value: &value.Record{TypeCon: ref("Record"), Fields: []value.Field{
			{Label: "field1", Value: value.Text("field1")}, {Label: "field2", Value: value.Text("field2")}}}},
		{Label: "fTextMap", Value: tm},
		{Label: "fGenMap", Value: gm},
	}}
	h, err := HashTyped("package-name-0", "Module", "Template", complex)
	if err != nil {
		t.Fatal(err)
	}
	if want := "f6bd0206e6114de43279d53641159d223e9c6f28c2c1bfe65e0bcb2e3a567979"; h.String() != want {
		t.Errorf("complex record: hash %s, want %s", h, want)
	}
}
