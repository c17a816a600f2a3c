package archive

import (
	"fmt"
	"slices"

	"github.com/ledger-cli/ledger/daml/lf"
)

// This file decodes the kind and type tables, kinds and types.

// decodeKindTable decodes the interned kinds (LF 2.2+); an entry may refer
// to entries before it, but may not itself be a reference.
func (d *decoder) decodeKindTable(entries [][]byte) error {
	if len(entries) > 0 && !d.version.AtLeast(2, 2) {
		return fmt.Errorf("interned kinds are not supported by Daml-LF %s", d.version)
	}
	d.kinds = slices.Grow(d.sc.kinds[:0], len(entries))
	for i, b := range entries {
		k, err := d.kind(b, true)
		if err != nil {
			return fmt.Errorf("interned kind %d: %w", i, err)
		}
		d.kinds = append(d.kinds, k)
	}
	d.sc.kinds = d.kinds
	return nil
}

// kind decodes a Kind. Arrow kinds fold right: a list of parameters
// [k1, k2] and result r give k1 -> (k2 -> r).
func (d *decoder) kind(b []byte, tableEntry bool) (lf.Kind, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	v, err := d.kindLevel(b, tableEntry)
	d.leave()
	return v, err
}

func (d *decoder) kindLevel(b []byte, tableEntry bool) (lf.Kind, error) {
	var (
		k   lf.Kind
		err error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		switch f.Num {
		case 1:
			_, err = f.Delimited()
			k = lf.KStar{}
		case 3:
			_, err = f.Delimited()
			k = lf.KNat{}
		case 2:
			var m []byte
			if m, err = f.Delimited(); err == nil {
				k, err = d.kindArrow(m)
			}
		case 4:
			var i int32
			if i, err = f.Int32(); err != nil {
				break
			}
			switch {
			case !d.version.AtLeast(2, 2):
				err = fmt.Errorf("interned kinds are not supported by Daml-LF %s", d.version)
			case tableEntry:
				err = fmt.Errorf("an interned kind table entry may not be a reference to another")
			case i < 0 || int(i) >= len(d.kinds):
				err = fmt.Errorf("interned kind index %d out of range (table has %d)", i, len(d.kinds))
			default:
				k = d.kinds[i]
			}
		default:
			err = unknownField("Kind", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if k == nil {
		return nil, fmt.Errorf("kind has no sort")
	}
	return k, nil
}

func (d *decoder) kindArrow(b []byte) (lf.Kind, error) {
	var (
		buf    [4]lf.Kind
		params = buf[:0]
		result lf.Kind
		err    error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		var k lf.Kind
		switch f.Num {
		case 1:
			if k, err = d.kind(m, false); err == nil {
				params = append(params, k)
			}
		case 2:
			result, err = d.kind(m, false)
		default:
			err = unknownField("Kind.Arrow", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := d.checkArity("arrow kind parameters", len(params)); err != nil {
		return nil, err
	}
	if result == nil {
		return nil, fmt.Errorf("arrow kind has no result")
	}
	for i := len(params) - 1; i >= 0; i-- {
		result = lf.KArrow{Param: params[i], Result: result}
	}
	return result, nil
}

// checkArity checks a list that must not be empty and, from LF 2.2 on
// (the flat archive), must hold exactly one element.
func (d *decoder) checkArity(what string, n int) error {
	if n == 0 {
		return fmt.Errorf("no %s", what)
	}
	if n != 1 && d.version.AtLeast(2, 2) {
		return fmt.Errorf("%d %s, but Daml-LF %s has exactly one", n, what, d.version)
	}
	return nil
}

// decodeTypeTable decodes the interned types. An entry is a full type whose
// parts may refer to entries before it; the entry itself may not be a
// reference.
func (d *decoder) decodeTypeTable(entries [][]byte) error {
	d.types = slices.Grow(d.sc.types[:0], len(entries))
	for i, b := range entries {
		t, err := d.typeEntry(b, true)
		if err != nil {
			return fmt.Errorf("interned type %d: %w", i, err)
		}
		d.types = append(d.types, t)
	}
	d.sc.types = d.types
	return nil
}

// typ decodes a Type outside the interning table, which Daml-LF 2 requires
// to be a reference to an interned type.
func (d *decoder) typ(b []byte) (lf.Type, error) {
	// Nearly every reference is its index alone, in two or three bytes.
	if i, ok := fastIndex(b, 0x40); ok && i < len(d.types) {
		return d.types[i], nil
	}
	return d.typGeneral(b)
}

// typGeneral decodes any encoding of a reference to an interned type.
func (d *decoder) typGeneral(b []byte) (lf.Type, error) {
	var (
		t   lf.Type
		err error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		if f.Num != 8 {
			return nil, fmt.Errorf("type with field %d outside the interned type table, which Daml-LF 2 forbids", f.Num)
		}
		var i int32
		if i, err = f.Int32(); err != nil {
			return nil, err
		}
		if i < 0 || int(i) >= len(d.types) {
			return nil, fmt.Errorf("interned type index %d out of range (table has %d)", i, len(d.types))
		}
		t = d.types[i]
	}
	if t == nil {
		return nil, fmt.Errorf("type has no sort")
	}
	return t, nil
}

// nestedType decodes a type within an entry of the interned type table.
// Compilers write every one as a reference to an earlier entry, which is
// read here directly; typeEntry decodes any other.
func (d *decoder) nestedType(b []byte) (lf.Type, error) {
	if i, ok := fastIndex(b, 0x40); ok && i < len(d.types) && d.depth < d.maxDepth {
		return d.types[i], nil
	}
	return d.typeEntry(b, false)
}

// typeEntry decodes a Type of the interned type table.
func (d *decoder) typeEntry(b []byte, tableEntry bool) (lf.Type, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	v, err := d.typeEntryLevel(b, tableEntry)
	d.leave()
	return v, err
}

func (d *decoder) typeEntryLevel(b []byte, tableEntry bool) (lf.Type, error) {
	var (
		t   lf.Type
		err error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		switch f.Num {
		case 1, 2, 3, 4, 5, 7, 9:
			if m, err = f.Delimited(); err != nil {
				return nil, err
			}
		}
		switch f.Num {
		case 1:
			t, err = d.typeVar(m)
		case 2:
			t, err = d.typeCon(m)
		case 3:
			t, err = d.typeBuiltin(m)
		case 4:
			t, err = d.typeForall(m)
		case 5:
			t, err = d.typeStruct(m)
		case 6:
			var n int64
			if n, err = f.Sint64(); err == nil {
				if n < 0 || n > 37 {
					err = fmt.Errorf("type-level natural %d is not between 0 and 37", n)
					break
				}
				t = natValues[n]
			}
		case 7:
			t, err = d.typeSyn(m)
		case 8:
			var i int32
			if i, err = f.Int32(); err != nil {
				break
			}
			switch {
			case tableEntry:
				err = fmt.Errorf("an interned type table entry may not be a reference to another")
			case i < 0 || int(i) >= len(d.types):
				err = fmt.Errorf("interned type index %d out of range (table has %d so far)", i, len(d.types))
			default:
				t = d.types[i]
			}
		case 9:
			t, err = d.typeApp(m)
		default:
			err = unknownField("Type", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if t == nil {
		return nil, fmt.Errorf("type has no sort")
	}
	return t, nil
}

// typeArgs decodes the argument list of a type variable, constructor or
// builtin: applied left to right in LF 2.1, always empty from LF 2.2 on.
func (d *decoder) typeArgs(head lf.Type, args [][]byte) (lf.Type, error) {
	if len(args) > 0 && d.version.AtLeast(2, 2) {
		return nil, fmt.Errorf("type %s applied to %d arguments in place, which Daml-LF %s forbids (it uses type applications)", head, len(args), d.version)
	}
	for _, a := range args {
		t, err := d.nestedType(a)
		if err != nil {
			return nil, err
		}
		head = lf.TApp{Fun: head, Arg: t}
	}
	return head, nil
}

func (d *decoder) typeVar(b []byte) (lf.Type, error) {
	var (
		name int32
		buf  [4][]byte
		args = buf[:0]
		err  error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		switch f.Num {
		case 3:
			name, err = f.Int32()
		case 2:
			var m []byte
			m, err = f.Delimited()
			args = append(args, m)
		default:
			err = unknownField("Type.Var", f)
		}
		if err != nil {
			return nil, err
		}
	}
	n, err := d.name(name)
	if err != nil {
		return nil, err
	}
	return d.typeArgs(lf.TVar{Name: n}, args)
}

// typeConParts decodes a Type.Con message: a TypeConId and arguments.
// The arguments are appended to args, which the caller passes with room
// for a few on its stack.
func (d *decoder) typeConParts(b []byte, args [][]byte) (con lf.TypeConName, _ [][]byte, err error) {
	var (
		tycon    []byte
		hasTycon bool
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return con, nil, err
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return con, nil, err
		}
		switch f.Num {
		case 1:
			tycon, hasTycon = m, true
		case 2:
			args = append(args, m)
		default:
			return con, nil, unknownField("Type.Con", f)
		}
	}
	if !hasTycon {
		return con, nil, fmt.Errorf("type constructor application has no constructor")
	}
	con, err = d.qualifiedName(tycon)
	return con, args, err
}

func (d *decoder) typeCon(b []byte) (lf.Type, error) {
	var buf [8][]byte
	con, args, err := d.typeConParts(b, buf[:0])
	if err != nil {
		return nil, err
	}
	return d.typeArgs(lf.TCon{Con: con}, args)
}

// typeConApp decodes a Type.Con of an expression: its arguments are
// references to interned types.
func (d *decoder) typeConApp(b []byte) (lf.TypeConApp, error) {
	var buf [8][]byte
	con, args, err := d.typeConParts(b, buf[:0])
	if err != nil {
		return lf.TypeConApp{}, err
	}
	app := lf.TypeConApp{Con: con}
	if len(args) > 0 {
		app.Args = make([]lf.Type, len(args))
		for i, a := range args {
			if app.Args[i], err = d.typ(a); err != nil {
				return lf.TypeConApp{}, err
			}
		}
	}
	return app, nil
}

func (d *decoder) typeSyn(b []byte) (lf.Type, error) {
	var (
		syn    []byte
		hasSyn bool
		buf    [8]lf.Type
		args   = buf[:0]
		err    error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
		case 1:
			syn, hasSyn = m, true
		case 2:
			var t lf.Type
			if t, err = d.nestedType(m); err == nil {
				args = append(args, t)
			}
		default:
			err = unknownField("Type.Syn", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasSyn {
		return nil, fmt.Errorf("type synonym application has no synonym")
	}
	name, err := d.qualifiedName(syn)
	if err != nil {
		return nil, err
	}
	t := lf.TSyn{Syn: name}
	if len(args) > 0 {
		t.Args = d.slabs.types.many(len(args))
		copy(t.Args, args)
	}
	return t, nil
}

// builtinTypes maps the BuiltinType enum of daml_lf2.proto to lf, with the
// first minor version that has each (lf.DevMinor for dev-only ones).
var builtinTypes = map[int32]struct {
	t        lf.BuiltinType
	minMinor int
}{
	0: {lf.BuiltinUnit, 1}, 1: {lf.BuiltinBool, 1}, 2: {lf.BuiltinInt64, 1},
	3: {lf.BuiltinDate, 1}, 4: {lf.BuiltinTimestamp, 1}, 5: {lf.BuiltinNumeric, 1},
	6: {lf.BuiltinParty, 1}, 7: {lf.BuiltinText, 1}, 8: {lf.BuiltinContractID, 1},
	9: {lf.BuiltinOptional, 1}, 10: {lf.BuiltinList, 1}, 11: {lf.BuiltinGenMap, 1},
	13: {lf.BuiltinAny, 1}, 14: {lf.BuiltinAnyException, 1}, 15: {lf.BuiltinTypeRep, 1},
	16: {lf.BuiltinArrow, 1}, 17: {lf.BuiltinUpdate, 1}, 18: {lf.BuiltinFailureCategory, 1},
	19:   {lf.BuiltinTextMap, 1},
	1002: {lf.BuiltinBigNumeric, lf.DevMinor}, 1003: {lf.BuiltinRoundingMode, lf.DevMinor},
}

func (d *decoder) typeBuiltin(b []byte) (lf.Type, error) {
	var (
		tag  int32
		buf  [4][]byte
		args = buf[:0]
		err  error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		switch f.Num {
		case 1:
			tag, err = f.Int32()
		case 2:
			var m []byte
			m, err = f.Delimited()
			args = append(args, m)
		default:
			err = unknownField("Type.Builtin", f)
		}
		if err != nil {
			return nil, err
		}
	}
	bt, ok := builtinTypes[tag]
	if !ok {
		return nil, fmt.Errorf("unknown builtin type %d", tag)
	}
	if d.version.Minor < bt.minMinor {
		return nil, fmt.Errorf("builtin type %s is not supported by Daml-LF %s", bt.t, d.version)
	}
	return d.typeArgs(builtinTypeValues[bt.t], args)
}

// builtinTypeValues and natValues hold each builtin type and type-level
// natural once as an lf.Type, so decoding one allocates nothing.
var (
	builtinTypeValues = func() map[lf.BuiltinType]lf.Type {
		m := make(map[lf.BuiltinType]lf.Type, len(builtinTypes))
		for _, bt := range builtinTypes {
			m[bt.t] = lf.TBuiltin{Builtin: bt.t}
		}
		return m
	}()
	natValues = func() (ns [38]lf.Type) {
		for i := range ns {
			ns[i] = lf.TNat{N: i}
		}
		return ns
	}()
)

// typeForall decodes a Forall; several variables fold right into nested
// foralls.
func (d *decoder) typeForall(b []byte) (lf.Type, error) {
	var (
		buf  [4]lf.TypeVar
		vars = buf[:0]
		body lf.Type
		err  error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
		case 1:
			var v lf.TypeVar
			if v, err = d.typeVarWithKind(m); err == nil {
				vars = append(vars, v)
			}
		case 2:
			body, err = d.nestedType(m)
		default:
			err = unknownField("Type.Forall", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := d.checkArity("forall variables", len(vars)); err != nil {
		return nil, err
	}
	if body == nil {
		return nil, fmt.Errorf("forall has no body")
	}
	for i := len(vars) - 1; i >= 0; i-- {
		body = lf.TForall{Var: vars[i], Body: body}
	}
	return body, nil
}

func (d *decoder) typeStruct(b []byte) (lf.Type, error) {
	var (
		n   [2]int
		err error
	)
	countFields(b, n[:])
	fields := d.slabs.fields.many(n[1])[:0]
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		if f.Num != 1 {
			return nil, unknownField("Type.Struct", f)
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		var fl lf.Field
		if fl, err = d.fieldWithType(m, true); err != nil {
			return nil, err
		}
		for _, g := range fields {
			if g.Name == fl.Name {
				return nil, fmt.Errorf("struct type has field %s twice", fl.Name)
			}
		}
		fields = append(fields, fl)
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("struct type has no fields")
	}
	return lf.TStruct{Fields: fields}, nil
}

// typeApp decodes a TApp (LF 2.2+).
func (d *decoder) typeApp(b []byte) (lf.Type, error) {
	if !d.version.AtLeast(2, 2) {
		return nil, fmt.Errorf("type application nodes are not supported by Daml-LF %s", d.version)
	}
	var (
		fun, arg lf.Type
		err      error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		var m []byte
		if m, err = f.Delimited(); err != nil {
			return nil, err
		}
		switch f.Num {
		case 1:
			fun, err = d.nestedType(m)
		case 2:
			arg, err = d.nestedType(m)
		default:
			err = unknownField("Type.TApp", f)
		}
		if err != nil {
			return nil, err
		}
	}
	if fun == nil || arg == nil {
		return nil, fmt.Errorf("type application lacks its function or argument")
	}
	return lf.TApp{Fun: fun, Arg: arg}, nil
}

// typeVarWithKind decodes a TypeVarWithKind.
func (d *decoder) typeVarWithKind(b []byte) (lf.TypeVar, error) {
	var (
		name int32
		k    lf.Kind
		err  error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return lf.TypeVar{}, err
		}
		switch f.Num {
		case 3:
			name, err = f.Int32()
		case 2:
			var m []byte
			if m, err = f.Delimited(); err == nil {
				k, err = d.kind(m, false)
			}
		default:
			err = unknownField("TypeVarWithKind", f)
		}
		if err != nil {
			return lf.TypeVar{}, err
		}
	}
	n, err := d.name(name)
	if err != nil {
		return lf.TypeVar{}, err
	}
	if k == nil {
		return lf.TypeVar{}, fmt.Errorf("type variable %s has no kind", n)
	}
	return lf.TypeVar{Name: n, Kind: k}, nil
}

// fieldWithType decodes a FieldWithType; inTable tells whether the type is
// part of an interned type (full) or a reference to one.
func (d *decoder) fieldWithType(b []byte, inTable bool) (lf.Field, error) {
	var (
		name int32
		t    lf.Type
		err  error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return lf.Field{}, err
		}
		switch f.Num {
		case 3:
			name, err = f.Int32()
		case 2:
			var m []byte
			if m, err = f.Delimited(); err != nil {
				break
			}
			if inTable {
				t, err = d.nestedType(m)
			} else {
				t, err = d.typ(m)
			}
		default:
			err = unknownField("FieldWithType", f)
		}
		if err != nil {
			return lf.Field{}, err
		}
	}
	n, err := d.name(name)
	if err != nil {
		return lf.Field{}, err
	}
	if t == nil {
		return lf.Field{}, fmt.Errorf("field %s has no type", n)
	}
	return lf.Field{Name: n, Type: t}, nil
}

// stablePackages are the ids of the stable packages of daml-prim and
// daml-stdlib, which an LF 2.2+ archive may name by interned string rather
// than through its import table.
var stablePackages = map[string]bool{
	"ee33fb70918e7aaa3d3fc44d64a399fb2bf5bcefc54201b1690ecd448551ba88": true, // daml-prim DA.Exception.ArithmeticError
	"6da1f43a10a179524e840e7288b47bda213339b0552d92e87ae811e52f59fc0e": true, // daml-prim DA.Exception.AssertionFailed
	"f181cd661f7af3a60bdaae4b0285a2a67beb55d6910fc8431dbae21a5825ec0f": true, // daml-prim DA.Exception.GeneralError
	"91e167fa7a256f21f990c526a0a0df840e99aeef0e67dc1f5415b0309486de74": true, // daml-prim DA.Exception.PreconditionFailed
	"0e4a572ab1fb94744abb02243a6bbed6c78fc6e3c8d3f60c655f057692a62816": true, // daml-prim DA.Internal.Erased
	"e5411f3d75f072b944bd88e652112a14a3d409c491fd9a51f5f6eede6d3a3348": true, // daml-prim DA.Internal.NatSyn
	"ab068e2f920d0e06347975c2a342b71f8b8e3b4be0f02ead9442caac51aa8877": true, // daml-prim DA.Internal.PromotedText
	"5aee9b21b8e9a4c4975b5f4c4198e6e6e8469df49e2010820e792f393db870f4": true, // daml-prim DA.Types
	"fcee8dfc1b81c449b421410edd5041c16ab59c45bbea85bcb094d1b17c3e9df7": true, // daml-prim GHC.Prim
	"19f0df5fdaf5a96e137b6ea885fdb378f37bd3166bd9a47ee11518e33fa09a20": true, // daml-prim GHC.Tuple
	"e7e0adfa881e7dbbb07da065ae54444da7c4bccebcb8872ab0cb5dcf9f3761ce": true, // daml-prim GHC.Types
	"a1fa18133ae48cbb616c4c148e78e661666778c3087d099067c7fe1868cbb3a1": true, // daml-stdlib DA.Action.State.Type
	"fa79192fe1cce03d7d8db36471dde4cf6c96e6d0f07e1c391dd49e355af9b38c": true, // daml-stdlib DA.Date.Types
	"6f8e6085f5769861ae7a40dccd618d6f747297d59b37cab89b93e2fa80b0c024": true, // daml-stdlib DA.Internal.Any
	"86d888f34152dae8729900966b44abcb466b9c111699678de58032de601d2b04": true, // daml-stdlib DA.Internal.Down
	"7adc4c2d07fa3a51173c843cba36e610c1168b2dbbf53076e20c0092eae8763d": true, // daml-stdlib DA.Internal.Fail.Types
	"c280cc3ef501d237efa7b1120ca3ad2d196e089ad596b666bed59a85f3c9a074": true, // daml-stdlib DA.Internal.Interface.AnyView.Types
	"9e70a8b3510d617f8a136213f33d6a903a10ca0eeec76bb06ba55d1ed9680f69": true, // daml-stdlib DA.Internal.Template
	"cae345b5500ef6f84645c816f88b9f7a85a9f3c71697984abdf6849f81e80324": true, // daml-stdlib DA.Logic.Types
	"52854220dc199884704958df38befd5492d78384a032fd7558c38f00e3d778a2": true, // daml-stdlib DA.Monoid.Types
	"bde4bd30749e99603e5afa354706608601029e225d4983324d617825b634253a": true, // daml-stdlib DA.NonEmpty.Types
	"bfda48f9aa2c89c895cde538ec4b4946c7085959e031ad61bde616b9849155d7": true, // daml-stdlib DA.Random.Types
	"d095a2ccf6dd36b2415adc4fa676f9191ba63cd39828dc5207b36892ec350cbc": true, // daml-stdlib DA.Semigroup.Types
	"c3bb0c5d04799b3f11bad7c3c102963e115cf53da3e4afcbcfd9f06ebd82b4ff": true, // daml-stdlib DA.Set.Types
	"60c61c542207080e97e378ab447cc355ecc47534b3a3ebbff307c4fb8339bc4d": true, // daml-stdlib DA.Stack.Types
	"b70db8369e1c461d5c70f1c86f526a29e9776c655e6ffc2560f95b05ccb8b946": true, // daml-stdlib DA.Time.Types
	"3cde94fe9be5c700fc1d9a8ad2277e2c1214609f8c52a5b4db77e466875b8cb7": true, // daml-stdlib DA.Validation.Types
}
