package lf

import (
	"strings"
	"testing"
	"time"
)

func builtin(b BuiltinType) Type { return TBuiltin{Builtin: b} }

func con(module, name string) Type {
	return TCon{Con: TypeConName{Package: "p", Module: DottedName{module}, Name: DottedName{name}}}
}

func TestTypeString(t *testing.T) {
	tuple2 := TCon{Con: TypeConName{Package: "p", Module: DottedName{"DA", "Types"}, Name: DottedName{"Tuple2"}}}
	arrow := func(a, b Type) Type { return App(builtin(BuiltinArrow), a, b) }
	tests := []struct {
		typ  Type
		want string
	}{
		{builtin(BuiltinUnit), "()"},
		{App(builtin(BuiltinNumeric), TNat{N: 10}), "Numeric 10"},
		{App(builtin(BuiltinList), builtin(BuiltinParty)), "[Party]"},
		{App(builtin(BuiltinOptional), App(builtin(BuiltinContractID), con("M", "Foo"))), "Optional (ContractId Foo)"},
		{App(builtin(BuiltinTextMap), builtin(BuiltinInt64)), "TextMap Int"},
		{App(builtin(BuiltinGenMap), TVar{Name: "k"}, TVar{Name: "v"}), "Map k v"},
		{arrow(arrow(TVar{Name: "a"}, TVar{Name: "b"}), App(builtin(BuiltinList), TVar{Name: "b"})), "(a -> b) -> [b]"},
		{App(builtin(BuiltinUpdate), arrow(builtin(BuiltinInt64), builtin(BuiltinText))), "Update (Int -> Text)"},
		{App(tuple2, builtin(BuiltinText), App(builtin(BuiltinOptional), builtin(BuiltinDate))), "(Text, Optional Date)"},
		{App(tuple2, builtin(BuiltinText)), "Tuple2 Text"},
		{TForall{Var: TypeVar{Name: "a", Kind: KStar{}}, Body: TForall{Var: TypeVar{Name: "b", Kind: KStar{}},
			Body: arrow(TVar{Name: "a"}, TVar{Name: "b"})}}, "forall a b. a -> b"},
		{App(builtin(BuiltinList), TForall{Var: TypeVar{Name: "a", Kind: KStar{}}, Body: TVar{Name: "a"}}), "[forall a. a]"},
		{App(con("M", "Box"), TForall{Var: TypeVar{Name: "a", Kind: KStar{}}, Body: TVar{Name: "a"}}), "Box (forall a. a)"},
		{TStruct{Fields: []Field{{"x", builtin(BuiltinInt64)}, {"y", App(builtin(BuiltinList), builtin(BuiltinText))}}}, "<x: Int, y: [Text]>"},
		{TSyn{Syn: TypeSynName{Package: "p", Module: DottedName{"M"}, Name: DottedName{"Set"}}, Args: []Type{builtin(BuiltinParty)}}, "Set Party"},
		{App(con("M", "Box"), TSyn{Syn: TypeSynName{Package: "p", Module: DottedName{"M"}, Name: DottedName{"Set"}}, Args: []Type{builtin(BuiltinParty)}}), "Box (Set Party)"},
		{builtin(BuiltinBigNumeric), "BigNumeric"},
		{App(builtin(BuiltinContractID), builtin(BuiltinTimestamp)), "ContractId Time"},
	}
	for _, tt := range tests {
		if got := tt.typ.String(); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}

func TestKindString(t *testing.T) {
	k := KArrow{Param: KArrow{Param: KStar{}, Result: KStar{}}, Result: KArrow{Param: KNat{}, Result: KStar{}}}
	if got, want := k.String(), "(* -> *) -> nat -> *"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestDataTypeString(t *testing.T) {
	a := TypeVar{Name: "a", Kind: KStar{}}
	tests := []struct {
		d    DataType
		want string
	}{
		{DataType{Name: DottedName{"Pair"}, Params: []TypeVar{a}, Kind: DataRecord,
			Fields: []Field{{"x", TVar{Name: "a"}}, {"y", builtin(BuiltinText)}}}, "data Pair a = Pair with x: a; y: Text"},
		{DataType{Name: DottedName{"V"}, Kind: DataVariant,
			Fields: []Field{{"A", builtin(BuiltinInt64)}, {"B", App(builtin(BuiltinOptional), builtin(BuiltinText))}}},
			"data V = A Int | B (Optional Text)"},
		{DataType{Name: DottedName{"Color"}, Kind: DataEnum, EnumCons: []string{"Red", "Green"}}, "data Color = Red | Green"},
		{DataType{Name: DottedName{"Token"}, Kind: DataInterface}, "interface Token"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}

func TestSplitApp(t *testing.T) {
	head, args := SplitApp(App(builtin(BuiltinGenMap), builtin(BuiltinText), builtin(BuiltinInt64)))
	if !TypeEqual(head, builtin(BuiltinGenMap)) || len(args) != 2 || args[0].String() != "Text" || args[1].String() != "Int" {
		t.Errorf("SplitApp gave %v %v", head, args)
	}
}

func TestBuiltinNames(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range BuiltinFunctions() {
		n := f.String()
		if n == "" || n == "BuiltinFunction(?)" || seen[n] {
			t.Errorf("builtin %d has name %q", f, n)
		}
		seen[n] = true
	}
	for b := BuiltinType(0); b < numBuiltinTypes; b++ {
		if builtinTypeNames[b] == "" {
			t.Errorf("builtin type %d has no name", b)
		}
	}
}

func TestLiteralType(t *testing.T) {
	loc := &ELocation{Expr: &ENumeric{Value: "1.50", Scale: 2}}
	if ty, ok := LiteralType(loc); !ok || ty.String() != "Numeric 2" {
		t.Errorf("LiteralType(1.50) = %v, %v", ty, ok)
	}
	if _, ok := LiteralType(&EVar{Name: "x"}); ok {
		t.Error("a variable has a literal type")
	}
}

// doubling returns t(n), where t(0) = Int64 and t(i+1) = GenMap t(i) t(i):
// n+1 nodes shared, 2^(n+1)-1 leaves written out.
func doubling(n int) Type {
	var t Type = TBuiltin{Builtin: BuiltinInt64}
	for range n {
		t = TApp{Fun: TApp{Fun: TBuiltin{Builtin: BuiltinGenMap}, Arg: t}, Arg: t}
	}
	return t
}

// TestTypeStringBounded: a type that doubles forty times prints at once,
// cut at MaxTypeString, instead of never (its text has 2^41 leaves).
func TestTypeStringBounded(t *testing.T) {
	start := time.Now()
	s := doubling(40).String()
	if time.Since(start) > time.Second {
		t.Errorf("printing took %v", time.Since(start))
	}
	if len(s) > MaxTypeString+len("…") || !strings.HasSuffix(s, "…") || !strings.HasPrefix(s, "Map (Map (Map") {
		t.Errorf("printed %d bytes: %.80q…%q", len(s), s, s[max(0, len(s)-20):])
	}
	if got := doubling(2).String(); got != "Map (Map Int Int) (Map Int Int)" {
		t.Errorf("a small type prints %q", got)
	}
	d := &DataType{Name: DottedName{"T"}, Kind: DataRecord, Fields: []Field{{Name: "x", Type: doubling(40)}}}
	if s := d.String(); len(s) > MaxTypeString+len("…") {
		t.Errorf("a data type printed %d bytes", len(s))
	}
}

// TestNodeOf: the nodes of a shared type have one identity each, however
// often they are reached; separately built equal types do not.
func TestNodeOf(t *testing.T) {
	t2 := doubling(2).(TApp)
	left, right := t2.Fun.(TApp).Arg, t2.Arg
	if NodeOf(left) != NodeOf(right) {
		t.Error("the two halves of a doubled type are not one node")
	}
	if a, b := doubling(1), doubling(1); NodeOf(a) == NodeOf(b) {
		t.Error("two types built apart share a node")
	}
	if NodeOf(TBuiltin{Builtin: BuiltinUnit}) == NodeOf(TNat{N: 0}) {
		t.Error("values of two kinds share a node")
	}
}

// TestTypeEqualShared: two doubling types built apart (no node in common)
// compare at once, equal or not; compared as trees, 2^41 leaves a side.
func TestTypeEqualShared(t *testing.T) {
	start := time.Now()
	if !TypeEqual(doubling(40), doubling(40)) {
		t.Error("t40 differs from t40")
	}
	if TypeEqual(doubling(40), doubling(39)) {
		t.Error("t40 equals t39")
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("comparing took %v", el)
	}
}
