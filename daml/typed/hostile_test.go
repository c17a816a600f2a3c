package typed

import (
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/archive/archivetest"
	"github.com/ledger-cli/ledger/daml/lf"
)

// TestPlanOfDoublingType: choice Respond of a Ping whose argument's field
// has a type that doubles forty times (t(i+1) = GenMap t(i) t(i), 82 interned types)
// compiles at once, takes its values, and a wrong value's error is short.
// The type's text has 2^41 leaves: keyed by its text, the plan never came.
func TestPlanOfDoublingType(t *testing.T) {
	dar := archivetest.Doubling(t, archivetest.SharedDar(t, archivetest.PingDar), 40, "3.4.1")
	d, err := archive.DecodeDar(dar, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := NewEnv(d.Packages...)
	main := d.MainPackage()
	ping := lf.TypeConName{Package: main.ID, Module: lf.DottedName{"Canton", "Internal", "Ping"}, Name: lf.DottedName{"Ping"}}
	c, ok := env.Choice(ping, "Respond")
	if !ok {
		t.Fatal("no choice Respond")
	}
	start := time.Now()
	arg, err := env.Plan(c.ArgType)
	if err != nil {
		t.Fatal(err)
	}
	if arg.Kind != KindRecord || len(arg.Fields) != 1 {
		t.Fatalf("Respond's plan: %v with %d fields, want a record of one field", arg.Kind, len(arg.Fields))
	}
	p := arg.Fields[0].Plan
	if p.Kind != KindGenMap || p.Key != p.Elem {
		t.Errorf("plan %v: key and value are not one shared plan", p.Kind)
	}
	if _, err := p.DecodeJSON([]byte(`[]`), DecodeOptions{}); err != nil {
		t.Errorf("the empty map: %v", err)
	}
	if _, err := p.DecodeJSON([]byte(`[[[], {"x": 1}]]`), DecodeOptions{}); err == nil || len(err.Error()) > 2*lf.MaxTypeString {
		t.Errorf("a wrong value's error is %v", err)
	} else {
		t.Logf("a wrong value's error (%d bytes): %.200s", len(err.Error()), err)
	}
	again, err := env.Plan(c.ArgType)
	if err != nil || again != arg {
		t.Errorf("the second Plan is %p (%v), not the first %p", again, err, arg)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("planning and decoding took %v", el)
	}
}
