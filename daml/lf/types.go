package lf

// Kind is the kind of a type: KStar, KNat or KArrow.
type Kind interface {
	isKind()
	String() string
}

// KStar is the kind of the types of values, written *.
type KStar struct{}

// KNat is the kind of type-level naturals (the scale of Numeric).
type KNat struct{}

// KArrow is the kind of a type constructor: Param -> Result.
type KArrow struct {
	Param, Result Kind
}

func (KStar) isKind()  {}
func (KNat) isKind()   {}
func (KArrow) isKind() {}

// Type is a Daml-LF type. The kinds of type are TVar, TCon, TSyn, TBuiltin,
// TApp, TNat, TStruct and TForall.
type Type interface {
	isType()
	String() string
}

// TVar is a type variable.
type TVar struct{ Name string }

// TCon is a type constructor: a data type, template, interface or exception,
// unapplied; TApp applies it.
type TCon struct{ Con TypeConName }

// TSyn is a type synonym, always fully applied.
type TSyn struct {
	Syn  TypeSynName
	Args []Type
}

// TBuiltin is a builtin type constructor, unapplied.
type TBuiltin struct{ Builtin BuiltinType }

// TApp applies a type to one argument.
type TApp struct{ Fun, Arg Type }

// TNat is a type-level natural, 0 to 37: the scale of Numeric.
type TNat struct{ N int }

// TStruct is a structural record type; field names are distinct.
type TStruct struct{ Fields []Field }

// TForall is universal quantification over one type variable.
type TForall struct {
	Var  TypeVar
	Body Type
}

func (TVar) isType()     {}
func (TCon) isType()     {}
func (TSyn) isType()     {}
func (TBuiltin) isType() {}
func (TApp) isType()     {}
func (TNat) isType()     {}
func (TStruct) isType()  {}
func (TForall) isType()  {}

// Field is a named, typed field of a record, struct type or variant
// constructor.
type Field struct {
	Name string
	Type Type
}

// TypeVar is a type variable binder and its kind.
type TypeVar struct {
	Name string
	Kind Kind
}

// SplitApp returns the head of a chain of type applications and its
// arguments in order: Map k v gives (TBuiltin GenMap, [k, v]).
func SplitApp(t Type) (head Type, args []Type) {
	n := 0
	for h := t; ; n++ {
		a, ok := h.(TApp)
		if !ok {
			break
		}
		h = a.Fun
	}
	args = make([]Type, n)
	for i := n - 1; i >= 0; i-- {
		a := t.(TApp)
		args[i] = a.Arg
		t = a.Fun
	}
	return t, args
}

// App applies head to args in order.
func App(head Type, args ...Type) Type {
	for _, a := range args {
		head = TApp{Fun: head, Arg: a}
	}
	return head
}

// SplitForall returns the variables bound by a chain of foralls and the body.
func SplitForall(t Type) (vars []TypeVar, body Type) {
	for {
		f, ok := t.(TForall)
		if !ok {
			return vars, t
		}
		vars = append(vars, f.Var)
		t = f.Body
	}
}

// TypeConApp is a type constructor applied to arguments, as record, variant
// and enum expressions carry it.
type TypeConApp struct {
	Con  TypeConName
	Args []Type
}

// Type returns the TApp chain of c.
func (c TypeConApp) Type() Type { return App(TCon{Con: c.Con}, c.Args...) }

// BuiltinType is a builtin type constructor of Daml-LF 2.
type BuiltinType int

// The builtin types. BigNumeric and RoundingMode exist only in 2.dev.
const (
	BuiltinUnit BuiltinType = iota
	BuiltinBool
	BuiltinInt64
	BuiltinDate
	BuiltinTimestamp
	BuiltinNumeric
	BuiltinParty
	BuiltinText
	BuiltinContractID
	BuiltinOptional
	BuiltinList
	BuiltinGenMap
	BuiltinTextMap
	BuiltinAny
	BuiltinAnyException
	BuiltinTypeRep
	BuiltinArrow
	BuiltinUpdate
	BuiltinFailureCategory
	BuiltinBigNumeric
	BuiltinRoundingMode
	numBuiltinTypes
)

var builtinTypeNames = [numBuiltinTypes]string{
	BuiltinUnit:            "Unit",
	BuiltinBool:            "Bool",
	BuiltinInt64:           "Int64",
	BuiltinDate:            "Date",
	BuiltinTimestamp:       "Timestamp",
	BuiltinNumeric:         "Numeric",
	BuiltinParty:           "Party",
	BuiltinText:            "Text",
	BuiltinContractID:      "ContractId",
	BuiltinOptional:        "Optional",
	BuiltinList:            "List",
	BuiltinGenMap:          "GenMap",
	BuiltinTextMap:         "TextMap",
	BuiltinAny:             "Any",
	BuiltinAnyException:    "AnyException",
	BuiltinTypeRep:         "TypeRep",
	BuiltinArrow:           "Arrow",
	BuiltinUpdate:          "Update",
	BuiltinFailureCategory: "FailureCategory",
	BuiltinBigNumeric:      "BigNumeric",
	BuiltinRoundingMode:    "RoundingMode",
}

// String returns the type's name in the Daml-LF specification.
func (b BuiltinType) String() string {
	if b < 0 || b >= numBuiltinTypes {
		return "BuiltinType(?)"
	}
	return builtinTypeNames[b]
}
