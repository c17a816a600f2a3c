package resolve

import (
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/lf"
)

// TestSubstituteShared: substituting in a type of forty shared levels, each
// naming the one below twice, takes the time of its nodes; the variable at
// the bottom is replaced.
func TestSubstituteShared(t *testing.T) {
	var typ lf.Type = lf.TVar{Name: "a"}
	for range 40 {
		typ = lf.TApp{Fun: lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinGenMap}, Arg: typ}, Arg: typ}
	}
	start := time.Now()
	got := Substitute(typ, map[string]lf.Type{"a": lf.TBuiltin{Builtin: lf.BuiltinInt64}})
	if el := time.Since(start); el > time.Second {
		t.Errorf("substituting took %v", el)
	}
	for range 40 {
		got = got.(lf.TApp).Arg
	}
	if b, ok := got.(lf.TBuiltin); !ok || b.Builtin != lf.BuiltinInt64 {
		t.Errorf("the bottom is %v", got)
	}
	if s := Substitute(lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinList}, Arg: lf.TVar{Name: "a"}}, map[string]lf.Type{"a": lf.TBuiltin{Builtin: lf.BuiltinText}}).String(); s != "[Text]" {
		t.Errorf("a small type: %s", s)
	}
}
