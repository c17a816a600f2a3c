package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// fromJSON reads raw as a value of type t; path names the argument in
// errors ("argument 1.owner").
func fromJSON(pkgs *resolve.Packages, t lf.Type, raw json.RawMessage, path string) (value.Value, error) {
	t = expand(pkgs, t)
	bad := func(want string) error {
		return fmt.Errorf("%s: want %s, got %s", path, want, abbreviate(raw))
	}
	head, args := lf.SplitApp(t)
	switch h := head.(type) {
	case lf.TBuiltin:
		switch h.Builtin {
		case lf.BuiltinUnit:
			return value.Unit{}, nil
		case lf.BuiltinBool:
			var b bool
			if json.Unmarshal(raw, &b) != nil {
				return nil, bad("true or false")
			}
			return value.Bool(b), nil
		case lf.BuiltinInt64:
			s, ok := numberText(raw)
			if !ok {
				return nil, bad("an integer")
			}
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, bad("a 64-bit integer")
			}
			return value.Int64(i), nil
		case lf.BuiltinNumeric:
			scale := 10
			if len(args) == 1 {
				if n, ok := args[0].(lf.TNat); ok {
					scale = n.N
				}
			}
			s, ok := numberText(raw)
			if !ok {
				return nil, bad("a decimal number")
			}
			n, ok := value.TextToNumeric(scale, s)
			if !ok {
				return nil, bad(fmt.Sprintf("a decimal number that fits Numeric %d", scale))
			}
			return n, nil
		case lf.BuiltinText, lf.BuiltinParty, lf.BuiltinDate, lf.BuiltinTimestamp, lf.BuiltinContractID:
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, bad("a string")
			}
			switch h.Builtin {
			case lf.BuiltinParty:
				if !value.ValidParty(s) {
					return nil, bad("a party identifier")
				}
				return value.Party(s), nil
			case lf.BuiltinDate:
				d, err := value.ParseDate(s)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				return d, nil
			case lf.BuiltinTimestamp:
				ts, err := value.ParseTimestamp(s)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				return ts, nil
			case lf.BuiltinContractID:
				c, err := value.ParseContractID(s)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				return c, nil
			}
			return value.Text(s), nil
		case lf.BuiltinList:
			var items []json.RawMessage
			if json.Unmarshal(raw, &items) != nil || len(args) != 1 {
				return nil, bad("an array")
			}
			out := make([]value.Value, len(items))
			for i, it := range items {
				v, err := fromJSON(pkgs, args[0], it, fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return value.NewList(out...), nil
		case lf.BuiltinOptional:
			if len(args) != 1 {
				return nil, bad("an optional")
			}
			if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				return value.None, nil
			}
			v, err := fromJSON(pkgs, args[0], raw, path)
			if err != nil {
				return nil, err
			}
			return value.Some(v), nil
		case lf.BuiltinTextMap:
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil || len(args) != 1 {
				return nil, bad("an object")
			}
			var m *value.TextMap
			for k, r := range obj {
				v, err := fromJSON(pkgs, args[0], r, path+"."+k)
				if err != nil {
					return nil, err
				}
				m = m.Insert(k, v)
			}
			return m, nil
		case lf.BuiltinGenMap:
			var pairs [][2]json.RawMessage
			if json.Unmarshal(raw, &pairs) != nil || len(args) != 2 {
				return nil, bad("an array of [key, value] pairs")
			}
			var m *value.GenMap
			for i, p := range pairs {
				k, err := fromJSON(pkgs, args[0], p[0], fmt.Sprintf("%s[%d][0]", path, i))
				if err != nil {
					return nil, err
				}
				v, err := fromJSON(pkgs, args[1], p[1], fmt.Sprintf("%s[%d][1]", path, i))
				if err != nil {
					return nil, err
				}
				if m, err = m.Insert(k, v); err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
			}
			return m, nil
		}
	case lf.TCon:
		return dataFromJSON(pkgs, h.Con, args, raw, path)
	}
	return nil, fmt.Errorf("%s: cannot read a value of type %s from JSON", path, t)
}

