package lf

// Expr is a Daml-LF expression. Each kind is a pointer to one of the E…
// structs below; an interpreter type-switches on it.
type Expr interface{ isExpr() }

// EVar is a reference to a term variable in scope.
type EVar struct{ Name string }

// EVal is a reference to a top-level value.
type EVal struct{ Ref ValueName }

// EBuiltinFun is a builtin function, unapplied.
type EBuiltinFun struct{ Fun BuiltinFunction }

// EBuiltinCon is (), False or True.
type EBuiltinCon struct{ Con BuiltinCon }

// EInt64 is a 64-bit integer literal.
type EInt64 struct{ Value int64 }

// ENumeric is a Numeric literal as written in the archive: an optional
// minus, digits, a point and Scale digits ("-1.50" has scale 2). Its type is
// Numeric Scale.
type ENumeric struct {
	Value string
	Scale int
}

// EText is a text literal.
type EText struct{ Value string }

// ETimestamp is a timestamp literal: microseconds since the Unix epoch, UTC,
// within 0001-01-01 and 9999-12-31.
type ETimestamp struct{ Micros int64 }

// EDate is a date literal: days since the Unix epoch, within 0001-01-01 and
// 9999-12-31.
type EDate struct{ Days int32 }

// ERoundingMode is a rounding-mode literal (2.dev).
type ERoundingMode struct{ Mode RoundingMode }

// EFailureCategory is a failure-category literal.
type EFailureCategory struct{ Category FailureCategory }

// ERecCon constructs a record; fields are in the order of the archive.
type ERecCon struct {
	Type   TypeConApp
	Fields []FieldExpr
}

// FieldExpr is a named field and its value.
type FieldExpr struct {
	Name string
	Expr Expr
}

// ERecProj projects a field out of a record.
type ERecProj struct {
	Type   TypeConApp
	Field  string
	Record Expr
}

// ERecUpd returns Record with Field set to Update.
type ERecUpd struct {
	Type   TypeConApp
	Field  string
	Record Expr
	Update Expr
}

// EVariantCon constructs a variant value.
type EVariantCon struct {
	Type TypeConApp
	Con  string
	Arg  Expr
}

// EEnumCon constructs an enum value.
type EEnumCon struct {
	Type TypeConName
	Con  string
}

// EStructCon constructs a struct.
type EStructCon struct{ Fields []FieldExpr }

// EStructProj projects a field out of a struct.
type EStructProj struct {
	Field  string
	Struct Expr
}

// EStructUpd returns Struct with Field set to Update.
type EStructUpd struct {
	Field  string
	Struct Expr
	Update Expr
}

// EApp applies Fun to one or more arguments, left to right.
type EApp struct {
	Fun  Expr
	Args []Expr
}

// ETyApp applies a polymorphic expression to one or more types.
type ETyApp struct {
	Expr  Expr
	Types []Type
}

// EAbs is a lambda of one or more typed parameters.
type EAbs struct {
	Params []Binder
	Body   Expr
}

// Binder is a term variable and its type.
type Binder struct {
	Name string
	Type Type
}

// ETyAbs abstracts over one or more type variables.
type ETyAbs struct {
	Params []TypeVar
	Body   Expr
}

// ECase matches Scrut against the alternatives in order.
type ECase struct {
	Scrut Expr
	Alts  []CaseAlt
}

// CaseAlt is one alternative of a case.
type CaseAlt struct {
	Pattern Pattern
	Body    Expr
}

// ELet binds one or more variables in sequence, then evaluates Body.
type ELet struct {
	Bindings []Binding
	Body     Expr
}

// Binding binds a typed variable to an expression.
type Binding struct {
	Binder Binder
	Bound  Expr
}

// ENil is the empty list of Type.
type ENil struct{ Type Type }

// ECons prepends Front (one or more elements, in order) to Tail.
type ECons struct {
	Type  Type
	Front []Expr
	Tail  Expr
}

// ENone is the empty optional of Type.
type ENone struct{ Type Type }

// ESome is a present optional.
type ESome struct {
	Type  Type
	Value Expr
}

// EToAny wraps a value of Type in Any.
type EToAny struct {
	Type Type
	Expr Expr
}

// EFromAny extracts a value of Type from Any, or None on a type mismatch.
type EFromAny struct {
	Type Type
	Expr Expr
}

// ETypeRep is the runtime representation of Type.
type ETypeRep struct{ Type Type }

// EToAnyException wraps an exception value of Type in AnyException.
type EToAnyException struct {
	Type Type
	Expr Expr
}

// EFromAnyException extracts an exception of Type from AnyException, or None.
type EFromAnyException struct {
	Type Type
	Expr Expr
}

// EThrow throws Exception, of ExceptionType, in an expression of ReturnType.
type EThrow struct {
	ReturnType    Type
	ExceptionType Type
	Exception     Expr
}

// EToInterface converts a template payload to an interface value.
type EToInterface struct {
	Interface TypeConName
	Template  TypeConName
	Expr      Expr
}

