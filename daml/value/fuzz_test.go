package value

import (
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// Canton's pattern for TEXT_TO_NUMERIC (SBTextToNumeric.validFormat).
var cantonNumeric = regexp.MustCompile(`^([+-]?)0*(\d+)(\.(\d*[1-9]|0)0*)?$`)

// referenceTextToNumeric follows Canton's SBTextToNumeric step by step with
// regexp and big.Rat, independently of TextToNumeric.
func referenceTextToNumeric(scale int, s string) (string, bool) {
	m := cantonNumeric.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	sign, intPart, decPart := m[1], m[2], m[4]
	if decPart == "0" {
		decPart = ""
	}
	intDigits := len(intPart)
	if intPart == "0" {
		intDigits = 0
	}
	if intDigits > MaxNumericPrecision-scale || len(decPart) > scale {
		return "", false
	}
	r, ok := new(big.Rat).SetString(sign + intPart + "." + m[4] + "0")
	if !ok {
		return "", false
	}
	return r.FloatString(scale), true
}

// FuzzTextToNumeric compares TextToNumeric with Canton's algorithm written
// independently.
func FuzzTextToNumeric(f *testing.F) {
	for _, s := range []string{"1.5", "+001.500", "-0", "1.", ".5", "1e5", strings.Repeat("9", 38), "0.0000000001", "", "+", "1.0000000000000000000000000000000000000001"} {
		f.Add(10, s)
		f.Add(0, s)
	}
	f.Fuzz(func(t *testing.T, scale int, s string) {
		if scale < 0 || scale > MaxNumericScale {
			return
		}
		want, wantOK := referenceTextToNumeric(scale, s)
		got, ok := TextToNumeric(scale, s)
		if ok != wantOK {
			t.Fatalf("TextToNumeric(%d, %q): ok %v, want %v (%s)", scale, s, ok, wantOK, want)
		}
		if !ok {
			return
		}
		// big.Rat prints "-0.00"-style values without sign for zero.
		if got.String() != want && !(got.Sign() == 0 && strings.TrimPrefix(want, "-") == got.String()) {
			if scale == 0 && got.String() == want+"." {
				return
			}
			t.Fatalf("TextToNumeric(%d, %q) = %s, want %s", scale, s, got, want)
		}
	})
}

// FuzzNumericArithmetic checks multiplication and division against big.Rat
// with explicit half-even rounding, and that results stay within 38 digits.
func FuzzNumericArithmetic(f *testing.F) {
	f.Add(int64(5), 1, int64(5), 1, 1)
	f.Add(int64(-7), 0, int64(2), 0, 0)
	f.Add(int64(1), 10, int64(3), 10, 10)
	f.Fuzz(func(t *testing.T, a int64, sa int, b int64, sb int, s int) {
		if sa < 0 || sa > MaxNumericScale || sb < 0 || sb > MaxNumericScale || s < 0 || s > MaxNumericScale {
			return
		}
		x, err1 := NewNumeric(big.NewInt(a), sa)
		y, err2 := NewNumeric(big.NewInt(b), sb)
		if err1 != nil || err2 != nil {
			return
		}
		rx, ry := ratOf(x), ratOf(y)
		check := func(op string, got Numeric, err error, exact *big.Rat) {
			want := roundHalfEven(exact, s)
			fits := new(big.Int).Abs(want).Cmp(pow10(MaxNumericPrecision)) < 0
			if err != nil {
				if fits {
					t.Fatalf("%s %s %s at %d: %v", x, op, y, s, err)
				}
				return
			}
			if !fits || got.Unscaled().Cmp(want) != 0 || got.Scale() != s {
				t.Fatalf("%s %s %s at %d = %s, want unscaled %s", x, op, y, s, got, want)
			}
		}
		got, err := MulNumeric(s, x, y)
		check("*", got, err, new(big.Rat).Mul(rx, ry))
		if y.Sign() != 0 {
			got, err = DivNumeric(s, x, y)
			check("/", got, err, new(big.Rat).Quo(rx, ry))
		}
	})
}

func ratOf(n Numeric) *big.Rat {
	return new(big.Rat).SetFrac(n.Unscaled(), pow10(n.Scale()))
}

// roundHalfEven returns r × 10^scale rounded to the nearest integer, ties
// to even.
func roundHalfEven(r *big.Rat, scale int) *big.Int {
	x := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(scale)))
	q, rem := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if rem.Sign() == 0 {
		return q
	}
	twice := new(big.Int).Mul(new(big.Int).Abs(rem), big.NewInt(2))
	c := twice.Cmp(x.Denom())
	if c > 0 || c == 0 && q.Bit(0) == 1 {
		if x.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}
