package tx

import (
	"bufio"
	"encoding/hex"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/value"
)

// TestKeyHashCanton pins KeyHash to the golden file of Canton's
// SValueHashSpec ("key hasher ... be stable on all types of values",
// daml-lf/interpreter/src/test/resources/expected-stability-values-key-hashes.txt,
// copied to testdata/canton-key-hashes.txt): the hashes of a list of
// values as keys of template module:name of package "package-name-0".
func TestKeyHashCanton(t *testing.T) {
	f, err := os.Open("testdata/canton-key-hashes.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		lines = append(lines, sc.Text())
	}
	vals := stabilityValues()
	if len(lines) != 2*len(vals) {
		t.Fatalf("%d lines for %d values", len(lines), len(vals))
	}
	for i, v := range vals {
		h, err := KeyHash("package-name-0", "module", "name", v)
		if err != nil {
			t.Fatal(err)
		}
		if h.String() != lines[2*i+1] {
			t.Errorf("%s (Canton's %s): %s, want %s", v, lines[2*i], h, lines[2*i+1])
		}
	}
	if _, err := KeyHash("p", "M", "T", value.ContractID("00ab")); err != ErrContractIDInKey {
		t.Errorf("contract id in a key: %v", err)
	}
}

// stabilityValues are the values of Canton's SValueHashSpec, in order.
func stabilityValues() []value.Value {
	id := func(name string) *value.Identifier {
		return &value.Identifier{PackageID: "pkgId", ModuleName: "Mod", EntityName: name}
	}
	num := func(s string) value.Value {
		n, err := value.ParseNumeric(s)
		if err != nil {
			panic(err)
		}
		return n
	}
	ts := func(s string) value.Value {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return value.Timestamp(tm.UnixMicro())
	}
	day := func(s string) value.Value {
		tm, _ := time.Parse("2006-01-02", s)
		return value.Date(tm.Unix() / 86400)
	}
	b := func(x bool) value.Value { return value.Bool(x) }
	list := func(xs ...bool) value.Value {
		var out []value.Value
		for _, x := range xs {
			out = append(out, b(x))
		}
		return value.NewList(out...)
	}
	type kv struct {
		k string
		v bool
	}
	textMap := func(es ...kv) value.Value {
		var out []value.TextMapEntry
		for _, e := range es {
			out = append(out, value.TextMapEntry{Key: e.k, Value: b(e.v)})
		}
		m, _ := value.NewTextMap(out)
		return m
	}
	genMap := func(es ...kv) value.Value {
		var out []value.GenMapEntry
		for _, e := range es {
			out = append(out, value.GenMapEntry{Key: value.Text(e.k), Value: b(e.v)})
		}
		m, _ := value.NewGenMap(out)
		return m
	}
	rec := func(name string, fs ...value.Field) value.Value { return &value.Record{TypeCon: id(name), Fields: fs} }
	pair := func(x, y bool) []value.Field {
		return []value.Field{{Label: "_1", Value: b(x)}, {Label: "_2", Value: b(y)}}
	}
	return []value.Value{
		value.Unit{}, b(true), b(false),
		value.Int64(-1), value.Int64(0), value.Int64(1),
		num("-10000.0000000000"), num("0.0000000000"), num("10000.0000000000"),
		num("-10000."), num("0."), num("10000."),
		day("1970-01-01"), day("1969-07-21"), day("2019-12-16"),
		ts("1970-01-01T00:00:00Z"), ts("1969-07-21T02:56:15Z"), ts("2019-12-16T11:17:54.940779Z"),
		value.Text(""), value.Text("someText"), value.Text("a¶‱😂"),
		value.Party("alice"), value.Party("bob"),
		value.None, value.Some(b(false)), value.Some(b(true)), value.Some(value.None), value.Some(value.Some(b(false))),
		list(), list(false), list(true), list(false, false), list(false, true), list(true, false),
		textMap(), textMap(kv{"a", false}), textMap(kv{"a", true}), textMap(kv{"b", false}), textMap(kv{"a", false}, kv{"b", false}),
		textMap(kv{"a", true}, kv{"b", false}), textMap(kv{"a", false}, kv{"b", true}), textMap(kv{"a", false}, kv{"c", false}),
		genMap(), genMap(kv{"a", false}), genMap(kv{"a", true}), genMap(kv{"b", false}), genMap(kv{"a", false}, kv{"b", false}),
		genMap(kv{"a", true}, kv{"b", false}), genMap(kv{"a", false}, kv{"b", true}), genMap(kv{"a", false}, kv{"c", false}),
		&value.Enum{TypeCon: id("Color"), Constructor: "Red", Rank: 0}, &value.Enum{TypeCon: id("Color"), Constructor: "Green", Rank: 1},
		&value.Enum{TypeCon: id("ColorBis"), Constructor: "Green", Rank: 1},
		rec("Unit"), rec("UnitBis"),
		rec("Tuple", pair(false, false)...), rec("Tuple", pair(true, false)...), rec("Tuple", pair(false, true)...), rec("TupleBis", pair(false, false)...),
		&value.Variant{TypeCon: id("Either"), Constructor: "Left", Rank: 0, Value: b(false)},
		&value.Variant{TypeCon: id("Either"), Constructor: "Left", Rank: 0, Value: b(true)},
		&value.Variant{TypeCon: id("Either"), Constructor: "Right", Rank: 1, Value: b(false)},
		&value.Variant{TypeCon: id("EitherBis"), Constructor: "Left", Rank: 0, Value: b(false)},
	}
}

func TestJavaBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "00"}, {1, "01"}, {127, "7f"}, {128, "0080"}, {-1, "ff"}, {-128, "80"}, {-129, "ff7f"}, {255, "00ff"}, {-256, "ff00"}} {
		if got := hex.EncodeToString(JavaBytes(big.NewInt(c.n))); got != c.want {
			t.Errorf("%d: %s, want %s", c.n, got, c.want)
		}
	}
}
