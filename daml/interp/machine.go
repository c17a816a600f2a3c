package interp

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// Function is a function value: a closure (code and the variables it
// captured) or a builtin operation, with the arguments it has been
// partially applied to. Updates are functions of the update token.
type Function struct {
	lam   *resolve.Lambda
	free  []value.Value
	op    resolve.Op
	args  []value.Value
	arity int
}

// Kind returns KindFunction.
func (*Function) Kind() value.Kind { return value.KindFunction }

func (f *Function) String() string {
	if f.op != nil {
		return fmt.Sprintf("<%s/%d>", f.op, f.arity-len(f.args))
	}
	return fmt.Sprintf("<function %s/%d>", f.lam.Def, f.arity-len(f.args))
}

// token is the value an update function is applied to in order to run it.
var token value.Value = value.Unit{}

// frame holds the variables of one function invocation: its parameters and
// let- and case-bound variables by slot, and the variables its closure
// captured.
type frame struct {
	slots []value.Value
	free  []value.Value
	lam   *resolve.Lambda
	small [4]value.Value
}

func newFrame(lam *resolve.Lambda, free, args []value.Value) *frame {
	f := &frame{free: free, lam: lam}
	if lam.Slots <= len(f.small) {
		f.slots = f.small[:lam.Slots]
	} else {
		f.slots = make([]value.Value, lam.Slots)
	}
	copy(f.slots, args)
	return f
}

// kont is a continuation: what to do with the value of the expression
// being evaluated. The machine keeps them on a stack in the heap, so Daml
// recursion never grows the Go stack; its height is the evaluation depth.
type kont interface {
	resume(m *Machine, v value.Value)
}

// located is a continuation that returns into a function's body: it knows
// the frame and the source location, for backtraces.
type located interface {
	where() (*frame, *lf.Location)
}

// Machine evaluates resolved expressions: a CEK machine in the manner of
// Canton's Speedy. The control is either an expression to evaluate in the
// current frame or a value to hand to the topmost continuation. A Machine
// runs one evaluation at a time and is not safe for concurrent use.
type Machine struct {
	pkgs   *resolve.Packages
	limits Limits
	ctx    context.Context

	expr resolve.Expr
	val  value.Value
	fr   *frame
	loc  *lf.Location
	kont []kont

	steps int64
	// mem is the bytes of values the machine has built so far (see charge).
	mem int64
	// inLane is set while the machine holds a slot of its Lane.
	inLane bool
	err    *Error
	// base is the depth of the continuation stack the current loop runs
	// down to: exceptions do not unwind below it.
	base int

	// upd is the state of the command being interpreted; nil while
	// evaluating a pure expression.
	upd *updateState
	// scratch holds the arguments of a builtin called on atomic arguments;
	// plain turns that fast path off (tests compare both).
	scratch [5]value.Value
	plain   bool

	// converting names the exception whose message is being computed for an
	// unhandled-exception error.
	converting string
	failCtx    *failContext
}

// Limits bound what one evaluation may spend.
type Limits struct {
	// Steps bounds the machine steps (expressions evaluated and
	// continuations run); 0 means DefaultSteps.
	Steps int64
	// Depth bounds the continuation stack: the nesting of calls that are
	// not tail calls; 0 means DefaultDepth.
	Depth int
	// Memory bounds the bytes of values the evaluation builds (texts,
	// lists, maps, records, structs, variants, closures), counted as they
	// are built and never given back, so it also bounds what the evaluation
	// can keep alive; 0 means DefaultMemory.
	Memory int64
	// Lane, when set, is where an evaluation that has run past the lane's
	// step or byte threshold waits for a slot (see Lane).
	Lane *Lane
	// Trace, when set, receives the message of each trace (Daml's
	// debug) and the location evaluated last; Daml Script's runner shows
	// them. Otherwise trace only returns its second argument.
	Trace func(msg string, loc *lf.Location)

	// plain turns the machine's fast paths off, for tests that check they
	// agree with the plain evaluator.
	plain bool
}

// Default limits.
const (
	DefaultSteps  = 100_000_000
	DefaultDepth  = 250_000
	DefaultMemory = 512 << 20
)

func (l Limits) withDefaults() Limits {
	if l.Steps <= 0 {
		l.Steps = DefaultSteps
	}
	if l.Depth <= 0 {
		l.Depth = DefaultDepth
	}
	if l.Memory <= 0 {
		l.Memory = DefaultMemory
	}
	return l
}

func newMachine(ctx context.Context, pkgs *resolve.Packages, limits Limits) *Machine {
	return &Machine{pkgs: pkgs, limits: limits.withDefaults(), ctx: ctx, plain: limits.plain}
}

