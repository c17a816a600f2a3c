package lf

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Types print in Daml-like syntax. Type constructors print by their dotted
// name without package or module (QualifiedName.String gives the full name);
// builtins print as Daml writes them: () for Unit, Int for Int64, Time for
// Timestamp, [a] for List a, a -> b, Map k v for GenMap, (a, b) for
// DA.Types:Tuple2 a b. (BuiltinType.String gives the Daml-LF names.)

func (KStar) String() string { return "*" }
func (KNat) String() string  { return "nat" }
func (k KArrow) String() string {
	p := k.Param.String()
	if _, ok := k.Param.(KArrow); ok {
		p = "(" + p + ")"
	}
	return p + " -> " + k.Result.String()
}

func (t TVar) String() string     { return typeString(t) }
func (t TCon) String() string     { return typeString(t) }
func (t TSyn) String() string     { return typeString(t) }
func (t TBuiltin) String() string { return typeString(t) }
func (t TApp) String() string     { return typeString(t) }
func (t TNat) String() string     { return typeString(t) }
func (t TStruct) String() string  { return typeString(t) }
func (t TForall) String() string  { return typeString(t) }

func typeString(t Type) string {
	var b strings.Builder
	writeType(&b, t, precTop)
	return bounded(&b)
}

// MaxTypeString bounds the text of a type or data type: a type's text can
// be exponentially longer than the package that holds it (an interned type
// may name the one before it twice, forty times over), and it goes into
// error messages and log lines. Past the bound the text ends in "…" and
// the rest of the type is not visited.
const MaxTypeString = 2048

// bounded returns what b holds, cut at MaxTypeString with "…".
func bounded(b *strings.Builder) string {
	s := b.String()
	if len(s) <= MaxTypeString {
		return s
	}
	cut := MaxTypeString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Precedences: a forall or arrow needs parentheses as an arrow's parameter
// (precArrowParam); an application needs them as an argument (precArg).
const (
	precTop = iota
	precArrowParam
	precArg
)

func writeType(b *strings.Builder, t Type, prec int) {
	if b.Len() > MaxTypeString {
		return // bounded cuts the text here; the rest is not visited
	}
	switch t := t.(type) {
	case TVar:
		b.WriteString(t.Name)
	case TNat:
		b.WriteString(strconv.Itoa(t.N))
	case TCon:
		b.WriteString(t.Con.Name.String())
	case TBuiltin:
		writeBuiltin(b, t.Builtin)
	case TSyn:
		if len(t.Args) == 0 {
			b.WriteString(t.Syn.Name.String())
			return
		}
		open(b, prec >= precArg)
		b.WriteString(t.Syn.Name.String())
		for _, a := range t.Args {
			b.WriteByte(' ')
			writeType(b, a, precArg)
		}
		closeParen(b, prec >= precArg)
	case TStruct:
		b.WriteByte('<')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name)
			b.WriteString(": ")
			writeType(b, f.Type, precTop)
		}
		b.WriteByte('>')
	case TForall:
		open(b, prec > precTop)
		vars, body := SplitForall(t)
		b.WriteString("forall")
		for _, v := range vars {
			b.WriteByte(' ')
			b.WriteString(v.Name)
		}
		b.WriteString(". ")
		writeType(b, body, precTop)
		closeParen(b, prec > precTop)
	case TApp:
		writeApp(b, t, prec)
	case nil:
		b.WriteString("<nil>")
	}
}

func writeBuiltin(b *strings.Builder, bt BuiltinType) {
	switch bt {
	case BuiltinUnit:
		b.WriteString("()")
	case BuiltinList:
		b.WriteString("[]")
	case BuiltinArrow:
		b.WriteString("(->)")
	case BuiltinGenMap:
		b.WriteString("Map")
	case BuiltinInt64:
		b.WriteString("Int")
	case BuiltinTimestamp:
		b.WriteString("Time")
	default:
		b.WriteString(bt.String())
	}
}

func writeApp(b *strings.Builder, t TApp, prec int) {
	head, args := SplitApp(t)
	if h, ok := head.(TBuiltin); ok {
		switch {
		case h.Builtin == BuiltinList && len(args) == 1:
			b.WriteByte('[')
			writeType(b, args[0], precTop)
			b.WriteByte(']')
			return
		case h.Builtin == BuiltinArrow && len(args) == 2:
			open(b, prec > precTop)
			writeType(b, args[0], precArrowParam)
			b.WriteString(" -> ")
			writeType(b, args[1], precTop)
			closeParen(b, prec > precTop)
			return
		}
	}
	if h, ok := head.(TCon); ok && isTuple(h.Con, len(args)) {
		b.WriteByte('(')
		for i, a := range args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeType(b, a, precTop)
		}
		b.WriteByte(')')
		return
	}
	open(b, prec >= precArg)
	writeType(b, head, precArg)
	for _, a := range args {
		b.WriteByte(' ')
		writeType(b, a, precArg)
	}
	closeParen(b, prec >= precArg)
}

// isTuple reports whether c is daml-prim's DA.Types:TupleN applied to its n
// arguments.
func isTuple(c TypeConName, n int) bool {
	return n >= 2 && len(c.Module) == 2 && c.Module[0] == "DA" && c.Module[1] == "Types" &&
		len(c.Name) == 1 && c.Name[0] == "Tuple"+strconv.Itoa(n)
}

func open(b *strings.Builder, paren bool) {
	if paren {
		b.WriteByte('(')
	}
}

func closeParen(b *strings.Builder, paren bool) {
	if paren {
		b.WriteByte(')')
	}
}

func writeParams(b *strings.Builder, params []TypeVar) {
	for _, p := range params {
		b.WriteByte(' ')
		b.WriteString(p.Name)
	}
}

// writeFields writes "with a: T; b: U", or nothing for no fields.
func writeFields(b *strings.Builder, fields []Field) {
	for i, f := range fields {
		if i == 0 {
			b.WriteString(" with ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(f.Name)
		b.WriteString(": ")
		writeType(b, f.Type, precTop)
	}
}

// String renders the data type as a Daml declaration:
// "data Foo a = Foo with x: a; y: Text", "data V = A Int64 | B Text",
// "data Color = Red | Green", "interface Token".
func (d *DataType) String() string {
	var b strings.Builder
	name := d.Name.String()
	if d.Kind == DataInterface {
		return "interface " + name
	}
	b.WriteString("data ")
	b.WriteString(name)
	writeParams(&b, d.Params)
	b.WriteString(" =")
	switch d.Kind {
	case DataRecord:
		if len(d.Name) > 0 {
			b.WriteByte(' ')
			b.WriteString(d.Name[len(d.Name)-1])
		}
		writeFields(&b, d.Fields)
	case DataVariant:
		for i, f := range d.Fields {
			if i > 0 {
				b.WriteString(" |")
			}
			b.WriteByte(' ')
			b.WriteString(f.Name)
			b.WriteByte(' ')
			writeType(&b, f.Type, precArg)
		}
	case DataEnum:
		for i, c := range d.EnumCons {
			if i > 0 {
				b.WriteString(" |")
			}
			b.WriteByte(' ')
			b.WriteString(c)
		}
	}
	return bounded(&b)
}
