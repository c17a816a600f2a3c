package interp

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// throw raises a Daml exception, an AnyException, as Speedy's
// handleException does: the continuation stack is searched for the
// innermost try block (kTry); the exercises in between are closed without
// a result, the block is rolled back and its handler runs. An exception
// no block catches, or one that reaches a point where catching is not
// allowed (kPreventCatch: controllers, choice observers, the contract
// info of a fetched contract, key maintainers), is unhandled: Canton turns
// it into a FailureStatus error — DAML_FAILURE, error id
// "UNHANDLED_EXCEPTION/Module:Name", the message computed by the
// exception's message function (Speedy's convertLegacyExceptions).
func (m *Machine) throw(exc *value.Any) {
	if m.converting != "" {
		tc, _ := exc.Type.(lf.TCon)
		m.failStatus("UNHANDLED_EXCEPTION/"+m.converting, categoryInvalidGiven,
			"<Failed to calculate message as "+qualified(tc.Con)+" was thrown during conversion>", nil)
		return
	}
	if m.upd != nil {
		i := m.handlerIndex()
		if i >= 0 {
			if g, ok := m.kont[i].(*kGuard); ok {
				m.fail(g.failed(m))
				return
			}
			m.catch(i, exc)
			return
		}
	}
	m.unhandled(exc)
}

func qualified(n lf.TypeConName) string { return n.Module.String() + ":" + n.Name.String() }

// handlerIndex returns the position on the continuation stack of the try
// block that catches an exception thrown now, or of the choice guard it
// makes fail, or -1.
func (m *Machine) handlerIndex() int {
	for i := len(m.kont) - 1; i >= m.base; i-- {
		switch m.kont[i].(type) {
		case *kTry, *kGuard:
			return i
		case *kPreventCatch:
			return -1
		}
	}
	return -1
}

// catch unwinds the continuation stack to the try block at position i and
// runs its handler on exc.
func (m *Machine) catch(i int, exc *value.Any) {
	u := m.upd
	for j := len(m.kont) - 1; j > i; j-- {
		if k, ok := m.kont[j].(*kExercise); ok {
			u.endExercise(&k.ctx, nil)
		}
	}
	k := m.kont[i].(*kTry)
	clear(m.kont[i:])
	m.kont = m.kont[:i]
	u.whereStack = u.whereStack[:k.ctx.whereLen]
	if u.top != k.ctx {
		m.fail(m.newError(errInternal, "try block closed out of order"))
		return
	}
	if !u.rollbackTry(m, k.ctx) {
		return
	}
	m.fr, m.loc = k.fr, k.loc
	m.fr.slots[k.try.Slot] = exc
	token, _ := m.atom(k.try.Token)
	m.push(&kHandler{exc: exc, token: token})
	m.expr = k.try.Handler
}

// unhandled reports an exception nothing catches.
func (m *Machine) unhandled(exc *value.Any) {
	tc, ok := exc.Type.(lf.TCon)
	if !ok {
		m.fail(m.newError(errInternal, "Tried to convert a non-grounded exception type "+exc.Type.String()+" to Failure Status"))
		return
	}
	qn := qualified(tc.Con)
	if m.failCtx == nil {
		m.failCtx = m.context()
	}
	if msg, ok := arithmeticMessage(tc.Con, exc.Value); ok {
		m.failStatus("UNHANDLED_EXCEPTION/"+qn, categoryInvalidGiven, msg, nil)
		if m.err != nil && m.err.Exception == nil {
			m.err.Exception = exc
		}
		return
	}
	ex, err := m.pkgs.Exception(tc.Con)
	if err != nil {
		m.fail(m.newError(errInternal, fmt.Sprintf("exception %s: %v", tc.Con, err)))
		return
	}
	m.converting = qn
	m.push(&kUnhandled{exception: qn, exc: exc})
	m.push(&kApplyTo{args: []value.Value{exc.Value}})
	m.enter(ex.Message, nil, nil)
}

// tryCatch starts a try block: its body runs with kTry below it.
func (m *Machine) tryCatch(x *resolve.TryCatch) {
	if m.upd == nil {
		m.fail(m.newError(errInternal, "a try block was run outside of a command"))
		return
	}
	c := m.upd.beginTry()
	m.push(&kTry{ctx: c, try: x, fr: m.fr, loc: m.loc})
	m.expr = x.Body
}

// kTry marks a try block on the continuation stack; reached normally, the
// block ends and its nodes become its parent's (Speedy's
// KTryCatchHandler).
type kTry struct {
	ctx *txContext
	try *resolve.TryCatch
	fr  *frame
	loc *lf.Location
}

func (k *kTry) resume(m *Machine, v value.Value) {
	m.fr, m.loc = k.fr, k.loc
	m.upd.endTry(k.ctx)
	m.val = v
}

func (k *kTry) where() (*frame, *lf.Location) { return k.fr, k.loc }

// kHandler runs the update a handler chose, or rethrows when it chose
// None (Speedy's SBTryHandler).
type kHandler struct {
	exc   *value.Any
	token value.Value
}

func (k *kHandler) resume(m *Machine, v value.Value) {
	o, ok := v.(value.Optional)
	if !ok {
		m.fail(m.newError(errInternal, "a handler returned "+v.String()+", not an optional update"))
		return
	}
	if o.Value == nil {
		m.throw(k.exc)
		return
	}
	m.apply(o.Value, []value.Value{k.token})
}

// kPreventCatch stops the search for a try block: what it covers may not
// throw an exception a handler catches (Speedy's KPreventException).
type kPreventCatch struct{}

func (kPreventCatch) resume(m *Machine, v value.Value) { m.val = v }

var preventCatch = &kPreventCatch{}

// arithmeticMessage returns the message of an ArithmeticError, which
// builtins throw even when its package is not loaded.
func arithmeticMessage(tc lf.TypeConName, payload value.Value) (string, bool) {
	if string(tc.Package) != arithmeticErrorID.PackageID || tc.Module.String() != arithmeticErrorID.ModuleName ||
		tc.Name.String() != arithmeticErrorID.EntityName {
		return "", false
	}
	r, ok := payload.(*value.Record)
	if !ok || len(r.Fields) != 1 {
		return "", false
	}
	t, ok := r.Fields[0].Value.(value.Text)
	return string(t), ok
}

// kUnhandled reports an unhandled exception once its message is known.
type kUnhandled struct {
	exception string
	exc       *value.Any
}

func (k *kUnhandled) resume(m *Machine, v value.Value) {
	m.converting = ""
	m.failStatus("UNHANDLED_EXCEPTION/"+k.exception, categoryInvalidGiven, string(v.(value.Text)), nil)
	if m.err != nil && m.err.Exception == nil {
		m.err.Exception = k.exc
	}
}

// anyExceptionMessage is ANY_EXCEPTION_MESSAGE.
func (m *Machine) anyExceptionMessage(exc *value.Any) {
	tc, ok := exc.Type.(lf.TCon)
	if !ok {
		m.fail(m.newError(errInternal, "exception of non-constructor type "+exc.Type.String()))
		return
	}
	if msg, ok := arithmeticMessage(tc.Con, exc.Value); ok {
		m.val = value.Text(msg)
		return
	}
	ex, err := m.pkgs.Exception(tc.Con)
	if err != nil {
		m.fail(m.newError(errInternal, fmt.Sprintf("exception %s: %v", tc.Con, err)))
		return
	}
	m.push(&kApplyTo{args: []value.Value{exc.Value}})
	m.enter(ex.Message, nil, nil)
}
