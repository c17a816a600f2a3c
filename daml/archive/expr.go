package archive

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/lf"
)

// This file decodes expressions, case alternatives and updates.

// msg is a small message split into its fields by number (1 to 7, the last
// occurrence of a field winning, as protobuf has it), and the count of the
// values of its one repeated field, which reps iterates over.
type msg struct {
	name     string
	f        [8]field
	has      [8]bool
	raw      []byte
	repeated protowire.Number
	nrep     int
}

// split splits b, a message called name, into m. Field repeated (0 for
// none) is counted in m.nrep; other fields above 7 are unknown.
func split(b []byte, name string, repeated int, m *msg) error {
	m.name, m.raw, m.repeated = name, b, protowire.Number(repeated)
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b = rest
		switch {
		case f.num == m.repeated:
			if _, err := f.bytes(); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			m.nrep++
		case f.num >= 1 && f.num < 8:
			m.f[f.num], m.has[f.num] = f, true
		default:
			return unknownField(name, f)
		}
	}
	return nil
}

// repIter yields the values of a message's repeated field in order; split
// has checked them already.
type repIter struct {
	rest []byte
	num  protowire.Number
}

func (m *msg) reps() repIter { return repIter{rest: m.raw, num: m.repeated} }

func (it *repIter) next() []byte {
	for len(it.rest) > 0 {
		f, rest, err := nextField(it.rest)
		if err != nil {
			return nil
		}
		it.rest = rest
		if f.num == it.num {
			return f.b
		}
	}
	return nil
}

// int32 returns field n, 0 when absent.
func (m *msg) int32(n int) (int32, error) {
	if !m.has[n] {
		return 0, nil
	}
	v, err := m.f[n].int32()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", m.name, err)
	}
	return v, nil
}

// bytes returns the length-delimited field n, which must be present.
func (m *msg) bytes(n int, what string) ([]byte, error) {
	if !m.has[n] {
		return nil, fmt.Errorf("%s: no %s", m.name, what)
	}
	v, err := m.f[n].bytes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
	return v, nil
}

func (d *decoder) msgName(m *msg, n int) (string, error) {
	i, err := m.int32(n)
	if err != nil {
		return "", err
	}
	s, err := d.name(i)
	if err != nil {
		return "", fmt.Errorf("%s: %w", m.name, err)
	}
	return s, nil
}

func (d *decoder) msgExpr(m *msg, n int, what string) (lf.Expr, error) {
	b, err := m.bytes(n, what)
	if err != nil {
		return nil, err
	}
	return d.expr(b, false)
}

func (d *decoder) msgType(m *msg, n int, what string) (lf.Type, error) {
	b, err := m.bytes(n, what)
	if err != nil {
		return nil, err
	}
	t, err := d.typ(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", m.name, what, err)
	}
	return t, nil
}

func (d *decoder) msgTyCon(m *msg, n int, what string) (lf.TypeConName, error) {
	b, err := m.bytes(n, what)
	if err != nil {
		return lf.TypeConName{}, err
	}
	q, err := d.qualifiedName(b)
	if err != nil {
		return lf.TypeConName{}, fmt.Errorf("%s: %s: %w", m.name, what, err)
	}
	return q, nil
}

func (d *decoder) msgTyConApp(m *msg, n int) (lf.TypeConApp, error) {
	b, err := m.bytes(n, "type constructor")
	if err != nil {
		return lf.TypeConApp{}, err
	}
	app, err := d.typeConApp(b)
	if err != nil {
		return lf.TypeConApp{}, fmt.Errorf("%s: %w", m.name, err)
	}
	return app, nil
}

// expr decodes an Expr: an optional location (field 1) and one sort. A
// tableEntry, an interned expression, may not itself be a reference to one.
func (d *decoder) expr(b []byte, tableEntry bool) (lf.Expr, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	v, err := d.exprLevel(b, tableEntry)
	d.leave()
	return v, err
}

func (d *decoder) exprLevel(b []byte, tableEntry bool) (lf.Expr, error) {
	var (
		loc    []byte
		hasLoc bool
		sum    field
		hasSum bool
	)
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return nil, fmt.Errorf("Expr: %w", err)
		}
		b = rest
		if f.num == 1 {
			if loc, err = f.bytes(); err != nil {
				return nil, fmt.Errorf("Expr: %w", err)
			}
			hasLoc = true
		} else {
			sum, hasSum = f, true
		}
	}
	if !hasSum {
		return nil, fmt.Errorf("Expr: no expression")
	}
	if tableEntry && sum.num == 44 {
		return nil, fmt.Errorf("an interned expression table entry may not be a reference to another")
	}
	e, err := d.exprSum(sum)
	if err != nil {
		return nil, err
	}
	if hasLoc {
		l, ok, err := d.locationValue(loc)
		if err != nil {
			return nil, err
		}
		if ok {
			le := d.slabs.locs.one()
			le.Location, le.Expr = l, e
			e = le
		}
	}
	return e, nil
}

