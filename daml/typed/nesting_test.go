package typed

import (
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

// TestNestingBoundary pins Daml's bound where Canton's ValueTranslator puts
// it (DeeplyNestedValueIT): the outermost value is level 0 and a value at
// a level above 100 is refused, so 100 lists around an Int (its scalar at
// level 100) are accepted and 101 refused.
func TestNestingBoundary(t *testing.T) {
	for _, tt := range []struct {
		lists int
		ok    bool
	}{{46, true}, {99, true}, {100, true}, {101, false}, {110, false}} {
		typ := tInt
		for range tt.lists {
			typ = tList(typ)
		}
		p := plan(t, testEnv(t), typ)
		_, err := p.DecodeJSON([]byte(strings.Repeat("[", tt.lists)+`"1"`+strings.Repeat("]", tt.lists)), DecodeOptions{Path: "arg"})
		if (err == nil) != tt.ok {
			t.Errorf("%d lists: err = %v, want accepted %v", tt.lists, err, tt.ok)
		}
	}
	// A unit written {} is at its own level, not one deeper: Canton counts
	// the value, not its JSON (DeeplyNestedValueIT's Nat ends in Z {}).
	for _, tt := range []struct {
		lists int
		ok    bool
	}{{99, true}, {100, true}, {101, false}} {
		typ := tUnit
		for range tt.lists {
			typ = tList(typ)
		}
		p := plan(t, testEnv(t), typ)
		_, err := p.DecodeJSON([]byte(strings.Repeat("[", tt.lists)+`{}`+strings.Repeat("]", tt.lists)), DecodeOptions{Path: "arg"})
		if (err == nil) != tt.ok {
			t.Errorf("%d lists around a unit: err = %v, want accepted %v", tt.lists, err, tt.ok)
		}
	}
}

// TestRefuseLocalIDs: with RefuseLocalIDs a V1 contract id without suffix
// is Canton's "Illegal Contract ID"; a suffixed one passes, and without the
// option both do.
func TestRefuseLocalIDs(t *testing.T) {
	local := "00" + strings.Repeat("ab", 32)
	suffixed := local + "ca12" + strings.Repeat("cd", 32)
	p := plan(t, testEnv(t), tList(bt(lf.BuiltinContractID, tUnit)))
	in := func(cid string) []byte { return []byte(`["` + cid + `"]`) }
	_, err := p.DecodeJSON(in(local), DecodeOptions{Path: "arg", RefuseLocalIDs: true})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrIllegalContractID || !strings.Contains(e.Message, `Illegal Contract ID "`+local+`"`) || e.Path != "arg[0]" {
		t.Errorf("local id refused with %v", err)
	}
	if _, err := p.DecodeJSON(in(suffixed), DecodeOptions{RefuseLocalIDs: true}); err != nil {
		t.Errorf("suffixed id: %v", err)
	}
	if _, err := p.DecodeJSON(in(local), DecodeOptions{}); err != nil {
		t.Errorf("local id without the option: %v", err)
	}
}
