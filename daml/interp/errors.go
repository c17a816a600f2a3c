package interp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// Error is an interpretation failure. ID and Category are the error id and
// error category Canton's Ledger API answers for it, Cause the text Canton
// puts in the error's cause ("Interpretation error: Error: …"); the other
// fields say where it happened, which Canton's text does not always.
//
// Error() joins the cause and the context:
//
//	Interpretation error: Error: node NodeId(1) (…:Canton.Internal.Ping:Ping) requires authorizers bob, but only alice were given
//	  in choice Canton.Internal.Ping:Ping:Respond, at Canton.Internal.Ping:18:9
//	  backtrace: Canton.Internal.Ping:Ping:Respond (Canton.Internal.Ping:18:9)
type Error struct {
	ID       string
	Category int
	Cause    string
	// Template and Choice name the innermost choice being exercised
	// ("pkg:Module:Name" and the choice name); outside any choice,
	// Template is the template being created or fetched.
	Template string
	Choice   string
	// Action is the innermost ledger action being interpreted, when it is
	// not the exercise itself: "create of pkg:Module:Name" or "fetch of …".
	Action string
	// Location is the last Daml source location evaluated.
	Location *lf.Location
	// Backtrace lists the definitions being evaluated, innermost first.
	Backtrace []Frame
	// ExerciseTrace lists the exercises the failure happened inside,
	// innermost first, and CommandTrace names the command being
	// interpreted ("in exercise command …"); TransactionTrace renders
	// both as Canton's exercise_trace.
	ExerciseTrace []TracedExercise
	CommandTrace  string
	// Metadata is the error metadata of DAML_FAILURE (failWithStatus and
	// unhandled exceptions): error_id and the user's entries.
	Metadata map[string]string
	// Exception is the exception of an unhandled-exception error (an
	// AnyException: its type and payload), nil for other errors; Daml
	// Script's try/catch and SubmitError values carry it on.
	Exception *value.Any

	kind    errKind
	goStack string
}

// Frame is a backtrace entry: a definition ("Module:name", or
// "Module:Template:Choice" for a choice body) and the last location
// evaluated in it.
type Frame struct {
	Definition string
	Location   *lf.Location
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Cause)
	if e.Action != "" {
		fmt.Fprintf(&b, "\n  in %s", e.Action)
		if e.Choice != "" {
			b.WriteString(",")
		}
	}
	switch {
	case e.Choice != "":
		fmt.Fprintf(&b, "\n  in choice %s of template %s", e.Choice, e.Template)
	case e.Template != "":
		fmt.Fprintf(&b, "\n  in template %s", e.Template)
	}
	if e.Location != nil {
		fmt.Fprintf(&b, "\n  at %s", e.Location)
	}
	if len(e.Backtrace) > 0 {
		b.WriteString("\n  backtrace:")
		for _, f := range e.Backtrace {
			b.WriteString("\n    ")
			b.WriteString(f.Definition)
			if f.Location != nil {
				fmt.Fprintf(&b, " (%s)", f.Location)
			}
		}
	}
	return b.String()
}

// errKind sorts failures; each maps to one Canton error id.
type errKind int

const (
	errInternal errKind = iota
	errSteps
	errCanceled
	errDepth
	errMemory
	errUnsupported
	errUser
	errFailureStatus
	errAuthorization
	errPrecondition
	errContractNotFound
	errContractNotActive
	errWronglyTyped
	errNotComparable
	errComparability
	errValueNesting
	errMalformedText
	errUpgradeValidation
	errCryptoEncoding
	errCryptoKey
	errCryptoSignature
	errDev
	errCommand
	errEffectfulRollback
	errContractKeyNotFound
	errDoesNotImplement
	errDoesNotImplementRequiring
	errCreateEmptyMaintainers
	errFetchEmptyMaintainers
	errContractIDInKey
	errInconsistentKey
	errUpgradeTranslation
	errPackageName
	errPackageNotFound
)

// Canton's error categories (ErrorCategory.asInt).
const (
	categoryContention         = 2
	categoryInternal           = 4
	categoryInvalidIndependent = 8
	categoryInvalidGiven       = 9
	categoryResourceMissing    = 11
)