func dataFromJSON(pkgs *resolve.Packages, con lf.TypeConName, targs []lf.Type, raw json.RawMessage, path string) (value.Value, error) {
	pkg := pkgs.Package(con.Package)
	if pkg == nil {
		return nil, fmt.Errorf("%s: package %s is not in the DAR", path, con.Package)
	}
	m := pkg.Module(con.Module.String())
	var d *lf.DataType
	if m != nil {
		d = m.DataType(con.Name.String())
	}
	if d == nil {
		return nil, fmt.Errorf("%s: unknown data type %s", path, con)
	}
	sub := map[string]lf.Type{}
	for i, p := range d.Params {
		if i < len(targs) {
			sub[p.Name] = targs[i]
		}
	}
	id := pkgs.Identifier(con)
	switch d.Kind {
	case lf.DataRecord:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil, fmt.Errorf("%s: want an object with the fields of %s, got %s", path, con.Name, abbreviate(raw))
		}
		r := &value.Record{TypeCon: id}
		for _, f := range d.Fields {
			ft := expand(pkgs, substitute(f.Type, sub))
			fr, present := obj[f.Name]
			delete(obj, f.Name)
			if !present {
				if h, _ := lf.SplitApp(ft); h == (lf.TBuiltin{Builtin: lf.BuiltinOptional}) {
					r.Fields = append(r.Fields, value.Field{Label: f.Name, Value: value.None})
					continue
				}
				return nil, fmt.Errorf("%s: missing field %s of %s", path, f.Name, con.Name)
			}
			v, err := fromJSON(pkgs, ft, fr, path+"."+f.Name)
			if err != nil {
				return nil, err
			}
			r.Fields = append(r.Fields, value.Field{Label: f.Name, Value: v})
		}
		for k := range obj {
			return nil, fmt.Errorf("%s: %s has no field %s", path, con.Name, k)
		}
		return r, nil
	case lf.DataVariant:
		var obj struct {
			Tag   string          `json:"tag"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(raw, &obj) != nil {
			return nil, fmt.Errorf("%s: want {\"tag\": …, \"value\": …} for variant %s, got %s", path, con.Name, abbreviate(raw))
		}
		for rank, f := range d.Fields {
			if f.Name == obj.Tag {
				if obj.Value == nil {
					obj.Value = json.RawMessage("{}")
				}
				v, err := fromJSON(pkgs, substitute(f.Type, sub), obj.Value, path+"."+f.Name)
				if err != nil {
					return nil, err
				}
				return &value.Variant{TypeCon: id, Constructor: f.Name, Rank: rank, Value: v}, nil
			}
		}
		return nil, fmt.Errorf("%s: variant %s has no constructor %q", path, con.Name, obj.Tag)
	case lf.DataEnum:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			for rank, c := range d.EnumCons {
				if c == s {
					return &value.Enum{TypeCon: id, Constructor: c, Rank: rank}, nil
				}
			}
		}
		return nil, fmt.Errorf("%s: want a constructor of enum %s, got %s", path, con.Name, abbreviate(raw))
	}
	return nil, fmt.Errorf("%s: cannot read a value of %s from JSON", path, con)
}

// numberText returns the text of a JSON number or of a string.
func numberText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return "", false
	}
	return n.String(), true
}

func abbreviate(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// ValueJSON renders a value in the JSON Ledger API's form (records as
// objects by field, Int64 and Numeric as strings, variants as tag and
// value); values that are not serializable render as their text.
func ValueJSON(v value.Value) any {
	switch x := v.(type) {
	case value.Unit:
		return map[string]any{}
	case value.Bool:
		return bool(x)
	case value.Int64:
		return strconv.FormatInt(int64(x), 10)
	case value.Numeric:
		return x.String()
	case value.Text:
		return string(x)
	case value.Party:
		return string(x)
	case value.ContractID:
		return string(x)
	case value.Date, value.Timestamp:
		return x.String()
	case *value.List:
		out := make([]any, 0, x.Len())
		for e := range x.All() {
			out = append(out, ValueJSON(e))
		}
		return out
	case value.Optional:
		if x.Value == nil {
			return nil
		}
		if inner, ok := x.Value.(value.Optional); ok {
			// Nested optionals are arrays: [] for Some None, [v] for Some (Some v).
			if inner.Value == nil {
				return []any{}
			}
			return []any{ValueJSON(inner)}
		}
		return ValueJSON(x.Value)
	case *value.TextMap:
		out := map[string]any{}
		for _, e := range x.Entries() {
			out[e.Key] = ValueJSON(e.Value)
		}
		return out
	case *value.GenMap:
		out := make([]any, 0, x.Len())
		for _, e := range x.Entries() {
			out = append(out, []any{ValueJSON(e.Key), ValueJSON(e.Value)})
		}
		return out
	case *value.Record:
		out := map[string]any{}
		for _, f := range x.Fields {
			out[f.Label] = ValueJSON(f.Value)
		}
		return out
	case *value.Struct:
		out := map[string]any{}
		for _, f := range x.Fields {
			out[f.Label] = ValueJSON(f.Value)
		}
		return out
	case *value.Variant:
		return map[string]any{"tag": x.Constructor, "value": ValueJSON(x.Value)}
	case *value.Enum:
		return x.Constructor
	}
	return v.String()
}
