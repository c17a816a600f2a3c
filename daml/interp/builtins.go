package interp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/sha3"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// arithmeticErrorID is the type of the ArithmeticError exception builtins
// throw, in Daml-LF 2's stable package daml-prim-DA-Exception-ArithmeticError.
var arithmeticErrorID = &value.Identifier{
	PackageID:  "ee33fb70918e7aaa3d3fc44d64a399fb2bf5bcefc54201b1690ecd448551ba88",
	ModuleName: "DA.Exception.ArithmeticError",
	EntityName: "ArithmeticError",
}

var arithmeticErrorType = lf.TCon{Con: lf.TypeConName{
	Package: lf.PackageID(arithmeticErrorID.PackageID),
	Module:  lf.DottedName{"DA", "Exception", "ArithmeticError"},
	Name:    lf.DottedName{"ArithmeticError"},
}}

// DevOnly reports whether a builtin exists only in Daml-LF 2.dev (lf's
// table says); this interpreter evaluates none of those but
// TYPE_REP_TYCON_NAME.
func DevOnly(f lf.BuiltinFunction) bool { return f.DevOnly() }

// Implemented reports whether this interpreter evaluates a builtin: it has
// an implementation, or takes no argument (the resolver makes it a value).
func Implemented(f lf.BuiltinFunction) bool {
	return builtinImpls[f] != nil || f.Arity() == 0
}

// litText renders a builtin's argument in an ArithmeticError message as
// Speedy's litToText does.
func litText(v value.Value) string {
	switch x := v.(type) {
	case value.Text:
		return string(x)
	case value.Party:
		return string(x)
	case value.Numeric:
		return x.Unpadded()
	case value.Unit:
		return "<unit>"
	}
	return v.String()
}

// arithmeticError throws Daml's ArithmeticError for builtin f applied to
// args: "ArithmeticError while evaluating (F a1 … an).".
func (m *Machine) arithmeticError(f string, args []value.Value) {
	var b strings.Builder
	b.WriteString("ArithmeticError while evaluating (")
	b.WriteString(f)
	for _, a := range args {
		b.WriteString(" ")
		b.WriteString(litText(a))
	}
	b.WriteString(").")
	payload := &value.Record{TypeCon: arithmeticErrorID, Fields: []value.Field{{Label: "message", Value: value.Text(b.String())}}}
	m.throw(&value.Any{Type: arithmeticErrorType, Value: payload})
}

// builtinImpls is the implementation of each builtin, by lf.BuiltinFunction;
// lf's table gives its name, arity and versions. nil: not evaluated here
// (the 2.dev builtins but TYPE_REP_TYCON_NAME, and TEXTMAP_EMPTY and
// GENMAP_EMPTY, which the resolver turns into values). A builtin that
// serves several (the comparisons, Int64 arithmetic) reads f.
var builtinImpls [lf.NumBuiltinFunctions]func(m *Machine, f lf.BuiltinFunction, args []value.Value)