var errIDs = map[errKind]struct {
	id       string
	category int
}{
	errInternal:          {"LEDGER_API_INTERNAL_ERROR", categoryInternal},
	errSteps:             {"INTERPRETATION_TIME_EXCEEDED", categoryContention},
	errCanceled:          {"INTERPRETATION_TIME_EXCEEDED", categoryContention},
	errDepth:             {"DAML_INTERPRETATION_ERROR", categoryInvalidGiven},
	errMemory:            {"INTERPRETATION_TIME_EXCEEDED", categoryContention},
	errUnsupported:       {"DAML_INTERPRETATION_ERROR", categoryInvalidGiven},
	errUser:              {"INTERPRETATION_USER_ERROR", categoryInvalidGiven},
	errFailureStatus:     {"DAML_FAILURE", categoryInvalidGiven},
	errAuthorization:     {"DAML_AUTHORIZATION_ERROR", categoryInvalidIndependent},
	errPrecondition:      {"TEMPLATE_PRECONDITION_VIOLATED", categoryInvalidIndependent},
	errContractNotFound:  {"CONTRACT_NOT_FOUND", categoryResourceMissing},
	errContractNotActive: {"CONTRACT_NOT_ACTIVE", categoryResourceMissing},
	errWronglyTyped:      {"WRONGLY_TYPED_CONTRACT", categoryInvalidGiven},
	errNotComparable:     {"NON_COMPARABLE_VALUES", categoryInvalidIndependent},
	errComparability:     {"CONTRACT_ID_COMPARABILITY", categoryInvalidIndependent},
	errValueNesting:      {"VALUE_NESTING", categoryInvalidIndependent},
	errMalformedText:     {"MALFORMED_TEXT", categoryInvalidIndependent},
	errUpgradeValidation: {"INTERPRETATION_UPGRADE_ERROR_VALIDATION_FAILED", categoryInvalidIndependent},
	errCryptoEncoding:    {"INTERPRETATION_CRYPTO_ERROR_MALFORMED_BYTE_ENCODING", categoryInvalidGiven},
	errCryptoKey:         {"INTERPRETATION_CRYPTO_ERROR_MALFORMED_KEY", categoryInvalidGiven},
	errCryptoSignature:   {"INTERPRETATION_CRYPTO_ERROR_MALFORMED_SIGNATURE", categoryInvalidGiven},
	errDev:               {"INTERPRETATION_DEV_ERROR", categoryInvalidGiven},
	errCommand:           {"COMMAND_PREPROCESSING_FAILED", categoryInvalidIndependent},

	errEffectfulRollback:         {"DAML_EFFECTFUL_ROLLBACK_ERROR", categoryInvalidIndependent},
	errContractKeyNotFound:       {"CONTRACT_KEY_NOT_FOUND", categoryResourceMissing},
	errDoesNotImplement:          {"CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE", categoryInvalidIndependent},
	errDoesNotImplementRequiring: {"CONTRACT_DOES_NOT_IMPLEMENT_REQUIRING_INTERFACE", categoryInvalidIndependent},
	errCreateEmptyMaintainers:    {"CREATE_EMPTY_CONTRACT_KEY_MAINTAINERS", categoryInvalidIndependent},
	errFetchEmptyMaintainers:     {"FETCH_EMPTY_CONTRACT_KEY_MAINTAINERS", categoryInvalidIndependent},
	errContractIDInKey:           {"CONTRACT_ID_IN_CONTRACT_KEY", categoryInvalidIndependent},
	errInconsistentKey:           {"INCONSISTENT_CONTRACT_KEY", categoryInvalidGiven},
	errUpgradeTranslation:        {"INTERPRETATION_UPGRADE_ERROR_TRANSLATION_FAILED", categoryInvalidIndependent},
	errPackageName:               {"UNRESOLVED_PACKAGE_NAME", categoryResourceMissing},
	errPackageNotFound:           {"PACKAGE_NOT_FOUND", categoryResourceMissing},
}

// interpretationError is the prefix of Canton's interpretation errors
// (engine.Error.Interpretation.DamlException.message).
const interpretationError = "Interpretation error: Error: "

// newError makes an error of kind k with the machine's context.
func (m *Machine) newError(k errKind, cause string) *Error {
	ids := errIDs[k]
	e := &Error{ID: ids.id, Category: ids.category, Cause: boundCause(cause), kind: k}
	if m.failCtx != nil {
		m.failCtx.apply(e)
		return e
	}
	m.context().apply(e)
	return e
}

// MaxCauseBytes bounds an error's cause. Canton prints the values an
// error names in full; a value of a budget's size would make an error body
// and a log line of hundreds of megabytes, so a longer cause is cut, on a
// UTF-8 boundary, and says how much was left out.
const MaxCauseBytes = 64 << 10

func boundCause(s string) string {
	if len(s) <= MaxCauseBytes {
		return s
	}
	cut := MaxCauseBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d more bytes cut)", s[:cut], len(s)-cut)
}

// failContext is where an error happened.
type failContext struct {
	template, choice, action string
	loc                      *lf.Location
	trace                    []Frame
	exercises                []TracedExercise
}

func (c *failContext) apply(e *Error) {
	e.Template, e.Choice, e.Action, e.Location, e.Backtrace = c.template, c.choice, c.action, c.loc, c.trace
	e.ExerciseTrace = c.exercises
}

// context captures the machine's current context for an error.
func (m *Machine) context() *failContext {
	c := &failContext{loc: m.loc}
	if m.upd != nil {
		w := m.upd.where()
		c.template = w.template()
		if w.action != "exercise" && w.action != "" {
			c.action = w.action + " of " + w.template()
		}
		if ex, ok := m.upd.exerciseWhere(); ok {
			c.template, c.choice = ex.template(), ex.choiceName()
		}
		if c.loc == nil {
			c.loc = w.location()
		}
		c.exercises = m.upd.exerciseChain()
	}
	var last *frame
	add := func(fr *frame, loc *lf.Location) {
		if fr == nil || fr.lam == nil || fr == last {
			return
		}
		last = fr
		c.trace = append(c.trace, Frame{Definition: fr.lam.Def, Location: loc})
	}
	add(m.fr, m.loc)
	for i := len(m.kont) - 1; i >= 0 && len(c.trace) < 50; i-- {
		if l, ok := m.kont[i].(located); ok {
			add(l.where())
		}
	}
	return c
}

// fail stops the machine with err.
func (m *Machine) fail(err *Error) {
	if m.err == nil {
		m.err = err
	}
}

// prettyTypeCon renders a type constructor as Canton's messages do:
// "Module:Name@" and the first 8 characters of the package id.
func prettyTypeCon(pkg, qualified string) string {
	if len(pkg) > 8 {
		pkg = pkg[:8]
	}
	return qualified + "@" + pkg
}
