package review

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/display/format"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Value kinds, as they appear in Value.Kind.
const (
	ValueUnit       = "unit"
	ValueBool       = "bool"
	ValueInt64      = "int64"
	ValueNumeric    = "numeric"
	ValueText       = "text"
	ValueParty      = "party"
	ValueContractID = "contractId"
	ValueDate       = "date"
	ValueTimestamp  = "timestamp"
	ValueOptional   = "optional"
	ValueList       = "list"
	ValueTextMap    = "textMap"
	ValueGenMap     = "genMap"
	ValueRecord     = "record"
	ValueVariant    = "variant"
	ValueEnum       = "enum"
)

// Value is a decoded Daml value. Which fields are set depends on Kind:
//
//   - bool, int64, numeric, text, party, contractId, date, timestamp: Text
//     holds the value as text ("true", "-42", "1.5000000000", full party and
//     contract ids, dates as YYYY-MM-DD, timestamps as UTC RFC 3339 with
//     microseconds); int64 is exact, never rounded through a float.
//   - optional: Inner is the value of Some, absent for None.
//   - list: Elements.
//   - textMap: Entries with text keys; genMap: Entries with any keys.
//   - record: Type (when the node gave it) and Fields, in order.
//   - variant: Type, Constructor and Inner.
//   - enum: Type and Constructor.
type Value struct {
	Kind        string      `json:"kind"`
	Text        *string     `json:"text,omitempty"`
	Type        *Identifier `json:"type,omitempty"`
	Constructor string      `json:"constructor,omitempty"`
	Fields      []Field     `json:"fields,omitempty"`
	Elements    []*Value    `json:"elements,omitempty"`
	Entries     []Entry     `json:"entries,omitempty"`
	Inner       *Value      `json:"value,omitempty"`
}

// Field is one record field; Label is empty when the node left it out.
type Field struct {
	Label string `json:"label"`
	Value *Value `json:"value"`
}

// Entry is one map entry.
type Entry struct {
	Key   *Value `json:"key"`
	Value *Value `json:"value"`
}

// Field is record v's field with label or, when v's fields carry no labels
// (a node may leave them out), the field at position i; nil when there is
// none or v is not a record.
func (v *Value) Field(label string, i int) *Value {
	if v == nil || v.Kind != ValueRecord {
		return nil
	}
	for _, f := range v.Fields {
		if f.Label == label {
			return f.Value
		}
	}
	if i < len(v.Fields) && v.Fields[i].Label == "" {
		return v.Fields[i].Value
	}
	return nil
}

// Scalar is the text of a scalar value ("" for the others).
func (v *Value) Scalar() string {
	if v == nil || v.Text == nil {
		return ""
	}
	return *v.Text
}

// Compact writes v on one line in Daml's notation, ids in full:
// {amount = 10.0, owner = 'alice::1220…'}, [1, 2], Some "x", Left 3.
func (v *Value) Compact() string {
	var b strings.Builder
	v.compact(&b)
	return b.String()
}

func (v *Value) compact(b *strings.Builder) {
	if v == nil {
		b.WriteString("?")
		return
	}
	list := func(n int, item func(i int)) {
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			item(i)
		}
	}
	switch v.Kind {
	case ValueUnit:
		b.WriteString("()")
	case ValueText:
		b.WriteString(strconv.Quote(v.Scalar()))
	case ValueParty, ValueContractID:
		b.WriteString("'" + format.Escape(v.Scalar()) + "'")
	case ValueOptional:
		if v.Inner == nil {
			b.WriteString("None")
			return
		}
		b.WriteString("Some ")
		v.Inner.compact(b)
	case ValueList:
		b.WriteByte('[')
		list(len(v.Elements), func(i int) { v.Elements[i].compact(b) })
		b.WriteByte(']')
	case ValueTextMap, ValueGenMap:
		b.WriteString("Map [")
		list(len(v.Entries), func(i int) {
			b.WriteByte('(')
			v.Entries[i].Key.compact(b)
			b.WriteString(", ")
			v.Entries[i].Value.compact(b)
			b.WriteByte(')')
		})
		b.WriteByte(']')
	case ValueRecord:
		b.WriteByte('{')
		list(len(v.Fields), func(i int) {
			if l := v.Fields[i].Label; l != "" {
				b.WriteString(format.Escape(l) + " = ")
			}
			v.Fields[i].Value.compact(b)
		})
		b.WriteByte('}')
	case ValueVariant:
		b.WriteString(format.Escape(v.Constructor) + " ")
		v.Inner.compact(b)
	case ValueEnum:
		b.WriteString(format.Escape(v.Constructor))
	default:
		b.WriteString(format.Escape(v.Scalar()))
	}
}

func scalar(kind, text string) *Value { return &Value{Kind: kind, Text: &text} }

// MaxValueNesting is Daml's limit on value nesting, the same bound the
// hasher applies (hashing.MaxValueNesting; a wallet test keeps them equal).
const MaxValueNesting = 100

