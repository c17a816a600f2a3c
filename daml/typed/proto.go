package typed

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/types/known/emptypb"
)

// ToProto returns v as the Value of a Canton transaction, the way Canton
// writes the values of a prepared transaction (its InteractiveSubmission
// enricher): records carry their type id and field labels, variants and
// enums their type id, and the trailing fields of a record that are None
// are left out, at every level. Maps keep their sorted order.
func ToProto(v value.Value) (*damlpb.Value, error) {
	return toProto(v, 0, false)
}

// ToProtoAsIs returns v as a transaction Value with every record field it
// holds, trailing None fields too: the form of the generic contract model,
// whose values have no types to say which fields are optional, and of a
// stored value read back (FromProtoAsIs).
func ToProtoAsIs(v value.Value) (*damlpb.Value, error) {
	return toProto(v, 0, true)
}

func protoID(id *value.Identifier) *damlpb.Identifier {
	if id == nil {
		return nil
	}
	return &damlpb.Identifier{PackageId: id.PackageID, ModuleName: id.ModuleName, EntityName: id.EntityName}
}

func toProto(v value.Value, depth int, asIs bool) (*damlpb.Value, error) {
	if depth > MaxNesting+1 {
		return nil, fmt.Errorf("value nests deeper than %d", MaxNesting)
	}
	depth++
	switch x := v.(type) {
	case value.Unit:
		return &damlpb.Value{Sum: &damlpb.Value_Unit{Unit: &emptypb.Empty{}}}, nil
	case value.Bool:
		return &damlpb.Value{Sum: &damlpb.Value_Bool{Bool: bool(x)}}, nil
	case value.Int64:
		return &damlpb.Value{Sum: &damlpb.Value_Int64{Int64: int64(x)}}, nil
	case value.Numeric:
		return &damlpb.Value{Sum: &damlpb.Value_Numeric{Numeric: x.String()}}, nil
	case value.Text:
		return &damlpb.Value{Sum: &damlpb.Value_Text{Text: string(x)}}, nil
	case value.Party:
		return &damlpb.Value{Sum: &damlpb.Value_Party{Party: string(x)}}, nil
	case value.ContractID:
		return &damlpb.Value{Sum: &damlpb.Value_ContractId{ContractId: string(x)}}, nil
	case value.Timestamp:
		return &damlpb.Value{Sum: &damlpb.Value_Timestamp{Timestamp: int64(x)}}, nil
	case value.Date:
		return &damlpb.Value{Sum: &damlpb.Value_Date{Date: int32(x)}}, nil
	case value.Optional:
		o := &damlpb.Optional{}
		if x.Value != nil {
			inner, err := toProto(x.Value, depth, asIs)
			if err != nil {
				return nil, err
			}
			o.Value = inner
		}
		return &damlpb.Value{Sum: &damlpb.Value_Optional{Optional: o}}, nil
	case *value.List:
		l := &damlpb.List{Elements: make([]*damlpb.Value, 0, x.Len())}
		for e := range x.All() {
			pe, err := toProto(e, depth, asIs)
			if err != nil {
				return nil, err
			}
			l.Elements = append(l.Elements, pe)
		}
		return &damlpb.Value{Sum: &damlpb.Value_List{List: l}}, nil
	case *value.TextMap:
		m := &damlpb.TextMap{}
		for _, e := range x.Entries() {
			pv, err := toProto(e.Value, depth, asIs)
			if err != nil {
				return nil, err
			}
			m.Entries = append(m.Entries, &damlpb.TextMap_Entry{Key: e.Key, Value: pv})
		}
		return &damlpb.Value{Sum: &damlpb.Value_TextMap{TextMap: m}}, nil
	case *value.GenMap:
		m := &damlpb.GenMap{}
		for _, e := range x.Entries() {
			pk, err := toProto(e.Key, depth, asIs)
			if err != nil {
				return nil, err
			}
			pv, err := toProto(e.Value, depth, asIs)
			if err != nil {
				return nil, err
			}
			m.Entries = append(m.Entries, &damlpb.GenMap_Entry{Key: pk, Value: pv})
		}
		return &damlpb.Value{Sum: &damlpb.Value_GenMap{GenMap: m}}, nil
	case *value.Record:
		n := len(x.Fields)
		for n > 0 && !asIs {
			if o, ok := x.Fields[n-1].Value.(value.Optional); ok && o.Value == nil {
				n--
				continue
			}
			break
		}
		r := &damlpb.Record{RecordId: protoID(x.TypeCon), Fields: make([]*damlpb.RecordField, n)}
		for i, f := range x.Fields[:n] {
			pv, err := toProto(f.Value, depth, asIs)
			if err != nil {
				return nil, err
			}
			r.Fields[i] = &damlpb.RecordField{Label: f.Label, Value: pv}
		}
		return &damlpb.Value{Sum: &damlpb.Value_Record{Record: r}}, nil
	case *value.Variant:
		pv, err := toProto(x.Value, depth, asIs)
		if err != nil {
			return nil, err
		}
		return &damlpb.Value{Sum: &damlpb.Value_Variant{Variant: &damlpb.Variant{
			VariantId: protoID(x.TypeCon), Constructor: x.Constructor, Value: pv}}}, nil
	case *value.Enum:
		return &damlpb.Value{Sum: &damlpb.Value_Enum{Enum: &damlpb.Enum{
			EnumId: protoID(x.TypeCon), Constructor: x.Constructor}}}, nil
	case nil:
		return nil, fmt.Errorf("no value")
	}
	return nil, fmt.Errorf("a %s value is not serializable", v.Kind())
}

