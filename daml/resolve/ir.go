package resolve

import (
	"sync"
	"sync/atomic"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// Expr is a resolved expression: one of the types below, by pointer. The
// tree is immutable once built and may be shared by concurrent machines.
type Expr interface{ isExpr() }

// Const is a value known when resolving: a literal, a constructor without
// argument, an empty list or map, a type_rep.
type Const struct{ Value value.Value }

// Local is a variable of the current frame: a function parameter (slots 0
// to Arity-1) or a let- or case-bound variable (the slots after).
type Local struct {
	Slot int
	Name string
}

// Free is a variable the current closure captured when it was made.
type Free struct {
	Index int
	Name  string
}

// MakeClosure makes a closure of Lambda, capturing the variables Captures
// (each a *Local or *Free of the enclosing frame) in order.
type MakeClosure struct {
	Lambda   *Lambda
	Captures []Expr
}

// Lambda is the code of a function: Arity parameters in slots 0..Arity-1,
// and Slots slots in all. Def names the top-level definition it belongs to,
// for backtraces; Location is its source location when known.
type Lambda struct {
	Arity    int
	Slots    int
	Body     Expr
	Def      string
	Location *lf.Location
}

// App applies Fun to Args, evaluated left to right after Fun. The machine
// handles partial application and over-application.
type App struct {
	Fun  Expr
	Args []Expr
}

// Call applies a builtin operation to exactly Op.Arity() arguments,
// evaluated left to right.
type Call struct {
	Op   Op
	Args []Expr
}

// OpRef is an operation as a function value (unapplied or partially
// applied by an enclosing App).
type OpRef struct{ Op Op }

// Let evaluates Bound, stores it in Slot, then evaluates Body.
type Let struct {
	Slot  int
	Bound Expr
	Body  Expr
}

// Case evaluates Scrut and the body of the first alternative that matches.
type Case struct {
	Scrut Expr
	Alts  []Alt
}

// Alt is a case alternative. Variant, Cons and Some patterns bind their
// parts to Slot (and Slot2 for the tail of Cons); a slot of -1 binds
// nothing.
type Alt struct {
	Kind  PatternKind
	Rank  int // PatVariant, PatEnum: the constructor's rank
	Con   string
	Slot  int
	Slot2 int
	Body  Expr
}

// PatternKind is the sort of a case pattern.
type PatternKind uint8

// The pattern kinds.
const (
	PatDefault PatternKind = iota
	PatVariant
	PatEnum
	PatUnit
	PatTrue
	PatFalse
	PatNil
	PatCons
	PatNone
	PatSome
)

// Located sets the current source location, then evaluates Expr.
type Located struct {
	Location *lf.Location
	Expr     Expr
}

// TopRef is a reference to a top-level value.
type TopRef struct{ Def *TopDef }

// Unsupported is an expression this interpreter cannot evaluate yet
// (interfaces, exceptions handlers, contract keys: issue 16). Evaluating it
// fails; resolving it does not, so packages that use these features still
// load.
type Unsupported struct{ What string }

func (*Const) isExpr()       {}
func (*Local) isExpr()       {}
func (*Free) isExpr()        {}
func (*MakeClosure) isExpr() {}
func (*App) isExpr()         {}
func (*Call) isExpr()        {}
func (*OpRef) isExpr()       {}
func (*Let) isExpr()         {}
func (*Case) isExpr()        {}
func (*Located) isExpr()     {}
func (*TopRef) isExpr()      {}
func (*Unsupported) isExpr() {}

// TopDef is a top-level value definition. Its body is resolved on first
// use and evaluated at most once per process when evaluation succeeds
// (Cached): top-level values are pure, so any machine may compute and
// publish the value.
type TopDef struct {
	Name     lf.ValueName
	Location *lf.Location

	once   sync.Once
	body   *Lambda // arity 0
	err    error
	pkgs   *Packages
	def    *lf.Value
	cached atomic.Pointer[cachedValue]
}

type cachedValue struct{ v value.Value }

// Body returns the resolved body: a Lambda of arity 0.
func (d *TopDef) Body() (*Lambda, error) {
	d.once.Do(func() {
		d.body, d.err = d.pkgs.resolveTopBody(d)
	})
	return d.body, d.err
}

// Cached returns the value if some machine has computed it.
func (d *TopDef) Cached() value.Value {
	if c := d.cached.Load(); c != nil {
		return c.v
	}
	return nil
}

// Publish records the value of the definition.
func (d *TopDef) Publish(v value.Value) { d.cached.Store(&cachedValue{v: v}) }

// Template is a resolved template: its contract functions as lambdas of
// the contract argument, and its choices.
type Template struct {
	ID          *value.Identifier
	Name        lf.TypeConName
	PackageName string
	// Precond, Signatories and Observers have arity 1: the contract
	// argument.
	Precond     *Lambda
	Signatories *Lambda
	Observers   *Lambda
	HasKey      bool
	Location    *lf.Location

	choices map[string]*Choice
}

// Choice returns the template's choice named name, or nil.
func (t *Template) Choice(name string) *Choice { return t.choices[name] }

// Choice is a resolved choice.
type Choice struct {
	Name      string
	Consuming bool
	// Controllers and Observers have arity 2: contract argument and choice
	// argument. Observers is nil when the choice has none. Authorizers is
	// nil unless the choice declares them (2.dev).
	Controllers *Lambda
	Observers   *Lambda
	Authorizers *Lambda
	// Body has arity 4: contract argument, contract id, choice argument and
	// the update token; it runs the choice's update.
	Body     *Lambda
	Location *lf.Location
}

// Exception is a resolved exception definition.
type Exception struct {
	ID *value.Identifier
	// Message has arity 1: the exception payload.
	Message *Lambda
}