// builtinFunctions maps the BuiltinFunction enum of daml_lf2.proto to lf,
// with the first minor version that has each.
var builtinFunctions = map[int32]struct {
	f        lf.BuiltinFunction
	minMinor int
}{
	0: {lf.BuiltinTrace, 1}, 1: {lf.BuiltinError, 1},
	2: {lf.BuiltinEqual, 1}, 3: {lf.BuiltinLessEq, 1}, 4: {lf.BuiltinLess, 1},
	5: {lf.BuiltinGreaterEq, 1}, 6: {lf.BuiltinGreater, 1},
	7: {lf.BuiltinAddInt64, 1}, 8: {lf.BuiltinSubInt64, 1}, 9: {lf.BuiltinMulInt64, 1},
	10: {lf.BuiltinDivInt64, 1}, 11: {lf.BuiltinModInt64, 1}, 12: {lf.BuiltinExpInt64, 1},
	13: {lf.BuiltinAddNumeric, 1}, 14: {lf.BuiltinSubNumeric, 1}, 15: {lf.BuiltinMulNumeric, 1},
	16: {lf.BuiltinDivNumeric, 1}, 17: {lf.BuiltinRoundNumeric, 1}, 18: {lf.BuiltinCastNumeric, 1},
	19: {lf.BuiltinShiftNumeric, 1},
	20: {lf.BuiltinInt64ToNumeric, 1}, 21: {lf.BuiltinNumericToInt64, 1},
	22: {lf.BuiltinInt64ToText, 1}, 23: {lf.BuiltinNumericToText, 1},
	25: {lf.BuiltinTimestampToText, 1}, 26: {lf.BuiltinDateToText, 1},
	27: {lf.BuiltinPartyToText, 1}, 28: {lf.BuiltinTextToParty, 1},
	29: {lf.BuiltinTextToInt64, 1}, 30: {lf.BuiltinTextToNumeric, 1},
	31: {lf.BuiltinContractIDToText, 1}, 32: {lf.BuiltinSHA256Text, 1},
	33: {lf.BuiltinExplodeText, 1}, 34: {lf.BuiltinAppendText, 1}, 35: {lf.BuiltinImplodeText, 1},
	36: {lf.BuiltinCodePointsToText, 1}, 37: {lf.BuiltinTextToCodePoints, 1},
	38: {lf.BuiltinDateToUnixDays, 1}, 39: {lf.BuiltinUnixDaysToDate, 1},
	40: {lf.BuiltinTimestampToUnixMicroseconds, 1}, 41: {lf.BuiltinUnixMicrosecondsToTimestamp, 1},
	42: {lf.BuiltinCoerceContractID, 1},
	43: {lf.BuiltinFoldl, 1}, 44: {lf.BuiltinFoldr, 1}, 45: {lf.BuiltinEqualList, 1},
	52: {lf.BuiltinGenMapEmpty, 1}, 53: {lf.BuiltinGenMapInsert, 1}, 54: {lf.BuiltinGenMapLookup, 1},
	55: {lf.BuiltinGenMapDelete, 1}, 56: {lf.BuiltinGenMapKeys, 1}, 57: {lf.BuiltinGenMapValues, 1},
	58: {lf.BuiltinGenMapSize, 1},
	59: {lf.BuiltinAnyExceptionMessage, 1},
	60: {lf.BuiltinTextMapEmpty, 1}, 61: {lf.BuiltinTextMapInsert, 1}, 62: {lf.BuiltinTextMapLookup, 1},
	63: {lf.BuiltinTextMapDelete, 1}, 64: {lf.BuiltinTextMapToList, 1}, 65: {lf.BuiltinTextMapSize, 1},
	66: {lf.BuiltinFailWithStatus, 1},
	67: {lf.BuiltinKeccak256Text, 1}, 68: {lf.BuiltinSecp256k1Bool, 1},
	69: {lf.BuiltinHexToText, 1}, 70: {lf.BuiltinTextToHex, 1},
	71: {lf.BuiltinSHA256Hex, 1}, 72: {lf.BuiltinSecp256k1WithECDSABool, 1},
	73:   {lf.BuiltinSecp256k1ValidateKey, 3},
	2001: {lf.BuiltinScaleBigNumeric, lf.DevMinor}, 2002: {lf.BuiltinPrecisionBigNumeric, lf.DevMinor},
	2003: {lf.BuiltinAddBigNumeric, lf.DevMinor}, 2004: {lf.BuiltinSubBigNumeric, lf.DevMinor},
	2005: {lf.BuiltinMulBigNumeric, lf.DevMinor}, 2006: {lf.BuiltinDivBigNumeric, lf.DevMinor},
	2007: {lf.BuiltinShiftRightBigNumeric, lf.DevMinor}, 2008: {lf.BuiltinBigNumericToNumeric, lf.DevMinor},
	2009: {lf.BuiltinNumericToBigNumeric, lf.DevMinor}, 2010: {lf.BuiltinBigNumericToText, lf.DevMinor},
	3011: {lf.BuiltinTypeRepTyConName, lf.DevMinor},
	5001: {lf.BuiltinExternalCall, lf.DevMinor},
	// Tags of 2.dev archives from 2025 compilers, before these builtins
	// became stable (as 71 and 73): DamlDefinitionsServiceMain.dar's
	// daml-stdlib calls 4000 in DA.Crypto.Text.sha256.
	4000: {lf.BuiltinSHA256Hex, lf.DevMinor},
	4001: {lf.BuiltinSecp256k1ValidateKey, lf.DevMinor},
}