// Steps returns the steps the machine has taken so far.
func (m *Machine) Steps() int64 { return m.steps }

func (m *Machine) push(k kont) {
	if len(m.kont) >= m.limits.Depth {
		m.fail(m.newError(errDepth, fmt.Sprintf("Interpretation aborted: evaluation nested deeper than %d frames (the depth limit)", m.limits.Depth)))
		return
	}
	m.kont = append(m.kont, k)
}

// run evaluates lam applied to args until the continuation stack empties
// or an error occurs. Go panics (bugs of this package) are recovered here
// and reported as internal errors.
func (m *Machine) run(lam *resolve.Lambda, free, args []value.Value) (v value.Value, err error) {
	base := len(m.kont)
	defer func() {
		if r := recover(); r != nil {
			e := m.newError(errInternal, fmt.Sprintf("internal error in the interpreter: %v", r))
			e.goStack = string(debug.Stack())
			v, err = nil, e
		}
	}()
	m.enter(lam, free, args)
	if e := m.loop(base); e != nil {
		return nil, e
	}
	return m.val, nil
}

// runApply applies a function value to args, to completion.
func (m *Machine) runApply(f value.Value, args []value.Value) (v value.Value, err error) {
	base := len(m.kont)
	defer func() {
		if r := recover(); r != nil {
			e := m.newError(errInternal, fmt.Sprintf("internal error in the interpreter: %v", r))
			e.goStack = string(debug.Stack())
			v, err = nil, e
		}
	}()
	m.apply(f, args)
	if e := m.loop(base); e != nil {
		return nil, e
	}
	return m.val, nil
}

// loop runs the machine until the continuation stack is back to base.
func (m *Machine) loop(base int) *Error {
	m.base = base
	maxSteps := m.limits.Steps
	for {
		if m.err != nil {
			err := m.err
			m.err = nil
			m.expr = nil
			clear(m.kont[base:])
			m.kont = m.kont[:base]
			return err
		}
		m.steps++
		if m.steps > maxSteps {
			m.fail(m.newError(errSteps, fmt.Sprintf("Interpretation aborted: the step budget of %d steps is exhausted", maxSteps)))
			continue
		}
		if m.steps&1023 == 0 {
			if m.ctx != nil {
				if cerr := m.ctx.Err(); cerr != nil {
					m.fail(m.newError(errCanceled, "Interpretation aborted: "+cerr.Error()))
					continue
				}
			}
			if !m.laneIfDue() {
				continue
			}
		}
		if e := m.expr; e != nil {
			m.expr = nil
			m.eval(e)
			continue
		}
		if len(m.kont) <= base {
			return nil
		}
		k := m.kont[len(m.kont)-1]
		m.kont[len(m.kont)-1] = nil
		m.kont = m.kont[:len(m.kont)-1]
		k.resume(m, m.val)
	}
}

// enter starts evaluating the body of lam with the given arguments.
func (m *Machine) enter(lam *resolve.Lambda, free, args []value.Value) {
	m.fr = newFrame(lam, free, args)
	m.expr = lam.Body
}

// atom returns the value of a variable or constant without a step.
func (m *Machine) atom(e resolve.Expr) (value.Value, bool) {
	switch x := e.(type) {
	case *resolve.Const:
		return x.Value, true
	case *resolve.Local:
		return m.fr.slots[x.Slot], true
	case *resolve.Free:
		return m.fr.free[x.Index], true
	case *resolve.TopRef:
		// A top-level value already computed is as good as a constant.
		if v := x.Def.Cached(); v != nil {
			return v, true
		}
	}
	return nil, false
}

// atoms stores the values of the leading atomic expressions of es in out
// and returns how many there were.
func (m *Machine) atoms(es []resolve.Expr, out []value.Value) int {
	for i, e := range es {
		v, ok := m.atom(e)
		if !ok {
			return i
		}
		out[i] = v
	}
	return len(es)
}

