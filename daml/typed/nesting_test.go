package typed

import (
	"strings"
	"testing"
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
}