// builtinFuns holds one shared EBuiltinFun per builtin function.
var builtinFuns = func() []*lf.EBuiltinFun {
	fs := lf.BuiltinFunctions()
	out := make([]*lf.EBuiltinFun, len(fs))
	for i, f := range fs {
		out[i] = &lf.EBuiltinFun{Fun: f}
	}
	return out
}()

var builtinCons = [3]*lf.EBuiltinCon{{Con: lf.ConUnit}, {Con: lf.ConFalse}, {Con: lf.ConTrue}}

func (d *decoder) notSupported(what string) error {
	return fmt.Errorf("%s is not supported by Daml-LF %s", what, d.version)
}

// exprSum decodes the sort of an Expr, given as its oneof field.
func (d *decoder) exprSum(f field) (lf.Expr, error) {
	switch f.num {
	case 2: // var
		i, err := f.int32()
		if err != nil {
			return nil, err
		}
		n, err := d.name(i)
		if err != nil {
			return nil, fmt.Errorf("variable: %w", err)
		}
		// Variables are leaves: one node per name serves every use.
		if d.vars[i] == nil {
			d.vars[i] = &lf.EVar{Name: n}
		}
		return d.vars[i], nil
	case 4: // builtin function
		tag, err := f.int32()
		if err != nil {
			return nil, err
		}
		bf, ok := builtinFunctions[tag]
		if !ok {
			return nil, fmt.Errorf("unknown builtin function %d", tag)
		}
		if d.version.Minor < bf.minMinor {
			return nil, d.notSupported("builtin function " + bf.f.String())
		}
		return builtinFuns[bf.f], nil
	case 5: // builtin constructor
		tag, err := f.int32()
		if err != nil {
			return nil, err
		}
		if tag < 0 || tag > 2 {
			return nil, fmt.Errorf("unknown builtin constructor %d", tag)
		}
		return builtinCons[tag], nil
	case 44: // interned expression
		i, err := f.int32()
		if err != nil {
			return nil, err
		}
		return d.internedExpr(i)
	}
	if !(f.num >= 3 && f.num <= 43 && f.num != 24 || f.num == 1001 || f.num == 1002 || f.num == 9999) {
		return nil, unknownField("Expr", f)
	}
	b, err := f.bytes()
	if err != nil {
		return nil, fmt.Errorf("Expr: %w", err)
	}
	switch f.num {
	case 3:
		q, err := d.qualifiedName(b)
		if err != nil {
			return nil, fmt.Errorf("value reference: %w", err)
		}
		v := d.slabs.vals.one()
		v.Ref = q
		return v, nil
	case 6:
		return d.builtinLit(b)
	case 23:
		u, err := d.update(b)
		if err != nil {
			return nil, err
		}
		return &lf.EUpdate{Update: u}, nil
	case 29:
		t, err := d.typ(b)
		if err != nil {
			return nil, fmt.Errorf("type_rep: %w", err)
		}
		return &lf.ETypeRep{Type: t}, nil
	case 19:
		return d.caseExpr(b)
	case 1001, 1002:
		return d.choiceFunc(f.num == 1001, b)
	case 9999:
		return d.experimental(b)
	}
	var m msg
	switch f.num {
	case 7: // RecCon
		if err := split(b, "Expr.RecCon", 2, &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyConApp(&m, 1)
		if err != nil {
			return nil, err
		}
		fields, err := d.fieldExprs(&m)
		if err != nil {
			return nil, err
		}
		return &lf.ERecCon{Type: tc, Fields: fields}, nil
	case 8: // RecProj
		if err := split(b, "Expr.RecProj", 0, &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyConApp(&m, 1)
		if err != nil {
			return nil, err
		}
		fl, err := d.msgName(&m, 4)
		if err != nil {
			return nil, err
		}
		rec, err := d.msgExpr(&m, 3, "record")
		if err != nil {
			return nil, err
		}
		proj := d.slabs.recProjs.one()
		proj.Type, proj.Field, proj.Record = tc, fl, rec
		return proj, nil
	case 9: // RecUpd
		if err := split(b, "Expr.RecUpd", 0, &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyConApp(&m, 1)
		if err != nil {
			return nil, err
		}
		fl, err := d.msgName(&m, 2)
		if err != nil {
			return nil, err
		}
		rec, err := d.msgExpr(&m, 3, "record")
		if err != nil {
			return nil, err
		}
		upd, err := d.msgExpr(&m, 4, "update")
		if err != nil {
			return nil, err
		}
		return &lf.ERecUpd{Type: tc, Field: fl, Record: rec, Update: upd}, nil
	case 10: // VariantCon
		if err := split(b, "Expr.VariantCon", 0, &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyConApp(&m, 1)
		if err != nil {
			return nil, err
		}
		con, err := d.msgName(&m, 2)
		if err != nil {
			return nil, err
		}
		arg, err := d.msgExpr(&m, 3, "argument")
		if err != nil {
			return nil, err
		}
		return &lf.EVariantCon{Type: tc, Con: con, Arg: arg}, nil
	case 11: // EnumCon
		if err := split(b, "Expr.EnumCon", 0, &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyCon(&m, 1, "type constructor")
		if err != nil {
			return nil, err
		}
		con, err := d.msgName(&m, 2)
		if err != nil {
			return nil, err
		}
		return &lf.EEnumCon{Type: tc, Con: con}, nil
	case 12: // StructCon
		if err := split(b, "Expr.StructCon", 1, &m); err != nil {
			return nil, err
		}
		fields, err := d.fieldExprs(&m)
		if err != nil {
			return nil, err
		}
		return &lf.EStructCon{Fields: fields}, nil
	case 13: // StructProj
		if err := split(b, "Expr.StructProj", 0, &m); err != nil {
			return nil, err
		}
		fl, err := d.msgName(&m, 1)
		if err != nil {
			return nil, err
		}
		s, err := d.msgExpr(&m, 2, "struct")
		if err != nil {
			return nil, err
		}
		return &lf.EStructProj{Field: fl, Struct: s}, nil
	case 14: // StructUpd
		if err := split(b, "Expr.StructUpd", 0, &m); err != nil {
			return nil, err
		}
		fl, err := d.msgName(&m, 1)
		if err != nil {
			return nil, err
		}
		s, err := d.msgExpr(&m, 2, "struct")
		if err != nil {
			return nil, err
		}
		upd, err := d.msgExpr(&m, 3, "update")
		if err != nil {
			return nil, err
		}
		return &lf.EStructUpd{Field: fl, Struct: s, Update: upd}, nil
	case 15: // App
		if err := split(b, "Expr.App", 2, &m); err != nil {
			return nil, err
		}
		if m.nrep == 0 {
			return nil, fmt.Errorf("Expr.App: no arguments")
		}
		fun, err := d.msgExpr(&m, 1, "function")
		if err != nil {
			return nil, err
		}
		args := d.slabs.exprs.many(m.nrep)
		it := m.reps()
		for i := 0; i < m.nrep; i++ {
			a := it.next()
			if args[i], err = d.expr(a, false); err != nil {
				return nil, err
			}
		}
		app := d.slabs.apps.one()
		app.Fun, app.Args = fun, args
		return app, nil
	case 16: // TyApp
		if err := split(b, "Expr.TyApp", 2, &m); err != nil {
			return nil, err
		}
		if err := d.checkArity("type arguments", m.nrep); err != nil {
			return nil, fmt.Errorf("Expr.TyApp: %w", err)
		}
		e, err := d.msgExpr(&m, 1, "expression")
		if err != nil {
			return nil, err
		}
		types := d.slabs.types.many(m.nrep)
		it := m.reps()
		for i := 0; i < m.nrep; i++ {
			t := it.next()
			if types[i], err = d.typ(t); err != nil {
				return nil, fmt.Errorf("Expr.TyApp: %w", err)
			}
		}
		tyApp := d.slabs.tyApps.one()
		tyApp.Expr, tyApp.Types = e, types
		return tyApp, nil
	case 17: // Abs
		if err := split(b, "Expr.Abs", 1, &m); err != nil {
			return nil, err
		}
		if err := d.checkArity("parameters", m.nrep); err != nil {
			return nil, fmt.Errorf("Expr.Abs: %w", err)
		}
		params := d.slabs.binders.many(m.nrep)
		it := m.reps()
		for i := 0; i < m.nrep; i++ {
			p := it.next()
			if params[i], err = d.binder(p); err != nil {
				return nil, fmt.Errorf("Expr.Abs: parameter %d: %w", i, err)
			}
		}
		body, err := d.msgExpr(&m, 2, "body")
		if err != nil {
			return nil, err
		}
		abs := d.slabs.abss.one()
		abs.Params, abs.Body = params, body
		return abs, nil
	case 18: // TyAbs
		if err := split(b, "Expr.TyAbs", 1, &m); err != nil {
			return nil, err
		}
		if err := d.checkArity("type parameters", m.nrep); err != nil {
			return nil, fmt.Errorf("Expr.TyAbs: %w", err)
		}
		params := make([]lf.TypeVar, m.nrep)
		it := m.reps()
		for i := 0; i < m.nrep; i++ {
			p := it.next()
			if params[i], err = d.typeVarWithKind(p); err != nil {
				return nil, fmt.Errorf("Expr.TyAbs: parameter %d: %w", i, err)
			}
		}
		body, err := d.msgExpr(&m, 2, "body")
		if err != nil {
			return nil, err
		}
		return &lf.ETyAbs{Params: params, Body: body}, nil
	case 20: // Let
		bindings, body, err := d.block(b, "Expr.Let")
		if err != nil {
			return nil, err
		}
		if len(bindings) == 0 {
			return nil, fmt.Errorf("Expr.Let: no bindings")
		}
		return &lf.ELet{Bindings: bindings, Body: body}, nil
	case 21: // Nil
		if err := split(b, "Expr.Nil", 0, &m); err != nil {
			return nil, err
		}
		t, err := d.msgType(&m, 1, "type")
		if err != nil {
			return nil, err
		}
		return &lf.ENil{Type: t}, nil
	case 22: // Cons
		if err := split(b, "Expr.Cons", 2, &m); err != nil {
			return nil, err
		}
		if m.nrep == 0 {
			return nil, fmt.Errorf("Expr.Cons: no front elements")
		}
		t, err := d.msgType(&m, 1, "type")
		if err != nil {
			return nil, err
		}
		front := make([]lf.Expr, m.nrep)
		it := m.reps()
		for i := 0; i < m.nrep; i++ {
			e := it.next()
			if front[i], err = d.expr(e, false); err != nil {
				return nil, err
			}
		}
		tail, err := d.msgExpr(&m, 3, "tail")
		if err != nil {
			return nil, err
		}
		return &lf.ECons{Type: t, Front: front, Tail: tail}, nil
	case 25: // OptionalNone
		if err := split(b, "Expr.OptionalNone", 0, &m); err != nil {
			return nil, err
		}
		t, err := d.msgType(&m, 1, "type")
		if err != nil {
			return nil, err
		}
		return &lf.ENone{Type: t}, nil
	case 26, 27, 28, 30, 31: // OptionalSome, ToAny, FromAny, ToAnyException, FromAnyException
		if err := split(b, exprNames[f.num], 0, &m); err != nil {
			return nil, err
		}
		t, err := d.msgType(&m, 1, "type")
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 2, "expression")
		if err != nil {
			return nil, err
		}
		switch f.num {
		case 26:
			return &lf.ESome{Type: t, Value: e}, nil
		case 27:
			return &lf.EToAny{Type: t, Expr: e}, nil
		case 28:
			return &lf.EFromAny{Type: t, Expr: e}, nil
		case 30:
			return &lf.EToAnyException{Type: t, Expr: e}, nil
		default:
			return &lf.EFromAnyException{Type: t, Expr: e}, nil
		}
	case 32: // Throw
		if err := split(b, "Expr.Throw", 0, &m); err != nil {
			return nil, err
		}
		rt, err := d.msgType(&m, 1, "return type")
		if err != nil {
			return nil, err
		}
		et, err := d.msgType(&m, 2, "exception type")
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 3, "exception")
		if err != nil {
			return nil, err
		}
		return &lf.EThrow{ReturnType: rt, ExceptionType: et, Exception: e}, nil
	case 33, 34, 41, 42: // ToInterface, FromInterface, To/FromRequiredInterface
		if err := split(b, exprNames[f.num], 0, &m); err != nil {
			return nil, err
		}
		a, err := d.msgTyCon(&m, 1, "interface")
		if err != nil {
			return nil, err
		}
		c, err := d.msgTyCon(&m, 2, "template or interface")
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 3, "expression")
		if err != nil {
			return nil, err
		}
		switch f.num {
		case 33:
			return &lf.EToInterface{Interface: a, Template: c, Expr: e}, nil
		case 34:
			return &lf.EFromInterface{Interface: a, Template: c, Expr: e}, nil
		case 41:
			return &lf.EToRequiredInterface{Required: a, Requiring: c, Expr: e}, nil
		default:
			return &lf.EFromRequiredInterface{Required: a, Requiring: c, Expr: e}, nil
		}
	case 39, 43: // UnsafeFromInterface, UnsafeFromRequiredInterface
		name := "Expr.UnsafeFromRequiredInterface"
		if f.num == 39 {
			name = "Expr.UnsafeFromInterface"
			// Canton allows it up to 2.1; earlier dev compilers emit it too.
			if d.version.Minor > 1 && !d.version.IsDev() {
				return nil, d.notSupported("unsafe_from_interface")
			}
		}
		if err := split(b, name, 0, &m); err != nil {
			return nil, err
		}
		a, err := d.msgTyCon(&m, 1, "interface")
		if err != nil {
			return nil, err
		}
		c, err := d.msgTyCon(&m, 2, "template or interface")
		if err != nil {
			return nil, err
		}
		cid, err := d.msgExpr(&m, 3, "contract id")
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 4, "expression")
		if err != nil {
			return nil, err
		}
		if f.num == 39 {
			return &lf.EUnsafeFromInterface{Interface: a, Template: c, ContractID: cid, Expr: e}, nil
		}
		return &lf.EUnsafeFromRequiredInterface{Required: a, Requiring: c, ContractID: cid, Expr: e}, nil
	case 35: // CallInterface
		if err := split(b, "Expr.CallInterface", 0, &m); err != nil {
			return nil, err
		}
		iface, err := d.msgTyCon(&m, 1, "interface")
		if err != nil {
			return nil, err
		}
		method, err := d.msgName(&m, 2)
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 3, "expression")
		if err != nil {
			return nil, err
		}
		return &lf.ECallInterface{Interface: iface, Method: method, Expr: e}, nil
	case 36, 37, 38, 40: // Signatory/Observer/ViewInterface, InterfaceTemplateTypeRep
		if err := split(b, exprNames[f.num], 0, &m); err != nil {
			return nil, err
		}
		iface, err := d.msgTyCon(&m, 1, "interface")
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 2, "expression")
		if err != nil {
			return nil, err
		}
		switch f.num {
		case 36:
			return &lf.ESignatoryInterface{Interface: iface, Expr: e}, nil
		case 37:
			return &lf.EObserverInterface{Interface: iface, Expr: e}, nil
		case 38:
			return &lf.EViewInterface{Interface: iface, Expr: e}, nil
		default:
			return &lf.EInterfaceTemplateTypeRep{Interface: iface, Expr: e}, nil
		}
	}
	return nil, unknownField("Expr", f)
}