// eval takes one step on expression e.
func (m *Machine) eval(e resolve.Expr) {
	switch x := e.(type) {
	case *resolve.Const:
		m.val = x.Value
	case *resolve.Local:
		m.val = m.fr.slots[x.Slot]
	case *resolve.Free:
		m.val = m.fr.free[x.Index]
	case *resolve.MakeClosure:
		if !m.charge(costObject + len(x.Captures)*costSlot) {
			return
		}
		free := make([]value.Value, len(x.Captures))
		for i, c := range x.Captures {
			free[i], _ = m.atom(c)
		}
		m.val = &Function{lam: x.Lambda, free: free, arity: x.Lambda.Arity}
	case *resolve.Located:
		m.loc = x.Location
		m.expr = x.Expr
	case *resolve.Let:
		if v, ok := m.atom(x.Bound); ok {
			m.fr.slots[x.Slot] = v
			m.expr = x.Body
			return
		}
		m.push(&kLet{fr: m.fr, loc: m.loc, let: x})
		m.expr = x.Bound
	case *resolve.Case:
		if v, ok := m.atom(x.Scrut); ok {
			m.match(x, v)
			return
		}
		m.push(&kCase{fr: m.fr, loc: m.loc, c: x})
		m.expr = x.Scrut
	case *resolve.App:
		args := make([]value.Value, len(x.Args))
		f, ok := m.atom(x.Fun)
		if !ok {
			m.push(&kApp{fr: m.fr, loc: m.loc, exprs: x.Args, args: args, i: -1})
			m.expr = x.Fun
			return
		}
		i := m.atoms(x.Args, args)
		if i == len(args) {
			m.apply(f, args)
			return
		}
		m.push(&kApp{fr: m.fr, loc: m.loc, f: f, exprs: x.Args, args: args, i: i})
		m.expr = x.Args[i]
	case *resolve.Call:
		if b, ok := x.Op.(*resolve.Builtin); ok && !m.plain && len(x.Args) <= len(m.scratch) {
			// Fast path: a builtin whose arguments are all variables or
			// constants runs on a scratch array instead of a fresh slice.
			// Builtins read their arguments before returning and never keep
			// the slice. TestFastPathsAgree runs the suites both ways.
			args := m.scratch[:len(x.Args)]
			if m.atoms(x.Args, args) == len(args) {
				m.builtin(b.Fn, args)
				clear(args)
				return
			}
		}
		args := make([]value.Value, len(x.Args))
		i := m.atoms(x.Args, args)
		if i == len(args) {
			m.call(x.Op, args)
			return
		}
		m.push(&kCall{fr: m.fr, loc: m.loc, op: x.Op, exprs: x.Args, args: args, i: i})
		m.expr = x.Args[i]
	case *resolve.OpRef:
		m.val = &Function{op: x.Op, arity: x.Op.Arity()}
	case *resolve.TopRef:
		if v := x.Def.Cached(); v != nil {
			m.val = v
			return
		}
		body, err := x.Def.Body()
		if err != nil {
			m.fail(m.newError(errInternal, fmt.Sprintf("cannot resolve %s: %v", x.Def.Name, err)))
			return
		}
		m.push(&kTop{def: x.Def, fr: m.fr, loc: m.loc})
		m.enter(body, nil, nil)
	case *resolve.TryCatch:
		m.tryCatch(x)
	case *resolve.Unsupported:
		m.fail(m.newError(errUnsupported, "Interpretation error: "+x.What+" are not supported by this interpreter yet"))
	default:
		m.fail(m.newError(errInternal, fmt.Sprintf("unknown expression %T", e)))
	}
}

// apply applies function value fv to args: a partial application makes a
// new function value, a saturated one enters the closure or runs the
// operation, an over-application runs the saturated part first and applies
// its result to the rest.
func (m *Machine) apply(fv value.Value, args []value.Value) {
	f, ok := fv.(*Function)
	if !ok {
		m.fail(m.newError(errInternal, fmt.Sprintf("applying %s, which is not a function", fv)))
		return
	}
	missing := f.arity - len(f.args)
	if len(args) < missing {
		if !m.charge(costObject + (len(f.args)+len(args))*costSlot) {
			return
		}
		all := make([]value.Value, 0, len(f.args)+len(args))
		all = append(append(all, f.args...), args...)
		m.val = &Function{lam: f.lam, free: f.free, op: f.op, args: all, arity: f.arity}
		return
	}
	call := args[:missing:missing]
	if len(f.args) > 0 {
		call = make([]value.Value, 0, f.arity)
		call = append(append(call, f.args...), args[:missing]...)
	}
	if len(args) > missing {
		m.push(&kOverApp{rest: args[missing:]})
	}
	if f.lam != nil {
		m.enter(f.lam, f.free, call)
		return
	}
	m.call(f.op, call)
}

