// Package lfbuild writes small Daml-LF 2.1 packages for tests: a module of
// records, variants and enums (recursive and parameterised ones too),
// exceptions, interfaces with a view, top-level values and templates with
// choices and interface instances, as a DAR whose package id is the
// SHA-256 of the archive payload. Tests use it to build the models of
// Canton's Ledger API test tool that no real DAR provides
// (conformance/ledgerapi). Only _test files may import it.
//
// Expressions cover what those models need: variables, top-level values,
// builtin functions (a few listed as BuiltinFn; any other by its number),
// literals, records (construction, projection), variants, enums, structs
// (projection), lists, optionals, lambdas, application, type application,
// let, case, interface method calls, exceptions (throw, to/from
// AnyException) and updates (pure, blocks, create, exercise, fetch,
// embedded expressions, try/catch).
// A template with a key (Template.Key) makes the package Daml-LF 2.3, and
// fetch_by_key and query_n_by_key are written; their results use the stable
// daml-prim type DA.Types:Tuple2 (TTuple2), whose package must be on the
// node or in the DAR (Package.Dependency; every real DAR carries it). Type
// arguments are then written as type applications, as 2.2 on requires.
//
// The field numbers are those of daml/archive/FORMAT.md. A package has one
// module and no dependencies: every reference (type constructor, template,
// value) is to the module itself ("self"), but for TTuple2, which names the
// stable daml-prim package by its id. Strings and dotted names are
// interned, and every type outside the type table is a reference into it,
// each entry referring only to entries before it, as Daml-LF 2.1 requires.
//
// Types and expressions are values built by the functions of this package
// (TParty, TCon, App, Exercise, …); nothing is checked here: the archive
// decoder and the type checker (daml/validate) judge what is built.
package lfbuild