// The table is filled in init: implementations such as FOLDL call back
// into the evaluator, which reads the table.
func init() {
	for f, impl := range map[lf.BuiltinFunction]func(m *Machine, f lf.BuiltinFunction, args []value.Value){
		lf.BuiltinTrace: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			if m.limits.Trace != nil {
				m.limits.Trace(string(args[0].(value.Text)), m.loc)
			}
			m.val = args[1]
		},
		lf.BuiltinError: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.fail(m.newError(errUser, interpretationError+"User abort: "+string(args[0].(value.Text))))
		},
		lf.BuiltinFailWithStatus: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.failWithStatus(args)
		},
		lf.BuiltinAnyExceptionMessage: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.anyExceptionMessage(args[0].(*value.Any))
		},
		lf.BuiltinEqual: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			eq, err := value.Equal(args[0], args[1])
			if m.compareError(err) {
				m.val = value.Bool(eq)
			}
		},
		lf.BuiltinLessEq:    builtinCompare,
		lf.BuiltinLess:      builtinCompare,
		lf.BuiltinGreaterEq: builtinCompare,
		lf.BuiltinGreater:   builtinCompare,
		lf.BuiltinEqualList: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			(&kEqualList{eq: args[0], xs: args[1].(*value.List), ys: args[2].(*value.List)}).step(m)
		},
		lf.BuiltinAddInt64:       builtinInt64,
		lf.BuiltinSubInt64:       builtinInt64,
		lf.BuiltinMulInt64:       builtinInt64,
		lf.BuiltinDivInt64:       builtinInt64,
		lf.BuiltinModInt64:       builtinInt64,
		lf.BuiltinExpInt64:       builtinInt64,
		lf.BuiltinAddNumeric:     builtinNumeric,
		lf.BuiltinSubNumeric:     builtinNumeric,
		lf.BuiltinMulNumeric:     builtinNumeric,
		lf.BuiltinDivNumeric:     builtinNumeric,
		lf.BuiltinRoundNumeric:   builtinNumeric,
		lf.BuiltinCastNumeric:    builtinNumeric,
		lf.BuiltinShiftNumeric:   builtinNumeric,
		lf.BuiltinInt64ToNumeric: builtinNumeric,
		lf.BuiltinNumericToInt64: builtinNumeric,
		lf.BuiltinNumericToText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Text(args[0].(value.Numeric).Unpadded())
		},
		lf.BuiltinTextToNumeric: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			n, ok := value.TextToNumeric(args[0].(value.Numeric).Scale(), string(args[1].(value.Text)))
			m.val = optional(n, ok)
		},
		lf.BuiltinInt64ToText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Text(strconv.FormatInt(int64(args[0].(value.Int64)), 10))
		},
		lf.BuiltinTimestampToText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Text(args[0].(value.Timestamp).String())
		},
		lf.BuiltinDateToText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Text(args[0].(value.Date).String())
		},
		lf.BuiltinPartyToText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Text(args[0].(value.Party))
		},
		lf.BuiltinContractIDToText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			// Canton gives None in ledger code and the id in pure evaluation
			// (Daml Script, the REPL): contract ids are not observable on ledger.
			if m.upd != nil {
				m.val = value.None
			} else {
				m.val = value.Some(value.Text(args[0].(value.ContractID)))
			}
		},
		lf.BuiltinTextToParty: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			s := string(args[0].(value.Text))
			m.val = optional(value.Party(s), value.ValidParty(s))
		},
		lf.BuiltinTextToInt64: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			i, ok := textToInt64(string(args[0].(value.Text)))
			m.val = optional(value.Int64(i), ok)
		},
		lf.BuiltinCodePointsToText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			if !m.charge(textCost(utf8.UTFMax * args[0].(*value.List).Len())) {
				return
			}
			s, bad, ok := codePointsToText(args[0].(*value.List))
			if !ok {
				// Canton's Speedy crashes here (an internal error).
				m.fail(m.newError(errInternal, fmt.Sprintf("invalid code point 0x%x.", uint64(bad))))
				return
			}
			m.val = value.Text(s)
		},
		lf.BuiltinTextToCodePoints: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			s := string(args[0].(value.Text))
			n := utf8.RuneCountInString(s)
			if !m.charge(costObject + n*costSlot) {
				return
			}
			out := make([]value.Value, 0, n)
			for _, r := range s {
				out = append(out, value.Int64(r))
			}
			m.val = value.NewList(out...)
		},
		lf.BuiltinAppendText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			a, b := args[0].(value.Text), args[1].(value.Text)
			if !m.charge(textCost(len(a) + len(b))) {
				return
			}
			m.val = a + b
		},
		lf.BuiltinExplodeText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			s := string(args[0].(value.Text))
			n := utf8.RuneCountInString(s)
			if !m.charge(costObject + n*textCost(0) + len(s)) {
				return
			}
			out := make([]value.Value, 0, n)
			for i := 0; i < len(s); {
				_, n := utf8.DecodeRuneInString(s[i:])
				out = append(out, value.Text(s[i:i+n]))
				i += n
			}
			m.val = value.NewList(out...)
		},
		lf.BuiltinImplodeText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			n := 0
			for v := range args[0].(*value.List).All() {
				n += len(v.(value.Text))
			}
			if !m.charge(textCost(n)) {
				return
			}
			var b strings.Builder
			b.Grow(n)
			for v := range args[0].(*value.List).All() {
				b.WriteString(string(v.(value.Text)))
			}
			m.val = value.Text(b.String())
		},
		lf.BuiltinSHA256Text: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			sum := sha256.Sum256([]byte(args[0].(value.Text)))
			m.val = value.Text(hex.EncodeToString(sum[:]))
		},
		lf.BuiltinSHA256Hex: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			s := string(args[0].(value.Text))
			b, ok := decodeHex(s)
			if !ok {
				m.fail(m.newError(errCryptoEncoding, interpretationError+"Invalid byte encoding format for "+s+" :\ncan not parse hex string"))
				return
			}
			sum := sha256.Sum256(b)
			m.val = value.Text(hex.EncodeToString(sum[:]))
		},
		lf.BuiltinKeccak256Text: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			s := string(args[0].(value.Text))
			b, ok := decodeHex(s)
			if !ok {
				m.fail(m.newError(errCryptoEncoding, interpretationError+"Invalid byte encoding format for "+s+" :\ncan not parse hex string"))
				return
			}
			h := sha3.NewLegacyKeccak256()
			h.Write(b)
			m.val = value.Text(hex.EncodeToString(h.Sum(nil)))
		},
		lf.BuiltinTypeRepTyConName: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			// Speedy's SBTypeRepTyConName: the identifier, for a type constructor.
			tc, ok := args[0].(value.TypeRep).Type.(lf.TCon)
			m.val = optional(value.Text(tc.Con.String()), ok)
		},
		lf.BuiltinSecp256k1Bool: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.secp256k1Verify(args, true)
		},
		lf.BuiltinSecp256k1WithECDSABool: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.secp256k1Verify(args, false)
		},
		lf.BuiltinSecp256k1ValidateKey: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.secp256k1ValidateKey(string(args[0].(value.Text)))
		},
		lf.BuiltinHexToText: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			s := string(args[0].(value.Text))
			b, ok := decodeHex(s)
			if !ok {
				m.fail(m.newError(errCryptoEncoding, interpretationError+"Invalid byte encoding format for "+s+" :\ncan not parse hex string argument"))
				return
			}
			// Each invalid byte may become U+FFFD, three bytes.
			if !m.charge(textCost(3 * len(b))) {
				return
			}
			m.val = value.Text(decodeUTF8Lossy(b))
		},
		lf.BuiltinTextToHex: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			s := args[0].(value.Text)
			if !m.charge(textCost(2 * len(s))) {
				return
			}
			m.val = value.Text(hex.EncodeToString([]byte(s)))
		},
		lf.BuiltinDateToUnixDays: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Int64(args[0].(value.Date))
		},
		lf.BuiltinUnixDaysToDate: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			d, err := value.DateFromDays(int64(args[0].(value.Int64)))
			if err != nil {
				m.arithmeticError(f.String(), args)
				return
			}
			m.val = d
		},
		lf.BuiltinTimestampToUnixMicroseconds: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Int64(args[0].(value.Timestamp))
		},
		lf.BuiltinUnixMicrosecondsToTimestamp: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			t, err := value.TimestampFromMicros(int64(args[0].(value.Int64)))
			if err != nil {
				m.arithmeticError(f.String(), args)
				return
			}
			m.val = t
		},
		lf.BuiltinCoerceContractID: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = args[0]
		},
		lf.BuiltinFoldl: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			(&kFoldl{f: args[0], list: args[2].(*value.List)}).resume(m, args[1])
		},
		lf.BuiltinFoldr: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			l := args[2].(*value.List)
			if !m.charge(l.Len() * costSlot) {
				return
			}
			elems := l.Slice()
			(&kFoldr{f: args[0], elems: elems, i: len(elems)}).resume(m, args[1])
		},
		lf.BuiltinTextMapInsert: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			// Maps are sorted slices: an insert copies the entries.
			if !m.charge(costObject + (args[2].(*value.TextMap).Len()+1)*costField) {
				return
			}
			m.val = args[2].(*value.TextMap).Insert(string(args[0].(value.Text)), args[1])
		},
		lf.BuiltinTextMapLookup: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			v, ok := args[1].(*value.TextMap).Lookup(string(args[0].(value.Text)))
			m.val = optional(v, ok)
		},
		lf.BuiltinTextMapDelete: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			if !m.charge(costObject + args[1].(*value.TextMap).Len()*costField) {
				return
			}
			m.val = args[1].(*value.TextMap).Delete(string(args[0].(value.Text)))
		},
		lf.BuiltinTextMapToList: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			es := args[0].(*value.TextMap).Entries()
			if !m.charge(costObject + len(es)*(costSlot+costObject+2*costField)) {
				return
			}
			out := make([]value.Value, len(es))
			for i, e := range es {
				out[i] = &value.Struct{Fields: []value.Field{{Label: "key", Value: value.Text(e.Key)}, {Label: "value", Value: e.Value}}}
			}
			m.val = value.NewList(out...)
		},
		lf.BuiltinTextMapSize: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Int64(args[0].(*value.TextMap).Len())
		},
		lf.BuiltinGenMapInsert: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			if !m.charge(costObject + (args[2].(*value.GenMap).Len()+1)*costField) {
				return
			}
			g, err := args[2].(*value.GenMap).Insert(args[0], args[1])
			if m.compareError(err) {
				m.val = g
			}
		},
		lf.BuiltinGenMapLookup: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			v, ok, err := args[1].(*value.GenMap).Lookup(args[0])
			if m.compareError(err) {
				m.val = optional(v, ok)
			}
		},
		lf.BuiltinGenMapDelete: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			if !m.charge(costObject + args[1].(*value.GenMap).Len()*costField) {
				return
			}
			g, err := args[1].(*value.GenMap).Delete(args[0])
			if m.compareError(err) {
				m.val = g
			}
		},
		lf.BuiltinGenMapKeys: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			es := args[0].(*value.GenMap).Entries()
			if !m.charge(costObject + len(es)*costSlot) {
				return
			}
			out := make([]value.Value, len(es))
			for i, e := range es {
				out[i] = e.Key
			}
			m.val = value.NewList(out...)
		},
		lf.BuiltinGenMapValues: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			es := args[0].(*value.GenMap).Entries()
			if !m.charge(costObject + len(es)*costSlot) {
				return
			}
			out := make([]value.Value, len(es))
			for i, e := range es {
				out[i] = e.Value
			}
			m.val = value.NewList(out...)
		},
		lf.BuiltinGenMapSize: func(m *Machine, f lf.BuiltinFunction, args []value.Value) {
			m.val = value.Int64(args[0].(*value.GenMap).Len())
		},
	} {
		builtinImpls[f] = impl
	}
}

