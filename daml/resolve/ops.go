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

// FromInterface is from_interface: the interface value's payload when its
// template is Template (or an upgrade of it), else None.
type FromInterface struct{ Template *TemplateRef }

// UnsafeFromInterface is unsafe_from_interface: arguments the contract id
// (for the error) and the interface value.
type UnsafeFromInterface struct{ Template *TemplateRef }

// CallInterface calls method Method of Interface on an interface value.
type CallInterface struct {
	Interface lf.TypeConName
	Method    string
}

// FromRequiredInterface is from_required_interface: Some of the value when
// its template implements Requiring.
type FromRequiredInterface struct{ Requiring lf.TypeConName }

// UnsafeFromRequiredInterface is unsafe_from_required_interface:
// arguments the contract id and the value.
type UnsafeFromRequiredInterface struct{ Required, Requiring lf.TypeConName }

// InterfaceTemplateTypeRep is the type_rep of an interface value's template.
type InterfaceTemplateTypeRep struct{}

// SignatoryInterface and ObserverInterface are the signatories and
// observers of the contract an interface value holds.
type SignatoryInterface struct{}

// ObserverInterface: see SignatoryInterface.
type ObserverInterface struct{}

// ViewInterface computes the view of an interface value.
type ViewInterface struct{ Interface lf.TypeConName }

// ChoiceController (2.dev) computes the controllers, or with Observers the
// choice observers, of a choice of Template (or interface): arguments the
// contract (or interface value) and the choice argument.
type ChoiceController struct {
	Template  lf.TypeConName
	Choice    string
	Observers bool
}

// CreateInterface creates the contract an interface value holds:
// arguments the value and the token.
type CreateInterface struct{}

// ExerciseInterface exercises an interface choice: arguments the guard
// when Guarded, the contract id, the choice argument and the token.
type ExerciseInterface struct {
	Interface *InterfaceRef
	Choice    string
	Guarded   bool
}

// FetchInterface fetches a contract as an interface value: arguments the
// contract id and the token.
type FetchInterface struct{ Interface *InterfaceRef }

// ExerciseByKey exercises a choice on the contract with a key: arguments
// the key, the choice argument and the token.
type ExerciseByKey struct {
	Template *TemplateRef
	Choice   string
}

// FetchByKey fetches the contract with a key: arguments the key and the
// token; the result is a Tuple2 of its id and argument.
type FetchByKey struct{ Template *TemplateRef }

// QueryNByKey lists up to n contracts with a key: arguments n, the key and
// the token.
type QueryNByKey struct{ Template *TemplateRef }

// LookupByKey (2.dev archives only) looks up the contract id of a key:
// arguments the key and the token.
type LookupByKey struct{ Template *TemplateRef }

func (*FromInterface) Arity() int               { return 1 }
func (*UnsafeFromInterface) Arity() int         { return 2 }
func (*CallInterface) Arity() int               { return 1 }
func (*FromRequiredInterface) Arity() int       { return 1 }
func (*UnsafeFromRequiredInterface) Arity() int { return 2 }
func (*InterfaceTemplateTypeRep) Arity() int    { return 1 }
func (*SignatoryInterface) Arity() int          { return 1 }
func (*ObserverInterface) Arity() int           { return 1 }
func (*ViewInterface) Arity() int               { return 1 }
func (*ChoiceController) Arity() int            { return 2 }
func (*CreateInterface) Arity() int             { return 2 }
func (o *ExerciseInterface) Arity() int {
	if o.Guarded {
		return 4
	}
	return 3
}
func (*FetchInterface) Arity() int { return 2 }
func (*ExerciseByKey) Arity() int  { return 3 }
func (*FetchByKey) Arity() int     { return 2 }
func (*QueryNByKey) Arity() int    { return 3 }
func (*LookupByKey) Arity() int    { return 2 }

func (o *FromInterface) String() string { return "from_interface @" + o.Template.Name.String() }
func (o *UnsafeFromInterface) String() string {
	return "unsafe_from_interface @" + o.Template.Name.String()
}
func (o *CallInterface) String() string {
	return "call_interface @" + o.Interface.String() + " " + o.Method
}
func (o *FromRequiredInterface) String() string {
	return "from_required_interface @" + o.Requiring.String()
}
func (o *UnsafeFromRequiredInterface) String() string {
	return "unsafe_from_required_interface @" + o.Requiring.String()
}
func (*InterfaceTemplateTypeRep) String() string { return "interface_template_type_rep" }
func (*SignatoryInterface) String() string       { return "signatory_interface" }
func (*ObserverInterface) String() string        { return "observer_interface" }
func (o *ViewInterface) String() string          { return "view_interface @" + o.Interface.String() }
func (o *ChoiceController) String() string {
	if o.Observers {
		return "choice_observer @" + o.Template.String() + " " + o.Choice
	}
	return "choice_controller @" + o.Template.String() + " " + o.Choice
}
func (*CreateInterface) String() string { return "create_interface" }
func (o *ExerciseInterface) String() string {
	return "exercise_interface @" + o.Interface.Name.String() + " " + o.Choice
}
func (o *FetchInterface) String() string { return "fetch_interface @" + o.Interface.Name.String() }
func (o *ExerciseByKey) String() string {
	return "exercise_by_key @" + o.Template.Name.String() + " " + o.Choice
}
func (o *FetchByKey) String() string  { return "fetch_by_key @" + o.Template.Name.String() }
func (o *QueryNByKey) String() string { return "query_n_by_key @" + o.Template.Name.String() }
func (o *LookupByKey) String() string { return "lookup_by_key @" + o.Template.Name.String() }

func (b *Builtin) Arity() int     { return b.Fn.Arity() }
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
