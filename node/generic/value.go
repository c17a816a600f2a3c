// Package generic is the node's generic contract model: what serves the
// templates of packages never uploaded, running no Daml code. It holds the
// model's rule from JSON to Daml values and back (this file), its commands
// and their arguments (commands.go, arguments.go), template ids and
// contract ids (templates.go), and the transactions the commands make
// (build.go); the model is documented in full in node/engine's package
// documentation ("The generic contract model"). Its values are the
// engine's (daml/value) and its transactions daml/tx transactions, as the
// interpreter makes them; they carry no types, so the node writes them
// as they are (typed.ToProtoAsIs: every record field kept) where a
// prepared transaction or a stored argument is made. The node gives it
// contracts through Ledger.
package generic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// MaxValueNesting is Daml's limit on nested values; deeper JSON is refused.
const MaxValueNesting = 100

// Daml numerics carry at most 38 significant digits and a scale of at most 37.
const (
	numericMaxPrecision = 38
	numericMaxScale     = 37
)

// ValueError says where a JSON value breaks the conversion rule. Path is a
// JSON path such as "createArguments.owner" or "choiceArgument.items[2]".
type ValueError struct {
	Path   string
	Reason string
}

func (e *ValueError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return e.Path + ": " + e.Reason
}

// PartyCheck reports whether a string names a party known to the node.
type PartyCheck func(party string) (bool, error)

// ValueFromJSON turns a JSON value into a Daml value by the package's rule
// (see the package documentation): objects become records with their keys
// sorted, arrays lists, strings parties (when check knows them) or text,
// numbers int64 or numeric, booleans bool, null an empty optional. path names
// the value in errors. check may be nil (no string is a party).
func ValueFromJSON(raw []byte, path string, check PartyCheck) (value.Value, error) {
	budget := preprocess.DefaultMaxValueNodes
	return valueFromJSON(raw, path, check, &budget)
}

// valueFromJSON is ValueFromJSON drawing on budget, the number of values the
// request may still hold; it fails once the budget is spent.
func valueFromJSON(raw []byte, path string, check PartyCheck, budget *int) (value.Value, error) {
	c := converter{check: check, budget: budget}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := c.value(dec, path, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ValueError{Path: path, Reason: "trailing data after the JSON value"}
	}
	return v, nil
}

type converter struct {
	check  PartyCheck
	budget *int
}

func (c *converter) value(dec *json.Decoder, path string, depth int) (value.Value, error) {
	if depth > MaxValueNesting {
		return nil, &ValueError{Path: path, Reason: fmt.Sprintf("value nested deeper than Daml's limit of %d", MaxValueNesting)}
	}
	if *c.budget--; *c.budget < 0 {
		return nil, &ValueError{Path: path, Reason: "the request's values hold more elements than this node accepts in one request; send fewer or shorter lists"}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, &ValueError{Path: path, Reason: "malformed JSON: " + jsonReason(err)}
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return c.record(dec, path, depth)
		case '[':
			var elems []value.Value
			for i := 0; dec.More(); i++ {
				e, err := c.value(dec, fmt.Sprintf("%s[%d]", path, i), depth+1)
				if err != nil {
					return nil, err
				}
				elems = append(elems, e)
			}
			if _, err := dec.Token(); err != nil {
				return nil, &ValueError{Path: path, Reason: "malformed JSON: " + jsonReason(err)}
			}
			return value.NewList(elems...), nil
		}
		return nil, &ValueError{Path: path, Reason: fmt.Sprintf("unexpected %q", t)}
	case nil:
		return value.None, nil
	case bool:
		return value.Bool(t), nil
	case json.Number:
		return numberValue(string(t), path)
	case string:
		return c.stringValue(t, path)
	}
	return nil, &ValueError{Path: path, Reason: fmt.Sprintf("unexpected JSON token %v", tok)}
}

// record reads the members of an object (after its '{') into a record whose
// fields are sorted by label, so that the same JSON gives the same value.
func (c *converter) record(dec *json.Decoder, path string, depth int) (value.Value, error) {
	var fields []value.Field
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &ValueError{Path: path, Reason: "malformed JSON: " + jsonReason(err)}
		}
		key, _ := tok.(string)
		fieldPath := path + "." + key
		if err := checkName(key); err != nil {
			return nil, &ValueError{Path: fieldPath, Reason: "field " + err.Error()}
		}
		if seen[key] {
			return nil, &ValueError{Path: fieldPath, Reason: "field appears twice"}
		}
		seen[key] = true
		v, err := c.value(dec, fieldPath, depth+1)
		if err != nil {
			return nil, err
		}
		fields = append(fields, value.Field{Label: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, &ValueError{Path: path, Reason: "malformed JSON: " + jsonReason(err)}
	}
	sort.Slice(fields, func(i, j int) bool { return fields[i].Label < fields[j].Label })
	return &value.Record{Fields: fields}, nil
}

