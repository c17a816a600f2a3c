package value

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Numeric is a fixed-point decimal of Daml-LF: an unscaled integer of at
// most 38 decimal digits and a scale from 0 to 37, the number of digits
// after the point. Its value is unscaled × 10^-scale. The scale is part of
// the type (Numeric 10 is Decimal), so two numerics compared or added have
// the same scale. The zero Numeric is 0 at scale 0.
//
// A Numeric is immutable. Arithmetic follows Canton's
// com.digitalasset.daml.lf.data.Numeric: results out of range are errors
// (ErrNumericOverflow), rounding is half-even where the specification says
// so, and conversions that would lose precision fail.
type Numeric struct {
	// small holds the unscaled value when big is nil.
	small int64
	big   *big.Int
	scale int8
}

// Numeric bounds.
const (
	MaxNumericPrecision = 38
	MaxNumericScale     = 37
)

// Errors of numeric arithmetic; the interpreter turns them into Daml's
// ArithmeticError.
var (
	ErrNumericOverflow  = errors.New("numeric out of bounds")
	ErrNumericPrecision = errors.New("numeric would lose precision")
	ErrNumericScale     = errors.New("numeric scale out of range")
	ErrDivisionByZero   = errors.New("division by zero")
)

var (
	bigTen    = big.NewInt(10)
	pow10Big  [2*MaxNumericPrecision + 2]*big.Int
	maxUnscal *big.Int // 10^38, exclusive bound of |unscaled|
)

func init() {
	p := big.NewInt(1)
	for i := range pow10Big {
		pow10Big[i] = new(big.Int).Set(p)
		p.Mul(p, bigTen)
	}
	maxUnscal = pow10Big[MaxNumericPrecision]
}

// pow10 returns 10^n as a shared, read-only big.Int.
func pow10(n int) *big.Int {
	if n < len(pow10Big) {
		return pow10Big[n]
	}
	return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil)
}

// makeNumeric builds a Numeric from an unscaled value it takes ownership
// of, checking the 38-digit bound.
func makeNumeric(u *big.Int, scale int) (Numeric, error) {
	if u.CmpAbs(maxUnscal) >= 0 {
		return Numeric{}, ErrNumericOverflow
	}
	if u.IsInt64() {
		return Numeric{small: u.Int64(), scale: int8(scale)}, nil
	}
	return Numeric{big: u, scale: int8(scale)}, nil
}

// NewNumeric returns unscaled × 10^-scale. It fails when the scale is not
// within 0..37 or unscaled has more than 38 digits.
func NewNumeric(unscaled *big.Int, scale int) (Numeric, error) {
	if scale < 0 || scale > MaxNumericScale {
		return Numeric{}, ErrNumericScale
	}
	return makeNumeric(new(big.Int).Set(unscaled), scale)
}

// Scale returns the number of digits after the point.
func (n Numeric) Scale() int { return int(n.scale) }

// Unscaled returns a fresh copy of the unscaled integer.
func (n Numeric) Unscaled() *big.Int {
	if n.big != nil {
		return new(big.Int).Set(n.big)
	}
	return big.NewInt(n.small)
}

// unscaled returns the unscaled integer, shared: callers must not modify it.
func (n Numeric) unscaled() *big.Int {
	if n.big != nil {
		return n.big
	}
	return big.NewInt(n.small)
}

// Sign returns -1, 0 or +1.
func (n Numeric) Sign() int {
	if n.big != nil {
		return n.big.Sign()
	}
	switch {
	case n.small < 0:
		return -1
	case n.small > 0:
		return 1
	}
	return 0
}

// Cmp compares the values of n and m (of any scales).
func (n Numeric) Cmp(m Numeric) int {
	if n.big == nil && m.big == nil && n.scale == m.scale {
		switch {
		case n.small < m.small:
			return -1
		case n.small > m.small:
			return 1
		}
		return 0
	}
	a, b := n.unscaled(), m.unscaled()
	switch {
	case n.scale < m.scale:
		a = new(big.Int).Mul(a, pow10(int(m.scale-n.scale)))
	case n.scale > m.scale:
		b = new(big.Int).Mul(b, pow10(int(n.scale-m.scale)))
	}
	return a.Cmp(b)
}

