package lfbuild

// Expr is a Daml-LF expression (updates are expressions too).
type Expr struct{ encode func(*writer) msg }

func expr(f func(w *writer) msg) Expr { return Expr{f} }

// sort wraps the message of one expression sort n.
func sort(n int, f func(w *writer) msg) Expr {
	return expr(func(w *writer) msg { return msg{}.bytes(protoNum(n), f(w)) })
}

// Var is the local variable name.
func Var(name string) Expr {
	return expr(func(w *writer) msg { return msg{}.varint(2, w.str(name)) })
}

// Val is the top-level value name of this module.
func Val(name string) Expr {
	return sort(3, func(w *writer) msg { return w.tyCon(name) })
}

// BuiltinFn is a builtin function's number (FORMAT.md).
type BuiltinFn uint64

const (
	Error               BuiltinFn = 1
	Equal               BuiltinFn = 2
	LessEq              BuiltinFn = 3
	Less                BuiltinFn = 4
	Greater             BuiltinFn = 6
	AddInt64            BuiltinFn = 7
	SubInt64            BuiltinFn = 8
	Int64ToText         BuiltinFn = 22
	PartyToText         BuiltinFn = 27
	AppendText          BuiltinFn = 34
	Foldl               BuiltinFn = 43
	Foldr               BuiltinFn = 44
	GenMapEmpty         BuiltinFn = 52
	GenMapInsert        BuiltinFn = 53
	GenMapLookup        BuiltinFn = 54
	GenMapKeys          BuiltinFn = 56
	AnyExceptionMessage BuiltinFn = 59
	TextMapEmpty        BuiltinFn = 60
	TextMapInsert       BuiltinFn = 61
	TextMapLookup       BuiltinFn = 62
	TextMapToList       BuiltinFn = 64
)

// Builtin is the builtin function fn.
func Builtin(fn BuiltinFn) Expr {
	return expr(func(w *writer) msg { return msg{}.varint(4, uint64(fn)) })
}

func builtinCon(v uint64) Expr { return expr(func(w *writer) msg { return msg{}.varint(5, v) }) }

var (
	Unit  = builtinCon(0)
	False = builtinCon(1)
	True  = builtinCon(2)
)

func lit(f func(w *writer) msg) Expr { return sort(6, f) }

// Int is an Int64 literal.
func Int(v int64) Expr { return lit(func(w *writer) msg { return msg{}.sint(1, v) }) }

// Text is a Text literal.
func Text(s string) Expr { return lit(func(w *writer) msg { return msg{}.varint(4, w.str(s)) }) }

// Numeric is a Numeric literal, e.g. "1.0000000000" (its scale is its type's).
func Numeric(s string) Expr { return lit(func(w *writer) msg { return msg{}.varint(3, w.str(s)) }) }

// conType is the Type.Con message of data type name applied to args.
func conType(w *writer, name string, args ...Type) msg {
	b := msg{}.bytes(1, w.tyCon(name))
	for _, a := range args {
		b = b.bytes(2, a.ref(w))
	}
	return b
}

// FieldExpr is a record field and its value.
type FieldExpr struct {
	Name  string
	Value Expr
}

// FE is a FieldExpr.
func FE(name string, v Expr) FieldExpr { return FieldExpr{name, v} }

// Record constructs the record type name of this module.
func Record(name string, fields ...FieldExpr) Expr { return RecordOf(name, nil, fields...) }

// RecordOf constructs the record type name applied to the type arguments args.
func RecordOf(name string, args []Type, fields ...FieldExpr) Expr {
	return sort(7, func(w *writer) msg {
		b := msg{}.bytes(1, conType(w, name, args...))
		for _, f := range fields {
			b = b.bytes(2, msg{}.varint(3, w.str(f.Name)).bytes(2, f.Value.encode(w)))
		}
		return b
	})
}

// Proj is field of the record e of type name.
func Proj(name, field string, e Expr) Expr {
	return sort(8, func(w *writer) msg {
		return msg{}.bytes(1, conType(w, name)).varint(4, w.str(field)).bytes(3, e.encode(w))
	})
}

// Tuple2Proj is field (_1 or _2) of e, a daml-prim Tuple2 a b (TTuple2),
// as the by-key updates return.
func Tuple2Proj(field string, a, b Type, e Expr) Expr {
	return sort(8, func(w *writer) msg {
		con := msg{}.bytes(1, tuple2Con(w)).bytes(2, a.ref(w)).bytes(2, b.ref(w))
		return msg{}.bytes(1, con).varint(4, w.str(field)).bytes(3, e.encode(w))
	})
}

// Variant is constructor ctor of variant type name applied to arg.
func Variant(name, ctor string, arg Expr) Expr {
	return sort(10, func(w *writer) msg {
		return msg{}.bytes(1, conType(w, name)).varint(2, w.str(ctor)).bytes(3, arg.encode(w))
	})
}

