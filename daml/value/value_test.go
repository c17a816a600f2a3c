package value

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

func num(t testing.TB, s string) Numeric {
	t.Helper()
	n, err := ParseNumeric(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestNumericText(t *testing.T) {
	for _, c := range []struct{ in, str, unpadded string }{
		{"1.5000000000", "1.5000000000", "1.5"},
		{"3.", "3.", "3.0"},
		{"-0.05", "-0.05", "-0.05"},
		{"0.00", "0.00", "0.0"},
		{"100.", "100.", "100.0"},
		{"99999999999999999999999999999999999999.", "99999999999999999999999999999999999999.", "99999999999999999999999999999999999999.0"},
		{"0.9999999999999999999999999999999999999", "0.9999999999999999999999999999999999999", "0.9999999999999999999999999999999999999"},
		{"-12345678901234567890.12345", "-12345678901234567890.12345", "-12345678901234567890.12345"},
	} {
		n := num(t, c.in)
		if got := n.String(); got != c.str {
			t.Errorf("%s: String %q, want %q", c.in, got, c.str)
		}
		if got := n.Unpadded(); got != c.unpadded {
			t.Errorf("%s: Unpadded %q, want %q", c.in, got, c.unpadded)
		}
	}
	for _, bad := range []string{"1", ".5", "01.5", "1.5e3", "-", "1..", "999999999999999999999999999999999999999.", "0.00000000000000000000000000000000000000"} {
		if _, err := ParseNumeric(bad); err == nil {
			t.Errorf("ParseNumeric(%q) succeeded", bad)
		}
	}
}

func TestNumericArithmetic(t *testing.T) {
	type op func() (Numeric, error)
	for _, c := range []struct {
		name string
		op   op
		want string // "" means an error
	}{
		{"add", func() (Numeric, error) { return AddNumeric(num(t, "1.25"), num(t, "2.50")) }, "3.75"},
		{"add overflow", func() (Numeric, error) { return AddNumeric(MaxNumeric(0), num(t, "1.")) }, ""},
		{"add int64 carry", func() (Numeric, error) { return AddNumeric(num(t, "9223372036854775807."), num(t, "1.")) }, "9223372036854775808."},
		{"sub int64 borrow", func() (Numeric, error) { return SubNumeric(num(t, "-9223372036854775808."), num(t, "1.")) }, "-9223372036854775809."},
		{"sub underflow", func() (Numeric, error) {
			return SubNumeric(num(t, "-99999999999999999999999999999999999999."), num(t, "1."))
		}, ""},
		{"mul exact", func() (Numeric, error) { return MulNumeric(2, num(t, "1.5"), num(t, "0.5")) }, "0.75"},
		{"mul tie down to even", func() (Numeric, error) { return MulNumeric(1, num(t, "0.5"), num(t, "0.5")) }, "0.2"},
		{"mul tie up to even", func() (Numeric, error) { return MulNumeric(1, num(t, "0.5"), num(t, "0.7")) }, "0.4"},
		{"mul negative tie", func() (Numeric, error) { return MulNumeric(1, num(t, "-0.5"), num(t, "0.5")) }, "-0.2"},
		{"mul negative tie up", func() (Numeric, error) { return MulNumeric(1, num(t, "-0.5"), num(t, "0.7")) }, "-0.4"},
		{"mul above half", func() (Numeric, error) { return MulNumeric(0, num(t, "0.51"), num(t, "1.00")) }, "1."},
		{"mul widen", func() (Numeric, error) { return MulNumeric(4, num(t, "2."), num(t, "3.")) }, "6.0000"},
		{"mul overflow", func() (Numeric, error) { return MulNumeric(0, MaxNumeric(0), num(t, "2.")) }, ""},
		{"div third", func() (Numeric, error) { return DivNumeric(10, num(t, "1.0000000000"), num(t, "3.0000000000")) }, "0.3333333333"},
		{"div two thirds", func() (Numeric, error) { return DivNumeric(10, num(t, "2.0000000000"), num(t, "3.0000000000")) }, "0.6666666667"},
		{"div tie to even", func() (Numeric, error) { return DivNumeric(0, num(t, "5."), num(t, "2.")) }, "2."},
		{"div tie to even up", func() (Numeric, error) { return DivNumeric(0, num(t, "7."), num(t, "2.")) }, "4."},
		{"div negative tie", func() (Numeric, error) { return DivNumeric(0, num(t, "-5."), num(t, "2.")) }, "-2."},
		{"div scales", func() (Numeric, error) { return DivNumeric(2, num(t, "1.0"), num(t, "0.003")) }, "333.33"},
		{"div by zero", func() (Numeric, error) { return DivNumeric(2, num(t, "1.0"), num(t, "0.00")) }, ""},
		{"div overflow", func() (Numeric, error) { return DivNumeric(10, MaxNumeric(10), num(t, "0.1")) }, ""},
		{"round tie", func() (Numeric, error) { return RoundNumeric(0, num(t, "2.5")) }, "2.0"},
		{"round tie up", func() (Numeric, error) { return RoundNumeric(0, num(t, "3.5")) }, "4.0"},
		{"round negative digits", func() (Numeric, error) { return RoundNumeric(-1, num(t, "25.0")) }, "20.0"},
		{"round negative digits up", func() (Numeric, error) { return RoundNumeric(-1, num(t, "35.0")) }, "40.0"},
		{"round keep", func() (Numeric, error) { return RoundNumeric(2, num(t, "1.23")) }, "1.23"},
		{"round bad scale high", func() (Numeric, error) { return RoundNumeric(3, num(t, "1.23")) }, ""},
		{"round bad scale low", func() (Numeric, error) { return RoundNumeric(2-38, num(t, "1.23")) }, ""},
		{"round lowest scale", func() (Numeric, error) { return RoundNumeric(2-37, num(t, "1.23")) }, "0.00"},
		{"round overflow", func() (Numeric, error) { return RoundNumeric(-1, MaxNumeric(0)) }, ""},
		{"cast exact", func() (Numeric, error) { return CastNumeric(1, num(t, "1.50")) }, "1.5"},
		{"cast loses precision", func() (Numeric, error) { return CastNumeric(1, num(t, "1.55")) }, ""},
		{"cast widen", func() (Numeric, error) { return CastNumeric(37, num(t, "1.")) }, "1.0000000000000000000000000000000000000"},
		{"cast overflow", func() (Numeric, error) { return CastNumeric(37, num(t, "10.")) }, ""},
		{"shift", func() (Numeric, error) { return ShiftNumeric(2, num(t, "1.5")) }, "0.15"},
		{"shift left", func() (Numeric, error) { return ShiftNumeric(0, num(t, "1.5")) }, "15."},
		{"from int64", func() (Numeric, error) { return NumericFromInt64(10, -42) }, "-42.0000000000"},
		{"from int64 37", func() (Numeric, error) { return NumericFromInt64(37, 9) }, "9.0000000000000000000000000000000000000"},
		{"from int64 overflow", func() (Numeric, error) { return NumericFromInt64(37, 10) }, ""},
		{"from int64 bad scale", func() (Numeric, error) { return NumericFromInt64(38, 1) }, ""},
	} {
		got, err := c.op()
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s: got %s, want an error", c.name, got)
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && got.String() != c.want:
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func TestNumericToInt64(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1.9", 1, true}, {"-1.9", -1, true}, {"0.5", 0, true},
		{"9223372036854775807.9", 9223372036854775807, true},
		{"-9223372036854775808.", -9223372036854775808, true},
		{"9223372036854775808.", 0, false},
		{"-9223372036854775809.0", 0, false},
	} {
		got, err := num(t, c.in).Int64()
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%s: got %d, %v", c.in, got, err)
		}
	}
}

func TestTextToNumeric(t *testing.T) {
	for _, c := range []struct {
		scale int
		in    string
		want  string // "" for None
	}{
		{2, "+1.50", "1.50"},
		{2, "0001.500", "1.50"},
		{2, "1", "1.00"},
		{0, "-0", "0."},
		{0, "00", "0."},
		{2, "1.", ""},
		{2, ".5", ""},
		{2, "1.555", ""},
		{2, "1.550", "1.55"},
		{2, "abc", ""},
		{2, "", ""},
		{2, "+", ""},
		{2, "1e5", ""},
		{2, " 1", ""},
		{2, "١", ""}, // Arabic-Indic digit: \d is ASCII only
		{0, strings.Repeat("9", 38), strings.Repeat("9", 38) + "."},
		{0, strings.Repeat("9", 39), ""},
		{1, strings.Repeat("9", 38), ""},
		{37, "0." + strings.Repeat("0", 36) + "1", "0." + strings.Repeat("0", 36) + "1"},
		{37, "0." + strings.Repeat("0", 37) + "1", ""},
		{37, "1.0" + strings.Repeat("0", 100), "1." + strings.Repeat("0", 37)},
	} {
		got, ok := TextToNumeric(c.scale, c.in)
		switch {
		case c.want == "" && ok:
			t.Errorf("%d %q: got %s, want None", c.scale, c.in, got)
		case c.want != "" && !ok:
			t.Errorf("%d %q: got None, want %s", c.scale, c.in, c.want)
		case ok && got.String() != c.want:
			t.Errorf("%d %q: got %s, want %s", c.scale, c.in, got, c.want)
		}
	}
}

func TestNumericBig(t *testing.T) {
	u, _ := new(big.Int).SetString("-12345678901234567890123456789", 10)
	n, err := NewNumeric(u, 5)
	if err != nil {
		t.Fatal(err)
	}
	if n.String() != "-123456789012345678901234.56789" || n.Unscaled().Cmp(u) != 0 || n.Sign() != -1 {
		t.Errorf("got %s", n)
	}
	if _, err := NewNumeric(u, 38); err == nil {
		t.Error("scale 38 accepted")
	}
}

func TestTimeText(t *testing.T) {
	for _, c := range []struct {
		ts   Timestamp
		want string
	}{
		{0, "1970-01-01T00:00:00Z"},
		{100000, "1970-01-01T00:00:00.100Z"},
		{120000, "1970-01-01T00:00:00.120Z"},
		{123456, "1970-01-01T00:00:00.123456Z"},
		{1, "1970-01-01T00:00:00.000001Z"},
		{-1, "1969-12-31T23:59:59.999999Z"},
		{1754534109899822, "2025-08-07T02:35:09.899822Z"},
		{MinTimestamp, "0001-01-01T00:00:00Z"},
		{MaxTimestamp, "9999-12-31T23:59:59.999999Z"},
	} {
		if got := c.ts.String(); got != c.want {
			t.Errorf("%d: %s, want %s", c.ts, got, c.want)
		}
		back, err := ParseTimestamp(c.want)
		if err != nil || back != c.ts {
			t.Errorf("ParseTimestamp(%s) = %d, %v", c.want, back, err)
		}
	}
	for _, c := range []struct {
		d    Date
		want string
	}{{0, "1970-01-01"}, {-1, "1969-12-31"}, {MinDate, "0001-01-01"}, {MaxDate, "9999-12-31"}, {19000, "2022-01-08"}} {
		if got := c.d.String(); got != c.want {
			t.Errorf("%d: %s, want %s", c.d, got, c.want)
		}
		back, err := ParseDate(c.want)
		if err != nil || back != c.d {
			t.Errorf("ParseDate(%s) = %d, %v", c.want, back, err)
		}
	}
	if _, err := TimestampFromMicros(int64(MaxTimestamp) + 1); err == nil {
		t.Error("timestamp above the maximum accepted")
	}
	if _, err := DateFromDays(int64(MinDate) - 1); err == nil {
		t.Error("date below the minimum accepted")
	}
	if ts, err := ParseTimestamp("2020-01-01T00:00:00.0000019Z"); err != nil || ts.String() != "2020-01-01T00:00:00.000001Z" {
		t.Errorf("sub-microsecond digits: %s, %v", ts, err)
	}
}

// fn stands for an interpreter function value.
type fn struct{}

func (fn) Kind() Kind     { return KindFunction }
func (fn) String() string { return "<function>" }

var (
	cidA      = ContractID("00" + strings.Repeat("aa", 32))
	cidASfx   = ContractID("00" + strings.Repeat("aa", 32) + "ca0102")
	cidASfx2  = ContractID("00" + strings.Repeat("aa", 32) + "ca0103")
	cidB      = ContractID("00" + strings.Repeat("bb", 32))
	cidV2     = ContractID("01" + strings.Repeat("11", 12))
	cidV2Rel  = ContractID("01" + strings.Repeat("11", 12) + "05")
	cidV2Rel2 = ContractID("01" + strings.Repeat("11", 12) + "06")
	cidV2Abs  = ContractID("01" + strings.Repeat("11", 12) + "85")
	cidV2Abs2 = ContractID("01" + strings.Repeat("11", 12) + "86")
)

func TestCompare(t *testing.T) {
	tc := &Identifier{PackageID: "p", ModuleName: "M", EntityName: "T"}
	rec := func(vs ...Value) *Record {
		r := &Record{TypeCon: tc}
		for i, v := range vs {
			r.Fields = append(r.Fields, Field{Label: string(rune('a' + i)), Value: v})
		}
		return r
	}
	variant := func(rank int, v Value) *Variant { return &Variant{TypeCon: tc, Constructor: "C", Rank: rank, Value: v} }
	tm := func(kv ...string) *TextMap {
		var es []TextMapEntry
		for i := 0; i < len(kv); i += 2 {
			es = append(es, TextMapEntry{Key: kv[i], Value: Text(kv[i+1])})
		}
		m, err := NewTextMap(es)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	gm := func(kv ...int64) *GenMap {
		var es []GenMapEntry
		for i := 0; i < len(kv); i += 2 {
			es = append(es, GenMapEntry{Key: Int64(kv[i]), Value: Int64(kv[i+1])})
		}
		m, err := NewGenMap(es)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	list := func(vs ...int64) *List {
		var out []Value
		for _, v := range vs {
			out = append(out, Int64(v))
		}
		return NewList(out...)
	}
	for _, c := range []struct {
		name string
		a, b Value
		want int
	}{
		{"unit", Unit{}, Unit{}, 0},
		{"bool", Bool(false), Bool(true), -1},
		{"int", Int64(-5), Int64(3), -1},
		{"text by code point", Text("\uffff"), Text("\U00010000"), -1},
		{"text prefix", Text("ab"), Text("abc"), -1},
		{"party", Party("bob"), Party("alice"), 1},
		{"numeric", num(t, "1.50"), num(t, "1.49"), 1},
		{"timestamp", Timestamp(1), Timestamp(2), -1},
		{"date", Date(3), Date(3), 0},
		{"cid", cidA, cidB, -1},
		{"cid suffixes", cidASfx, cidASfx2, -1},
		{"cid v1 before v2", cidB, cidV2, -1},
		{"cid v2 absolute", cidV2Abs, cidV2Abs2, -1},
		{"list prefix", list(1, 2), list(1, 2, 3), -1},
		{"list element", list(1, 3), list(1, 2, 3), 1},
		{"list empty", list(), list(0), -1},
		{"list chunks", list(1, 2).Cons(Int64(0)), list(0, 1, 2), 0},
		{"none < some", None, Some(Int64(0)), -1},
		{"some", Some(Int64(2)), Some(Int64(1)), 1},
		{"record", rec(Int64(1), Text("b")), rec(Int64(1), Text("a")), 1},
		{"variant rank", variant(0, Int64(9)), variant(1, Int64(0)), -1},
		{"variant value", variant(1, Int64(1)), variant(1, Int64(0)), 1},
		{"enum", &Enum{TypeCon: tc, Constructor: "Red", Rank: 2}, &Enum{TypeCon: tc, Constructor: "Blue", Rank: 0}, 1},
		{"text map", tm("a", "x", "b", "y"), tm("a", "x", "c", "y"), -1},
		{"text map size", tm("a", "x"), tm("a", "x", "b", "y"), -1},
		{"gen map", gm(1, 2), gm(1, 3), -1},
		{"gen map key", gm(2, 0), gm(1, 9), 1},
		{"struct", &Struct{Fields: []Field{{"x", Int64(1)}}}, &Struct{Fields: []Field{{"x", Int64(0)}}}, 1},
		{"any by type", &Any{Type: lf.TBuiltin{Builtin: lf.BuiltinText}, Value: Text("a")}, &Any{Type: lf.TBuiltin{Builtin: lf.BuiltinDate}, Value: Date(0)}, 1},
		{"any by value", &Any{Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}, Value: Int64(1)}, &Any{Type: lf.TBuiltin{Builtin: lf.BuiltinInt64}, Value: Int64(2)}, -1},
		{"type rep", TypeRep{Type: lf.TBuiltin{Builtin: lf.BuiltinTextMap}}, TypeRep{Type: lf.TBuiltin{Builtin: lf.BuiltinUpdate}}, 1},
		{"type rep con", TypeRep{Type: lf.TCon{Con: lf.TypeConName{Package: "p", Module: lf.DottedName{"A"}, Name: lf.DottedName{"B", "C"}}}},
			TypeRep{Type: lf.TCon{Con: lf.TypeConName{Package: "p", Module: lf.DottedName{"A"}, Name: lf.DottedName{"B$x"}}}}, -1},
	} {
		got, err := Compare(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("%s: Compare = %d, %v; want %d", c.name, got, err, c.want)
		}
		back, err := Compare(c.b, c.a)
		if err != nil || back != -c.want {
			t.Errorf("%s: reversed Compare = %d, %v; want %d", c.name, back, err, -c.want)
		}
		eq, err := Equal(c.a, c.b)
		if err != nil || eq != (c.want == 0) {
			t.Errorf("%s: Equal = %v, %v", c.name, eq, err)
		}
	}
}

func TestComparability(t *testing.T) {
	for _, c := range []struct {
		name   string
		a, b   ContractID
		global ContractID // "" when no error
		eq     bool
	}{
		{"local vs suffixed", cidA, cidASfx, cidASfx, false},
		{"suffixed vs local", cidASfx, cidA, cidASfx, false},
		{"same local", cidA, cidA, "", true},
		{"different prefixes", cidA, cidB, "", false},
		{"v2 relative suffixes", cidV2Rel, cidV2Rel2, cidV2Rel, false},
		{"v2 local vs absolute", cidV2, cidV2Abs, cidV2Abs, false},
		{"v2 absolute", cidV2Abs, cidV2Abs2, "", false},
	} {
		_, err := Compare(c.a, c.b)
		eq, eqErr := Equal(c.a, c.b)
		if c.global == "" {
			if err != nil || eqErr != nil || eq != c.eq {
				t.Errorf("%s: %v, %v, %v", c.name, err, eqErr, eq)
			}
			continue
		}
		var ce *ComparabilityError
		if !errors.As(err, &ce) || ce.Global != c.global {
			t.Errorf("%s: Compare error %v, want global %s", c.name, err, c.global)
		}
		if !errors.As(eqErr, &ce) || ce.Global != c.global {
			t.Errorf("%s: Equal error %v, want global %s", c.name, eqErr, c.global)
		}
	}
	// The rule applies inside structures too, and as GenMap keys.
	if _, err := Equal(NewList(cidA), NewList(cidASfx)); err == nil {
		t.Error("no comparability error inside a list")
	}
	if _, err := NewGenMap([]GenMapEntry{{cidA, Unit{}}, {cidASfx, Unit{}}}); err == nil {
		t.Error("no comparability error between GenMap keys")
	}
}

func TestNotComparable(t *testing.T) {
	if _, err := Equal(fn{}, fn{}); !errors.Is(err, ErrNotComparable) {
		t.Errorf("Equal of functions: %v", err)
	}
	if _, err := Compare(NewList(Some(fn{})), NewList(Some(fn{}))); !errors.Is(err, ErrNotComparable) {
		t.Errorf("Compare of nested functions: %v", err)
	}
	var m *GenMap
	if _, err := m.Insert(NewList(fn{}), Unit{}); !errors.Is(err, ErrNotComparable) {
		t.Errorf("GenMap key holding a function: %v", err)
	}
	// Kinds that differ are a bug of the caller, not a Daml error.
	if _, err := Compare(Int64(1), Text("1")); err == nil || errors.Is(err, ErrNotComparable) {
		t.Errorf("Compare Int64 and Text: %v", err)
	}
}

// TestDeepValues compares values nested far deeper than Go's default stack
// would allow with recursion of a few hundred bytes per level.
func TestDeepValues(t *testing.T) {
	deep := func(n int, leaf int64) Value {
		var v Value = Int64(leaf)
		for i := 0; i < n; i++ {
			v = Some(v)
		}
		return v
	}
	a, b := deep(200_000, 1), deep(200_000, 1)
	if eq, err := Equal(a, b); err != nil || !eq {
		t.Fatalf("Equal: %v, %v", eq, err)
	}
	if c, err := Compare(a, deep(200_000, 0)); err != nil || c != 1 {
		t.Fatalf("Compare: %d, %v", c, err)
	}
}

func TestMaps(t *testing.T) {
	var m *TextMap
	m = m.Insert("b", Int64(2)).Insert("a", Int64(1)).Insert("c", Int64(3)).Insert("b", Int64(20))
	if m.Len() != 3 || m.Entries()[0].Key != "a" || m.Entries()[1].Value != Int64(20) {
		t.Fatalf("text map %s", m)
	}
	if v, ok := m.Lookup("c"); !ok || v != Int64(3) {
		t.Errorf("lookup c: %v %v", v, ok)
	}
	if m.Delete("b").Len() != 2 || m.Delete("zz") != m || m.Len() != 3 {
		t.Error("delete")
	}
	if _, err := NewTextMap([]TextMapEntry{{"a", Unit{}}, {"a", Unit{}}}); err == nil {
		t.Error("duplicate text map key accepted")
	}
	var g *GenMap
	for _, k := range []int64{5, 1, 3, 1} {
		var err error
		if g, err = g.Insert(Int64(k), Int64(k*10)); err != nil {
			t.Fatal(err)
		}
	}
	if g.Len() != 3 || g.Entries()[0].Key != Int64(1) || g.Entries()[2].Key != Int64(5) {
		t.Fatalf("gen map %s", g)
	}
	if v, ok, err := g.Lookup(Int64(3)); err != nil || !ok || v != Int64(30) {
		t.Errorf("lookup 3: %v %v %v", v, ok, err)
	}
	if d, err := g.Delete(Int64(3)); err != nil || d.Len() != 2 {
		t.Errorf("delete 3: %v %v", d, err)
	}
	if _, err := NewGenMap([]GenMapEntry{{Int64(1), Unit{}}, {Int64(1), Unit{}}}); err == nil {
		t.Error("duplicate gen map key accepted")
	}
}

func TestList(t *testing.T) {
	l := NewList(Int64(2), Int64(3)).Cons(Int64(1)).Prepend([]Value{Int64(-1), Int64(0)})
	if l.Len() != 5 || l.String() != "[-1, 0, 1, 2, 3]" {
		t.Fatalf("list %s (len %d)", l, l.Len())
	}
	var got []Value
	for c := l; ; {
		h, tail, ok := c.Uncons()
		if !ok {
			break
		}
		got = append(got, h)
		c = tail
	}
	if len(got) != 5 || got[4] != Int64(3) {
		t.Errorf("uncons walk %v", got)
	}
	var empty *List
	if empty.Len() != 0 || empty.String() != "[]" || len(empty.Slice()) != 0 {
		t.Error("nil list")
	}
}

func TestStrings(t *testing.T) {
	tc := &Identifier{PackageID: "de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54", ModuleName: "Canton.Internal.Ping", EntityName: "Ping"}
	r := &Record{TypeCon: tc, Fields: []Field{{"id", Text("x")}, {"initiator", Party("alice")}, {"n", Optional{}}}}
	if got, want := r.String(), `Canton.Internal.Ping:Ping@de2cc2f9{ id = "x", initiator = 'alice', n = None }`; got != want {
		t.Errorf("record: %s, want %s", got, want)
	}
	if !ValidParty("alice::1220abc") || ValidParty("") || ValidParty("a/b") || ValidParty(strings.Repeat("a", 256)) {
		t.Error("ValidParty")
	}
	if _, err := ParseContractID(string(cidASfx)); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"00", "02" + strings.Repeat("00", 32), "00" + strings.Repeat("AA", 32), "0" + strings.Repeat("a", 64)} {
		if _, err := ParseContractID(bad); err == nil {
			t.Errorf("ParseContractID(%q) accepted", bad)
		}
	}
}