// exprNames names the messages of the Expr sorts that share code.
var exprNames = map[protowire.Number]string{
	26: "Expr.OptionalSome", 27: "Expr.ToAny", 28: "Expr.FromAny",
	30: "Expr.ToAnyException", 31: "Expr.FromAnyException",
	33: "Expr.ToInterface", 34: "Expr.FromInterface",
	41: "Expr.ToRequiredInterface", 42: "Expr.FromRequiredInterface",
	36: "Expr.SignatoryInterface", 37: "Expr.ObserverInterface",
	38: "Expr.ViewInterface", 40: "Expr.InterfaceTemplateTypeRep",
}

// internedExpr returns interned expression i, decoding it on its first
// use in the current definition. While it is decoded, only expressions
// before it are in reach, which rules out cycles.
func (d *decoder) internedExpr(i int32) (lf.Expr, error) {
	if !d.version.AtLeast(2, 2) {
		return nil, d.notSupported("interned expressions")
	}
	if i < 0 || int(i) >= len(d.exprs) {
		return nil, fmt.Errorf("interned expression index %d out of range (table has %d)", i, len(d.exprs))
	}
	if int(i) >= d.exprLimit {
		return nil, fmt.Errorf("interned expression %d refers to interned expression %d; only earlier ones are allowed", d.exprLimit, i)
	}
	if d.exprGen[i] == d.gen {
		return d.exprCache[i], nil
	}
	limit := d.exprLimit
	d.exprLimit = int(i)
	e, err := d.expr(d.exprs[i], true)
	d.exprLimit = limit
	if err != nil {
		return nil, fmt.Errorf("interned expression %d: %w", i, err)
	}
	d.exprCache[i], d.exprGen[i] = e, d.gen
	return e, nil
}

