package value

import (
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
)

// Equal reports whether a and b, two values of the same type, are equal
// under Daml's generic equality (EQUAL). It fails with ErrNotComparable when
// it meets a function, and with a *ComparabilityError when the contract-id
// comparability rule forbids comparing two contract ids (see Compare).
//
// Equal and Compare walk values with an explicit stack, so deeply nested
// values do not grow the Go stack.
func Equal(a, b Value) (bool, error) {
	if eq, done, err := equalScalar(a, b); done {
		return eq, err
	}
	w := walker{}
	w.push(a, b)
	for len(w.stack) > 0 {
		f := &w.stack[len(w.stack)-1]
		if f.i >= f.len {
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		x, y := f.at(f.i)
		f.i++
		if eq, done, err := equalScalar(x, y); done {
			if err != nil || !eq {
				return false, err
			}
			continue
		}
		eq, err := w.expandEqual(x, y)
		if err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// Compare orders a and b, two values of the same type, by Daml's generic
// order (LESS_EQ and friends): -1, 0 or +1. Records and structs compare
// field by field, variants and enums by constructor rank then argument,
// lists and maps lexicographically (maps by entries in key order), None
// before Some, Any by type then value, text by code point. It fails with
// ErrNotComparable on functions and with a *ComparabilityError when a local
// contract id meets a suffixed one with the same prefix (contract-id.rst).
func Compare(a, b Value) (int, error) {
	if c, done, err := compareScalar(a, b); done {
		return c, err
	}
	w := walker{}
	w.push(a, b)
	for len(w.stack) > 0 {
		f := &w.stack[len(w.stack)-1]
		if f.i >= f.len {
			w.stack = w.stack[:len(w.stack)-1]
			if f.xn != f.yn {
				if f.xn < f.yn {
					return -1, nil
				}
				return 1, nil
			}
			continue
		}
		x, y := f.at(f.i)
		f.i++
		if c, done, err := compareScalar(x, y); done {
			if err != nil || c != 0 {
				return c, err
			}
			continue
		}
		c, err := w.expandCompare(x, y)
		if err != nil || c != 0 {
			return c, err
		}
	}
	return 0, nil
}

// frame is a pair of sequences being compared element by element: either
// the fields of two records or structs, or two slices of values. len is the
// length of the common prefix; xn and yn the full lengths.
type frame struct {
	xf, yf []Field
	xs, ys []Value
	i, len int
	xn, yn int
}

func (f *frame) at(i int) (Value, Value) {
	if f.xf != nil {
		return f.xf[i].Value, f.yf[i].Value
	}
	return f.xs[i], f.ys[i]
}

type walker struct{ stack []frame }

func (w *walker) push(a, b Value) {
	w.pushValues([]Value{a}, []Value{b})
}

func (w *walker) pushValues(xs, ys []Value) {
	n := min(len(xs), len(ys))
	w.stack = append(w.stack, frame{xs: xs, ys: ys, len: n, xn: len(xs), yn: len(ys)})
}

func (w *walker) pushFields(xf, yf []Field) {
	n := min(len(xf), len(yf))
	if n == 0 {
		w.stack = append(w.stack, frame{xn: len(xf), yn: len(yf)})
		return
	}
	w.stack = append(w.stack, frame{xf: xf, yf: yf, len: n, xn: len(xf), yn: len(yf)})
}

func kindMismatch(a, b Value) error {
	return fmt.Errorf("trying to compare values of different types: %s and %s", a.Kind(), b.Kind())
}

// equalScalar decides the equality of two values that need no walking;
// done is false for composite values.
func equalScalar(a, b Value) (eq, done bool, err error) {
	switch x := a.(type) {
	case Unit:
		_, ok := b.(Unit)
		return ok, true, mismatchIf(!ok, a, b)
	case Bool:
		y, ok := b.(Bool)
		return ok && x == y, true, mismatchIf(!ok, a, b)
	case Int64:
		y, ok := b.(Int64)
		return ok && x == y, true, mismatchIf(!ok, a, b)
	case Text:
		y, ok := b.(Text)
		return ok && x == y, true, mismatchIf(!ok, a, b)
	case Party:
		y, ok := b.(Party)
		return ok && x == y, true, mismatchIf(!ok, a, b)
	case Timestamp:
		y, ok := b.(Timestamp)
		return ok && x == y, true, mismatchIf(!ok, a, b)
	case Date:
		y, ok := b.(Date)
		return ok && x == y, true, mismatchIf(!ok, a, b)
	case Numeric:
		y, ok := b.(Numeric)
		return ok && x.Cmp(y) == 0, true, mismatchIf(!ok, a, b)
	case ContractID:
		y, ok := b.(ContractID)
		if !ok {
			return false, true, kindMismatch(a, b)
		}
		eq, err := equalContractIDs(x, y)
		return eq, true, err
	case *Enum:
		y, ok := b.(*Enum)
		return ok && x.Rank == y.Rank, true, mismatchIf(!ok, a, b)
	case TypeRep:
		y, ok := b.(TypeRep)
		return ok && lf.TypeEqual(x.Type, y.Type), true, mismatchIf(!ok, a, b)
	}
	if a.Kind() == KindFunction || b.Kind() == KindFunction {
		return false, true, ErrNotComparable
	}
	if a.Kind() != b.Kind() {
		return false, true, kindMismatch(a, b)
	}
	return false, false, nil
}

func mismatchIf(bad bool, a, b Value) error {
	if bad {
		return kindMismatch(a, b)
	}
	return nil
}

// expandEqual handles two composite values of the same kind: it decides
// what it can at this level and pushes the children.
func (w *walker) expandEqual(a, b Value) (bool, error) {
	switch x := a.(type) {
	case *Record:
		y := b.(*Record)
		if len(x.Fields) != len(y.Fields) {
			return false, nil
		}
		w.pushFields(x.Fields, y.Fields)
	case *Struct:
		y := b.(*Struct)
		if len(x.Fields) != len(y.Fields) {
			return false, nil
		}
		w.pushFields(x.Fields, y.Fields)
	case *Variant:
		y := b.(*Variant)
		if x.Rank != y.Rank {
			return false, nil
		}
		w.push(x.Value, y.Value)
	case Optional:
		y := b.(Optional)
		if (x.Value == nil) != (y.Value == nil) {
			return false, nil
		}
		if x.Value != nil {
			w.push(x.Value, y.Value)
		}
	case *List:
		y := b.(*List)
		if x.Len() != y.Len() {
			return false, nil
		}
		w.pushValues(x.Slice(), y.Slice())
	case *TextMap:
		y := b.(*TextMap)
		if x.Len() != y.Len() {
			return false, nil
		}
		w.pushValues(textMapItems(x), textMapItems(y))
	case *GenMap:
		y := b.(*GenMap)
		if x.Len() != y.Len() {
			return false, nil
		}
		w.pushValues(genMapItems(x), genMapItems(y))
	case *Any:
		y := b.(*Any)
		if !lf.TypeEqual(x.Type, y.Type) {
			return false, nil
		}
		w.push(x.Value, y.Value)
	default:
		return false, fmt.Errorf("cannot compare values of kind %s", a.Kind())
	}
	return true, nil
}

// compareScalar orders two values that need no walking; done is false for
// composite values.
func compareScalar(a, b Value) (c int, done bool, err error) {
	switch x := a.(type) {
	case Unit:
		_, ok := b.(Unit)
		return 0, true, mismatchIf(!ok, a, b)
	case Bool:
		y, ok := b.(Bool)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return cmpBool(bool(x), bool(y)), true, nil
	case Int64:
		y, ok := b.(Int64)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return cmpInt(int64(x), int64(y)), true, nil
	case Text:
		y, ok := b.(Text)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return strings.Compare(string(x), string(y)), true, nil
	case Party:
		y, ok := b.(Party)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return strings.Compare(string(x), string(y)), true, nil
	case Timestamp:
		y, ok := b.(Timestamp)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return cmpInt(int64(x), int64(y)), true, nil
	case Date:
		y, ok := b.(Date)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return cmpInt(int64(x), int64(y)), true, nil
	case Numeric:
		y, ok := b.(Numeric)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return x.Cmp(y), true, nil
	case ContractID:
		y, ok := b.(ContractID)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		c, err := compareContractIDs(x, y)
		return c, true, err
	case *Enum:
		y, ok := b.(*Enum)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return cmpInt(int64(x.Rank), int64(y.Rank)), true, nil
	case TypeRep:
		y, ok := b.(TypeRep)
		if !ok {
			return 0, true, kindMismatch(a, b)
		}
		return CompareTypes(x.Type, y.Type), true, nil
	}
	if a.Kind() == KindFunction || b.Kind() == KindFunction {
		return 0, true, ErrNotComparable
	}
	if a.Kind() != b.Kind() {
		return 0, true, kindMismatch(a, b)
	}
	return 0, false, nil
}

// expandCompare handles two composite values of the same kind.
func (w *walker) expandCompare(a, b Value) (int, error) {
	switch x := a.(type) {
	case *Record:
		w.pushFields(x.Fields, b.(*Record).Fields)
	case *Struct:
		w.pushFields(x.Fields, b.(*Struct).Fields)
	case *Variant:
		y := b.(*Variant)
		if c := cmpInt(int64(x.Rank), int64(y.Rank)); c != 0 {
			return c, nil
		}
		w.push(x.Value, y.Value)
	case Optional:
		y := b.(Optional)
		switch {
		case x.Value == nil && y.Value == nil:
		case x.Value == nil:
			return -1, nil
		case y.Value == nil:
			return 1, nil
		default:
			w.push(x.Value, y.Value)
		}
	case *List:
		w.pushValues(x.Slice(), b.(*List).Slice())
	case *TextMap:
		w.pushValues(textMapItems(x), textMapItems(b.(*TextMap)))
	case *GenMap:
		w.pushValues(genMapItems(x), genMapItems(b.(*GenMap)))
	case *Any:
		y := b.(*Any)
		if c := CompareTypes(x.Type, y.Type); c != 0 {
			return c, nil
		}
		w.push(x.Value, y.Value)
	default:
		return 0, fmt.Errorf("cannot compare values of kind %s", a.Kind())
	}
	return 0, nil
}

// textMapItems interlaces keys and values: k1, v1, k2, v2, …
func textMapItems(m *TextMap) []Value {
	out := make([]Value, 0, 2*m.Len())
	for _, e := range m.Entries() {
		out = append(out, Text(e.Key), e.Value)
	}
	return out
}

func genMapItems(m *GenMap) []Value {
	out := make([]Value, 0, 2*m.Len())
	for _, e := range m.Entries() {
		out = append(out, e.Key, e.Value)
	}
	return out
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// builtinTypeRank orders the builtin types as Canton's TypeOrdering does:
// in the order of the Daml-LF protobuf enum, which differs from the
// specification's prose order (NOTES.md).
var builtinTypeRank = map[lf.BuiltinType]int{
	lf.BuiltinUnit: 0, lf.BuiltinBool: 1, lf.BuiltinInt64: 2, lf.BuiltinDate: 3,
	lf.BuiltinTimestamp: 4, lf.BuiltinNumeric: 5, lf.BuiltinParty: 6, lf.BuiltinText: 7,
	lf.BuiltinContractID: 8, lf.BuiltinOptional: 9, lf.BuiltinList: 10, lf.BuiltinGenMap: 11,
	lf.BuiltinAny: 12, lf.BuiltinAnyException: 13, lf.BuiltinTypeRep: 14, lf.BuiltinArrow: 15,
	lf.BuiltinUpdate: 16, lf.BuiltinFailureCategory: 17, lf.BuiltinTextMap: 18,
	lf.BuiltinBigNumeric: 19, lf.BuiltinRoundingMode: 20,
}

func typeRank(t lf.Type) int {
	switch t.(type) {
	case lf.TBuiltin:
		return 0
	case lf.TCon:
		return 1
	case lf.TNat:
		return 2
	case lf.TStruct:
		return 3
	case lf.TApp:
		return 4
	}
	return 5 // variables, foralls and synonyms never reach a type_rep
}

// CompareTypes orders two closed types as Canton's TypeOrdering does:
// builtins (by protobuf enum order) < type constructors (by package id,
// module, name, each dotted name segment by segment) < naturals < structs
// (by field names, then field types) < applications (function, then
// argument).
func CompareTypes(a, b lf.Type) int {
	type pair struct{ a, b lf.Type }
	stack := []pair{{a, b}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := p.a.(type) {
		case lf.TBuiltin:
			if y, ok := p.b.(lf.TBuiltin); ok {
				if c := cmpInt(int64(builtinTypeRank[x.Builtin]), int64(builtinTypeRank[y.Builtin])); c != 0 {
					return c
				}
				continue
			}
		case lf.TCon:
			if y, ok := p.b.(lf.TCon); ok {
				if c := compareTypeCons(x.Con, y.Con); c != 0 {
					return c
				}
				continue
			}
		case lf.TNat:
			if y, ok := p.b.(lf.TNat); ok {
				if c := cmpInt(int64(x.N), int64(y.N)); c != 0 {
					return c
				}
				continue
			}
		case lf.TStruct:
			if y, ok := p.b.(lf.TStruct); ok {
				n := min(len(x.Fields), len(y.Fields))
				for i := 0; i < n; i++ {
					if c := strings.Compare(x.Fields[i].Name, y.Fields[i].Name); c != 0 {
						return c
					}
				}
				if c := cmpInt(int64(len(x.Fields)), int64(len(y.Fields))); c != 0 {
					return c
				}
				for i := n - 1; i >= 0; i-- {
					stack = append(stack, pair{x.Fields[i].Type, y.Fields[i].Type})
				}
				continue
			}
		case lf.TApp:
			if y, ok := p.b.(lf.TApp); ok {
				stack = append(stack, pair{x.Arg, y.Arg}, pair{x.Fun, y.Fun})
				continue
			}
		}
		if c := cmpInt(int64(typeRank(p.a)), int64(typeRank(p.b))); c != 0 {
			return c
		}
	}
	return 0
}

func compareTypeCons(a, b lf.TypeConName) int {
	if c := strings.Compare(string(a.Package), string(b.Package)); c != 0 {
		return c
	}
	if c := compareSegments(a.Module, b.Module); c != 0 {
		return c
	}
	return compareSegments(a.Name, b.Name)
}

func compareSegments(a, b lf.DottedName) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(a)), int64(len(b)))
}
