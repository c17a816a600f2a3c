package typed

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// FromProtoAsIs reads a transaction Value without a type, as it is
// written: records keep their type id, labels and every field in order,
// variants and enums their type id and constructor (rank 0: no type says
// it), generic maps their order. It is the inverse of ToProtoAsIs for the
// values a transaction or a store may hold; a numeric must be in Canton's
// canonical text and a text map free of repeated keys.
func FromProtoAsIs(v *damlpb.Value) (value.Value, error) {
	return fromProtoAsIs(v, 0)
}

func fromProtoAsIs(v *damlpb.Value, depth int) (value.Value, error) {
	if depth > MaxNesting {
		return nil, fmt.Errorf("the value nests deeper than %d", MaxNesting)
	}
	depth++
	switch x := v.GetSum().(type) {
	case *damlpb.Value_Unit:
		return value.Unit{}, nil
	case *damlpb.Value_Bool:
		return value.Bool(x.Bool), nil
	case *damlpb.Value_Int64:
		return value.Int64(x.Int64), nil
	case *damlpb.Value_Numeric:
		return value.ParseNumeric(x.Numeric)
	case *damlpb.Value_Text:
		return value.Text(x.Text), nil
	case *damlpb.Value_Party:
		return value.Party(x.Party), nil
	case *damlpb.Value_ContractId:
		return value.ContractID(x.ContractId), nil
	case *damlpb.Value_Timestamp:
		return value.Timestamp(x.Timestamp), nil
	case *damlpb.Value_Date:
		return value.Date(x.Date), nil
	case *damlpb.Value_Optional:
		if x.Optional.GetValue() == nil {
			return value.None, nil
		}
		inner, err := fromProtoAsIs(x.Optional.GetValue(), depth)
		if err != nil {
			return nil, err
		}
		return value.Some(inner), nil
	case *damlpb.Value_List:
		out := make([]value.Value, len(x.List.GetElements()))
		for i, el := range x.List.GetElements() {
			var err error
			if out[i], err = fromProtoAsIs(el, depth); err != nil {
				return nil, err
			}
		}
		return value.NewList(out...), nil
	case *damlpb.Value_TextMap:
		out := make([]value.TextMapEntry, len(x.TextMap.GetEntries()))
		for i, en := range x.TextMap.GetEntries() {
			ev, err := fromProtoAsIs(en.GetValue(), depth)
			if err != nil {
				return nil, err
			}
			out[i] = value.TextMapEntry{Key: en.GetKey(), Value: ev}
		}
		return value.NewTextMap(out)
	case *damlpb.Value_GenMap:
		out := make([]value.GenMapEntry, len(x.GenMap.GetEntries()))
		for i, en := range x.GenMap.GetEntries() {
			k, err := fromProtoAsIs(en.GetKey(), depth)
			if err != nil {
				return nil, err
			}
			ev, err := fromProtoAsIs(en.GetValue(), depth)
			if err != nil {
				return nil, err
			}
			out[i] = value.GenMapEntry{Key: k, Value: ev}
		}
		return value.GenMapInOrder(out), nil
	case *damlpb.Value_Record:
		out := make([]value.Field, len(x.Record.GetFields()))
		for i, f := range x.Record.GetFields() {
			fv, err := fromProtoAsIs(f.GetValue(), depth)
			if err != nil {
				return nil, err
			}
			out[i] = value.Field{Label: f.GetLabel(), Value: fv}
		}
		return &value.Record{TypeCon: identifierOrNil(x.Record.GetRecordId()), Fields: out}, nil
	case *damlpb.Value_Variant:
		inner, err := fromProtoAsIs(x.Variant.GetValue(), depth)
		if err != nil {
			return nil, err
		}
		return &value.Variant{TypeCon: identifierOrNil(x.Variant.GetVariantId()), Constructor: x.Variant.GetConstructor(), Value: inner}, nil
	case *damlpb.Value_Enum:
		return &value.Enum{TypeCon: identifierOrNil(x.Enum.GetEnumId()), Constructor: x.Enum.GetConstructor()}, nil
	}
	return nil, fmt.Errorf("a value of kind %T is not serializable", v.GetSum())
}

func identifierOrNil(id *damlpb.Identifier) *value.Identifier {
	if id == nil {
		return nil
	}
	return &value.Identifier{PackageID: id.GetPackageId(), ModuleName: id.GetModuleName(), EntityName: id.GetEntityName()}
}
