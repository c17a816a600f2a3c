package typed

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ledger-cli/ledger/daml/value"
)

// EncodeJSON writes v, a value of the plan's type, in Canton's JSON
// encoding.
func (p *Plan) EncodeJSON(v value.Value) ([]byte, error) {
	return p.AppendJSON(nil, v)
}

// AppendJSON appends the JSON encoding of v to buf: records as objects by
// field label in the type's order, the trailing fields whose JSON is null
// left out (as Canton's JSON API writes them); Int64 and Numeric as strings
// (a Numeric in its canonical scaled form, "1.5000000000", "3."); Text,
// Party and ContractId as strings; Date "yyyy-mm-dd"; Timestamp as Java's
// ISO_DATE_TIME writes it in UTC ("2026-07-24T11:59:01.1234Z", the fraction
// without trailing zeros); Unit {}; Optional None null and Some x as x,
// nested optionals as arrays; lists as arrays; TextMap as an object; GenMap
// as [[k, v], …]; variants {"tag","value"}; enums by constructor name.
func (p *Plan) AppendJSON(buf []byte, v value.Value) ([]byte, error) {
	e := encoder{buf: buf}
	if err := e.value(p, v, 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

type encoder struct{ buf []byte }

func mismatch(p *Plan, v value.Value) error {
	if v == nil {
		return fmt.Errorf("no value for type %s", p.Type)
	}
	return fmt.Errorf("value %s is not of type %s", clip(v.String()), p.Type)
}

func (e *encoder) value(p *Plan, v value.Value, depth int) error {
	if depth > MaxNesting+1 {
		return fmt.Errorf("value nests deeper than %d", MaxNesting)
	}
	depth++
	switch p.Kind {
	case KindUnit:
		if _, ok := v.(value.Unit); !ok {
			return mismatch(p, v)
		}
		e.buf = append(e.buf, "{}"...)
	case KindBool:
		b, ok := v.(value.Bool)
		if !ok {
			return mismatch(p, v)
		}
		e.buf = strconv.AppendBool(e.buf, bool(b))
	case KindInt64:
		n, ok := v.(value.Int64)
		if !ok {
			return mismatch(p, v)
		}
		e.buf = append(e.buf, '"')
		e.buf = strconv.AppendInt(e.buf, int64(n), 10)
		e.buf = append(e.buf, '"')
	case KindNumeric:
		n, ok := v.(value.Numeric)
		if !ok {
			return mismatch(p, v)
		}
		e.buf = append(e.buf, '"')
		e.buf = append(e.buf, n.String()...)
		e.buf = append(e.buf, '"')
	case KindText:
		t, ok := v.(value.Text)
		if !ok {
			return mismatch(p, v)
		}
		e.str(string(t))
	case KindParty:
		t, ok := v.(value.Party)
		if !ok {
			return mismatch(p, v)
		}
		e.str(string(t))
	case KindContractID:
		t, ok := v.(value.ContractID)
		if !ok {
			return mismatch(p, v)
		}
		e.str(string(t))
	case KindTimestamp:
		t, ok := v.(value.Timestamp)
		if !ok {
			return mismatch(p, v)
		}
		e.timestamp(t)
	case KindDate:
		t, ok := v.(value.Date)
		if !ok {
			return mismatch(p, v)
		}
		e.buf = append(e.buf, '"')
		e.buf = t.Time().AppendFormat(e.buf, time.DateOnly)
		e.buf = append(e.buf, '"')
	case KindOptional:
		o, ok := v.(value.Optional)
		if !ok {
			return mismatch(p, v)
		}
		if p.Nested {
			return e.nestedOptional(p, o, depth)
		}
		if o.Value == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.value(p.Elem, o.Value, depth)
	case KindList:
		l, ok := v.(*value.List)
		if !ok {
			return mismatch(p, v)
		}
		e.buf = append(e.buf, '[')
		i := 0
		for x := range l.All() {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			i++
			if err := e.value(p.Elem, x, depth); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
	case KindTextMap:
		m, ok := v.(*value.TextMap)
		if !ok {
			return mismatch(p, v)
		}
		e.buf = append(e.buf, '{')
		for i, en := range m.Entries() {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(en.Key)
			e.buf = append(e.buf, ':')
			if err := e.value(p.Elem, en.Value, depth); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, '}')
	case KindGenMap:
		m, ok := v.(*value.GenMap)
		if !ok {
			return mismatch(p, v)
		}
		e.buf = append(e.buf, '[')
		for i, en := range m.Entries() {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = append(e.buf, '[')
			if err := e.value(p.Key, en.Key, depth); err != nil {
				return err
			}
			e.buf = append(e.buf, ',')
			if err := e.value(p.Elem, en.Value, depth); err != nil {
				return err
			}
			e.buf = append(e.buf, ']')
		}
		e.buf = append(e.buf, ']')
	case KindRecord:
		r, ok := v.(*value.Record)
		if !ok || len(r.Fields) > len(p.Fields) {
			return mismatch(p, v)
		}
		e.buf = append(e.buf, '{')
		start := len(e.buf)
		keep := start // end of the last field whose JSON is not null
		for i, f := range p.Fields {
			fv := none
			if i < len(r.Fields) {
				fv = r.Fields[i].Value
			}
			if len(e.buf) > start {
				e.buf = append(e.buf, ',')
			}
			e.str(f.Name)
			e.buf = append(e.buf, ':')
			if err := e.value(f.Plan, fv, depth); err != nil {
				return fmt.Errorf("%s: %w", f.Name, err)
			}
			if !isNullJSON(e.buf) {
				keep = len(e.buf)
			}
		}
		e.buf = append(e.buf[:keep], '}')
	case KindVariant:
		x, ok := v.(*value.Variant)
		if !ok {
			return mismatch(p, v)
		}
		i, ok := p.index[x.Constructor]
		if !ok {
			return fmt.Errorf("%s has no constructor %s", p.ID.QualifiedName(), x.Constructor)
		}
		e.buf = append(e.buf, `{"tag":`...)
		e.str(x.Constructor)
		e.buf = append(e.buf, `,"value":`...)
		if err := e.value(p.Fields[i].Plan, x.Value, depth); err != nil {
			return err
		}
		e.buf = append(e.buf, '}')
	case KindEnum:
		x, ok := v.(*value.Enum)
		if !ok {
			return mismatch(p, v)
		}
		if _, ok := p.index[x.Constructor]; !ok {
			return fmt.Errorf("%s has no constructor %s", p.ID.QualifiedName(), x.Constructor)
		}
		e.str(x.Constructor)
	default:
		return fmt.Errorf("type %s cannot be encoded", p.Type)
	}
	return nil
}

// isNullJSON reports whether buf ends with a field value null.
func isNullJSON(buf []byte) bool {
	n := len(buf)
	return n >= 5 && string(buf[n-5:]) == ":null"
}

func (e *encoder) nestedOptional(p *Plan, o value.Optional, depth int) error {
	if o.Value == nil {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	e.buf = append(e.buf, '[')
	if p.Nested {
		inner, ok := o.Value.(value.Optional)
		if !ok {
			return mismatch(p.Elem, o.Value)
		}
		if err := e.nestedOptional(p.Elem, inner, depth+1); err != nil {
			return err
		}
	} else if err := e.value(p.Elem, o.Value, depth); err != nil {
		return err
	}
	e.buf = append(e.buf, ']')
	return nil
}

const hexDigits = "0123456789abcdef"

// str appends s as a JSON string, escaping quotes, backslashes and control
// characters only.
func (e *encoder) str(s string) {
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		e.buf = append(e.buf, s[start:i]...)
		switch c {
		case '"', '\\':
			e.buf = append(e.buf, '\\', c)
		case '\n':
			e.buf = append(e.buf, '\\', 'n')
		case '\r':
			e.buf = append(e.buf, '\\', 'r')
		case '\t':
			e.buf = append(e.buf, '\\', 't')
		case '\b':
			e.buf = append(e.buf, '\\', 'b')
		case '\f':
			e.buf = append(e.buf, '\\', 'f')
		default:
			e.buf = append(e.buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
}

// timestamp appends t as Java's ISO_DATE_TIME writes an Instant in UTC:
// "2026-07-24T11:59:01Z", with the fraction of a second, when not zero,
// without trailing zeros.
func (e *encoder) timestamp(t value.Timestamp) {
	tt := t.Time()
	year, month, day := tt.Date()
	hour, minute, sec := tt.Clock()
	e.buf = append(e.buf, '"')
	e.buf = appendDigits(e.buf, year, 4)
	e.buf = append(e.buf, '-')
	e.buf = appendDigits(e.buf, int(month), 2)
	e.buf = append(e.buf, '-')
	e.buf = appendDigits(e.buf, day, 2)
	e.buf = append(e.buf, 'T')
	e.buf = appendDigits(e.buf, hour, 2)
	e.buf = append(e.buf, ':')
	e.buf = appendDigits(e.buf, minute, 2)
	e.buf = append(e.buf, ':')
	e.buf = appendDigits(e.buf, sec, 2)
	if us := tt.Nanosecond() / 1000; us != 0 {
		n := 6
		for us%10 == 0 {
			us /= 10
			n--
		}
		e.buf = append(e.buf, '.')
		e.buf = appendDigits(e.buf, us, n)
	}
	e.buf = append(e.buf, 'Z', '"')
}

// appendDigits appends v with at least n digits, zero-padded.
func appendDigits(buf []byte, v, n int) []byte {
	var tmp [20]byte
	i := len(tmp)
	for v > 0 || n > 0 {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		n--
	}
	return append(buf, tmp[i:]...)
}