// builtinCompare implements LESS_EQ, LESS, GREATER_EQ and GREATER.
func builtinCompare(m *Machine, f lf.BuiltinFunction, args []value.Value) {
	c, err := value.Compare(args[0], args[1])
	if !m.compareError(err) {
		return
	}
	var r bool
	switch f {
	case lf.BuiltinLessEq:
		r = c <= 0
	case lf.BuiltinLess:
		r = c < 0
	case lf.BuiltinGreaterEq:
		r = c >= 0
	default:
		r = c > 0
	}
	m.val = value.Bool(r)
}

// builtinInt64 implements the Int64 arithmetic: ADD, SUB, MUL, DIV, MOD
// and EXP_INT64.
func builtinInt64(m *Machine, f lf.BuiltinFunction, args []value.Value) {
	r, ok := int64Op(f, int64(args[0].(value.Int64)), int64(args[1].(value.Int64)))
	if !ok {
		m.arithmeticError(f.String(), args)
		return
	}
	m.val = value.Int64(r)
}

// builtinNumeric implements the Numeric arithmetic and conversions.
func builtinNumeric(m *Machine, f lf.BuiltinFunction, args []value.Value) {
	m.numeric(f, args)
}

// builtin runs builtin f on its arguments.
func (m *Machine) builtin(f lf.BuiltinFunction, args []value.Value) {
	if impl := builtinImpls[f]; impl != nil {
		impl(m, f, args)
		return
	}
	what := "the builtin " + f.String()
	if DevOnly(f) {
		what += " (Daml-LF 2.dev only)"
	}
	m.fail(m.newError(errUnsupported, "Interpretation error: "+what+" is not supported by this interpreter yet"))
}

