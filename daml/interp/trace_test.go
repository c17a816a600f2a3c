package interp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// TestExerciseTrace: a failure records the exercises it happened inside,
// innermost first with their node ids, and the command, in Canton's text
// (Speedy's transactionTrace); a closed exercise (Touch, before the throw)
// is not in it.
func TestExerciseTrace(t *testing.T) {
	ctx := context.Background()
	l := newMemLedger()
	cid := setupBox(t, l, alice, 1)
	c := prettyCid(cid)
	if !strings.HasPrefix(c, "00") || len(c) != 10 {
		t.Fatalf("contract id %q", c)
	}

	_, err := excEngine.Submit(ctx, testSubmission([]string{alice}, boxCmd(cid, "ThrowDeeper", nil)), l)
	ie := wantError(t, err, "DAML_FAILURE", "boom: deep")
	want := "    in choice 00000000:Exc:Box:ThrowAfterTouch on contract " + c + " (#1)\n" +
		"    in choice 00000000:Exc:Box:ThrowDeeper on contract " + c + " (#0)\n" +
		"    in exercise command 00000000:Exc:Box:ThrowDeeper on contract " + c + ".\n"
	if got := ie.TransactionTrace(); got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
	if len(ie.ExerciseTrace) != 2 || ie.ExerciseTrace[0].Choice != "ThrowAfterTouch" || ie.ExerciseTrace[1].ContractID != cid {
		t.Fatalf("exercise trace %+v", ie.ExerciseTrace)
	}
	if loc := ie.ExerciseTrace[1].Location; loc == nil || loc.Definition != "Box:ThrowDeeper" {
		t.Errorf("ThrowDeeper's location %v", loc)
	}

	// A create command: no exercise, only the command.
	_, err = excEngine.Submit(ctx, testSubmission([]string{alice},
		&CreateCommand{Template: eid("Picky"), Argument: record(eid("Picky"), "owner", value.Party(alice))}), l)
	ie = wantError(t, err, "DAML_FAILURE", "boom: precondition")
	if got := ie.TransactionTrace(); got != "    in create command 00000000:Exc:Picky.\n" {
		t.Errorf("create trace %q", got)
	}
}

// TestExerciseTraceCap: past ten exercises the text says "..." and goes on
// with the command, as Canton's transactionTraceMaxLength.
func TestExerciseTraceCap(t *testing.T) {
	e := &Error{CommandTrace: "in create-and-exercise command abcdef01:M:T:C."}
	for i := 11; i >= 0; i-- {
		e.ExerciseTrace = append(e.ExerciseTrace, TracedExercise{
			Template: &value.Identifier{PackageID: "abcdef0123456789", ModuleName: "M", EntityName: "T"},
			Choice:   "C", ContractID: "00aabbccddeeff", Node: tx.NodeID(i)})
	}
	lines := strings.Split(strings.TrimSuffix(e.TransactionTrace(), "\n"), "\n")
	if len(lines) != 12 || lines[10] != "    ..." || lines[11] != "    "+e.CommandTrace {
		t.Fatalf("trace:\n%s", strings.Join(lines, "\n"))
	}
	if lines[0] != fmt.Sprintf("    in choice abcdef01:M:T:C on contract 00aabbccdd (#%d)", 11) {
		t.Errorf("first line %q", lines[0])
	}
	if (&Error{}).TransactionTrace() != "" {
		t.Error("an error outside a submission has a trace")
	}
}

// TestExerciseTraceBounded: a command naming a key of a megabyte makes a
// trace of at most MaxCauseBytes and a note.
func TestExerciseTraceBounded(t *testing.T) {
	e := &Error{CommandTrace: "in exercise-by-key command abcdef01:M:T:C on key " + strings.Repeat("k", 1<<20) + "."}
	got := e.TransactionTrace()
	if len(got) > MaxCauseBytes+64 || !strings.Contains(got, "more bytes cut") {
		t.Errorf("trace of %d bytes, ends %q", len(got), got[len(got)-40:])
	}
}