// Enum is constructor ctor of enum type name.
func Enum(name, ctor string) Expr {
	return sort(11, func(w *writer) msg { return msg{}.bytes(1, w.tyCon(name)).varint(2, w.str(ctor)) })
}

// StructProj is field of the struct e.
func StructProj(field string, e Expr) Expr {
	return sort(13, func(w *writer) msg { return msg{}.varint(1, w.str(field)).bytes(2, e.encode(w)) })
}

// App applies f to args.
func App(f Expr, args ...Expr) Expr {
	return sort(15, func(w *writer) msg {
		b := msg{}.bytes(1, f.encode(w))
		for _, a := range args {
			b = b.bytes(2, a.encode(w))
		}
		return b
	})
}

// TyApp applies e to types.
func TyApp(e Expr, types ...Type) Expr {
	return sort(16, func(w *writer) msg {
		b := msg{}.bytes(1, e.encode(w))
		for _, t := range types {
			b = b.bytes(2, t.ref(w))
		}
		return b
	})
}

// Lam is a function of params (name and type each) returning body.
func Lam(params []Field, body Expr) Expr {
	return sort(17, func(w *writer) msg {
		var b msg
		for _, p := range params {
			b = b.bytes(1, p.encode(w))
		}
		return b.bytes(2, body.encode(w))
	})
}

// Binding binds Name of Type to Bound in a let or an update block.
type Binding struct {
	Name  string
	Type  Type
	Bound Expr
}

func block(w *writer, binds []Binding, body Expr) msg {
	var b msg
	for _, bd := range binds {
		b = b.bytes(1, msg{}.bytes(1, F(bd.Name, bd.Type).encode(w)).bytes(2, bd.Bound.encode(w)))
	}
	return b.bytes(2, body.encode(w))
}

// Let is a let block.
func Let(binds []Binding, body Expr) Expr {
	return sort(20, func(w *writer) msg { return block(w, binds, body) })
}

// Alt is one alternative of a Case.
type Alt struct{ encode func(*writer) msg }

func alt(body Expr, n int, pat func(w *writer) msg) Alt {
	return Alt{func(w *writer) msg { return msg{}.bytes(1, body.encode(w)).bytes(protoNum(n), pat(w)) }}
}

// Default matches anything.
func Default(body Expr) Alt { return alt(body, 2, func(*writer) msg { return nil }) }

// VariantAlt matches constructor ctor of variant type name, binding its argument to binder.
func VariantAlt(name, ctor, binder string, body Expr) Alt {
	return alt(body, 3, func(w *writer) msg {
		return msg{}.bytes(1, w.tyCon(name)).varint(2, w.str(ctor)).varint(3, w.str(binder))
	})
}

// TrueAlt and FalseAlt match a Bool.
func TrueAlt(body Expr) Alt  { return builtinConAlt(2, body) }
func FalseAlt(body Expr) Alt { return builtinConAlt(1, body) }

func builtinConAlt(v uint64, body Expr) Alt {
	return Alt{func(w *writer) msg { return msg{}.bytes(1, body.encode(w)).varint(4, v) }}
}

// NilAlt matches the empty list, ConsAlt a head and a tail.
func NilAlt(body Expr) Alt { return alt(body, 5, func(*writer) msg { return nil }) }
func ConsAlt(head, tail string, body Expr) Alt {
	return alt(body, 6, func(w *writer) msg { return msg{}.varint(1, w.str(head)).varint(2, w.str(tail)) })
}

// NoneAlt matches None, SomeAlt Some binding its value.
func NoneAlt(body Expr) Alt { return alt(body, 7, func(*writer) msg { return nil }) }
func SomeAlt(binder string, body Expr) Alt {
	return alt(body, 8, func(w *writer) msg { return msg{}.varint(1, w.str(binder)) })
}

// EnumAlt matches constructor ctor of enum type name.
func EnumAlt(name, ctor string, body Expr) Alt {
	return alt(body, 9, func(w *writer) msg { return msg{}.bytes(1, w.tyCon(name)).varint(2, w.str(ctor)) })
}

// Case matches scrutinee against alts in order.
func Case(scrutinee Expr, alts ...Alt) Expr {
	return sort(19, func(w *writer) msg {
		b := msg{}.bytes(1, scrutinee.encode(w))
		for _, a := range alts {
			b = b.bytes(2, a.encode(w))
		}
		return b
	})
}

// Nil is the empty list of elem; Cons puts front before tail.
func Nil(elem Type) Expr { return sort(21, func(w *writer) msg { return msg{}.bytes(1, elem.ref(w)) }) }
func Cons(elem Type, front []Expr, tail Expr) Expr {
	return sort(22, func(w *writer) msg {
		b := msg{}.bytes(1, elem.ref(w))
		for _, e := range front {
			b = b.bytes(2, e.encode(w))
		}
		return b.bytes(3, tail.encode(w))
	})
}

