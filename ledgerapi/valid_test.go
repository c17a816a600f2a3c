package ledgerapi

import (
	"encoding/json"
	"testing"
)

var quickValidSamples = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+3`, `true`, `false`, `null`, ` {"a": [1, 2, {"b": null}]} `,
	`{"a":"x\"y"}`, `"é"`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `{"a"}`, `{"a":}`, `tru`, `nul`, `"a`,
	`[1 2]`, `{} {}`, `"\u00zz"`, "\"\x01\"", `{"a":1}}`, `1e`, `.5`,
}

// checkQuickValid: QuickValid never accepts what json.Valid refuses.
func checkQuickValid(t *testing.T, in []byte) {
	t.Helper()
	if QuickValid(in) && !json.Valid(in) {
		t.Fatalf("QuickValid accepts %q, which json.Valid refuses", in)
	}
}

func TestQuickValid(t *testing.T) {
	for _, s := range quickValidSamples {
		checkQuickValid(t, []byte(s))
		if json.Valid([]byte(s)) && !QuickValid([]byte(s)) {
			t.Errorf("QuickValid refuses %q", s)
		}
	}
}

func FuzzQuickValid(f *testing.F) {
	for _, s := range quickValidSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkQuickValid(t, in) })
}