func optional(v value.Value, ok bool) value.Value {
	if !ok {
		return value.None
	}
	return value.Some(v)
}

// compareError reports a failure of generic comparison as Canton does and
// returns whether there was none.
func (m *Machine) compareError(err error) bool {
	if err == nil {
		return true
	}
	var ce *value.ComparabilityError
	switch {
	case errors.Is(err, value.ErrNotComparable):
		m.fail(m.newError(errNotComparable, interpretationError+err.Error()))
	case errors.As(err, &ce):
		m.fail(m.newError(errComparability, interpretationError+ce.Error()))
	default:
		m.fail(m.newError(errInternal, "comparing values: "+err.Error()))
	}
	return false
}

// int64Op computes an Int64 builtin as Java's exact arithmetic does; ok is
// false on overflow, division by zero or a negative exponent.
func int64Op(f lf.BuiltinFunction, a, b int64) (int64, bool) {
	switch f {
	case lf.BuiltinAddInt64:
		r := a + b
		return r, (a^r)&(b^r) >= 0
	case lf.BuiltinSubInt64:
		r := a - b
		return r, (a^b)&(a^r) >= 0
	case lf.BuiltinMulInt64:
		return mulInt64(a, b)
	case lf.BuiltinDivInt64:
		if b == 0 || a == math.MinInt64 && b == -1 {
			return 0, false
		}
		return a / b, true
	case lf.BuiltinModInt64:
		if b == 0 {
			return 0, false
		}
		return a % b, true
	case lf.BuiltinExpInt64:
		return expInt64(a, b)
	}
	return 0, false
}

func mulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if a == -1 && b == math.MinInt64 || b == -1 && a == math.MinInt64 || r/b != a {
		return 0, false
	}
	return r, true
}

// expInt64 is exponentiation by squaring, as Speedy computes it.
func expInt64(base, exp int64) (int64, bool) {
	switch {
	case exp < 0:
		return 0, false
	case exp == 0:
		return 1, true
	}
	x, y, n := base, int64(1), exp
	ok := true
	for n > 1 {
		if n%2 == 1 {
			if y, ok = mulInt64(y, x); !ok {
				return 0, false
			}
		}
		if x, ok = mulInt64(x, x); !ok {
			return 0, false
		}
		n >>= 1
	}
	return mulInt64(x, y)
}

// numeric runs the Numeric arithmetic builtins; failures throw
// ArithmeticError.
func (m *Machine) numeric(f lf.BuiltinFunction, args []value.Value) {
	var (
		r   value.Numeric
		err error
	)
	switch f {
	case lf.BuiltinAddNumeric:
		r, err = value.AddNumeric(args[0].(value.Numeric), args[1].(value.Numeric))
	case lf.BuiltinSubNumeric:
		r, err = value.SubNumeric(args[0].(value.Numeric), args[1].(value.Numeric))
	case lf.BuiltinMulNumeric:
		r, err = value.MulNumeric(args[0].(value.Numeric).Scale(), args[1].(value.Numeric), args[2].(value.Numeric))
	case lf.BuiltinDivNumeric:
		r, err = value.DivNumeric(args[0].(value.Numeric).Scale(), args[1].(value.Numeric), args[2].(value.Numeric))
	case lf.BuiltinRoundNumeric:
		r, err = value.RoundNumeric(int64(args[0].(value.Int64)), args[1].(value.Numeric))
	case lf.BuiltinCastNumeric:
		r, err = value.CastNumeric(args[0].(value.Numeric).Scale(), args[1].(value.Numeric))
	case lf.BuiltinShiftNumeric:
		r, err = value.ShiftNumeric(args[0].(value.Numeric).Scale(), args[1].(value.Numeric))
	case lf.BuiltinInt64ToNumeric:
		r, err = value.NumericFromInt64(args[0].(value.Numeric).Scale(), int64(args[1].(value.Int64)))
	case lf.BuiltinNumericToInt64:
		i, err := args[0].(value.Numeric).Int64()
		if err != nil {
			m.arithmeticError(f.String(), args)
			return
		}
		m.val = value.Int64(i)
		return
	}
	if err != nil {
		m.arithmeticError(f.String(), args)
		return
	}
	m.val = r
}

// textToInt64 reads [+-]?\d+ into an Int64, as TEXT_TO_INT64 does.
func textToInt64(s string) (int64, bool) {
	digits := s
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}