import (
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// msg is a protobuf message being written.
type msg []byte

func (m msg) bytes(n protowire.Number, b []byte) msg {
	return protowire.AppendBytes(protowire.AppendTag(m, n, protowire.BytesType), b)
}

func (m msg) varint(n protowire.Number, v uint64) msg {
	return protowire.AppendVarint(protowire.AppendTag(m, n, protowire.VarintType), v)
}

func (m msg) sint(n protowire.Number, v int64) msg {
	return m.varint(n, protowire.EncodeZigZag(v))
}

func (m msg) boolean(n protowire.Number, v bool) msg {
	return m.varint(n, protowire.EncodeBool(v))
}

// unit is an empty message (Daml-LF's Unit), as a oneof case.
func (m msg) unit(n protowire.Number) msg { return m.bytes(n, nil) }

// writer holds the interning tables of the package being written.
type writer struct {
	module  string
	strs    []string
	strIdx  map[string]uint64
	dotted  [][]uint64
	dotIdx  map[string]uint64
	types   [][]byte
	typeIdx map[string]uint64
	// tapp writes type arguments as type applications (Daml-LF 2.2 on).
	tapp bool
}

func (w *writer) str(s string) uint64 {
	if i, ok := w.strIdx[s]; ok {
		return i
	}
	i := uint64(len(w.strs))
	w.strs = append(w.strs, s)
	w.strIdx[s] = i
	return i
}

func (w *writer) dname(name string) uint64 {
	if i, ok := w.dotIdx[name]; ok {
		return i
	}
	var segs []uint64
	for _, s := range strings.Split(name, ".") {
		segs = append(segs, w.str(s))
	}
	i := uint64(len(w.dotted))
	w.dotted = append(w.dotted, segs)
	w.dotIdx[name] = i
	return i
}

// typ interns one Type message whose children are already interned.
func (w *writer) typ(entry msg) uint64 {
	if i, ok := w.typeIdx[string(entry)]; ok {
		return i
	}
	i := uint64(len(w.types))
	w.types = append(w.types, entry)
	w.typeIdx[string(entry)] = i
	return i
}

// moduleID is this package's module: package "self".
func (w *writer) moduleID() msg {
	return msg{}.bytes(1, msg{}.unit(1)).varint(2, w.dname(w.module))
}

// tyCon is a TypeConId (or ValueId: the same fields) of this module.
func (w *writer) tyCon(name string) msg {
	return msg{}.bytes(1, w.moduleID()).varint(2, w.dname(name))
}

// Type is a Daml-LF type.
type Type struct{ intern func(*writer) uint64 }

// ref is a Type message referring to t in the type table.
func (t Type) ref(w *writer) msg { return msg{}.varint(8, t.intern(w)) }

// Builtin types, as numbered in FORMAT.md.
const (
	bUnit, bBool, bInt64, bDate, bTimestamp, bNumeric, bParty, bText, bContractID = 0, 1, 2, 3, 4, 5, 6, 7, 8
	bOptional, bList, bGenMap, bAny, bAnyException, bTypeRep, bArrow, bUpdate     = 9, 10, 11, 13, 14, 15, 16, 17
	bTextMap                                                                      = 19
)

// applied interns the type head of sort (builtin, con) applied to args:
// in place (field 2 of head) in Daml-LF 2.1, as a chain of type
// applications of the bare head from 2.2 on, which forbids the former.
func (w *writer) applied(sort protowire.Number, head msg, args []Type) uint64 {
	if !w.tapp {
		for _, a := range args {
			head = head.bytes(2, a.ref(w))
		}
		return w.typ(msg{}.bytes(sort, head))
	}
	t := w.typ(msg{}.bytes(sort, head))
	for _, a := range args {
		arg := a.ref(w)
		t = w.typ(msg{}.bytes(9, msg{}.bytes(1, msg{}.varint(8, t)).bytes(2, arg)))
	}
	return t
}

func builtinType(tag uint64, args ...Type) Type {
	return Type{func(w *writer) uint64 { return w.applied(3, msg{}.varint(1, tag), args) }}
}

var (
	TUnit         = builtinType(bUnit)
	TBool         = builtinType(bBool)
	TInt64        = builtinType(bInt64)
	TDate         = builtinType(bDate)
	TTimestamp    = builtinType(bTimestamp)
	TParty        = builtinType(bParty)
	TText         = builtinType(bText)
	TAnyException = builtinType(bAnyException)
)

// TNumeric is Numeric of the given scale (0 to 37).
func TNumeric(scale int64) Type {
	nat := Type{func(w *writer) uint64 { return w.typ(msg{}.sint(6, scale)) }}
	return builtinType(bNumeric, nat)
}

func TList(t Type) Type         { return builtinType(bList, t) }
func TOptional(t Type) Type     { return builtinType(bOptional, t) }
func TContractID(t Type) Type   { return builtinType(bContractID, t) }
func TTextMap(t Type) Type      { return builtinType(bTextMap, t) }
func TGenMap(k, v Type) Type    { return builtinType(bGenMap, k, v) }
func TUpdate(t Type) Type       { return builtinType(bUpdate, t) }
func TArrow(from, to Type) Type { return builtinType(bArrow, from, to) }

// TArrows is the function type ts[0] -> ts[1] -> … -> ts[n-1].
func TArrows(ts ...Type) Type {
	if len(ts) == 1 {
		return ts[0]
	}
	return TArrow(ts[0], TArrows(ts[1:]...))
}

// TCon is the data type name of this module applied to args.
func TCon(name string, args ...Type) Type {
	return Type{func(w *writer) uint64 { return w.applied(2, msg{}.bytes(1, w.tyCon(name)), args) }}
}

// Tuple2Package is the stable daml-prim package of DA.Types, whose Tuple2
// the by-key updates return.
const Tuple2Package = "5aee9b21b8e9a4c4975b5f4c4198e6e6e8469df49e2010820e792f393db870f4"

// TTuple2 is daml-prim's DA.Types:Tuple2 a b (fields _1, _2), referred to
// by its package id as Daml-LF 2.3 allows for stable packages.
func TTuple2(a, b Type) Type {
	return Type{func(w *writer) uint64 {
		return w.applied(2, msg{}.bytes(1, tuple2Con(w)), []Type{a, b})
	}}
}

// tuple2Con is the TypeConId of daml-prim's DA.Types:Tuple2.
func tuple2Con(w *writer) msg {
	mod := msg{}.bytes(1, msg{}.varint(3, w.str(Tuple2Package))).varint(2, w.dname("DA.Types"))
	return msg{}.bytes(1, mod).varint(2, w.dname("Tuple2"))
}

// TStruct is the structural record of fields (as TEXTMAP_TO_LIST returns).
func TStruct(fields ...Field) Type {
	return Type{func(w *writer) uint64 {
		var b msg
		for _, f := range fields {
			b = b.bytes(1, f.encode(w))
		}
		return w.typ(msg{}.bytes(5, b))
	}}
}

// TVar is the type variable name.
func TVar(name string) Type {
	return Type{func(w *writer) uint64 { return w.typ(msg{}.bytes(1, msg{}.varint(3, w.str(name)))) }}
}

// Field is a record field or variant constructor and its type.
type Field struct {
	Name string
	Type Type
}

func (f Field) encode(w *writer) msg {
	return msg{}.varint(3, w.str(f.Name)).bytes(2, f.Type.ref(w))
}

// F is a Field.
func F(name string, t Type) Field { return Field{name, t} }
