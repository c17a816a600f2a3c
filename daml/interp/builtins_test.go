package interp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

func callBuiltin(t *testing.T, f lf.BuiltinFunction, args ...value.Value) (value.Value, error) {
	t.Helper()
	return callBuiltinLimits(t, Limits{}, f, args...)
}

func callBuiltinLimits(t *testing.T, l Limits, f lf.BuiltinFunction, args ...value.Value) (value.Value, error) {
	t.Helper()
	consts := make([]resolve.Expr, len(args))
	for i, a := range args {
		consts[i] = &resolve.Const{Value: a}
	}
	lamb := &resolve.Lambda{Def: "builtin test", Body: &resolve.Call{Op: &resolve.Builtin{Fn: f}, Args: consts}}
	v, _, err := testEngine.EvalLambda(context.Background(), lamb, l)
	return v, err
}

// fnValue evaluates an expression to a function value.
func fnValue(t *testing.T, e lf.Expr) value.Value {
	t.Helper()
	f, err := eval(t, e)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func n(t *testing.T, s string) value.Numeric {
	t.Helper()
	x, err := value.ParseNumeric(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func ints(xs ...int64) *value.List {
	var out []value.Value
	for _, x := range xs {
		out = append(out, value.Int64(x))
	}
	return value.NewList(out...)
}

func texts(xs ...string) *value.List {
	var out []value.Value
	for _, x := range xs {
		out = append(out, value.Text(x))
	}
	return value.NewList(out...)
}

type builtinCase struct {
	name string
	args []value.Value
	want string // the result's String, or for errors "ERROR_ID: cause"
}

func arith(expr string) string {
	return "DAML_FAILURE: Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.ArithmeticError:ArithmeticError (error category 9): ArithmeticError while evaluating (" + expr + ")."
}

// builtinCases pins every stable builtin, edge cases first.
func builtinCases(t *testing.T) map[lf.BuiltinFunction][]builtinCase {
	const (
		maxI = math.MaxInt64
		minI = math.MinInt64
	)
	cidL := value.ContractID("00" + strings.Repeat("ab", 32))
	cidS := value.ContractID("00" + strings.Repeat("ab", 32) + "ca01")
	fn := fnValue(t, lam([]string{"x"}, v("x")))
	tm := func(kv ...string) *value.TextMap {
		var m *value.TextMap
		for i := 0; i < len(kv); i += 2 {
			m = m.Insert(kv[i], value.Text(kv[i+1]))
		}
		return m
	}
	gm := func(kv ...value.Value) *value.GenMap {
		var m *value.GenMap
		for i := 0; i < len(kv); i += 2 {
			var err error
			if m, err = m.Insert(kv[i], kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	I, T, P := func(i int64) value.Value { return value.Int64(i) }, func(s string) value.Value { return value.Text(s) },
		func(s string) value.Value { return value.Party(s) }
	N := func(s string) value.Value { return n(t, s) }
	sub := fnValue(t, bi(lf.BuiltinSubInt64))
	eq := fnValue(t, bi(lf.BuiltinEqual))
	return map[lf.BuiltinFunction][]builtinCase{
		lf.BuiltinTrace: {{"returns its second argument", []value.Value{T("msg"), I(5)}, "5"}},
		lf.BuiltinError: {{"user abort", []value.Value{T("nope")}, "INTERPRETATION_USER_ERROR: Interpretation error: Error: User abort: nope"}},
		lf.BuiltinFailWithStatus: {{"failure status", []value.Value{T("MY_ERROR"), I(8), T("it failed"), tm("k", "v")},
			"DAML_FAILURE: Interpretation error: Error: User failure: MY_ERROR (error category 8): it failed"}},
		lf.BuiltinAnyExceptionMessage: {{"arithmetic error", []value.Value{&value.Any{Type: arithmeticErrorType,
			Value: &value.Record{TypeCon: arithmeticErrorID, Fields: []value.Field{{Label: "message", Value: T("m")}}}}}, `"m"`}},

		lf.BuiltinEqual: {
			{"ints", []value.Value{I(1), I(1)}, "true"},
			{"lists", []value.Value{ints(1, 2), ints(1)}, "false"},
			{"functions", []value.Value{fn, fn}, "NON_COMPARABLE_VALUES: Interpretation error: Error: functions are not comparable"},
			{"local and suffixed contract ids", []value.Value{cidL, cidS}, "CONTRACT_ID_COMPARABILITY: Interpretation error: Error: The global contract ID " + string(cidS) + " conflicts with a local contract ID"},
		},
		lf.BuiltinLessEq: {
			{"equal", []value.Value{T("a"), T("a")}, "true"},
			{"text by code point", []value.Value{T("\uffff"), T("\U00010000")}, "true"},
			{"none before some", []value.Value{value.Some(I(0)), value.None}, "false"},
		},
		lf.BuiltinLess: {
			{"equal", []value.Value{I(1), I(1)}, "false"},
			{"list prefix", []value.Value{ints(1), ints(1, 0)}, "true"},
			{"functions", []value.Value{value.NewList(fn), value.NewList(fn)}, "NON_COMPARABLE_VALUES: Interpretation error: Error: functions are not comparable"},
		},
		lf.BuiltinGreaterEq: {{"dates", []value.Value{value.Date(1), value.Date(0)}, "true"}},
		lf.BuiltinGreater: {
			{"parties", []value.Value{P("b"), P("a")}, "true"},
			{"numerics", []value.Value{N("1.0"), N("1.1")}, "false"},
		},
		lf.BuiltinEqualList: {
			{"equal", []value.Value{eq, ints(1, 2), ints(1, 2)}, "true"},
			{"lengths differ", []value.Value{eq, ints(1), ints(1, 2)}, "false"},
			{"element differs", []value.Value{eq, ints(1, 3), ints(1, 2)}, "false"},
			{"empty", []value.Value{eq, ints(), ints()}, "true"},
		},

		lf.BuiltinAddInt64: {
			{"add", []value.Value{I(2), I(-5)}, "-3"},
			{"overflow", []value.Value{I(maxI), I(1)}, arith("ADD_INT64 9223372036854775807 1")},
			{"underflow", []value.Value{I(minI), I(-1)}, arith("ADD_INT64 -9223372036854775808 -1")},
		},
		lf.BuiltinSubInt64: {
			{"sub", []value.Value{I(2), I(5)}, "-3"},
			{"overflow", []value.Value{I(minI), I(1)}, arith("SUB_INT64 -9223372036854775808 1")},
			{"overflow negating", []value.Value{I(0), I(minI)}, arith("SUB_INT64 0 -9223372036854775808")},
		},
		lf.BuiltinMulInt64: {
			{"mul", []value.Value{I(-4), I(5)}, "-20"},
			{"overflow", []value.Value{I(1 << 32), I(1 << 31)}, arith("MUL_INT64 4294967296 2147483648")},
			{"min times -1", []value.Value{I(minI), I(-1)}, arith("MUL_INT64 -9223372036854775808 -1")},
			{"min times 1", []value.Value{I(minI), I(1)}, "-9223372036854775808"},
		},
		lf.BuiltinDivInt64: {
			{"rounds toward zero", []value.Value{I(-7), I(2)}, "-3"},
			{"by zero", []value.Value{I(1), I(0)}, arith("DIV_INT64 1 0")},
			{"min by -1", []value.Value{I(minI), I(-1)}, arith("DIV_INT64 -9223372036854775808 -1")},
		},
		lf.BuiltinModInt64: {
			{"sign of the dividend", []value.Value{I(-7), I(2)}, "-1"},
			{"negative divisor", []value.Value{I(7), I(-2)}, "1"},
			{"by zero", []value.Value{I(7), I(0)}, arith("MOD_INT64 7 0")},
			{"min mod -1", []value.Value{I(minI), I(-1)}, "0"},
		},
		lf.BuiltinExpInt64: {
			{"power", []value.Value{I(3), I(4)}, "81"},
			{"zero exponent", []value.Value{I(0), I(0)}, "1"},
			{"2^62", []value.Value{I(2), I(62)}, "4611686018427387904"},
			{"2^63 overflows", []value.Value{I(2), I(63)}, arith("EXP_INT64 2 63")},
			{"(-2)^63 is the minimum", []value.Value{I(-2), I(63)}, "-9223372036854775808"},
			{"negative exponent", []value.Value{I(2), I(-1)}, arith("EXP_INT64 2 -1")},
		},

		lf.BuiltinAddNumeric: {
			{"add", []value.Value{N("1.25"), N("2.50")}, "3.75"},
			{"overflow", []value.Value{value.MaxNumeric(10), N("0.0000000001")}, arith("ADD_NUMERIC 9999999999999999999999999999.9999999999 0.0000000001")},
		},
		lf.BuiltinSubNumeric: {{"sub", []value.Value{N("1.00"), N("2.50")}, "-1.50"}},
		lf.BuiltinMulNumeric: {
			{"half even down", []value.Value{N("0.0"), N("0.5"), N("0.5")}, "0.2"},
			{"half even up", []value.Value{N("0.0"), N("0.5"), N("0.7")}, "0.4"},
			{"overflow", []value.Value{N("0."), value.MaxNumeric(0), N("2.")}, arith("MUL_NUMERIC 0.0 99999999999999999999999999999999999999.0 2.0")},
		},
		lf.BuiltinDivNumeric: {
			{"thirds", []value.Value{N("0.0000000000"), N("2.0000000000"), N("3.0000000000")}, "0.6666666667"},
			{"tie to even", []value.Value{N("0."), N("5."), N("2.")}, "2."},
			{"by zero", []value.Value{N("0.0"), N("1.0"), N("0.0")}, arith("DIV_NUMERIC 0.0 1.0 0.0")},
		},
		lf.BuiltinRoundNumeric: {
			{"tie to even", []value.Value{I(0), N("2.5")}, "2.0"},
			{"negative digits", []value.Value{I(-1), N("35.0")}, "40.0"},
			{"bad scale", []value.Value{I(2), N("1.0")}, arith("ROUND_NUMERIC 2 1.0")},
		},
		lf.BuiltinCastNumeric: {
			{"widen", []value.Value{N("0.000"), N("1.5")}, "1.500"},
			{"precision loss", []value.Value{N("0.0"), N("1.55")}, arith("CAST_NUMERIC 0.0 1.55")},
		},
		lf.BuiltinShiftNumeric: {{"shift", []value.Value{N("0.00"), N("1.5")}, "0.15"}},
		lf.BuiltinInt64ToNumeric: {
			{"convert", []value.Value{N("0.00"), I(-3)}, "-3.00"},
			{"overflow", []value.Value{value.MaxNumeric(37), I(10)}, arith("INT64_TO_NUMERIC 9.9999999999999999999999999999999999999 10")},
		},
		lf.BuiltinNumericToInt64: {
			{"truncate", []value.Value{N("-1.9")}, "-1"},
			{"overflow", []value.Value{N("9223372036854775808.")}, arith("NUMERIC_TO_INT64 9223372036854775808.0")},
		},
		lf.BuiltinNumericToText: {
			{"trailing zeros dropped", []value.Value{N("1.5000000000")}, `"1.5"`},
			{"integer", []value.Value{N("100.")}, `"100.0"`},
		},
		lf.BuiltinTextToNumeric: {
			{"pads", []value.Value{N("0.00"), T("1.5")}, "Option(1.50)"},
			{"too precise", []value.Value{N("0.00"), T("1.555")}, "None"},
			{"not a number", []value.Value{N("0.00"), T("1e2")}, "None"},
		},

		lf.BuiltinInt64ToText: {{"negative", []value.Value{I(-42)}, `"-42"`}},
		lf.BuiltinTimestampToText: {
			{"micros", []value.Value{value.Timestamp(123456)}, `"1970-01-01T00:00:00.123456Z"`},
			{"millis", []value.Value{value.Timestamp(120000)}, `"1970-01-01T00:00:00.120Z"`},
			{"minimum", []value.Value{value.MinTimestamp}, `"0001-01-01T00:00:00Z"`},
		},
		lf.BuiltinDateToText:       {{"maximum", []value.Value{value.MaxDate}, `"9999-12-31"`}},
		lf.BuiltinPartyToText:      {{"party", []value.Value{P("alice::1220")}, `"alice::1220"`}},
		lf.BuiltinContractIDToText: {{"pure evaluation shows the id", []value.Value{cidL}, `Option("` + string(cidL) + `")`}},
		lf.BuiltinTextToParty: {
			{"valid", []value.Value{T("alice::1220")}, "Option('alice::1220')"},
			{"invalid character", []value.Value{T("alice/1")}, "None"},
			{"empty", []value.Value{T("")}, "None"},
			{"too long", []value.Value{T(strings.Repeat("a", 256))}, "None"},
		},
		lf.BuiltinTextToInt64: {
			{"plus sign", []value.Value{T("+12")}, "Option(12)"},
			{"minus zero", []value.Value{T("-0")}, "Option(0)"},
			{"leading zeros", []value.Value{T("007")}, "Option(7)"},
			{"maximum", []value.Value{T("9223372036854775807")}, "Option(9223372036854775807)"},
			{"overflow", []value.Value{T("9223372036854775808")}, "None"},
			{"decimal", []value.Value{T("1.0")}, "None"},
			{"empty", []value.Value{T("")}, "None"},
			{"sign only", []value.Value{T("-")}, "None"},
			{"non-ASCII digit", []value.Value{T("٣")}, "None"},
			{"space", []value.Value{T(" 1")}, "None"},
		},
		lf.BuiltinCodePointsToText: {
			{"astral", []value.Value{ints(72, 0x1F600)}, `"H😀"`},
			{"nul", []value.Value{ints(0)}, "\"\x00\""},
			{"surrogate", []value.Value{ints(0xD800)}, "LEDGER_API_INTERNAL_ERROR: invalid code point 0xd800."},
			{"too large", []value.Value{ints(0x110000)}, "LEDGER_API_INTERNAL_ERROR: invalid code point 0x110000."},
			{"negative", []value.Value{ints(-1)}, "LEDGER_API_INTERNAL_ERROR: invalid code point 0xffffffffffffffff."},
		},
		lf.BuiltinTextToCodePoints: {{"astral", []value.Value{T("a😀")}, "[97, 128512]"}},
		lf.BuiltinAppendText:       {{"append", []value.Value{T("ab"), T("c")}, `"abc"`}},
		lf.BuiltinExplodeText:      {{"code points", []value.Value{T("a😀é")}, `["a", "😀", "é"]`}, {"empty", []value.Value{T("")}, "[]"}},
		lf.BuiltinImplodeText:      {{"implode", []value.Value{texts("a", "😀", "")}, `"a😀"`}},
		lf.BuiltinSHA256Text: {
			{"empty", []value.Value{T("")}, `"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"`},
			{"utf-8", []value.Value{T("é")}, `"4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"`},
		},
		lf.BuiltinSHA256Hex: {
			{"bytes", []value.Value{T("00ff")}, `"06eb7d6a69ee19e5fbdf749018d3d2abfa04bcbd1365db312eb86dc7169389b8"`},
			{"malformed", []value.Value{T("0G")}, "INTERPRETATION_CRYPTO_ERROR_MALFORMED_BYTE_ENCODING: Interpretation error: Error: Invalid byte encoding format for 0G :\ncan not parse hex string"},
		},
		lf.BuiltinKeccak256Text: {
			{"empty", []value.Value{T("")}, `"c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"`},
			{"odd length", []value.Value{T("abc")}, "INTERPRETATION_CRYPTO_ERROR_MALFORMED_BYTE_ENCODING: Interpretation error: Error: Invalid byte encoding format for abc :\ncan not parse hex string"},
		},
		lf.BuiltinHexToText: {
			{"ascii", []value.Value{T("616263")}, `"abc"`},
			{"invalid utf-8 becomes U+FFFD", []value.Value{T("61ff62e282")}, `"a` + "\uFFFD" + `b` + "\uFFFD" + `"`},
			{"upper case refused", []value.Value{T("4A")}, "INTERPRETATION_CRYPTO_ERROR_MALFORMED_BYTE_ENCODING: Interpretation error: Error: Invalid byte encoding format for 4A :\ncan not parse hex string argument"},
		},
		lf.BuiltinTextToHex: {{"utf-8 bytes", []value.Value{T("é")}, `"c3a9"`}},

		lf.BuiltinDateToUnixDays: {{"days", []value.Value{value.Date(-1)}, "-1"}},
		lf.BuiltinUnixDaysToDate: {
			{"minimum", []value.Value{I(int64(value.MinDate))}, "0001-01-01"},
			{"below the minimum", []value.Value{I(int64(value.MinDate) - 1)}, arith("UNIX_DAYS_TO_DATE -719163")},
			{"above the maximum", []value.Value{I(int64(value.MaxDate) + 1)}, arith("UNIX_DAYS_TO_DATE 2932897")},
		},
		lf.BuiltinTimestampToUnixMicroseconds: {{"micros", []value.Value{value.Timestamp(-5)}, "-5"}},
		lf.BuiltinUnixMicrosecondsToTimestamp: {
			{"maximum", []value.Value{I(int64(value.MaxTimestamp))}, "9999-12-31T23:59:59.999999Z"},
			{"above the maximum", []value.Value{I(int64(value.MaxTimestamp) + 1)}, arith("UNIX_MICROSECONDS_TO_TIMESTAMP 253402300800000000")},
		},
		lf.BuiltinCoerceContractID: {{"identity", []value.Value{cidL}, string(cidL)}},

		lf.BuiltinFoldl: {{"from the left", []value.Value{sub, I(10), ints(1, 2, 3)}, "4"}, {"empty", []value.Value{sub, I(10), ints()}, "10"}},
		lf.BuiltinFoldr: {{"from the right", []value.Value{sub, I(0), ints(1, 2, 3)}, "2"}, {"empty", []value.Value{sub, I(7), ints()}, "7"}},

		lf.BuiltinTextMapEmpty:  {},
		lf.BuiltinTextMapInsert: {{"keeps keys sorted", []value.Value{T("a"), T("1"), tm("b", "2")}, `TextMap(a -> "1", b -> "2")`}, {"replaces", []value.Value{T("b"), T("3"), tm("b", "2")}, `TextMap(b -> "3")`}},
		lf.BuiltinTextMapLookup: {{"present", []value.Value{T("b"), tm("b", "2")}, `Option("2")`}, {"absent", []value.Value{T("c"), tm("b", "2")}, "None"}},
		lf.BuiltinTextMapDelete: {{"present", []value.Value{T("b"), tm("a", "1", "b", "2")}, `TextMap(a -> "1")`}, {"absent", []value.Value{T("z"), tm("a", "1")}, `TextMap(a -> "1")`}},
		lf.BuiltinTextMapToList: {{"entries", []value.Value{tm("b", "2", "a", "1")}, `[struct{ key = "a", value = "1" }, struct{ key = "b", value = "2" }]`}},
		lf.BuiltinTextMapSize:   {{"size", []value.Value{tm("b", "2", "a", "1")}, "2"}},

		lf.BuiltinGenMapEmpty: {},
		lf.BuiltinGenMapInsert: {
			{"in Daml order", []value.Value{ints(1), T("x"), gm(ints(0, 5), T("y"), ints(2), T("z"))}, `GenMap([0, 5] -> "y", [1] -> "x", [2] -> "z")`},
			{"function key", []value.Value{fn, T("x"), gm()}, "NON_COMPARABLE_VALUES: Interpretation error: Error: functions are not comparable"},
			{"incomparable contract ids", []value.Value{cidS, T("x"), gm(cidL, T("y"))}, "CONTRACT_ID_COMPARABILITY: Interpretation error: Error: The global contract ID " + string(cidS) + " conflicts with a local contract ID"},
		},
		lf.BuiltinGenMapLookup: {{"present", []value.Value{I(2), gm(I(1), T("a"), I(2), T("b"))}, `Option("b")`}, {"absent", []value.Value{I(3), gm(I(1), T("a"))}, "None"}},
		lf.BuiltinGenMapDelete: {{"present", []value.Value{I(1), gm(I(1), T("a"), I(2), T("b"))}, `GenMap(2 -> "b")`}},
		lf.BuiltinGenMapKeys:   {{"sorted", []value.Value{gm(I(2), T("b"), I(1), T("a"))}, "[1, 2]"}},
		lf.BuiltinGenMapValues: {{"by key", []value.Value{gm(I(2), T("b"), I(1), T("a"))}, `["a", "b"]`}},
		lf.BuiltinGenMapSize:   {{"size", []value.Value{gm(I(2), T("b"), I(1), T("a"))}, "2"}},

		// RFC 6979's signature of "Satoshi Nakamoto" (SHA-256) by the key 1,
		// whose public key is the generator, in an X.509 SubjectPublicKeyInfo.
		lf.BuiltinSecp256k1Bool: {
			{"valid", []value.Value{T(satoshiSig), T(hex.EncodeToString([]byte("Satoshi Nakamoto"))), T(spkiOfG)}, "true"},
			{"another message", []value.Value{T(satoshiSig), T(hex.EncodeToString([]byte("Satoshi Nakamoto!"))), T(spkiOfG)}, "false"},
			{"message not hex", []value.Value{T(satoshiSig), T("zz"), T(spkiOfG)},
				"INTERPRETATION_CRYPTO_ERROR_MALFORMED_BYTE_ENCODING: Interpretation error: Error: Invalid byte encoding format for zz :\ncan not parse message hex string"},
			{"signature not DER", []value.Value{T("3000"), T(""), T(spkiOfG)},
				"INTERPRETATION_CRYPTO_ERROR_MALFORMED_SIGNATURE: Interpretation error: Error: Malformed signature for 3000 :\nmalformed signature: too short: 2 < 8"},
		},
		lf.BuiltinSecp256k1WithECDSABool: {
			{"valid digest", []value.Value{T(satoshiSig), T(satoshiDigest()), T(spkiOfG)}, "true"},
			{"signature not hex", []value.Value{T("0x"), T(satoshiDigest()), T(spkiOfG)},
				"INTERPRETATION_CRYPTO_ERROR_MALFORMED_BYTE_ENCODING: Interpretation error: Error: Invalid byte encoding format for 0x :\ncan not parse signature hex string"},
			{"key on another curve", []value.Value{T(satoshiSig), T(satoshiDigest()), T(strings.Replace(spkiOfG, "2b8104000a", "2b81040022", 1))},
				"INTERPRETATION_CRYPTO_ERROR_MALFORMED_KEY: Interpretation error: Error: Malformed public key for " + strings.Replace(spkiOfG, "2b8104000a", "2b81040022", 1) +
					" :\nencoded key spec not recognized: not a key on secp256k1"},
		},
		lf.BuiltinTypeRepTyConName: {
			{"type constructor", []value.Value{value.TypeRep{Type: lf.TCon{Con: tcon("Pair")}}}, `Option("` + string(testPkgID) + `:Test:Pair")`},
			{"builtin type", []value.Value{value.TypeRep{Type: int64T}}, "None"},
		},
		lf.BuiltinSecp256k1ValidateKey: {
			{"the generator", []value.Value{T(spkiOfG)}, "true"},
			{"not hex", []value.Value{T("xy")},
				"INTERPRETATION_CRYPTO_ERROR_MALFORMED_BYTE_ENCODING: Interpretation error: Error: Invalid byte encoding format for xy :\ncan not parse DER encoded public key hex string"},
			{"not on the curve", []value.Value{T(spkiOfG[:len(spkiOfG)-2] + "b9")},
				"INTERPRETATION_CRYPTO_ERROR_MALFORMED_KEY: Interpretation error: Error: Malformed public key for " + spkiOfG[:len(spkiOfG)-2] + "b9 :\ninvalid point: not an encoding of a point of secp256k1"},
		},
	}
}

func TestBuiltins(t *testing.T) {
	cases := builtinCases(t)
	for f, cs := range cases {
		for _, c := range cs {
			got, err := callBuiltin(t, f, c.args...)
			var s string
			if err != nil {
				var ie *Error
				if !errors.As(err, &ie) {
					t.Errorf("%s %s: %v", f, c.name, err)
					continue
				}
				s = ie.ID + ": " + ie.Cause
			} else {
				s = got.String()
			}
			if s != c.want {
				t.Errorf("%s %s:\n got  %s\n want %s", f, c.name, s, c.want)
			}
		}
	}
}

// TestEveryBuiltinIsTested checks that each builtin of Daml-LF has cases
// above, or is dev-only.
func TestEveryBuiltinIsTested(t *testing.T) {
	cases := builtinCases(t)
	for _, f := range lf.BuiltinFunctions() {
		if DevOnly(f) {
			continue
		}
		cs, ok := cases[f]
		if !ok || len(cs) == 0 && f != lf.BuiltinTextMapEmpty && f != lf.BuiltinGenMapEmpty {
			t.Errorf("builtin %s has no test", f)
		}
	}
	// The empty maps have arity 0: the resolver makes them constants.
	for _, f := range []lf.BuiltinFunction{lf.BuiltinTextMapEmpty, lf.BuiltinGenMapEmpty} {
		got, err := eval(t, bi(f))
		if err != nil || (got.Kind() != value.KindTextMap && got.Kind() != value.KindGenMap) {
			t.Errorf("%s: %v %v", f, got, err)
		}
	}
}

func TestDevOnlyBuiltins(t *testing.T) {
	for _, f := range lf.BuiltinFunctions() {
		if !DevOnly(f) || Implemented(f) {
			continue
		}
		args := make([]value.Value, f.Arity())
		for i := range args {
			args[i] = value.Unit{}
		}
		_, err := callBuiltin(t, f, args...)
		var ie *Error
		if !errors.As(err, &ie) || ie.ID != "DAML_INTERPRETATION_ERROR" || !strings.Contains(ie.Cause, "2.dev only") {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestFailWithStatusMetadata(t *testing.T) {
	m := (*value.TextMap)(nil).Insert("k", value.Text("v")).Insert("error_id", value.Text("overridden?"))
	_, err := callBuiltin(t, lf.BuiltinFailWithStatus, value.Text("MY_ERROR"), value.Int64(9), value.Text("x"), m)
	var ie *Error
	if !errors.As(err, &ie) || ie.Category != 9 || ie.Metadata["k"] != "v" || ie.Metadata["error_id"] != "MY_ERROR" {
		t.Errorf("%+v", ie)
	}
}

const (
	satoshiSig = "3045022100934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8" +
		"02202442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5"
	spkiOfG = "3056301006072a8648ce3d020106052b8104000a034200" +
		"0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
)

func satoshiDigest() string {
	sum := sha256.Sum256([]byte("Satoshi Nakamoto"))
	return hex.EncodeToString(sum[:])
}

// The implementation table covers every stable builtin and, of the 2.dev
// ones, TYPE_REP_TYCON_NAME only.
func TestImplementedBuiltins(t *testing.T) {
	for _, f := range lf.BuiltinFunctions() {
		want := !f.DevOnly() || f == lf.BuiltinTypeRepTyConName
		if Implemented(f) != want {
			t.Errorf("%s: Implemented = %v, want %v", f, Implemented(f), want)
		}
	}
}
