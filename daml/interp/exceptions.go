package interp

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// throw raises a Daml exception, an AnyException. Handlers (try/catch) are
// issue 16; until then every exception is unhandled, and Canton turns an
// unhandled exception into a FailureStatus error: DAML_FAILURE, error id
// "UNHANDLED_EXCEPTION/Module:Name", the exception's message computed by
// its message function (Speedy's convertLegacyExceptions).
func (m *Machine) throw(exc *value.Any) {
	tc, ok := exc.Type.(lf.TCon)
	if !ok {
		m.fail(m.newError(errInternal, "Tried to convert a non-grounded exception type "+exc.Type.String()+" to Failure Status"))
		return
	}
	qn := tc.Con.Module.String() + ":" + tc.Con.Name.String()
	if m.converting != "" {
		m.failStatus("UNHANDLED_EXCEPTION/"+m.converting, categoryInvalidGiven,
			"<Failed to calculate message as "+qn+" was thrown during conversion>", nil)
		return
	}
	if m.failCtx == nil {
		m.failCtx = m.context()
	}
	if msg, ok := arithmeticMessage(tc.Con, exc.Value); ok {
		m.failStatus("UNHANDLED_EXCEPTION/"+qn, categoryInvalidGiven, msg, nil)
		return
	}
	ex, err := m.pkgs.Exception(tc.Con)
	if err != nil {
		m.fail(m.newError(errInternal, fmt.Sprintf("exception %s: %v", tc.Con, err)))
		return
	}
	m.converting = qn
	m.push(&kUnhandled{exception: qn})
	m.push(&kApplyTo{args: []value.Value{exc.Value}})
	m.enter(ex.Message, nil, nil)
}

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
type kUnhandled struct{ exception string }

func (k *kUnhandled) resume(m *Machine, v value.Value) {
	m.converting = ""
	m.failStatus("UNHANDLED_EXCEPTION/"+k.exception, categoryInvalidGiven, string(v.(value.Text)), nil)
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