func (d *decoder) fieldExprs(fm *msg) ([]lf.FieldExpr, error) {
	out := d.slabs.fieldExprs.many(fm.nrep)
	it := fm.reps()
	for i := range out {
		b := it.next()
		var m msg
		if err := split(b, "FieldWithExpr", 0, &m); err != nil {
			return nil, err
		}
		n, err := d.msgName(&m, 3)
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 2, "expression")
		if err != nil {
			return nil, err
		}
		out[i] = lf.FieldExpr{Name: n, Expr: e}
	}
	return out, nil
}

// binder decodes a VarWithType.
func (d *decoder) binder(b []byte) (lf.Binder, error) {
	var m msg
	if err := split(b, "VarWithType", 0, &m); err != nil {
		return lf.Binder{}, err
	}
	n, err := d.msgName(&m, 3)
	if err != nil {
		return lf.Binder{}, err
	}
	t, err := d.msgType(&m, 2, "type")
	if err != nil {
		return lf.Binder{}, err
	}
	return lf.Binder{Name: n, Type: t}, nil
}

// block decodes a Block: bindings (field 1) and a body (field 2).
func (d *decoder) block(b []byte, name string) ([]lf.Binding, lf.Expr, error) {
	var m msg
	if err := split(b, name, 1, &m); err != nil {
		return nil, nil, err
	}
	bindings := make([]lf.Binding, m.nrep)
	it := m.reps()
	for i := 0; i < m.nrep; i++ {
		raw := it.next()
		var bm msg
		if err := split(raw, "Binding", 0, &bm); err != nil {
			return nil, nil, err
		}
		vb, err := bm.bytes(1, "binder")
		if err != nil {
			return nil, nil, err
		}
		if bindings[i].Binder, err = d.binder(vb); err != nil {
			return nil, nil, fmt.Errorf("%s: binding %d: %w", name, i, err)
		}
		if bindings[i].Bound, err = d.msgExpr(&bm, 2, "bound expression"); err != nil {
			return nil, nil, err
		}
	}
	body, err := d.msgExpr(&m, 2, "body")
	if err != nil {
		return nil, nil, err
	}
	return bindings, body, nil
}