// match selects the alternative of case c matching v.
func (m *Machine) match(c *resolve.Case, v value.Value) {
	for i := range c.Alts {
		a := &c.Alts[i]
		switch a.Kind {
		case resolve.PatDefault, resolve.PatUnit:
		case resolve.PatVariant:
			x, ok := v.(*value.Variant)
			if !ok || x.Rank != a.Rank {
				continue
			}
			m.fr.slots[a.Slot] = x.Value
		case resolve.PatEnum:
			x, ok := v.(*value.Enum)
			if !ok || x.Rank != a.Rank {
				continue
			}
		case resolve.PatTrue:
			if v != value.Bool(true) {
				continue
			}
		case resolve.PatFalse:
			if v != value.Bool(false) {
				continue
			}
		case resolve.PatNil:
			if l, ok := v.(*value.List); !ok || l.Len() != 0 {
				continue
			}
		case resolve.PatCons:
			l, ok := v.(*value.List)
			if !ok {
				continue
			}
			h, t, ok := l.Uncons()
			if !ok {
				continue
			}
			m.fr.slots[a.Slot] = h
			m.fr.slots[a.Slot2] = t
		case resolve.PatNone:
			if o, ok := v.(value.Optional); !ok || o.Value != nil {
				continue
			}
		case resolve.PatSome:
			o, ok := v.(value.Optional)
			if !ok || o.Value == nil {
				continue
			}
			m.fr.slots[a.Slot] = o.Value
		}
		m.expr = a.Body
		return
	}
	m.fail(m.newError(errInternal, fmt.Sprintf("match error: no alternative matches %s", v)))
}

// kLet stores the bound value and evaluates the body.
type kLet struct {
	fr  *frame
	loc *lf.Location
	let *resolve.Let
}

func (k *kLet) resume(m *Machine, v value.Value) {
	m.fr, m.loc = k.fr, k.loc
	m.fr.slots[k.let.Slot] = v
	m.expr = k.let.Body
}

func (k *kLet) where() (*frame, *lf.Location) { return k.fr, k.loc }

// kCase matches the scrutinee.
type kCase struct {
	fr  *frame
	loc *lf.Location
	c   *resolve.Case
}

func (k *kCase) resume(m *Machine, v value.Value) {
	m.fr, m.loc = k.fr, k.loc
	m.match(k.c, v)
}

func (k *kCase) where() (*frame, *lf.Location) { return k.fr, k.loc }

// kApp evaluates the function then the arguments of an application, left
// to right, and applies. i is -1 while the function is evaluated.
type kApp struct {
	fr    *frame
	loc   *lf.Location
	f     value.Value
	exprs []resolve.Expr
	args  []value.Value
	i     int
}

func (k *kApp) resume(m *Machine, v value.Value) {
	m.fr, m.loc = k.fr, k.loc
	if k.i < 0 {
		k.f = v
	} else {
		k.args[k.i] = v
	}
	k.i++
	k.i += m.atoms(k.exprs[k.i:], k.args[k.i:])
	if k.i < len(k.exprs) {
		m.push(k)
		m.expr = k.exprs[k.i]
		return
	}
	m.apply(k.f, k.args)
}

func (k *kApp) where() (*frame, *lf.Location) { return k.fr, k.loc }

// kCall evaluates the arguments of a call, left to right, and runs the
// operation.
type kCall struct {
	fr    *frame
	loc   *lf.Location
	op    resolve.Op
	exprs []resolve.Expr
	args  []value.Value
	i     int
}

func (k *kCall) resume(m *Machine, v value.Value) {
	m.fr, m.loc = k.fr, k.loc
	k.args[k.i] = v
	k.i++
	k.i += m.atoms(k.exprs[k.i:], k.args[k.i:])
	if k.i < len(k.exprs) {
		m.push(k)
		m.expr = k.exprs[k.i]
		return
	}
	m.call(k.op, k.args)
}

func (k *kCall) where() (*frame, *lf.Location) { return k.fr, k.loc }

// kOverApp applies the result of a saturated call to the remaining
// arguments.
type kOverApp struct{ rest []value.Value }

func (k *kOverApp) resume(m *Machine, v value.Value) { m.apply(v, k.rest) }

// kTop publishes the value of a top-level definition.
type kTop struct {
	def *resolve.TopDef
	fr  *frame
	loc *lf.Location
}

func (k *kTop) resume(m *Machine, v value.Value) {
	k.def.Publish(v)
	m.fr, m.loc = k.fr, k.loc
	m.val = v
}

func (k *kTop) where() (*frame, *lf.Location) { return k.fr, k.loc }

// kApplyTo applies the value to fixed arguments.
type kApplyTo struct{ args []value.Value }

func (k *kApplyTo) resume(m *Machine, v value.Value) { m.apply(v, k.args) }

// kFunc runs a Go function on the value; the update machinery uses it to
// sequence the steps of create and exercise.
type kFunc struct {
	f   func(m *Machine, v value.Value)
	fr  *frame
	loc *lf.Location
}

func (k *kFunc) resume(m *Machine, v value.Value) {
	m.fr, m.loc = k.fr, k.loc
	k.f(m, v)
}

func (k *kFunc) where() (*frame, *lf.Location) { return k.fr, k.loc }

// then pushes f to run on the value of what is evaluated next.
func (m *Machine) then(f func(m *Machine, v value.Value)) {
	m.push(&kFunc{f: f, fr: m.fr, loc: m.loc})
}