// EFromInterface converts an interface value back to a template payload,
// giving None when it holds another template.
type EFromInterface struct {
	Interface TypeConName
	Template  TypeConName
	Expr      Expr
}

// EUnsafeFromInterface converts an interface value back to a template
// payload, failing with WronglyTypedContract (naming ContractID) when it
// holds another template.
type EUnsafeFromInterface struct {
	Interface  TypeConName
	Template   TypeConName
	ContractID Expr
	Expr       Expr
}

// ECallInterface calls interface method Method on an interface value.
type ECallInterface struct {
	Interface TypeConName
	Method    string
	Expr      Expr
}

// EToRequiredInterface upcasts an interface value to an interface it requires.
type EToRequiredInterface struct {
	Required  TypeConName
	Requiring TypeConName
	Expr      Expr
}

// EFromRequiredInterface downcasts to a requiring interface, or None.
type EFromRequiredInterface struct {
	Required  TypeConName
	Requiring TypeConName
	Expr      Expr
}

// EUnsafeFromRequiredInterface downcasts to a requiring interface, failing
// with WronglyTypedContract (naming ContractID) when not possible.
type EUnsafeFromRequiredInterface struct {
	Required   TypeConName
	Requiring  TypeConName
	ContractID Expr
	Expr       Expr
}

// EInterfaceTemplateTypeRep is the TypeRep of the template behind an
// interface value.
type EInterfaceTemplateTypeRep struct {
	Interface TypeConName
	Expr      Expr
}

// ESignatoryInterface is the signatories of the contract behind an interface
// value.
type ESignatoryInterface struct {
	Interface TypeConName
	Expr      Expr
}

// EObserverInterface is the observers of the contract behind an interface
// value.
type EObserverInterface struct {
	Interface TypeConName
	Expr      Expr
}

// EViewInterface is the interface view of an interface value.
type EViewInterface struct {
	Interface TypeConName
	Expr      Expr
}

// EChoiceController is the controllers of Choice of Template for a contract
// payload and a choice argument (2.dev).
type EChoiceController struct {
	Template  TypeConName
	Choice    string
	Contract  Expr
	ChoiceArg Expr
}

// EChoiceObserver is the choice observers of Choice of Template for a
// contract payload and a choice argument (2.dev).
type EChoiceObserver struct {
	Template  TypeConName
	Choice    string
	Contract  Expr
	ChoiceArg Expr
}

// EExperimental is a named experimental primitive of Type (2.dev).
type EExperimental struct {
	Name string
	Type Type
}

// ELocation gives the source location of Expr.
type ELocation struct {
	Location Location
	Expr     Expr
}

// EUpdate is an update expression: a value of type Update.
type EUpdate struct{ Update Update }

func (*EVar) isExpr()                         {}
func (*EVal) isExpr()                         {}
func (*EBuiltinFun) isExpr()                  {}
func (*EBuiltinCon) isExpr()                  {}
func (*EInt64) isExpr()                       {}
func (*ENumeric) isExpr()                     {}
func (*EText) isExpr()                        {}
func (*ETimestamp) isExpr()                   {}
func (*EDate) isExpr()                        {}
func (*ERoundingMode) isExpr()                {}
func (*EFailureCategory) isExpr()             {}
func (*ERecCon) isExpr()                      {}
func (*ERecProj) isExpr()                     {}
func (*ERecUpd) isExpr()                      {}
func (*EVariantCon) isExpr()                  {}
func (*EEnumCon) isExpr()                     {}
func (*EStructCon) isExpr()                   {}
func (*EStructProj) isExpr()                  {}
func (*EStructUpd) isExpr()                   {}
func (*EApp) isExpr()                         {}
func (*ETyApp) isExpr()                       {}
func (*EAbs) isExpr()                         {}
func (*ETyAbs) isExpr()                       {}
func (*ECase) isExpr()                        {}
func (*ELet) isExpr()                         {}
func (*ENil) isExpr()                         {}
func (*ECons) isExpr()                        {}
func (*ENone) isExpr()                        {}
func (*ESome) isExpr()                        {}
func (*EToAny) isExpr()                       {}
func (*EFromAny) isExpr()                     {}
func (*ETypeRep) isExpr()                     {}
func (*EToAnyException) isExpr()              {}
func (*EFromAnyException) isExpr()            {}
func (*EThrow) isExpr()                       {}
func (*EToInterface) isExpr()                 {}
func (*EFromInterface) isExpr()               {}
func (*EUnsafeFromInterface) isExpr()         {}
func (*ECallInterface) isExpr()               {}
func (*EToRequiredInterface) isExpr()         {}
func (*EFromRequiredInterface) isExpr()       {}
func (*EUnsafeFromRequiredInterface) isExpr() {}
func (*EInterfaceTemplateTypeRep) isExpr()    {}
func (*ESignatoryInterface) isExpr()          {}
func (*EObserverInterface) isExpr()           {}
func (*EViewInterface) isExpr()               {}
func (*EChoiceController) isExpr()            {}
func (*EChoiceObserver) isExpr()              {}
func (*EExperimental) isExpr()                {}
func (*ELocation) isExpr()                    {}
func (*EUpdate) isExpr()                      {}