func (d *decoder) builtinLit(b []byte) (lf.Expr, error) {
	var (
		f   field
		set bool
		err error
	)
	for len(b) > 0 {
		if f, b, err = nextField(b); err != nil {
			return nil, fmt.Errorf("BuiltinLit: %w", err)
		}
		set = true
	}
	if !set {
		return nil, fmt.Errorf("BuiltinLit: no literal")
	}
	switch f.num {
	case 1:
		v, err := f.sint64()
		if err != nil {
			return nil, err
		}
		return &lf.EInt64{Value: v}, nil
	case 2:
		v, err := f.sfixed64()
		if err != nil {
			return nil, err
		}
		if v < minTimestamp || v > maxTimestamp {
			return nil, fmt.Errorf("timestamp literal %d is outside 0001-01-01 to 9999-12-31", v)
		}
		return &lf.ETimestamp{Micros: v}, nil
	case 3:
		i, err := f.int32()
		if err != nil {
			return nil, err
		}
		s, err := d.str(i)
		if err != nil {
			return nil, fmt.Errorf("numeric literal: %w", err)
		}
		scale, ok := numericScale(s)
		if !ok {
			return nil, fmt.Errorf("numeric literal %q is not a Numeric of at most 38 digits and scale 0 to 37", s)
		}
		return &lf.ENumeric{Value: s, Scale: scale}, nil
	case 4:
		i, err := f.int32()
		if err != nil {
			return nil, err
		}
		s, err := d.str(i)
		if err != nil {
			return nil, fmt.Errorf("text literal: %w", err)
		}
		return &lf.EText{Value: s}, nil
	case 5:
		v, err := f.int32()
		if err != nil {
			return nil, err
		}
		if v < minDate || v > maxDate {
			return nil, fmt.Errorf("date literal %d is outside 0001-01-01 to 9999-12-31", v)
		}
		return &lf.EDate{Days: v}, nil
	case 6:
		v, err := f.int32()
		if err != nil {
			return nil, err
		}
		if v < 0 || v > 1 {
			return nil, fmt.Errorf("unknown failure category %d", v)
		}
		return &lf.EFailureCategory{Category: lf.FailureCategory(v)}, nil
	case 1001:
		v, err := f.int32()
		if err != nil {
			return nil, err
		}
		if !d.version.IsDev() {
			return nil, d.notSupported("rounding mode literal")
		}
		if v < 0 || v > 7 {
			return nil, fmt.Errorf("unknown rounding mode %d", v)
		}
		return &lf.ERoundingMode{Mode: lf.RoundingMode(v)}, nil
	}
	return nil, unknownField("BuiltinLit", f)
}

