package lf

import "testing"

// Every builtin has one row: a name of its own, an arity, a first version.
func TestBuiltinTable(t *testing.T) {
	seen := map[string]BuiltinFunction{}
	for _, f := range BuiltinFunctions() {
		info := f.Info()
		if info.Name == "" || info.Since < 1 || info.Arity < 0 {
			t.Errorf("builtin %d: row %+v", int(f), info)
		}
		if other, ok := seen[info.Name]; ok {
			t.Errorf("%s names both %d and %d", info.Name, int(other), int(f))
		}
		seen[info.Name] = f
	}
	if got := BuiltinFunction(NumBuiltinFunctions).String(); got != "BuiltinFunction(?)" {
		t.Errorf("out of range: %s", got)
	}
}