// Pattern is a case pattern: one of the P… structs.
type Pattern interface{ isPattern() }

// PVariant matches constructor Con of a variant, binding its argument.
type PVariant struct {
	Type   TypeConName
	Con    string
	Binder string
}

// PEnum matches constructor Con of an enum.
type PEnum struct {
	Type TypeConName
	Con  string
}

// PBuiltinCon matches (), False or True.
type PBuiltinCon struct{ Con BuiltinCon }

// PNil matches the empty list.
type PNil struct{}

// PCons matches a non-empty list, binding its head and tail.
type PCons struct{ Head, Tail string }

// PNone matches an absent optional.
type PNone struct{}

// PSome matches a present optional, binding its value.
type PSome struct{ Binder string }

// PDefault matches anything.
type PDefault struct{}

func (PVariant) isPattern()    {}
func (PEnum) isPattern()       {}
func (PBuiltinCon) isPattern() {}
func (PNil) isPattern()        {}
func (PCons) isPattern()       {}
func (PNone) isPattern()       {}
func (PSome) isPattern()       {}
func (PDefault) isPattern()    {}

// Update is the body of an EUpdate: one of the U… structs, by pointer.
type Update interface{ isUpdate() }

// UPure returns Expr, of Type, without effect.
type UPure struct {
	Type Type
	Expr Expr
}

// UBlock runs the bindings' updates in order, binding each result, then Body
// (an update).
type UBlock struct {
	Bindings []Binding
	Body     Expr
}

// UCreate creates a contract of Template with argument Arg.
type UCreate struct {
	Template TypeConName
	Arg      Expr
}

// UCreateInterface creates the contract behind an interface value.
type UCreateInterface struct {
	Interface TypeConName
	Arg       Expr
}

// UExercise exercises Choice of Template on ContractID with Arg.
type UExercise struct {
	Template   TypeConName
	Choice     string
	ContractID Expr
	Arg        Expr
}

// UExerciseInterface exercises interface choice Choice on ContractID with
// Arg. Guard, nil when absent (always before 2.dev), is a predicate on the
// interface value that must hold.
type UExerciseInterface struct {
	Interface  TypeConName
	Choice     string
	ContractID Expr
	Arg        Expr
	Guard      Expr
}

// UExerciseByKey exercises Choice of Template on the contract with Key
// (2.3+).
type UExerciseByKey struct {
	Template TypeConName
	Choice   string
	Key      Expr
	Arg      Expr
}

// UFetch fetches a contract of Template.
type UFetch struct {
	Template   TypeConName
	ContractID Expr
}

// UFetchInterface fetches a contract through Interface.
type UFetchInterface struct {
	Interface  TypeConName
	ContractID Expr
}

// UFetchByKey is a function from a key of Template to the update fetching
// the contract with that key (2.3+).
type UFetchByKey struct{ Template TypeConName }

// UQueryNByKey is a function from a count and a key of Template to the
// update listing up to that many contracts with that key (2.3+).
type UQueryNByKey struct{ Template TypeConName }

// ULookupByKey is a function from a key of Template to the update looking up
// the contract id with that key. Only 2.dev archives written before Canton
// removed it carry it.
type ULookupByKey struct{ Template TypeConName }

// UGetTime returns the ledger time.
type UGetTime struct{}

// ULedgerTimeLT returns whether the ledger time is before Time.
type ULedgerTimeLT struct{ Time Expr }

// UEmbedExpr runs the update Expr evaluates to, of type Update Type.
type UEmbedExpr struct {
	Type Type
	Expr Expr
}

// UTryCatch runs Try; if it throws, binds the AnyException to Var and
// evaluates Catch, an Optional (Update ReturnType): None rethrows.
type UTryCatch struct {
	ReturnType Type
	Try        Expr
	Var        string
	Catch      Expr
}

func (*UPure) isUpdate()              {}
func (*UBlock) isUpdate()             {}
func (*UCreate) isUpdate()            {}
func (*UCreateInterface) isUpdate()   {}
func (*UExercise) isUpdate()          {}
func (*UExerciseInterface) isUpdate() {}
func (*UExerciseByKey) isUpdate()     {}
func (*UFetch) isUpdate()             {}
func (*UFetchInterface) isUpdate()    {}
func (*UFetchByKey) isUpdate()        {}
func (*UQueryNByKey) isUpdate()       {}
func (*ULookupByKey) isUpdate()       {}
func (*UGetTime) isUpdate()           {}
func (*ULedgerTimeLT) isUpdate()      {}
func (*UEmbedExpr) isUpdate()         {}
func (*UTryCatch) isUpdate()          {}