func (c *converter) stringValue(s, path string) (value.Value, error) {
	if !utf8.ValidString(s) {
		return nil, &ValueError{Path: path, Reason: "text is not valid UTF-8"}
	}
	if c.check != nil && looksLikeParty(s) {
		known, err := c.check(s)
		if err != nil {
			return nil, err
		}
		if known {
			return value.Party(s), nil
		}
	}
	return value.Text(s), nil
}

// looksLikeParty is a cheap filter before asking the party directory:
// only hint::namespace strings of party characters can name a party.
func looksLikeParty(s string) bool {
	if !strings.Contains(s, "::") {
		return false
	}
	_, _, err := ledgerapi.SplitParty(s)
	return err == nil
}

// checkName accepts a Daml-LF name (preprocess.CheckName).
var checkName = preprocess.CheckName

// numberValue converts JSON number text. Integers that fit int64 become
// int64; everything else becomes a numeric in canonical form, with the scale
// the text has after any exponent moved the point.
func numberValue(text, path string) (value.Value, error) {
	neg, intPart, frac, exp, ok := splitNumber(text)
	if !ok {
		return nil, &ValueError{Path: path, Reason: fmt.Sprintf("number %q is malformed", clip(text))}
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	scale := int64(len(frac)) - exp
	if digits == "" { // zero, whatever the exponent
		if scale <= 0 {
			return Int64(0), nil
		}
		if scale > numericMaxScale {
			return nil, &ValueError{Path: path, Reason: fmt.Sprintf("number %q has scale %d, above Daml's maximum of %d", clip(text), scale, numericMaxScale)}
		}
		return numeric("0." + strings.Repeat("0", int(scale)))
	}
	if scale > numericMaxScale {
		return nil, &ValueError{Path: path, Reason: fmt.Sprintf("number %q has scale %d, above Daml's maximum of %d", clip(text), scale, numericMaxScale)}
	}
	if scale <= 0 {
		// An integer: the significant digits followed by -scale zeros.
		if int64(len(digits))-scale > numericMaxPrecision {
			return nil, &ValueError{Path: path, Reason: fmt.Sprintf("number %q has more than %d digits, Daml's maximum", clip(text), numericMaxPrecision)}
		}
		whole := digits + strings.Repeat("0", int(-scale))
		sign := ""
		if neg {
			sign = "-"
		}
		if n, err := strconv.ParseInt(sign+whole, 10, 64); err == nil {
			return Int64(n), nil
		}
		return numeric(sign + whole + ".")
	}
	// A fraction remains: integer digits, point, scale digits.
	all := intPart + frac
	if int64(len(all)) < scale {
		all = strings.Repeat("0", int(scale)-len(all)) + all
	}
	cut := len(all) - int(scale)
	whole := strings.TrimLeft(all[:cut], "0")
	if whole == "" {
		whole = "0"
	}
	fraction := all[cut:]
	significant := int64(len(fraction))
	if whole != "0" {
		significant += int64(len(whole))
	}
	if significant > numericMaxPrecision {
		return nil, &ValueError{Path: path, Reason: fmt.Sprintf("number %q has more than %d digits, Daml's maximum", clip(text), numericMaxPrecision)}
	}
	sign := ""
	if neg {
		sign = "-" // digits != "" so this is not negative zero
	}
	return numeric(sign + whole + "." + fraction)
}

// splitNumber parses JSON number syntax: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
// The exponent saturates far beyond any scale Daml allows.
func splitNumber(s string) (neg bool, intPart, frac string, exp int64, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	start := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	intPart = s[start:i]
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' {
		return false, "", "", 0, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return false, "", "", 0, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			if exp < 1<<40 {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if es == i {
			return false, "", "", 0, false
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return false, "", "", 0, false
	}
	return neg, intPart, frac, exp, true
}

// Int64 is the Daml int64 n.
func Int64(n int64) value.Value { return value.Int64(n) }

// numeric reads the canonical numeric text the converter makes.
func numeric(s string) (value.Value, error) { return value.ParseNumeric(s) }

// Unit is the Daml unit value, the result of every choice of the model.
func Unit() value.Value { return value.Unit{} }

// ValueToJSON renders a Daml value as Daml-LF JSON, the way the JSON API
// shows create arguments, choice arguments and results: records as objects
// by label (as arrays when a field has no label), int64 and numerics as
// strings, text, parties and contract ids as strings, unit as {}, dates as
// "yyyy-mm-dd", timestamps as RFC 3339 UTC with microseconds, lists as
// arrays, text maps as objects, gen maps as arrays of [key, value], variants
// as {"tag","value"}, enums as their constructor, an empty optional as null
// and nested optionals as Daml-LF JSON nests them (Some None is [],
// Some (Some x) is [x]).
func ValueToJSON(v value.Value) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := writeValue(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeValue(b *bytes.Buffer, v value.Value, depth int) error {
	if depth > MaxValueNesting {
		return fmt.Errorf("value nested deeper than %d", MaxValueNesting)
	}
	switch s := v.(type) {
	case value.Unit:
		b.WriteString("{}")
	case value.Bool:
		b.WriteString(strconv.FormatBool(bool(s)))
	case value.Int64:
		writeString(b, strconv.FormatInt(int64(s), 10))
	case value.Numeric:
		writeString(b, strings.TrimSuffix(s.String(), "."))
	case value.Date:
		writeString(b, time.Unix(int64(s)*86400, 0).UTC().Format("2006-01-02"))
	case value.Timestamp:
		writeString(b, time.UnixMicro(int64(s)).UTC().Format("2006-01-02T15:04:05.999999Z"))
	case value.Party:
		writeString(b, string(s))
	case value.Text:
		writeString(b, string(s))
	case value.ContractID:
		writeString(b, string(s))
	case value.Optional:
		return writeOptional(b, s, depth)
	case *value.List:
		b.WriteByte('[')
		i := 0
		for e := range s.All() {
			if i > 0 {
				b.WriteByte(',')
			}
			i++
			if err := writeValue(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *value.TextMap:
		b.WriteByte('{')
		for i, e := range s.Entries() {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e.Key)
			b.WriteByte(':')
			if err := writeValue(b, e.Value, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case *value.GenMap:
		b.WriteByte('[')
		for i, e := range s.Entries() {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			if err := writeValue(b, e.Key, depth+1); err != nil {
				return err
			}
			b.WriteByte(',')
			if err := writeValue(b, e.Value, depth+1); err != nil {
				return err
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	case *value.Record:
		return writeRecord(b, s, depth)
	case *value.Variant:
		b.WriteString(`{"tag":`)
		writeString(b, s.Constructor)
		b.WriteString(`,"value":`)
		if err := writeValue(b, s.Value, depth+1); err != nil {
			return err
		}
		b.WriteByte('}')
	case *value.Enum:
		writeString(b, s.Constructor)
	default:
		return errors.New("value is not set")
	}
	return nil
}

func writeRecord(b *bytes.Buffer, r *value.Record, depth int) error {
	labelled := true
	for _, f := range r.Fields {
		if f.Label == "" {
			labelled = false
		}
	}
	open, closing := byte('{'), byte('}')
	if !labelled {
		open, closing = '[', ']'
	}
	b.WriteByte(open)
	for i, f := range r.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		if labelled {
			writeString(b, f.Label)
			b.WriteByte(':')
		}
		if err := writeValue(b, f.Value, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte(closing)
	return nil
}

func writeOptional(b *bytes.Buffer, o value.Optional, depth int) error {
	inner := o.Value
	if inner == nil {
		b.WriteString("null")
		return nil
	}
	if io, nested := inner.(value.Optional); nested {
		if io.Value == nil {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		if err := writeOptional(b, io, depth+1); err != nil {
			return err
		}
		b.WriteByte(']')
		return nil
	}
	return writeValue(b, inner, depth+1)
}

func writeString(b *bytes.Buffer, s string) {
	out, _ := json.Marshal(s) // a string always marshals
	b.Write(out)
}

// PartiesIn adds every party value inside v to set.
func PartiesIn(v value.Value, set map[string]bool) {
	switch s := v.(type) {
	case value.Party:
		set[string(s)] = true
	case value.Optional:
		if s.Value != nil {
			PartiesIn(s.Value, set)
		}
	case *value.List:
		for e := range s.All() {
			PartiesIn(e, set)
		}
	case *value.TextMap:
		for _, e := range s.Entries() {
			PartiesIn(e.Value, set)
		}
	case *value.GenMap:
		for _, e := range s.Entries() {
			PartiesIn(e.Key, set)
			PartiesIn(e.Value, set)
		}
	case *value.Record:
		for _, f := range s.Fields {
			PartiesIn(f.Value, set)
		}
	case *value.Variant:
		PartiesIn(s.Value, set)
	}
}

func jsonReason(err error) string {
	if err == io.EOF {
		return "unexpected end of input"
	}
	return err.Error()
}

// clip shortens text quoted in an error message.
var clip = preprocess.Clip
