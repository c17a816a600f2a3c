package value

import (
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
)

// Value is a Daml-LF value. Each kind is one Go type of this package (or,
// for functions, a type of the interpreter); Kind tells which without a type
// switch and String renders it for messages.
type Value interface {
	Kind() Kind
	String() string
}

// Kind is the kind of a value.
type Kind uint8

// The kinds of value. Those up to KindEnum are serializable: they may appear
// in contracts, choice arguments and results. The others exist only during
// interpretation.
const (
	KindUnit Kind = iota
	KindBool
	KindInt64
	KindNumeric
	KindText
	KindTimestamp
	KindDate
	KindParty
	KindContractID
	KindList
	KindOptional
	KindTextMap
	KindGenMap
	KindRecord
	KindVariant
	KindEnum

	// KindStruct is a structural record (a value of a TStruct type).
	KindStruct
	// KindAny is a value wrapped with its type: to_any, to_any_exception.
	KindAny
	// KindTypeRep is the runtime representation of a type.
	KindTypeRep
	// KindFunction is a function, a partially applied builtin or an update;
	// the interpreter defines its types. Functions are not comparable.
	KindFunction
)

var kindNames = [...]string{"Unit", "Bool", "Int64", "Numeric", "Text", "Timestamp", "Date",
	"Party", "ContractId", "List", "Optional", "TextMap", "GenMap", "Record", "Variant", "Enum",
	"Struct", "Any", "TypeRep", "Function"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Serializable reports whether values of kind k may be stored in contracts.
func (k Kind) Serializable() bool { return k <= KindEnum }

// Unit is the value ().
type Unit struct{}

// Bool is True or False.
type Bool bool

// Int64 is a signed 64-bit integer.
type Int64 int64

// Text is a Unicode string, held as UTF-8.
type Text string

// Party is a party identifier: 1 to 255 characters among ASCII letters,
// digits and ":-_ " (see ValidParty).
type Party string

// Optional is None (Value nil) or Some Value.
type Optional struct{ Value Value }

// None is the absent optional.
var None = Optional{}

// Some returns the present optional holding v.
func Some(v Value) Optional { return Optional{Value: v} }

func (Unit) Kind() Kind      { return KindUnit }
func (Bool) Kind() Kind      { return KindBool }
func (Int64) Kind() Kind     { return KindInt64 }
func (Text) Kind() Kind      { return KindText }
func (Party) Kind() Kind     { return KindParty }
func (Optional) Kind() Kind  { return KindOptional }
func (*Record) Kind() Kind   { return KindRecord }
func (*Variant) Kind() Kind  { return KindVariant }
func (*Enum) Kind() Kind     { return KindEnum }
func (*Struct) Kind() Kind   { return KindStruct }
func (*Any) Kind() Kind      { return KindAny }
func (TypeRep) Kind() Kind   { return KindTypeRep }
func (Numeric) Kind() Kind   { return KindNumeric }
func (Timestamp) Kind() Kind { return KindTimestamp }
func (Date) Kind() Kind      { return KindDate }

func (Unit) String() string    { return "<unit>" }
func (b Bool) String() string  { return strconv.FormatBool(bool(b)) }
func (i Int64) String() string { return strconv.FormatInt(int64(i), 10) }
func (t Text) String() string  { return `"` + string(t) + `"` }
func (p Party) String() string { return "'" + string(p) + "'" }
func (o Optional) String() string {
	if o.Value == nil {
		return "None"
	}
	return "Option(" + o.Value.String() + ")"
}

// IsNone reports whether o is None.
func (o Optional) IsNone() bool { return o.Value == nil }

// Identifier names a data type, template, interface or exception the way
// Canton's values and transactions do: package id, module name and entity
// name, the last two dotted ("Canton.Internal.Ping", "Ping").
type Identifier struct {
	PackageID  string
	ModuleName string
	EntityName string
}

// IdentifierOf returns the Identifier of an lf type constructor name.
func IdentifierOf(n lf.TypeConName) *Identifier {
	return &Identifier{PackageID: string(n.Package), ModuleName: n.Module.String(), EntityName: n.Name.String()}
}

// String returns "pkg:Module:Entity", the form the JSON Ledger API uses.
func (id *Identifier) String() string {
	if id == nil {
		return "<no type>"
	}
	return id.PackageID + ":" + id.ModuleName + ":" + id.EntityName
}

// QualifiedName returns "Module:Entity".
func (id *Identifier) QualifiedName() string { return id.ModuleName + ":" + id.EntityName }

// pretty renders the identifier as Canton's error messages do:
// "Module:Entity@" and the first 8 characters of the package id.
func (id *Identifier) pretty() string {
	if id == nil {
		return ""
	}
	pkg := id.PackageID
	if len(pkg) > 8 {
		pkg = pkg[:8]
	}
	return id.ModuleName + ":" + id.EntityName + "@" + pkg
}

// Field is a labelled field of a record or struct.
type Field struct {
	Label string
	Value Value
}

// Record is a value of a record type: its type constructor and its fields
// in the order the data type declares them.
type Record struct {
	TypeCon *Identifier
	Fields  []Field
}

// Field returns the value of the field labelled label, or nil.
func (r *Record) Field(label string) Value {
	for _, f := range r.Fields {
		if f.Label == label {
			return f.Value
		}
	}
	return nil
}

func (r *Record) String() string {
	var b strings.Builder
	b.WriteString(r.TypeCon.pretty())
	writeFields(&b, r.Fields)
	return b.String()
}

func writeFields(b *strings.Builder, fs []Field) {
	b.WriteString("{")
	for i, f := range fs {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(" ")
		b.WriteString(f.Label)
		b.WriteString(" = ")
		b.WriteString(f.Value.String())
	}
	b.WriteString(" }")
}

// Variant is a value of a variant type: its type constructor, the
// constructor's name and its rank (its 0-based position among the type's
// constructors, which orders variants), and the constructor's argument.
type Variant struct {
	TypeCon     *Identifier
	Constructor string
	Rank        int
	Value       Value
}

func (v *Variant) String() string {
	p := v.TypeCon.pretty()
	if p != "" {
		p += ":"
	}
	return p + v.Constructor + "(" + v.Value.String() + ")"
}

// Enum is a value of an enum type: its type constructor, the constructor's
// name and its rank (0-based position among the type's constructors).
type Enum struct {
	TypeCon     *Identifier
	Constructor string
	Rank        int
}

func (e *Enum) String() string {
	p := e.TypeCon.pretty()
	if p != "" {
		p += ":"
	}
	return p + e.Constructor
}

// Struct is a structural record: its fields sorted by label.
type Struct struct{ Fields []Field }

// Field returns the value of the field labelled label, or nil.
func (s *Struct) Field(label string) Value {
	i, ok := s.Index(label)
	if !ok {
		return nil
	}
	return s.Fields[i].Value
}

// Index returns the position of the field labelled label.
func (s *Struct) Index(label string) (int, bool) {
	lo, hi := 0, len(s.Fields)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.Fields[m].Label < label {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s.Fields) && s.Fields[lo].Label == label
}

func (s *Struct) String() string {
	var b strings.Builder
	b.WriteString("struct")
	writeFields(&b, s.Fields)
	return b.String()
}

// Any is a value of type Any (to_any) or AnyException (to_any_exception):
// the value and its type, which must be closed and free of synonyms.
type Any struct {
	Type  lf.Type
	Value Value
}

func (a *Any) String() string { return "to_any @" + a.Type.String() + " " + a.Value.String() }

// TypeRep is the runtime representation of a closed type (type_rep).
type TypeRep struct{ Type lf.Type }

func (t TypeRep) String() string { return "type_rep @" + t.Type.String() }
