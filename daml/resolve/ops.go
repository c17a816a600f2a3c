package resolve

import (
	"strconv"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// Op is a primitive operation of the machine: a Daml-LF builtin function,
// a constructor or projection the resolver turned into a call, or an
// update. Arity counts value arguments; types are erased.
type Op interface {
	Arity() int
	String() string
}

// Builtin is a builtin function of Daml-LF.
type Builtin struct{ Fn lf.BuiltinFunction }

// RecCon constructs a record of TypeCon; its arguments are the fields in
// the order of the data type.
type RecCon struct {
	TypeCon *value.Identifier
	Labels  []string
}

// RecProj projects field Index (named Field) of a record.
type RecProj struct {
	TypeCon *value.Identifier
	Field   string
	Index   int
}

// RecUpd returns a record with field Index replaced; arguments: record,
// new field value.
type RecUpd struct {
	TypeCon *value.Identifier
	Field   string
	Index   int
}

// VariantCon constructs a variant.
type VariantCon struct {
	TypeCon     *value.Identifier
	Constructor string
	Rank        int
}

// StructCon constructs a struct. Its arguments are in source order;
// Labels are the field names sorted, and Order[i] is the argument holding
// Labels[i].
type StructCon struct {
	Labels []string
	Order  []int
}

// StructProj projects a field of a struct.
type StructProj struct{ Field string }

// StructUpd returns a struct with a field replaced; arguments: struct, new
// field value.
type StructUpd struct{ Field string }

// ConsN prepends N elements to a list; arguments: the N elements, then the
// list.
type ConsN struct{ N int }

// Some wraps its argument in Some.
type Some struct{}

// ToAny wraps a value with its closed type: to_any and to_any_exception.
type ToAny struct{ Type lf.Type }

// FromAny unwraps an Any of Type, giving None for another type: from_any
// and from_any_exception.
type FromAny struct{ Type lf.Type }

// Throw throws its argument, an exception payload of Type.
type Throw struct{ Type lf.Type }

// Pure is the update 'pure v': arguments v and the update token.
type Pure struct{}

// Create creates a contract: arguments the contract argument and the token.
type Create struct{ Template *TemplateRef }

// Exercise exercises a choice: arguments the contract id, the choice
// argument and the token.
type Exercise struct {
	Template *TemplateRef
	Choice   string
}

// Fetch fetches a contract: arguments the contract id and the token.
type Fetch struct{ Template *TemplateRef }

// GetTime returns the ledger time: argument the token.
type GetTime struct{}

// LedgerTimeLT tells whether the ledger time is before a time: arguments
// the time and the token.
type LedgerTimeLT struct{}

func (b *Builtin) Arity() int     { return BuiltinArity(b.Fn) }
func (o *RecCon) Arity() int      { return len(o.Labels) }
func (*RecProj) Arity() int       { return 1 }
func (*RecUpd) Arity() int        { return 2 }
func (*VariantCon) Arity() int    { return 1 }
func (o *StructCon) Arity() int   { return len(o.Labels) }
func (*StructProj) Arity() int    { return 1 }
func (*StructUpd) Arity() int     { return 2 }
func (o *ConsN) Arity() int       { return o.N + 1 }
func (*Some) Arity() int          { return 1 }
func (*ToAny) Arity() int         { return 1 }
func (*FromAny) Arity() int       { return 1 }
func (*Throw) Arity() int         { return 1 }
func (*Pure) Arity() int          { return 2 }
func (*Create) Arity() int        { return 2 }
func (*Exercise) Arity() int      { return 3 }
func (*Fetch) Arity() int         { return 2 }
func (*GetTime) Arity() int       { return 1 }
func (*LedgerTimeLT) Arity() int  { return 2 }
func (b *Builtin) String() string { return b.Fn.String() }
func (o *RecCon) String() string  { return "record " + o.TypeCon.QualifiedName() }
func (o *RecProj) String() string { return "project " + o.TypeCon.QualifiedName() + "." + o.Field }
func (o *RecUpd) String() string  { return "update " + o.TypeCon.QualifiedName() + "." + o.Field }
func (o *VariantCon) String() string {
	return "variant " + o.TypeCon.QualifiedName() + ":" + o.Constructor
}
func (*StructCon) String() string    { return "struct" }
func (o *StructProj) String() string { return "struct ." + o.Field }
func (o *StructUpd) String() string  { return "struct update ." + o.Field }
func (o *ConsN) String() string      { return "cons " + strconv.Itoa(o.N) }
func (*Some) String() string         { return "Some" }
func (o *ToAny) String() string      { return "to_any @" + o.Type.String() }
func (o *FromAny) String() string    { return "from_any @" + o.Type.String() }
func (o *Throw) String() string      { return "throw @" + o.Type.String() }
func (*Pure) String() string         { return "pure" }
func (o *Create) String() string     { return "create @" + o.Template.Name.String() }
func (o *Exercise) String() string   { return "exercise @" + o.Template.Name.String() + " " + o.Choice }
func (o *Fetch) String() string      { return "fetch @" + o.Template.Name.String() }
func (*GetTime) String() string      { return "get_time" }
func (*LedgerTimeLT) String() string { return "ledger_time_lt" }

// BuiltinArity returns the number of value arguments of a builtin
// function (type arguments are erased; the numeric scale of MUL_NUMERIC and
// friends comes from a witness argument, counted here).
func BuiltinArity(f lf.BuiltinFunction) int {
	switch f {
	case lf.BuiltinTextMapEmpty, lf.BuiltinGenMapEmpty:
		return 0
	case lf.BuiltinError, lf.BuiltinAnyExceptionMessage, lf.BuiltinNumericToInt64,
		lf.BuiltinInt64ToText, lf.BuiltinNumericToText, lf.BuiltinTimestampToText,
		lf.BuiltinDateToText, lf.BuiltinPartyToText, lf.BuiltinContractIDToText,
		lf.BuiltinTextToParty, lf.BuiltinTextToInt64, lf.BuiltinCodePointsToText,
		lf.BuiltinTextToCodePoints, lf.BuiltinExplodeText, lf.BuiltinImplodeText,
		lf.BuiltinSHA256Text, lf.BuiltinSHA256Hex, lf.BuiltinKeccak256Text,
		lf.BuiltinHexToText, lf.BuiltinTextToHex, lf.BuiltinDateToUnixDays,
		lf.BuiltinUnixDaysToDate, lf.BuiltinTimestampToUnixMicroseconds,
		lf.BuiltinUnixMicrosecondsToTimestamp, lf.BuiltinCoerceContractID,
		lf.BuiltinTextMapToList, lf.BuiltinTextMapSize, lf.BuiltinGenMapKeys,
		lf.BuiltinGenMapValues, lf.BuiltinGenMapSize, lf.BuiltinSecp256k1ValidateKey,
		lf.BuiltinScaleBigNumeric, lf.BuiltinPrecisionBigNumeric,
		lf.BuiltinNumericToBigNumeric, lf.BuiltinBigNumericToText, lf.BuiltinTypeRepTyConName:
		return 1
	case lf.BuiltinMulNumeric, lf.BuiltinDivNumeric, lf.BuiltinEqualList, lf.BuiltinFoldl,
		lf.BuiltinFoldr, lf.BuiltinTextMapInsert, lf.BuiltinGenMapInsert,
		lf.BuiltinSecp256k1Bool, lf.BuiltinSecp256k1WithECDSABool:
		return 3
	case lf.BuiltinFailWithStatus, lf.BuiltinDivBigNumeric:
		return 4
	case lf.BuiltinExternalCall:
		return 5
	}
	return 2
}