// decodeValue converts a protobuf Value, refusing unset values and nesting
// beyond Daml's limit.
func decodeValue(v *damlpb.Value, depth int) (*Value, error) {
	if v == nil {
		return nil, fmt.Errorf("value is missing")
	}
	if depth > MaxValueNesting {
		return nil, fmt.Errorf("value nesting exceeds Daml's limit of %d", MaxValueNesting)
	}
	switch s := v.GetSum().(type) {
	case *damlpb.Value_Unit:
		return &Value{Kind: ValueUnit}, nil
	case *damlpb.Value_Bool:
		return scalar(ValueBool, strconv.FormatBool(s.Bool)), nil
	case *damlpb.Value_Int64:
		return scalar(ValueInt64, strconv.FormatInt(s.Int64, 10)), nil
	case *damlpb.Value_Numeric:
		return scalar(ValueNumeric, s.Numeric), nil
	case *damlpb.Value_Text:
		return scalar(ValueText, s.Text), nil
	case *damlpb.Value_Party:
		return scalar(ValueParty, s.Party), nil
	case *damlpb.Value_ContractId:
		return scalar(ValueContractID, s.ContractId), nil
	case *damlpb.Value_Date:
		return scalar(ValueDate, time.Unix(int64(s.Date)*86400, 0).UTC().Format("2006-01-02")), nil
	case *damlpb.Value_Timestamp:
		return scalar(ValueTimestamp, time.UnixMicro(s.Timestamp).UTC().Format(RFC3339Micro)), nil
	case *damlpb.Value_Optional:
		out := &Value{Kind: ValueOptional}
		if s.Optional.GetValue() != nil {
			inner, err := decodeValue(s.Optional.GetValue(), depth+1)
			if err != nil {
				return nil, fmt.Errorf("inside Some: %w", err)
			}
			out.Inner = inner
		}
		return out, nil
	case *damlpb.Value_List:
		out := &Value{Kind: ValueList}
		for i, e := range s.List.GetElements() {
			d, err := decodeValue(e, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out.Elements = append(out.Elements, d)
		}
		return out, nil
	case *damlpb.Value_TextMap:
		out := &Value{Kind: ValueTextMap}
		for _, e := range s.TextMap.GetEntries() {
			d, err := decodeValue(e.GetValue(), depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%q]: %w", e.GetKey(), err)
			}
			out.Entries = append(out.Entries, Entry{Key: scalar(ValueText, e.GetKey()), Value: d})
		}
		return out, nil
	case *damlpb.Value_GenMap:
		out := &Value{Kind: ValueGenMap}
		for i, e := range s.GenMap.GetEntries() {
			k, err := decodeValue(e.GetKey(), depth+1)
			if err != nil {
				return nil, fmt.Errorf("entry %d key: %w", i, err)
			}
			d, err := decodeValue(e.GetValue(), depth+1)
			if err != nil {
				return nil, fmt.Errorf("entry %d value: %w", i, err)
			}
			out.Entries = append(out.Entries, Entry{Key: k, Value: d})
		}
		return out, nil
	case *damlpb.Value_Record:
		out := &Value{Kind: ValueRecord, Type: identifier(s.Record.GetRecordId()), Fields: []Field{}}
		for i, f := range s.Record.GetFields() {
			d, err := decodeValue(f.GetValue(), depth+1)
			if err != nil {
				name := f.GetLabel()
				if name == "" {
					name = fmt.Sprintf("field %d", i)
				}
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out.Fields = append(out.Fields, Field{Label: f.GetLabel(), Value: d})
		}
		return out, nil
	case *damlpb.Value_Variant:
		inner, err := decodeValue(s.Variant.GetValue(), depth+1)
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", s.Variant.GetConstructor(), err)
		}
		return &Value{Kind: ValueVariant, Type: identifier(s.Variant.GetVariantId()),
			Constructor: s.Variant.GetConstructor(), Inner: inner}, nil
	case *damlpb.Value_Enum:
		return &Value{Kind: ValueEnum, Type: identifier(s.Enum.GetEnumId()), Constructor: s.Enum.GetConstructor()}, nil
	}
	return nil, fmt.Errorf("value has no variant set")
}

// RFC3339Micro is the layout of every time in a review: UTC, microseconds.
const RFC3339Micro = "2006-01-02T15:04:05.999999Z07:00"

// formatMicros renders µs since the epoch as UTC RFC 3339.
func formatMicros(us uint64) string {
	if us > math.MaxInt64 {
		return strconv.FormatUint(us, 10) + " µs since the epoch (out of range)"
	}
	return time.UnixMicro(int64(us)).UTC().Format(RFC3339Micro)
}

// hasHiddenCharacters reports whether any string in r holds a rune a
// terminal would not print as itself (controls, bidi overrides, zero-width
// characters).
func hasHiddenCharacters(r *Review) bool {
	found := false
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if found {
			return
		}
		switch v.Kind() {
		case reflect.String:
			found = !format.Printable(v.String())
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i))
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(r))
	return found
}
