package lf

import (
	"testing"
	"time"
)

// TestSubstituteShared: substituting in a type of forty shared levels, each
// naming the one below twice, takes the time of its nodes; the variable at
// the bottom is replaced.
func TestSubstituteShared(t *testing.T) {
	var typ Type = TVar{Name: "a"}
	for range 40 {
		typ = TApp{Fun: TApp{Fun: TBuiltin{Builtin: BuiltinGenMap}, Arg: typ}, Arg: typ}
	}
	start := time.Now()
	got := Substitute(typ, map[string]Type{"a": TBuiltin{Builtin: BuiltinInt64}})
	if el := time.Since(start); el > time.Second {
		t.Errorf("substituting took %v", el)
	}
	for range 40 {
		got = got.(TApp).Arg
	}
	if b, ok := got.(TBuiltin); !ok || b.Builtin != BuiltinInt64 {
		t.Errorf("the bottom is %v", got)
	}
	if s := Substitute(TApp{Fun: TBuiltin{Builtin: BuiltinList}, Arg: TVar{Name: "a"}}, map[string]Type{"a": TBuiltin{Builtin: BuiltinText}}).String(); s != "[Text]" {
		t.Errorf("a small type: %s", s)
	}
}

// One Substitution applied to several types gives what Substitute gives
// each, and a forall's variable shadows the substitution in its body.
func TestSubstitutionAcrossCalls(t *testing.T) {
	vars := map[string]Type{"a": TBuiltin{Builtin: BuiltinText}}
	var deep Type = TVar{Name: "a"}
	for range 100 {
		deep = TApp{Fun: TBuiltin{Builtin: BuiltinList}, Arg: deep}
	}
	shadow := TForall{Var: TypeVar{Name: "a", Kind: KStar{}}, Body: TVar{Name: "a"}}
	s := NewSubstitution(vars)
	for _, typ := range []Type{deep, deep, TStruct{Fields: []Field{{Name: "x", Type: deep}}}, shadow} {
		if got, want := s.Apply(typ).String(), Substitute(typ, vars).String(); got != want {
			t.Errorf("Apply %s = %s, Substitute = %s", typ, got, want)
		}
	}
	if got := Substitute(shadow, vars).String(); got != shadow.String() {
		t.Errorf("the forall's variable was replaced: %s", got)
	}
}