// List is the list of elems.
func List(elem Type, elems ...Expr) Expr {
	if len(elems) == 0 {
		return Nil(elem)
	}
	return Cons(elem, elems, Nil(elem))
}

// None and Some are the Optional values of t.
func None(t Type) Expr { return sort(25, func(w *writer) msg { return msg{}.bytes(1, t.ref(w)) }) }
func Some(t Type, v Expr) Expr {
	return sort(26, func(w *writer) msg { return msg{}.bytes(1, t.ref(w)).bytes(2, v.encode(w)) })
}

// ToAnyException wraps e of exception type t; FromAnyException is Some of
// the exception when e holds a t, None otherwise.
func ToAnyException(t Type, e Expr) Expr {
	return sort(30, func(w *writer) msg { return msg{}.bytes(1, t.ref(w)).bytes(2, e.encode(w)) })
}
func FromAnyException(t Type, e Expr) Expr {
	return sort(31, func(w *writer) msg { return msg{}.bytes(1, t.ref(w)).bytes(2, e.encode(w)) })
}

// Throw throws e, an exception of type exc, from an expression of type ret.
func Throw(ret, exc Type, e Expr) Expr {
	return sort(32, func(w *writer) msg {
		return msg{}.bytes(1, ret.ref(w)).bytes(2, exc.ref(w)).bytes(3, e.encode(w))
	})
}

// CallInterface calls method of interface iface on the interface value e.
func CallInterface(iface, method string, e Expr) Expr {
	return sort(35, func(w *writer) msg {
		return msg{}.bytes(1, w.tyCon(iface)).varint(2, w.str(method)).bytes(3, e.encode(w))
	})
}

// update is an update expression of sort n.
func update(n int, f func(w *writer) msg) Expr {
	return sort(23, func(w *writer) msg { return msg{}.bytes(protoNum(n), f(w)) })
}

// Pure is the update returning e of type t.
func Pure(t Type, e Expr) Expr {
	return update(1, func(w *writer) msg { return msg{}.bytes(1, t.ref(w)).bytes(2, e.encode(w)) })
}

// Do runs the updates binds in order, then body.
func Do(binds []Binding, body Expr) Expr {
	return update(2, func(w *writer) msg { return block(w, binds, body) })
}

// Create creates a contract of template tpl with argument arg.
func Create(tpl string, arg Expr) Expr {
	return update(3, func(w *writer) msg { return msg{}.bytes(1, w.tyCon(tpl)).bytes(2, arg.encode(w)) })
}

// Exercise exercises choice of template tpl on cid with argument arg.
func Exercise(tpl, choice string, cid, arg Expr) Expr {
	return update(4, func(w *writer) msg {
		return msg{}.bytes(1, w.tyCon(tpl)).varint(6, w.str(choice)).bytes(3, cid.encode(w)).bytes(5, arg.encode(w))
	})
}

// Fetch fetches cid, a contract of template tpl.
func Fetch(tpl string, cid Expr) Expr {
	return update(5, func(w *writer) msg { return msg{}.bytes(1, w.tyCon(tpl)).bytes(2, cid.encode(w)) })
}

// FetchByKey is fetch_by_key of template tpl (Daml-LF 2.3): a function
// from a key to the update fetching the contract with it, returning the
// (ContractId, argument) pair of daml-prim's DA.Types:Tuple2 (TTuple2).
func FetchByKey(tpl string) Expr {
	return update(9, func(w *writer) msg { return msg{}.bytes(1, w.tyCon(tpl)) })
}

// QueryNByKey is query_n_by_key of template tpl (Daml-LF 2.3): a function
// from a count n and a key to the update listing up to n contracts with
// it, as Optional [Tuple2 (ContractId tpl) tpl].
func QueryNByKey(tpl string) Expr {
	return update(16, func(w *writer) msg { return msg{}.bytes(1, w.tyCon(tpl)) })
}

// Embed is the update the expression e of type Update t evaluates to.
func Embed(t Type, e Expr) Expr {
	return update(7, func(w *writer) msg { return msg{}.bytes(1, t.ref(w)).bytes(2, e.encode(w)) })
}

// TryCatch runs try (an update of ret); when it throws, catch runs with
// the AnyException bound to v and must be an Optional (Update ret): None
// rethrows.
func TryCatch(ret Type, try Expr, v string, catch Expr) Expr {
	return update(11, func(w *writer) msg {
		return msg{}.bytes(1, ret.ref(w)).bytes(2, try.encode(w)).varint(3, w.str(v)).bytes(4, catch.encode(w))
	})
}
