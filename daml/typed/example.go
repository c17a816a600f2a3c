package typed

import (
	"strconv"
)

// Example placeholders: values of each type as the JSON API reads them, for
// a developer to fill in. A party placeholder is not a valid party id, so
// that a skeleton sent unedited is refused rather than acting for someone.
const (
	ExampleParty      = "alice::1220…"
	ExampleContractID = "00…"
)

// The bounds of an example: records and variants nested deeper than
// MaxExampleDepth, and every value past MaxExampleValues, are written {} or
// null, so that a type of wide records within wide records costs no more
// than a narrow one.
const (
	MaxExampleDepth  = 4
	MaxExampleValues = 512
)

// Example writes a JSON value of p's type with placeholders: "" for Text,
// "0" for Int64, "0.0" for Numeric, false, null for Optional, [] for lists
// and generic maps, {} for text maps and Unit, a variant's first
// constructor, an enum's first constructor, and records with every field.
func (p *Plan) Example() []byte {
	budget := MaxExampleValues
	return appendExample(nil, p, 0, &budget)
}

func appendExample(b []byte, p *Plan, depth int, budget *int) []byte {
	*budget--
	switch p.Kind {
	case KindUnit:
		return append(b, "{}"...)
	case KindBool:
		return append(b, "false"...)
	case KindInt64:
		return append(b, `"0"`...)
	case KindNumeric:
		return append(b, `"0.0"`...)
	case KindText:
		return append(b, `""`...)
	case KindParty:
		return strconv.AppendQuote(b, ExampleParty)
	case KindContractID:
		return strconv.AppendQuote(b, ExampleContractID)
	case KindTimestamp:
		return append(b, `"1970-01-01T00:00:00Z"`...)
	case KindDate:
		return append(b, `"1970-01-01"`...)
	case KindOptional:
		return append(b, "null"...)
	case KindList, KindGenMap:
		return append(b, "[]"...)
	case KindTextMap:
		return append(b, "{}"...)
	case KindEnum:
		if len(p.Cons) == 0 {
			return append(b, "null"...)
		}
		return strconv.AppendQuote(b, p.Cons[0])
	case KindVariant:
		if len(p.Fields) == 0 || depth >= MaxExampleDepth || *budget <= 0 {
			return append(b, "null"...)
		}
		c := p.Fields[0]
		b = append(b, `{"tag": `...)
		b = strconv.AppendQuote(b, c.Name)
		b = append(b, `, "value": `...)
		b = appendExample(b, c.Plan, depth+1, budget)
		return append(b, '}')
	case KindRecord:
		if depth >= MaxExampleDepth || *budget <= 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, f := range p.Fields {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendQuote(b, f.Name)
			b = append(b, ": "...)
			if *budget <= 0 {
				b = append(b, "null"...)
				continue
			}
			b = appendExample(b, f.Plan, depth+1, budget)
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}
