package lf

import "testing"

// TestHasSynonymShared: a type whose halves are shared, 2^200 leaves as a
// tree, is answered by visiting its nodes once — with the synonym at the
// very bottom, and without one; small types by a plain walk.
func TestHasSynonymShared(t *testing.T) {
	double := func(leaf Type) Type {
		ty := leaf
		for range 200 {
			ty = TApp{Fun: TApp{Fun: TBuiltin{Builtin: BuiltinArrow}, Arg: ty}, Arg: ty}
		}
		return ty
	}
	syn := TSyn{Syn: TypeSynName{Module: DottedName{"M"}, Name: DottedName{"S"}}}
	for _, c := range []struct {
		name string
		ty   Type
		want bool
	}{
		{"shared, no synonym", double(TBuiltin{Builtin: BuiltinInt64}), false},
		{"shared, a synonym at the bottom", double(syn), true},
		{"small, no synonym", TApp{Fun: TBuiltin{Builtin: BuiltinList}, Arg: TBuiltin{Builtin: BuiltinText}}, false},
		{"small, a synonym", TApp{Fun: TBuiltin{Builtin: BuiltinList}, Arg: syn}, true},
	} {
		if got := HasSynonym(c.ty); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
