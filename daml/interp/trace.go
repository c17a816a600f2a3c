package interp

import (
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// TracedExercise is an exercise a failure happened inside: the template
// (or, for an exercise by interface, the interface), the choice, the
// contract, the exercise node's id in the transaction being built and the
// choice's Daml location (nil when the package has none).
type TracedExercise struct {
	Template   *value.Identifier
	Choice     string
	ContractID value.ContractID
	Node       tx.NodeID
	Location   *lf.Location
}

// maxTracedExercises is how many exercises the trace text names (Canton's
// EngineConfig.transactionTraceMaxLength); deeper ones are "...".
const maxTracedExercises = 10

// exerciseChain lists the exercises open in the transaction under
// construction, innermost first (Speedy's PartialTransaction.transactionTrace):
// try blocks are skipped, the root ends it.
func (u *updateState) exerciseChain() []TracedExercise {
	var out []TracedExercise
	for c := u.top; c != nil && c.kind != ctxRoot; c = c.parent {
		if c.kind != ctxExercise || c.exercise == nil {
			continue
		}
		ex := c.exercise
		id := ex.InterfaceID
		if id == nil {
			id = ex.TemplateID
		}
		x := TracedExercise{Template: id, Choice: ex.Choice, ContractID: ex.ContractID, Node: c.id}
		if c.choice != nil {
			x.Location = c.choice.Location
		}
		out = append(out, x)
	}
	return out
}

// commandTrace is the last line of the trace: the command being
// interpreted, as Speedy's transactionTrace names it.
func commandTrace(cmd Command) string {
	switch c := cmd.(type) {
	case *CreateCommand:
		return fmt.Sprintf("in create command %s.", prettyTypeID(c.Template))
	case *ExerciseCommand:
		return fmt.Sprintf("in exercise command %s:%s on contract %s.", prettyTypeID(c.Template), c.Choice, prettyCid(c.ContractID))
	case *CreateAndExerciseCommand:
		return fmt.Sprintf("in create-and-exercise command %s:%s.", prettyTypeID(c.Template), c.Choice)
	case *ExerciseByKeyCommand:
		return fmt.Sprintf("in exercise-by-key command %s:%s on key %s.", prettyTypeID(c.Template), c.Choice, value.Terse(c.Key))
	case *FetchByKeyCommand:
		return fmt.Sprintf("in fetch-by-key command %s on key %s.", prettyTypeID(c.Template), value.Terse(c.Key))
	case *LookupByKeyCommand:
		return fmt.Sprintf("in lookup-by-key command %s on key %s.", prettyTypeID(c.Template), value.Terse(c.Key))
	}
	return ""
}

// TransactionTrace renders the exercise trace as Canton's engine does
// (Speedy's transactionTrace), the text of DAML_FAILURE's exercise_trace:
// one line per open exercise, innermost first, at most ten and then
// "...", and last the command, each line indented by four spaces and
// ended by a newline:
//
//	in choice 3f2a9c1b:Test:Dummy:FailingChoice on contract 00c0ffee12 (#3)
//	in choice 3f2a9c1b:Test:Dummy:FailingClone on contract 00c0ffee12 (#0)
//	in exercise command 3f2a9c1b:Test:Dummy:FailingClone on contract 00c0ffee12.
//
// It is empty for an error raised outside a submission's commands, and
// at most MaxCauseBytes (and a note of what was cut) long.
func (e *Error) TransactionTrace() string {
	if len(e.ExerciseTrace) == 0 && e.CommandTrace == "" {
		return ""
	}
	var b strings.Builder
	line := func(s string) { b.WriteString("    "); b.WriteString(s); b.WriteString("\n") }
	for i, x := range e.ExerciseTrace {
		if i == maxTracedExercises {
			line("...")
			break
		}
		line(fmt.Sprintf("in choice %s:%s on contract %s (#%d)", prettyTypeID(x.Template), x.Choice, prettyCid(x.ContractID), x.Node))
	}
	if e.CommandTrace != "" {
		line(e.CommandTrace)
	}
	// A command's key is printed whole, and a request may carry a key of
	// megabytes: the trace is bounded as a cause is.
	return boundCause(b.String())
}

// prettyTypeID is "pkg8:Module:Entity": the package id's first eight
// characters, as Speedy's transactionTrace prints type ids.
func prettyTypeID(id *value.Identifier) string {
	if id == nil {
		return ""
	}
	pkg := id.PackageID
	if len(pkg) > 8 {
		pkg = pkg[:8]
	}
	return pkg + ":" + id.ModuleName + ":" + id.EntityName
}

// prettyCid is a contract id's first ten characters.
func prettyCid(cid value.ContractID) string {
	s := string(cid)
	if len(s) > 10 {
		s = s[:10]
	}
	return s
}