// The range of Daml timestamps (microseconds) and dates (days), both from
// the Unix epoch: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z.
const (
	minTimestamp = -62135596800000000
	maxTimestamp = 253402300799999999
	minDate      = -719162
	maxDate      = 2932896
)

// numericScale checks a Numeric literal, -?[0-9]+\.[0-9]*, of scale at most
// 37 and at most 38 significant digits, and returns its scale.
func numericScale(s string) (int, bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := s[start:i]
	if intDigits == "" || i >= len(s) || s[i] != '.' {
		return 0, false
	}
	i++
	scale := len(s) - i
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	for len(intDigits) > 1 && intDigits[0] == '0' {
		intDigits = intDigits[1:]
	}
	if intDigits == "0" {
		intDigits = ""
	}
	if scale > 37 || len(intDigits)+scale > 38 {
		return 0, false
	}
	return scale, true
}

func (d *decoder) caseExpr(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Case", 2, &m); err != nil {
		return nil, err
	}
	scrut, err := d.msgExpr(&m, 1, "scrutinee")
	if err != nil {
		return nil, err
	}
	alts := make([]lf.CaseAlt, m.nrep)
	it := m.reps()
	for i := 0; i < m.nrep; i++ {
		raw := it.next()
		if alts[i], err = d.caseAlt(raw); err != nil {
			return nil, err
		}
	}
	return &lf.ECase{Scrut: scrut, Alts: alts}, nil
}