// codePointsToText builds the text of a list of code points; bad is the
// first one that is not a Unicode scalar value (a surrogate or out of
// range).
func codePointsToText(l *value.List) (s string, bad int64, ok bool) {
	var b strings.Builder
	for v := range l.All() {
		cp := int64(v.(value.Int64))
		if cp < 0 || cp > utf8.MaxRune || 0xD800 <= cp && cp <= 0xDFFF {
			return "", cp, false
		}
		b.WriteRune(rune(cp))
	}
	return b.String(), 0, true
}

// decodeHex decodes lower-case hex of even length (Canton's HexString).
func decodeHex(s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return nil, false
		}
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// decodeUTF8Lossy decodes bytes as UTF-8, replacing each maximal invalid
// subsequence by U+FFFD as Java's decoder does.
func decodeUTF8Lossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			sb.WriteRune(utf8.RuneError)
			b = b[invalidPrefix(b):]
			continue
		}
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

// invalidPrefix returns the length of the maximal subpart of an ill-formed
// UTF-8 sequence at the start of b (Unicode 3.9, "U+FFFD substitution of
// maximal subparts"): the longest prefix of a well-formed sequence, or 1.
func invalidPrefix(b []byte) int {
	c := b[0]
	var n int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case 0xC2 <= c && c <= 0xDF:
		n = 2
	case c == 0xE0:
		n, lo = 3, 0xA0
	case 0xE1 <= c && c <= 0xEC, c == 0xEE, c == 0xEF:
		n = 3
	case c == 0xED:
		n, hi = 3, 0x9F
	case c == 0xF0:
		n, lo = 4, 0x90
	case 0xF1 <= c && c <= 0xF3:
		n = 4
	case c == 0xF4:
		n, hi = 4, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i < n && i < len(b); i++ {
		if b[i] < lo || b[i] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return i
}

// failWithStatus is FAIL_WITH_STATUS: errorId, category, message and
// metadata (a TextMap of Text).
func (m *Machine) failWithStatus(args []value.Value) {
	id := string(args[0].(value.Text))
	cat := int(args[1].(value.Int64))
	msg := string(args[2].(value.Text))
	meta := map[string]string{}
	for _, e := range args[3].(*value.TextMap).Entries() {
		meta[e.Key] = string(e.Value.(value.Text))
	}
	m.failStatus(id, cat, msg, meta)
}

// failStatus stops the machine with Canton's FailureStatus error: the
// Ledger API's DAML_FAILURE, in the category the Daml code chose, with the
// error id in the metadata.
func (m *Machine) failStatus(errorID string, category int, msg string, meta map[string]string) {
	e := m.newError(errFailureStatus, fmt.Sprintf("%sUser failure: %s (error category %d): %s", interpretationError, errorID, category, msg))
	e.Category = category
	e.Metadata = map[string]string{}
	for k, v := range meta {
		e.Metadata[k] = v
	}
	e.Metadata["error_id"] = errorID
	m.fail(e)
}

// kFoldl folds a list from the left: the value is the accumulator.
type kFoldl struct {
	f    value.Value
	list *value.List
}

func (k *kFoldl) resume(m *Machine, acc value.Value) {
	h, t, ok := k.list.Uncons()
	if !ok {
		m.val = acc
		return
	}
	k.list = t
	m.push(k)
	m.apply(k.f, []value.Value{acc, h})
}

// kFoldr folds a list from the right: f is applied to the last element
// first, as Speedy does.
type kFoldr struct {
	f     value.Value
	elems []value.Value
	i     int
}

func (k *kFoldr) resume(m *Machine, acc value.Value) {
	if k.i == 0 {
		m.val = acc
		return
	}
	k.i--
	m.push(k)
	m.apply(k.f, []value.Value{k.elems[k.i], acc})
}

// kEqualList compares two lists element by element with a predicate.
type kEqualList struct {
	eq     value.Value
	xs, ys *value.List
}

func (k *kEqualList) step(m *Machine) {
	x, xt, xok := k.xs.Uncons()
	y, yt, yok := k.ys.Uncons()
	switch {
	case !xok && !yok:
		m.val = value.Bool(true)
	case !xok || !yok:
		m.val = value.Bool(false)
	default:
		k.xs, k.ys = xt, yt
		m.push(k)
		m.apply(k.eq, []value.Value{x, y})
	}
}

func (k *kEqualList) resume(m *Machine, v value.Value) {
	if v != value.Bool(true) {
		m.val = value.Bool(false)
		return
	}
	k.step(m)
}

// call runs operation op on its arguments.
func (m *Machine) call(op resolve.Op, args []value.Value) {
	switch o := op.(type) {
	case *resolve.Builtin:
		m.builtin(o.Fn, args)
	case *resolve.RecCon:
		if !m.charge(costObject + len(args)*costField) {
			return
		}
		fields := make([]value.Field, len(args))
		for i, a := range args {
			fields[i] = value.Field{Label: o.Labels[i], Value: a}
		}
		m.val = &value.Record{TypeCon: o.TypeCon, Fields: fields}
	case *resolve.RecProj:
		m.val = args[0].(*value.Record).Fields[o.Index].Value
	case *resolve.RecUpd:
		r := args[0].(*value.Record)
		if !m.charge(costObject + len(r.Fields)*costField) {
			return
		}
		fields := append([]value.Field(nil), r.Fields...)
		fields[o.Index].Value = args[1]
		m.val = &value.Record{TypeCon: r.TypeCon, Fields: fields}
	case *resolve.VariantCon:
		if !m.charge(costObject) {
			return
		}
		m.val = &value.Variant{TypeCon: o.TypeCon, Constructor: o.Constructor, Rank: o.Rank, Value: args[0]}
	case *resolve.StructCon:
		if !m.charge(costObject + len(args)*costField) {
			return
		}
		fields := make([]value.Field, len(args))
		for i, l := range o.Labels {
			fields[i] = value.Field{Label: l, Value: args[o.Order[i]]}
		}
		m.val = &value.Struct{Fields: fields}
	case *resolve.StructProj:
		st := args[0].(*value.Struct)
		i, ok := st.Index(o.Field)
		if !ok {
			m.fail(m.newError(errInternal, "struct has no field "+o.Field))
			return
		}
		m.val = st.Fields[i].Value
	case *resolve.StructUpd:
		st := args[0].(*value.Struct)
		i, ok := st.Index(o.Field)
		if !ok {
			m.fail(m.newError(errInternal, "struct has no field "+o.Field))
			return
		}
		if !m.charge(costObject + len(st.Fields)*costField) {
			return
		}
		fields := append([]value.Field(nil), st.Fields...)
		fields[i].Value = args[1]
		m.val = &value.Struct{Fields: fields}
	case *resolve.ConsN:
		if !m.charge(costObject + o.N*costSlot) {
			return
		}
		m.val = args[o.N].(*value.List).Prepend(args[:o.N:o.N])
	case *resolve.Some:
		m.val = value.Some(args[0])
	case *resolve.ToAny:
		if !m.charge(costObject) {
			return
		}
		m.val = &value.Any{Type: o.Type, Value: args[0]}
	case *resolve.FromAny:
		a := args[0].(*value.Any)
		m.val = optional(a.Value, lf.TypeEqual(a.Type, o.Type))
	case *resolve.Throw:
		m.throw(&value.Any{Type: o.Type, Value: args[0]})
	case *resolve.Pure:
		m.val = args[0]
	case *resolve.Create, *resolve.Exercise, *resolve.Fetch, *resolve.GetTime, *resolve.LedgerTimeLT,
		*resolve.CreateInterface, *resolve.FetchInterface, *resolve.ExerciseInterface,
		*resolve.FetchByKey, *resolve.ExerciseByKey, *resolve.QueryNByKey, *resolve.LookupByKey:
		m.update(op, args)
	case *resolve.FromInterface, *resolve.UnsafeFromInterface, *resolve.CallInterface,
		*resolve.FromRequiredInterface, *resolve.UnsafeFromRequiredInterface, *resolve.InterfaceTemplateTypeRep,
		*resolve.SignatoryInterface, *resolve.ObserverInterface, *resolve.ViewInterface, *resolve.ChoiceController:
		m.interfaceOp(op, args)
	case *viewOp:
		m.view(o.ii, args[0])
	default:
		m.fail(m.newError(errInternal, fmt.Sprintf("unknown operation %T", op)))
	}
}
