package contract

import (
	"errors"
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

// TranslationError is a contract argument that does not fit its template's
// type in the target package. Path names the value ("arg.owner",
// "arg.items[2]").
type TranslationError struct {
	Path   string
	Reason string
}

func (e *TranslationError) Error() string { return e.Path + ": " + e.Reason }

// Translate gives a stored argument the types of the template tmpl (in the
// target package, which may be a later version of the creating one), as
// Canton's ValueTranslator does before a TypedNormalForm hash: records get
// their type constructor and labels, variants and enums their rank,
// numerics the scale of their type, and generic maps Daml's order. The
// upgrade rules apply: a record may lack trailing fields of Optional type
// (they become None), and may have extra trailing fields only if they are
// None (they are dropped). Local contract ids are refused: a hashed
// argument holds suffixed ids only.
func Translate(types *typed.Env, tmpl lf.TypeConName, arg value.Value) (value.Value, error) {
	if types == nil {
		return nil, errors.New("translate: no packages to take the types from")
	}
	p, err := types.Plan(lf.TCon{Con: tmpl})
	if err != nil {
		return nil, fmt.Errorf("translate: template %s: %w", tmpl, err)
	}
	return TranslateByPlan(p, arg)
}

// TranslateByPlan is Translate with the template's compiled type.
func TranslateByPlan(p *typed.Plan, arg value.Value) (value.Value, error) {
	t := translator{path: []byte("arg")}
	return t.value(p, arg, 0)
}

type translator struct{ path []byte }

func (t *translator) fail(format string, args ...any) error {
	return &TranslationError{Path: string(t.path), Reason: fmt.Sprintf(format, args...)}
}

func (t *translator) mismatch(p *typed.Plan, v value.Value) error {
	if v == nil {
		return t.fail("expected a value of type %s, got none", p.Type)
	}
	return t.fail("expected a value of type %s, got a %s", p.Type, v.Kind())
}

func (t *translator) value(p *typed.Plan, v value.Value, depth int) (value.Value, error) {
	if depth > maxNesting {
		return nil, ErrNesting
	}
	ok := true
	switch p.Kind {
	case typed.KindUnit:
		_, ok = v.(value.Unit)
	case typed.KindBool:
		_, ok = v.(value.Bool)
	case typed.KindInt64:
		_, ok = v.(value.Int64)
	case typed.KindText:
		_, ok = v.(value.Text)
	case typed.KindParty:
		_, ok = v.(value.Party)
	case typed.KindTimestamp:
		_, ok = v.(value.Timestamp)
	case typed.KindDate:
		_, ok = v.(value.Date)
	case typed.KindContractID:
		c, isCid := v.(value.ContractID)
		if isCid && c.IsLocal() {
			return nil, t.fail("contract id %s is local: suffix it before hashing", c)
		}
		ok = isCid
	case typed.KindNumeric:
		n, isNum := v.(value.Numeric)
		if !isNum {
			return nil, t.mismatch(p, v)
		}
		if n.Scale() == p.Scale {
			return n, nil
		}
		m, err := value.CastNumeric(p.Scale, n)
		if err != nil {
			return nil, t.fail("cannot represent %s as (Numeric %d) without loss of precision", n, p.Scale)
		}
		return m, nil
	case typed.KindOptional:
		o, isOpt := v.(value.Optional)
		if !isOpt {
			return nil, t.mismatch(p, v)
		}
		if o.Value == nil {
			return o, nil
		}
		inner, err := t.value(p.Elem, o.Value, depth+1)
		if err != nil {
			return nil, err
		}
		return value.Some(inner), nil
	case typed.KindList:
		return t.list(p, v, depth)
	case typed.KindTextMap:
		return t.textMap(p, v, depth)
	case typed.KindGenMap:
		return t.genMap(p, v, depth)
	case typed.KindRecord:
		return t.record(p, v, depth)
	case typed.KindVariant:
		x, isVariant := v.(*value.Variant)
		if !isVariant {
			return nil, t.mismatch(p, v)
		}
		rank, found := p.Index(x.Constructor)
		if !found {
			return nil, t.fail("unknown constructor %s of variant %s", x.Constructor, p.ID)
		}
		at := len(t.path)
		t.path = append(t.path, "."+x.Constructor...)
		inner, err := t.value(p.Fields[rank].Plan, x.Value, depth+1)
		t.path = t.path[:at]
		if err != nil {
			return nil, err
		}
		return &value.Variant{TypeCon: p.ID, Constructor: x.Constructor, Rank: rank, Value: inner}, nil
	case typed.KindEnum:
		x, isEnum := v.(*value.Enum)
		if !isEnum {
			return nil, t.mismatch(p, v)
		}
		rank, found := p.Index(x.Constructor)
		if !found {
			return nil, t.fail("unknown constructor %s of enum %s", x.Constructor, p.ID)
		}
		return &value.Enum{TypeCon: p.ID, Constructor: x.Constructor, Rank: rank}, nil
	default:
		return nil, t.fail("type %s is not serializable", p.Type)
	}
	if !ok {
		return nil, t.mismatch(p, v)
	}
	return v, nil
}

func (t *translator) list(p *typed.Plan, v value.Value, depth int) (value.Value, error) {
	x, isList := v.(*value.List)
	if !isList {
		return nil, t.mismatch(p, v)
	}
	out := make([]value.Value, 0, x.Len())
	at := len(t.path)
	i := 0
	for el := range x.All() {
		t.path = fmt.Appendf(t.path[:at], "[%d]", i)
		tv, err := t.value(p.Elem, el, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, tv)
		i++
	}
	t.path = t.path[:at]
	return value.NewList(out...), nil
}

func (t *translator) textMap(p *typed.Plan, v value.Value, depth int) (value.Value, error) {
	x, isMap := v.(*value.TextMap)
	if !isMap {
		return nil, t.mismatch(p, v)
	}
	out := make([]value.TextMapEntry, 0, x.Len())
	at := len(t.path)
	for _, en := range x.Entries() {
		t.path = fmt.Appendf(t.path[:at], "[%q]", en.Key)
		tv, err := t.value(p.Elem, en.Value, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, value.TextMapEntry{Key: en.Key, Value: tv})
	}
	t.path = t.path[:at]
	m, err := value.NewTextMap(out)
	if err != nil {
		return nil, t.fail("%v", err)
	}
	return m, nil
}

func (t *translator) genMap(p *typed.Plan, v value.Value, depth int) (value.Value, error) {
	x, isMap := v.(*value.GenMap)
	if !isMap {
		return nil, t.mismatch(p, v)
	}
	out := make([]value.GenMapEntry, 0, x.Len())
	at := len(t.path)
	for i, en := range x.Entries() {
		t.path = fmt.Appendf(t.path[:at], "[%d].key", i)
		k, err := t.value(p.Key, en.Key, depth+1)
		if err != nil {
			return nil, err
		}
		t.path = fmt.Appendf(t.path[:at], "[%d].value", i)
		tv, err := t.value(p.Elem, en.Value, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, value.GenMapEntry{Key: k, Value: tv})
	}
	t.path = t.path[:at]
	m, err := value.NewGenMap(out)
	if err != nil {
		return nil, t.fail("%v", err)
	}
	return m, nil
}

func (t *translator) record(p *typed.Plan, v value.Value, depth int) (value.Value, error) {
	x, isRecord := v.(*value.Record)
	if !isRecord {
		return nil, t.mismatch(p, v)
	}
	for i := len(p.Fields); i < len(x.Fields); i++ {
		if o, isOpt := x.Fields[i].Value.(value.Optional); !isOpt || o.Value != nil {
			return nil, t.fail("record of type %s has %d fields, and field %d beyond them is not None: an optional field with a value of Some may not be dropped during downgrading", p.ID, len(p.Fields), i)
		}
	}
	out := make([]value.Field, len(p.Fields))
	at := len(t.path)
	for i, fp := range p.Fields {
		out[i].Label = fp.Name
		if i >= len(x.Fields) {
			if fp.Plan.Kind != typed.KindOptional {
				return nil, t.fail("record of type %s misses the non-optional field %s", p.ID, fp.Name)
			}
			out[i].Value = value.None
			continue
		}
		if l := x.Fields[i].Label; l != "" && l != fp.Name {
			return nil, t.fail("field %d of type %s is %s, not %s", i, p.ID, fp.Name, l)
		}
		t.path = append(append(t.path[:at], '.'), fp.Name...)
		fv, err := t.value(fp.Plan, x.Fields[i].Value, depth+1)
		if err != nil {
			return nil, err
		}
		out[i].Value = fv
	}
	t.path = t.path[:at]
	return &value.Record{TypeCon: p.ID, Fields: out}, nil
}

// Normalize returns v as Canton stores contract arguments: records without
// type constructors, labels or trailing None fields, variants and enums
// without type constructors, at every level.
func Normalize(v value.Value) value.Value {
	switch x := v.(type) {
	case value.Optional:
		if x.Value != nil {
			return value.Some(Normalize(x.Value))
		}
	case *value.List:
		out := make([]value.Value, 0, x.Len())
		for el := range x.All() {
			out = append(out, Normalize(el))
		}
		return value.NewList(out...)
	case *value.TextMap:
		out := make([]value.TextMapEntry, 0, x.Len())
		for _, en := range x.Entries() {
			out = append(out, value.TextMapEntry{Key: en.Key, Value: Normalize(en.Value)})
		}
		m, _ := value.NewTextMap(out) // keys stay distinct and sorted
		return m
	case *value.GenMap:
		out := make([]value.GenMapEntry, 0, x.Len())
		for _, en := range x.Entries() {
			out = append(out, value.GenMapEntry{Key: Normalize(en.Key), Value: Normalize(en.Value)})
		}
		return value.GenMapInOrder(out)
	case *value.Record:
		n := len(x.Fields)
		for n > 0 {
			if o, ok := x.Fields[n-1].Value.(value.Optional); !ok || o.Value != nil {
				break
			}
			n--
		}
		out := make([]value.Field, n)
		for i, f := range x.Fields[:n] {
			out[i] = value.Field{Value: Normalize(f.Value)}
		}
		return &value.Record{Fields: out}
	case *value.Variant:
		return &value.Variant{Constructor: x.Constructor, Rank: x.Rank, Value: Normalize(x.Value)}
	case *value.Enum:
		return &value.Enum{Constructor: x.Constructor, Rank: x.Rank}
	}
	return v
}