func (d *decoder) caseAlt(b []byte) (lf.CaseAlt, error) {
	var (
		body    []byte
		hasBody bool
		pf      field // the pattern: the last of fields 2 to 9, as in a oneof
		err     error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return lf.CaseAlt{}, fmt.Errorf("CaseAlt: %w", err)
		}
		switch {
		case f.num == 1:
			if body, err = f.bytes(); err != nil {
				return lf.CaseAlt{}, fmt.Errorf("CaseAlt: %w", err)
			}
			hasBody = true
		case f.num >= 2 && f.num <= 9:
			pf = f
		default:
			return lf.CaseAlt{}, unknownField("CaseAlt", f)
		}
	}
	pat, err := d.pattern(pf)
	if err != nil {
		return lf.CaseAlt{}, err
	}
	if !hasBody {
		return lf.CaseAlt{}, fmt.Errorf("CaseAlt: no body")
	}
	e, err := d.expr(body, false)
	if err != nil {
		return lf.CaseAlt{}, err
	}
	return lf.CaseAlt{Pattern: pat, Body: e}, nil
}

// pattern decodes the pattern of a CaseAlt, given as its oneof field.
func (d *decoder) pattern(f field) (lf.Pattern, error) {
	switch f.num {
	case 0:
		return nil, fmt.Errorf("CaseAlt: no pattern")
	case 2:
		return lf.PDefault{}, nil
	case 5:
		return lf.PNil{}, nil
	case 7:
		return lf.PNone{}, nil
	case 4:
		tag, err := f.int32()
		if err != nil {
			return nil, fmt.Errorf("CaseAlt: %w", err)
		}
		if tag < 0 || tag > 2 {
			return nil, fmt.Errorf("CaseAlt: unknown builtin constructor %d", tag)
		}
		return lf.PBuiltinCon{Con: lf.BuiltinCon(tag)}, nil
	}
	raw, err := f.bytes()
	if err != nil {
		return nil, fmt.Errorf("CaseAlt: %w", err)
	}
	var pm msg
	switch f.num {
	case 3:
		if err := split(raw, "CaseAlt.Variant", 0, &pm); err != nil {
			return nil, err
		}
		var p lf.PVariant
		if p.Type, err = d.msgTyCon(&pm, 1, "type constructor"); err != nil {
			return nil, err
		}
		if p.Con, err = d.msgName(&pm, 2); err != nil {
			return nil, err
		}
		if p.Binder, err = d.msgName(&pm, 3); err != nil {
			return nil, err
		}
		return p, nil
	case 6:
		if err := split(raw, "CaseAlt.Cons", 0, &pm); err != nil {
			return nil, err
		}
		var p lf.PCons
		if p.Head, err = d.msgName(&pm, 1); err != nil {
			return nil, err
		}
		if p.Tail, err = d.msgName(&pm, 2); err != nil {
			return nil, err
		}
		return p, nil
	case 8:
		if err := split(raw, "CaseAlt.OptionalSome", 0, &pm); err != nil {
			return nil, err
		}
		var p lf.PSome
		if p.Binder, err = d.msgName(&pm, 1); err != nil {
			return nil, err
		}
		return p, nil
	default: // 9
		if err := split(raw, "CaseAlt.Enum", 0, &pm); err != nil {
			return nil, err
		}
		var p lf.PEnum
		if p.Type, err = d.msgTyCon(&pm, 1, "type constructor"); err != nil {
			return nil, err
		}
		if p.Con, err = d.msgName(&pm, 2); err != nil {
			return nil, err
		}
		return p, nil
	}
}

func (d *decoder) choiceFunc(controller bool, b []byte) (lf.Expr, error) {
	name := "Expr.ChoiceObserver"
	if controller {
		name = "Expr.ChoiceController"
	}
	if !d.version.IsDev() {
		return nil, d.notSupported(name)
	}
	var m msg
	if err := split(b, name, 0, &m); err != nil {
		return nil, err
	}
	tpl, err := d.msgTyCon(&m, 1, "template")
	if err != nil {
		return nil, err
	}
	ch, err := d.msgName(&m, 2)
	if err != nil {
		return nil, err
	}
	c, err := d.msgExpr(&m, 3, "contract")
	if err != nil {
		return nil, err
	}
	a, err := d.msgExpr(&m, 4, "choice argument")
	if err != nil {
		return nil, err
	}
	if controller {
		return &lf.EChoiceController{Template: tpl, Choice: ch, Contract: c, ChoiceArg: a}, nil
	}
	return &lf.EChoiceObserver{Template: tpl, Choice: ch, Contract: c, ChoiceArg: a}, nil
}

func (d *decoder) experimental(b []byte) (lf.Expr, error) {
	if !d.version.IsDev() {
		return nil, d.notSupported("Expr.Experimental")
	}
	var m msg
	if err := split(b, "Expr.Experimental", 0, &m); err != nil {
		return nil, err
	}
	var name string
	if m.has[1] {
		var err error
		if name, err = m.f[1].str(); err != nil {
			return nil, fmt.Errorf("Expr.Experimental: %w", err)
		}
	}
	t, err := d.msgType(&m, 2, "type")
	if err != nil {
		return nil, err
	}
	return &lf.EExperimental{Name: name, Type: t}, nil
}