// String returns Canton's canonical text of a numeric (Numeric.toString):
// an optional "-", the integral digits ("0" when none), ".", then exactly
// Scale digits: "1.5000000000" at scale 10, "3." at scale 0. Values,
// transactions and their hashes use this form.
func (n Numeric) String() string {
	var s string
	if n.big != nil {
		s = n.big.String()
	} else {
		s = strconv.FormatInt(n.small, 10)
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	sc := int(n.scale)
	if len(s) <= sc {
		s = strings.Repeat("0", sc-len(s)+1) + s
	}
	out := s[:len(s)-sc] + "." + s[len(s)-sc:]
	if neg {
		out = "-" + out
	}
	return out
}

// Unpadded returns the text NUMERIC_TO_TEXT gives (Canton's
// toUnscaledString): trailing zeros of the fraction dropped, but at least one
// digit after the point: "1.5", "100.0", "-0.25".
func (n Numeric) Unpadded() string {
	s := n.String()
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

// IsZero reports whether n is 0.
func (n Numeric) IsZero() bool { return n.Sign() == 0 }

// NumericFromInt64 returns i at the given scale (INT64_TO_NUMERIC); it fails
// when i has more than 38 - scale digits.
func NumericFromInt64(scale int, i int64) (Numeric, error) {
	if scale < 0 || scale > MaxNumericScale {
		return Numeric{}, ErrNumericScale
	}
	if scale == 0 {
		return Numeric{small: i}, nil
	}
	u := new(big.Int).Mul(big.NewInt(i), pow10(scale))
	return makeNumeric(u, scale)
}

// Int64 returns the integral part of n, rounding toward zero
// (NUMERIC_TO_INT64); it fails when that does not fit in 64 bits.
func (n Numeric) Int64() (int64, error) {
	if n.big == nil && n.scale == 0 {
		return n.small, nil
	}
	q := new(big.Int).Quo(n.unscaled(), pow10(int(n.scale)))
	if !q.IsInt64() {
		return 0, ErrNumericOverflow
	}
	return q.Int64(), nil
}

// AddNumeric returns a + b; both have the same scale.
func AddNumeric(a, b Numeric) (Numeric, error) {
	if a.scale != b.scale {
		return Numeric{}, fmt.Errorf("numeric scales differ: %d and %d", a.scale, b.scale)
	}
	if a.big == nil && b.big == nil {
		s := a.small + b.small
		// Overflow of int64 when the operands have the same sign and the
		// result's differs; int64 values are far below 10^38.
		if (a.small >= 0) == (b.small >= 0) && (s >= 0) != (a.small >= 0) {
			return makeNumeric(new(big.Int).Add(big.NewInt(a.small), big.NewInt(b.small)), int(a.scale))
		}
		return Numeric{small: s, scale: a.scale}, nil
	}
	return makeNumeric(new(big.Int).Add(a.unscaled(), b.unscaled()), int(a.scale))
}

// SubNumeric returns a - b; both have the same scale.
func SubNumeric(a, b Numeric) (Numeric, error) {
	if a.scale != b.scale {
		return Numeric{}, fmt.Errorf("numeric scales differ: %d and %d", a.scale, b.scale)
	}
	if a.big == nil && b.big == nil {
		s := a.small - b.small
		if (a.small >= 0) != (b.small >= 0) && (s >= 0) != (a.small >= 0) {
			return makeNumeric(new(big.Int).Sub(big.NewInt(a.small), big.NewInt(b.small)), int(a.scale))
		}
		return Numeric{small: s, scale: a.scale}, nil
	}
	return makeNumeric(new(big.Int).Sub(a.unscaled(), b.unscaled()), int(a.scale))
}

// MulNumeric returns a × b at the given scale, rounded half-even
// (MUL_NUMERIC).
func MulNumeric(scale int, a, b Numeric) (Numeric, error) {
	if scale < 0 || scale > MaxNumericScale {
		return Numeric{}, ErrNumericScale
	}
	p := new(big.Int).Mul(a.unscaled(), b.unscaled())
	return makeNumeric(rescale(p, int(a.scale)+int(b.scale), scale), scale)
}

// DivNumeric returns a ÷ b at the given scale, rounded half-even
// (DIV_NUMERIC).
func DivNumeric(scale int, a, b Numeric) (Numeric, error) {
	if scale < 0 || scale > MaxNumericScale {
		return Numeric{}, ErrNumericScale
	}
	if b.Sign() == 0 {
		return Numeric{}, ErrDivisionByZero
	}
	// a/b at scale s is a.u × 10^(s - a.s + b.s) / b.u.
	num := new(big.Int).Set(a.unscaled())
	den := new(big.Int).Set(b.unscaled())
	e := scale - int(a.scale) + int(b.scale)
	if e >= 0 {
		num.Mul(num, pow10(e))
	} else {
		den.Mul(den, pow10(-e))
	}
	return makeNumeric(quoHalfEven(num, den), scale)
}

// RoundNumeric rounds n half-even to a multiple of 10^-digits, keeping its
// scale (ROUND_NUMERIC). digits may be negative; it must be within
// scale-37 .. scale.
func RoundNumeric(digits int64, n Numeric) (Numeric, error) {
	sc := int64(n.scale)
	if !(digits <= sc && sc-MaxNumericPrecision < digits) {
		return Numeric{}, fmt.Errorf("%w: bad scale %d, must be between %d and %d", ErrNumericScale, digits, sc-MaxNumericPrecision-1, sc)
	}
	drop := int(sc - digits)
	if drop == 0 {
		return n, nil
	}
	d := pow10(drop)
	q := quoHalfEven(new(big.Int).Set(n.unscaled()), d)
	return makeNumeric(q.Mul(q, d), int(sc))
}

// CastNumeric converts n to the given scale keeping its value
// (CAST_NUMERIC); it fails when digits would be lost or the result does not
// fit.
func CastNumeric(scale int, n Numeric) (Numeric, error) {
	if scale < 0 || scale > MaxNumericScale {
		return Numeric{}, ErrNumericScale
	}
	u := n.unscaled()
	from := int(n.scale)
	if scale >= from {
		return makeNumeric(new(big.Int).Mul(u, pow10(scale-from)), scale)
	}
	q, r := new(big.Int).QuoRem(u, pow10(from-scale), new(big.Int))
	if r.Sign() != 0 {
		return Numeric{}, ErrNumericPrecision
	}
	return makeNumeric(q, scale)
}

// ShiftNumeric moves the decimal point: the result at the given scale has
// the same unscaled digits, so its value is n × 10^(n.Scale()-scale)
// (SHIFT_NUMERIC). It cannot fail for a valid scale.
func ShiftNumeric(scale int, n Numeric) (Numeric, error) {
	if scale < 0 || scale > MaxNumericScale {
		return Numeric{}, ErrNumericScale
	}
	n.scale = int8(scale)
	return n, nil
}

// rescale returns u (at scale from) at scale to, rounding half-even.
func rescale(u *big.Int, from, to int) *big.Int {
	switch {
	case to > from:
		return u.Mul(u, pow10(to-from))
	case to < from:
		return quoHalfEven(u, pow10(from-to))
	}
	return u
}

// quoHalfEven returns num/den rounded to the nearest integer, ties to even.
// It may reuse num.
func quoHalfEven(num, den *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 {
		return q
	}
	// Compare 2|r| with |den|.
	r2 := r.Abs(r)
	r2.Lsh(r2, 1)
	c := r2.CmpAbs(den)
	if c > 0 || c == 0 && q.Bit(0) == 1 {
		if num.Sign()*den.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// ParseNumeric reads Canton's canonical numeric text (Numeric.fromString):
// an optional "-", integral digits without leading zeros (or "0"), ".", and
// the fraction, whose length is the scale: "1.50" has scale 2, "3." scale 0.
func ParseNumeric(s string) (Numeric, error) {
	bad := func() (Numeric, error) { return Numeric{}, fmt.Errorf("could not read Numeric string %q", s) }
	t := strings.TrimPrefix(s, "-")
	dot := strings.IndexByte(t, '.')
	if dot < 0 {
		return bad()
	}
	ip, fp := t[:dot], t[dot+1:]
	if ip == "" || len(ip) > 1 && ip[0] == '0' || !allDigits(ip) || !allDigits(fp) {
		return bad()
	}
	scale := len(fp)
	prec := scale
	if ip != "0" {
		prec += len(ip)
	}
	if prec > MaxNumericPrecision || scale > MaxNumericScale {
		return bad()
	}
	u, ok := new(big.Int).SetString(ip+fp, 10)
	if !ok {
		return bad()
	}
	if t != s {
		u.Neg(u)
	}
	return makeNumeric(u, scale)
}

// TextToNumeric reads a decimal as TEXT_TO_NUMERIC does: an optional sign,
// digits, optionally a point and digits ([+-]?\d+(\.\d+)?, leading and
// trailing zeros allowed), at the given scale. ok is false when the text
// does not match or the value does not fit the scale without loss.
func TextToNumeric(scale int, s string) (n Numeric, ok bool) {
	if scale < 0 || scale > MaxNumericScale {
		return Numeric{}, false
	}
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	ip, fp, hasDot := strings.Cut(s, ".")
	if ip == "" || !allDigits(ip) || hasDot && (fp == "" || !allDigits(fp)) {
		return Numeric{}, false
	}
	ip = strings.TrimLeft(ip, "0")
	fp = strings.TrimRight(fp, "0")
	if len(ip) > MaxNumericPrecision-scale || len(fp) > scale {
		return Numeric{}, false
	}
	digits := ip + fp + strings.Repeat("0", scale-len(fp))
	if digits == "" {
		digits = "0"
	}
	u, okp := new(big.Int).SetString(digits, 10)
	if !okp {
		return Numeric{}, false
	}
	if neg {
		u.Neg(u)
	}
	n, err := makeNumeric(u, scale)
	return n, err == nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// MaxNumeric returns the largest Numeric of a scale: 38 nines.
func MaxNumeric(scale int) Numeric {
	u := new(big.Int).Sub(maxUnscal, big.NewInt(1))
	n, _ := makeNumeric(u, scale)
	return n
}

// Float64 returns the nearest float64, for display only.
func (n Numeric) Float64() float64 {
	f, _ := new(big.Float).SetInt(n.unscaled()).Float64()
	return f / math.Pow10(int(n.scale))
}