// FromProto reads a transaction Value of the plan's type. It accepts what
// Canton's engine accepts of a stored value: records by position with
// their trailing optional fields left out (they become None), labels and
// type ids present or not; maps must be sorted and free of repeated keys.
func (p *Plan) FromProto(v *damlpb.Value) (value.Value, error) {
	return p.fromProto(v, 0)
}

func (p *Plan) fromProto(v *damlpb.Value, depth int) (value.Value, error) {
	if depth > MaxNesting+1 {
		return nil, fmt.Errorf("value nests deeper than %d", MaxNesting)
	}
	depth++
	bad := func() (value.Value, error) {
		return nil, fmt.Errorf("protobuf value %T is not of type %s", v.GetSum(), p.Type)
	}
	switch s := v.GetSum().(type) {
	case *damlpb.Value_Unit:
		if p.Kind == KindUnit {
			return value.Unit{}, nil
		}
	case *damlpb.Value_Bool:
		if p.Kind == KindBool {
			return value.Bool(s.Bool), nil
		}
	case *damlpb.Value_Int64:
		if p.Kind == KindInt64 {
			return value.Int64(s.Int64), nil
		}
	case *damlpb.Value_Numeric:
		if p.Kind == KindNumeric {
			n, err := value.ParseNumeric(s.Numeric)
			if err != nil {
				return nil, err
			}
			if n.Scale() != p.Scale {
				return nil, fmt.Errorf("numeric %s has scale %d, not %d", s.Numeric, n.Scale(), p.Scale)
			}
			return n, nil
		}
	case *damlpb.Value_Text:
		if p.Kind == KindText {
			return value.Text(s.Text), nil
		}
	case *damlpb.Value_Party:
		if p.Kind == KindParty {
			return value.Party(s.Party), nil
		}
	case *damlpb.Value_ContractId:
		if p.Kind == KindContractID {
			return value.ContractID(s.ContractId), nil
		}
	case *damlpb.Value_Timestamp:
		if p.Kind == KindTimestamp {
			return value.TimestampFromMicros(s.Timestamp)
		}
	case *damlpb.Value_Date:
		if p.Kind == KindDate {
			return value.DateFromDays(int64(s.Date))
		}
	case *damlpb.Value_Optional:
		if p.Kind == KindOptional {
			if s.Optional.GetValue() == nil {
				return value.None, nil
			}
			x, err := p.Elem.fromProto(s.Optional.GetValue(), depth)
			if err != nil {
				return nil, err
			}
			return value.Some(x), nil
		}
	case *damlpb.Value_List:
		if p.Kind == KindList {
			elems := make([]value.Value, len(s.List.GetElements()))
			for i, e := range s.List.GetElements() {
				x, err := p.Elem.fromProto(e, depth)
				if err != nil {
					return nil, err
				}
				elems[i] = x
			}
			return value.NewList(elems...), nil
		}
	case *damlpb.Value_TextMap:
		if p.Kind == KindTextMap {
			es := make([]value.TextMapEntry, len(s.TextMap.GetEntries()))
			for i, e := range s.TextMap.GetEntries() {
				x, err := p.Elem.fromProto(e.GetValue(), depth)
				if err != nil {
					return nil, err
				}
				es[i] = value.TextMapEntry{Key: e.GetKey(), Value: x}
			}
			return value.NewTextMap(es)
		}
	case *damlpb.Value_GenMap:
		if p.Kind == KindGenMap {
			es := make([]value.GenMapEntry, len(s.GenMap.GetEntries()))
			for i, e := range s.GenMap.GetEntries() {
				k, err := p.Key.fromProto(e.GetKey(), depth)
				if err != nil {
					return nil, err
				}
				x, err := p.Elem.fromProto(e.GetValue(), depth)
				if err != nil {
					return nil, err
				}
				es[i] = value.GenMapEntry{Key: k, Value: x}
			}
			return value.NewGenMap(es)
		}
	case *damlpb.Value_Record:
		if p.Kind == KindRecord {
			src := s.Record.GetFields()
			if len(src) > len(p.Fields) {
				return nil, fmt.Errorf("record of %s has %d fields, its type %d", p.ID.QualifiedName(), len(src), len(p.Fields))
			}
			fields := make([]value.Field, len(p.Fields))
			for i, f := range p.Fields {
				if i >= len(src) {
					if !f.Plan.optional() {
						return nil, fmt.Errorf("record of %s lacks its non-optional field %s", p.ID.QualifiedName(), f.Name)
					}
					fields[i] = value.Field{Label: f.Name, Value: none}
					continue
				}
				if l := src[i].GetLabel(); l != "" && l != f.Name {
					return nil, fmt.Errorf("record of %s has field %s where its type has %s", p.ID.QualifiedName(), l, f.Name)
				}
				x, err := f.Plan.fromProto(src[i].GetValue(), depth)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f.Name, err)
				}
				fields[i] = value.Field{Label: f.Name, Value: x}
			}
			return &value.Record{TypeCon: p.ID, Fields: fields}, nil
		}
	case *damlpb.Value_Variant:
		if p.Kind == KindVariant {
			i, ok := p.index[s.Variant.GetConstructor()]
			if !ok {
				return nil, fmt.Errorf("%s has no constructor %s", p.ID.QualifiedName(), s.Variant.GetConstructor())
			}
			x, err := p.Fields[i].Plan.fromProto(s.Variant.GetValue(), depth)
			if err != nil {
				return nil, err
			}
			return &value.Variant{TypeCon: p.ID, Constructor: p.Fields[i].Name, Rank: i, Value: x}, nil
		}
	case *damlpb.Value_Enum:
		if p.Kind == KindEnum {
			i, ok := p.index[s.Enum.GetConstructor()]
			if !ok {
				return nil, fmt.Errorf("%s has no constructor %s", p.ID.QualifiedName(), s.Enum.GetConstructor())
			}
			return p.enums[i], nil
		}
	}
	return bad()
}
