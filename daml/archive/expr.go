package archive

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/internal/pbwire"
)

// This file decodes expressions, case alternatives and updates.

// The msg… methods decode field n of a split message as a name, an
// expression, a type or a type constructor, naming the message on error.

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
	if d.exprCount++; d.exprCount > d.exprBudget {
		d.leave()
		return nil, fmt.Errorf("%w: more than %d expressions from a package of %d bytes (real packages decode to under 0.1 a byte): its interned expressions are shared by more definitions than any compiler emits", ErrTooLarge, d.exprBudget, d.size)
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
		// An Expr has few fields: look at each without building a field
		// where it can. The sorts from field 16 on have two-byte tags.
		num, typ, v, n := pbwire.Header(b)
		if n == 0 {
			num, typ, v, n = pbwire.HeaderAny(b)
		}
		switch {
		case n > 0 && typ == protowire.BytesType && uint64(len(b)-n) >= v:
			end := n + int(v)
			if num == 1 {
				loc, hasLoc = b[n:end], true
			} else {
				sum, hasSum = field{Num: num, Type: typ, Bytes: b[n:end]}, true
			}
			b = b[end:]
			continue
		case n > 0 && typ == protowire.VarintType && num != 1:
			sum, hasSum = field{Num: num, Type: typ, Int: v}, true
			b = b[n:]
			continue
		}
		f, rest, err := nextField(b)
		if err != nil {
			return nil, in("Expr", err)
		}
		b = rest
		if f.Num == 1 {
			if loc, err = f.Delimited(); err != nil {
				return nil, in("Expr", err)
			}
			hasLoc = true
		} else {
			sum, hasSum = f, true
		}
	}
	if !hasSum {
		return nil, in("Expr", errors.New("no expression"))
	}
	if tableEntry && sum.Num == 44 {
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

// builtinFunctions maps the BuiltinFunction enum of daml_lf2.proto to lf;
// the first minor version that has each is lf's table (Info().Since).
var builtinFunctions = map[int32]lf.BuiltinFunction{
	0: lf.BuiltinTrace, 1: lf.BuiltinError, 2: lf.BuiltinEqual,
	3: lf.BuiltinLessEq, 4: lf.BuiltinLess, 5: lf.BuiltinGreaterEq,
	6: lf.BuiltinGreater, 7: lf.BuiltinAddInt64, 8: lf.BuiltinSubInt64,
	9: lf.BuiltinMulInt64, 10: lf.BuiltinDivInt64, 11: lf.BuiltinModInt64,
	12: lf.BuiltinExpInt64, 13: lf.BuiltinAddNumeric, 14: lf.BuiltinSubNumeric,
	15: lf.BuiltinMulNumeric, 16: lf.BuiltinDivNumeric, 17: lf.BuiltinRoundNumeric,
	18: lf.BuiltinCastNumeric, 19: lf.BuiltinShiftNumeric, 20: lf.BuiltinInt64ToNumeric,
	21: lf.BuiltinNumericToInt64, 22: lf.BuiltinInt64ToText, 23: lf.BuiltinNumericToText,
	25: lf.BuiltinTimestampToText, 26: lf.BuiltinDateToText, 27: lf.BuiltinPartyToText,
	28: lf.BuiltinTextToParty, 29: lf.BuiltinTextToInt64, 30: lf.BuiltinTextToNumeric,
	31: lf.BuiltinContractIDToText, 32: lf.BuiltinSHA256Text, 33: lf.BuiltinExplodeText,
	34: lf.BuiltinAppendText, 35: lf.BuiltinImplodeText, 36: lf.BuiltinCodePointsToText,
	37: lf.BuiltinTextToCodePoints, 38: lf.BuiltinDateToUnixDays, 39: lf.BuiltinUnixDaysToDate,
	40: lf.BuiltinTimestampToUnixMicroseconds, 41: lf.BuiltinUnixMicrosecondsToTimestamp, 42: lf.BuiltinCoerceContractID,
	43: lf.BuiltinFoldl, 44: lf.BuiltinFoldr, 45: lf.BuiltinEqualList,
	52: lf.BuiltinGenMapEmpty, 53: lf.BuiltinGenMapInsert, 54: lf.BuiltinGenMapLookup,
	55: lf.BuiltinGenMapDelete, 56: lf.BuiltinGenMapKeys, 57: lf.BuiltinGenMapValues,
	58: lf.BuiltinGenMapSize, 59: lf.BuiltinAnyExceptionMessage, 60: lf.BuiltinTextMapEmpty,
	61: lf.BuiltinTextMapInsert, 62: lf.BuiltinTextMapLookup, 63: lf.BuiltinTextMapDelete,
	64: lf.BuiltinTextMapToList, 65: lf.BuiltinTextMapSize, 66: lf.BuiltinFailWithStatus,
	67: lf.BuiltinKeccak256Text, 68: lf.BuiltinSecp256k1Bool, 69: lf.BuiltinHexToText,
	70: lf.BuiltinTextToHex, 71: lf.BuiltinSHA256Hex, 72: lf.BuiltinSecp256k1WithECDSABool,
	73: lf.BuiltinSecp256k1ValidateKey, 2001: lf.BuiltinScaleBigNumeric, 2002: lf.BuiltinPrecisionBigNumeric,
	2003: lf.BuiltinAddBigNumeric, 2004: lf.BuiltinSubBigNumeric, 2005: lf.BuiltinMulBigNumeric,
	2006: lf.BuiltinDivBigNumeric, 2007: lf.BuiltinShiftRightBigNumeric, 2008: lf.BuiltinBigNumericToNumeric,
	2009: lf.BuiltinNumericToBigNumeric, 2010: lf.BuiltinBigNumericToText, 3011: lf.BuiltinTypeRepTyConName,
	5001: lf.BuiltinExternalCall,
	// Tags of 2.dev archives from 2025 compilers, which Canton no longer
	// reads (see legacyDevTags).
	4000: lf.BuiltinSHA256Hex, 4001: lf.BuiltinSecp256k1WithECDSABool,
}

// legacyDevTags are read in 2.dev archives only, whatever lf's table says
// of their builtins. DamlDefinitionsServiceMain.dar's daml-stdlib calls 4000
// in DA.Crypto.Text.sha256 (Text -> Text) and 4001 in secp256k1WithEcdsaOnly
// (three Text arguments, a Bool result); the same compilers wrote 71 for
// TEXT_TO_CONTRACT_ID (see devTag71). The type checker pins these readings.
var legacyDevTags = map[int32]bool{4000: true, 4001: true}

// devTag71 is what tag 71 means in a 2.dev archive: TEXT_TO_CONTRACT_ID
// (forall a. Text -> ContractId a), as the only real 2.dev archives
// (DamlDefinitionsServiceMain.dar's daml-stdlib, DA.Crypto.Text's fromHex of
// a contract id) use it; stable versions give 71 to SHA256_HEX.
const devTag71 = lf.BuiltinTextToContractID

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
	switch f.Num {
	case 2: // var
		i, err := f.Int32()
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
		tag, err := f.Int32()
		if err != nil {
			return nil, err
		}
		bf, ok := builtinFunctions[tag]
		if !ok {
			return nil, fmt.Errorf("unknown builtin function %d", tag)
		}
		since := bf.Info().Since
		if legacyDevTags[tag] {
			since = lf.DevMinor
		}
		if d.version.Minor < since {
			return nil, d.notSupported("builtin function " + bf.String())
		}
		if tag == 71 && d.version.IsDev() {
			bf = devTag71
		}
		return builtinFuns[bf], nil
	case 5: // builtin constructor
		tag, err := f.Int32()
		if err != nil {
			return nil, err
		}
		if tag < 0 || tag > 2 {
			return nil, fmt.Errorf("unknown builtin constructor %d", tag)
		}
		return builtinCons[tag], nil
	case 44: // interned expression
		i, err := f.Int32()
		if err != nil {
			return nil, err
		}
		return d.internedExpr(i)
	}
	if !(f.Num >= 3 && f.Num <= 43 && f.Num != 24 || f.Num == 1001 || f.Num == 1002 || f.Num == 9999) {
		return nil, unknownField("Expr", f)
	}
	b, err := f.Delimited()
	if err != nil {
		return nil, in("Expr", err)
	}
	switch f.Num {
	case 3: // ValueId
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
		return d.choiceFunc(f.Num == 1001, b)
	case 9999:
		return d.experimental(b)
	case 7: // RecCon
		return d.exprRecCon(b)
	case 8: // RecProj
		return d.exprRecProj(b)
	case 9: // RecUpd
		return d.exprRecUpd(b)
	case 10: // VariantCon
		return d.exprVariantCon(b)
	case 11: // EnumCon
		return d.exprEnumCon(b)
	case 12: // StructCon
		return d.exprStructCon(b)
	case 13: // StructProj
		return d.exprStructProj(b)
	case 14: // StructUpd
		return d.exprStructUpd(b)
	case 15: // App
		return d.exprApp(b)
	case 16: // TyApp
		return d.exprTyApp(b)
	case 17: // Abs
		return d.exprAbs(b)
	case 18: // TyAbs
		return d.exprTyAbs(b)
	case 20: // Let
		return d.exprLet(b)
	case 21: // Nil
		return d.exprNil(b)
	case 22: // Cons
		return d.exprCons(b)
	case 25: // OptionalNone
		return d.exprOptionalNone(b)
	case 26, 27, 28, 30, 31: // OptionalSome, ToAny, FromAny, ToAnyException, FromAnyException
		return d.exprTypeAndExpr(b, f.Num)
	case 32: // Throw
		return d.exprThrow(b)
	case 33, 34, 41, 42: // ToInterface, FromInterface, To/FromRequiredInterface
		return d.exprInterfaceConversion(b, f.Num)
	case 39, 43: // UnsafeFromInterface, UnsafeFromRequiredInterface
		return d.exprUnsafeConversion(b, f.Num)
	case 35: // CallInterface
		return d.exprCallInterface(b)
	case 36, 37, 38, 40: // Signatory/Observer/ViewInterface, InterfaceTemplateTypeRep
		return d.exprInterfaceQuery(b, f.Num)
	}
	return nil, unknownField("Expr", f)
}

// exprRecCon decodes Expr.RecCon.
func (d *decoder) exprRecCon(b []byte) (lf.Expr, error) {
	var m msg
	var buf [8][]byte
	reps, err := splitRep(b, "Expr.RecCon", 2, &m, buf[:0])
	if err != nil {
		return nil, err
	}
	tc, err := d.msgTyConApp(&m, 1)
	if err != nil {
		return nil, err
	}
	fields, err := d.fieldExprs(reps)
	if err != nil {
		return nil, err
	}
	return &lf.ERecCon{Type: tc, Fields: fields}, nil
}

// exprRecProj decodes Expr.RecProj.
func (d *decoder) exprRecProj(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.RecProj", &m); err != nil {
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
}

// exprRecUpd decodes Expr.RecUpd.
func (d *decoder) exprRecUpd(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.RecUpd", &m); err != nil {
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
}

// exprVariantCon decodes Expr.VariantCon.
func (d *decoder) exprVariantCon(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.VariantCon", &m); err != nil {
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
}

// exprEnumCon decodes Expr.EnumCon.
func (d *decoder) exprEnumCon(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.EnumCon", &m); err != nil {
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
}

// exprStructCon decodes Expr.StructCon.
func (d *decoder) exprStructCon(b []byte) (lf.Expr, error) {
	var m msg
	var buf [8][]byte
	reps, err := splitRep(b, "Expr.StructCon", 1, &m, buf[:0])
	if err != nil {
		return nil, err
	}
	fields, err := d.fieldExprs(reps)
	if err != nil {
		return nil, err
	}
	s := d.slabs.structCons.one()
	s.Fields = fields
	return s, nil
}

// exprStructProj decodes Expr.StructProj.
func (d *decoder) exprStructProj(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.StructProj", &m); err != nil {
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
}

// exprStructUpd decodes Expr.StructUpd.
func (d *decoder) exprStructUpd(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.StructUpd", &m); err != nil {
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
}

// exprApp decodes Expr.App.
func (d *decoder) exprApp(b []byte) (lf.Expr, error) {
	var m msg
	var buf [16][]byte
	reps, err := splitRep(b, "Expr.App", 2, &m, buf[:0])
	if err != nil {
		return nil, err
	}
	if len(reps) == 0 {
		return nil, in("Expr.App", errors.New("no arguments"))
	}
	fun, err := d.msgExpr(&m, 1, "function")
	if err != nil {
		return nil, err
	}
	args := d.slabs.exprs.many(len(reps))
	for i, a := range reps {
		if args[i], err = d.expr(a, false); err != nil {
			return nil, err
		}
	}
	app := d.slabs.apps.one()
	app.Fun, app.Args = fun, args
	return app, nil
}

// exprTyApp decodes Expr.TyApp.
func (d *decoder) exprTyApp(b []byte) (lf.Expr, error) {
	var m msg
	var buf [16][]byte
	reps, err := splitRep(b, "Expr.TyApp", 2, &m, buf[:0])
	if err != nil {
		return nil, err
	}
	if err := d.checkArity("type arguments", len(reps)); err != nil {
		return nil, fmt.Errorf("Expr.TyApp: %w", err)
	}
	e, err := d.msgExpr(&m, 1, "expression")
	if err != nil {
		return nil, err
	}
	types := d.slabs.types.many(len(reps))
	for i, t := range reps {
		if types[i], err = d.typ(t); err != nil {
			return nil, fmt.Errorf("Expr.TyApp: %w", err)
		}
	}
	tyApp := d.slabs.tyApps.one()
	tyApp.Expr, tyApp.Types = e, types
	return tyApp, nil
}

// exprAbs decodes Expr.Abs.
func (d *decoder) exprAbs(b []byte) (lf.Expr, error) {
	var (
		m   msg
		err error
	)
	var buf [16][]byte
	reps, err := splitRep(b, "Expr.Abs", 1, &m, buf[:0])
	if err != nil {
		return nil, err
	}
	if err := d.checkArity("parameters", len(reps)); err != nil {
		return nil, fmt.Errorf("Expr.Abs: %w", err)
	}
	params := d.slabs.binders.many(len(reps))
	for i, p := range reps {
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
}

// exprTyAbs decodes Expr.TyAbs.
func (d *decoder) exprTyAbs(b []byte) (lf.Expr, error) {
	var (
		m   msg
		err error
	)
	var buf [16][]byte
	reps, err := splitRep(b, "Expr.TyAbs", 1, &m, buf[:0])
	if err != nil {
		return nil, err
	}
	if err := d.checkArity("type parameters", len(reps)); err != nil {
		return nil, fmt.Errorf("Expr.TyAbs: %w", err)
	}
	params := d.slabs.typeVars.many(len(reps))
	for i, p := range reps {
		if params[i], err = d.typeVarWithKind(p); err != nil {
			return nil, fmt.Errorf("Expr.TyAbs: parameter %d: %w", i, err)
		}
	}
	body, err := d.msgExpr(&m, 2, "body")
	if err != nil {
		return nil, err
	}
	abs := d.slabs.tyAbss.one()
	abs.Params, abs.Body = params, body
	return abs, nil
}

// exprLet decodes Expr.Let.
func (d *decoder) exprLet(b []byte) (lf.Expr, error) {
	bindings, body, err := d.block(b, "Expr.Let")
	if err != nil {
		return nil, err
	}
	if len(bindings) == 0 {
		return nil, in("Expr.Let", errors.New("no bindings"))
	}
	let := d.slabs.lets.one()
	let.Bindings, let.Body = bindings, body
	return let, nil
}

// exprNil decodes Expr.Nil.
func (d *decoder) exprNil(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.Nil", &m); err != nil {
		return nil, err
	}
	t, err := d.msgType(&m, 1, "type")
	if err != nil {
		return nil, err
	}
	return &lf.ENil{Type: t}, nil
}

// exprCons decodes Expr.Cons.
func (d *decoder) exprCons(b []byte) (lf.Expr, error) {
	var m msg
	var buf [4][]byte
	reps, err := splitRep(b, "Expr.Cons", 2, &m, buf[:0])
	if err != nil {
		return nil, err
	}
	if len(reps) == 0 {
		return nil, in("Expr.Cons", errors.New("no front elements"))
	}
	t, err := d.msgType(&m, 1, "type")
	if err != nil {
		return nil, err
	}
	front := make([]lf.Expr, len(reps))
	for i, e := range reps {
		if front[i], err = d.expr(e, false); err != nil {
			return nil, err
		}
	}
	tail, err := d.msgExpr(&m, 3, "tail")
	if err != nil {
		return nil, err
	}
	return &lf.ECons{Type: t, Front: front, Tail: tail}, nil
}

// exprOptionalNone decodes Expr.OptionalNone.
func (d *decoder) exprOptionalNone(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.OptionalNone", &m); err != nil {
		return nil, err
	}
	t, err := d.msgType(&m, 1, "type")
	if err != nil {
		return nil, err
	}
	return &lf.ENone{Type: t}, nil
}

// exprTypeAndExpr decodes the sorts made of a type and an expression: OptionalSome, ToAny,
// FromAny, ToAnyException and FromAnyException.
func (d *decoder) exprTypeAndExpr(b []byte, num protowire.Number) (lf.Expr, error) {
	var m msg
	if err := split(b, exprNames[num], &m); err != nil {
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
	switch num {
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
}

// exprThrow decodes Expr.Throw.
func (d *decoder) exprThrow(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.Throw", &m); err != nil {
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
}

// exprInterfaceConversion decodes ToInterface, FromInterface, ToRequiredInterface and
// FromRequiredInterface.
func (d *decoder) exprInterfaceConversion(b []byte, num protowire.Number) (lf.Expr, error) {
	var m msg
	if err := split(b, exprNames[num], &m); err != nil {
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
	switch num {
	case 33:
		return &lf.EToInterface{Interface: a, Template: c, Expr: e}, nil
	case 34:
		return &lf.EFromInterface{Interface: a, Template: c, Expr: e}, nil
	case 41:
		return &lf.EToRequiredInterface{Required: a, Requiring: c, Expr: e}, nil
	default:
		return &lf.EFromRequiredInterface{Required: a, Requiring: c, Expr: e}, nil
	}
}

// exprUnsafeConversion decodes UnsafeFromInterface and UnsafeFromRequiredInterface.
func (d *decoder) exprUnsafeConversion(b []byte, num protowire.Number) (lf.Expr, error) {
	var m msg
	name := "Expr.UnsafeFromRequiredInterface"
	if num == 39 {
		name = "Expr.UnsafeFromInterface"
		// Canton allows it up to 2.1; earlier dev compilers emit it too.
		if d.version.Minor > 1 && !d.version.IsDev() {
			return nil, d.notSupported("unsafe_from_interface")
		}
	}
	if err := split(b, name, &m); err != nil {
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
	if num == 39 {
		return &lf.EUnsafeFromInterface{Interface: a, Template: c, ContractID: cid, Expr: e}, nil
	}
	return &lf.EUnsafeFromRequiredInterface{Required: a, Requiring: c, ContractID: cid, Expr: e}, nil
}

// exprCallInterface decodes Expr.CallInterface.
func (d *decoder) exprCallInterface(b []byte) (lf.Expr, error) {
	var m msg
	if err := split(b, "Expr.CallInterface", &m); err != nil {
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
}

// exprInterfaceQuery decodes SignatoryInterface, ObserverInterface, ViewInterface and
// InterfaceTemplateTypeRep.
func (d *decoder) exprInterfaceQuery(b []byte, num protowire.Number) (lf.Expr, error) {
	var m msg
	if err := split(b, exprNames[num], &m); err != nil {
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
	switch num {
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

// internedExprError is an error found in the bytes of an interned
// expression.
type internedExprError struct {
	index int32
	err   error
}

func (e *internedExprError) Error() string {
	return fmt.Sprintf("interned expression %d: %v", e.index, e.err)
}

func (e *internedExprError) Unwrap() error { return e.err }

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
		// Name only the innermost interned expression: the one whose
		// own bytes hold the problem.
		var inner *internedExprError
		if errors.As(err, &inner) {
			return nil, err
		}
		return nil, &internedExprError{index: i, err: err}
	}
	d.exprCache[i], d.exprGen[i] = e, d.gen
	return e, nil
}

func (d *decoder) fieldExprs(reps [][]byte) ([]lf.FieldExpr, error) {
	out := d.slabs.fieldExprs.many(len(reps))
	for i, b := range reps {
		var m msg
		if err := split(b, "FieldWithExpr", &m); err != nil {
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
	if err := split(b, "VarWithType", &m); err != nil {
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
	var buf [16][]byte
	reps, err := splitRep(b, name, 1, &m, buf[:0])
	if err != nil {
		return nil, nil, err
	}
	var bindings []lf.Binding
	if len(reps) > 0 {
		bindings = d.slabs.bindings.many(len(reps))
	} else {
		bindings = make([]lf.Binding, 0)
	}
	for i, raw := range reps {
		var bm msg
		if err := split(raw, "Binding", &bm); err != nil {
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
			return nil, in("BuiltinLit", err)
		}
		set = true
	}
	if !set {
		return nil, in("BuiltinLit", errors.New("no literal"))
	}
	switch f.Num {
	case 1:
		v, err := f.Sint64()
		if err != nil {
			return nil, err
		}
		return &lf.EInt64{Value: v}, nil
	case 2:
		v, err := f.Sfixed64()
		if err != nil {
			return nil, err
		}
		if v < minTimestamp || v > maxTimestamp {
			return nil, fmt.Errorf("timestamp literal %d is outside 0001-01-01 to 9999-12-31", v)
		}
		return &lf.ETimestamp{Micros: v}, nil
	case 3:
		i, err := f.Int32()
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
		i, err := f.Int32()
		if err != nil {
			return nil, err
		}
		s, err := d.str(i)
		if err != nil {
			return nil, fmt.Errorf("text literal: %w", err)
		}
		return &lf.EText{Value: s}, nil
	case 5:
		v, err := f.Int32()
		if err != nil {
			return nil, err
		}
		if v < minDate || v > maxDate {
			return nil, fmt.Errorf("date literal %d is outside 0001-01-01 to 9999-12-31", v)
		}
		return &lf.EDate{Days: v}, nil
	case 6:
		v, err := f.Int32()
		if err != nil {
			return nil, err
		}
		if v < 0 || v > 1 {
			return nil, fmt.Errorf("unknown failure category %d", v)
		}
		return &lf.EFailureCategory{Category: lf.FailureCategory(v)}, nil
	case 1001:
		v, err := f.Int32()
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
	var buf [4][]byte
	reps, err := splitRep(b, "Case", 2, &m, buf[:0])
	if err != nil {
		return nil, err
	}
	scrut, err := d.msgExpr(&m, 1, "scrutinee")
	if err != nil {
		return nil, err
	}
	var alts []lf.CaseAlt
	if len(reps) > 0 {
		alts = d.slabs.alts.many(len(reps))
	} else {
		alts = make([]lf.CaseAlt, 0)
	}
	for i, raw := range reps {
		if alts[i], err = d.caseAlt(raw); err != nil {
			return nil, err
		}
	}
	c := d.slabs.cases.one()
	c.Scrut, c.Alts = scrut, alts
	return c, nil
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
			return lf.CaseAlt{}, in("CaseAlt", err)
		}
		switch {
		case f.Num == 1:
			if body, err = f.Delimited(); err != nil {
				return lf.CaseAlt{}, in("CaseAlt", err)
			}
			hasBody = true
		case f.Num >= 2 && f.Num <= 9:
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
		return lf.CaseAlt{}, in("CaseAlt", errors.New("no body"))
	}
	e, err := d.expr(body, false)
	if err != nil {
		return lf.CaseAlt{}, err
	}
	return lf.CaseAlt{Pattern: pat, Body: e}, nil
}

// pattern decodes the pattern of a CaseAlt, given as its oneof field.
func (d *decoder) pattern(f field) (lf.Pattern, error) {
	switch f.Num {
	case 0:
		return nil, in("CaseAlt", errors.New("no pattern"))
	case 2:
		return lf.PDefault{}, nil
	case 5:
		return lf.PNil{}, nil
	case 7:
		return lf.PNone{}, nil
	case 4:
		tag, err := f.Int32()
		if err != nil {
			return nil, in("CaseAlt", err)
		}
		if tag < 0 || tag > 2 {
			return nil, fmt.Errorf("CaseAlt: unknown builtin constructor %d", tag)
		}
		return lf.PBuiltinCon{Con: lf.BuiltinCon(tag)}, nil
	}
	raw, err := f.Delimited()
	if err != nil {
		return nil, in("CaseAlt", err)
	}
	var pm msg
	switch f.Num {
	case 3:
		if err := split(raw, "CaseAlt.Variant", &pm); err != nil {
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
		if err := split(raw, "CaseAlt.Cons", &pm); err != nil {
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
		if err := split(raw, "CaseAlt.OptionalSome", &pm); err != nil {
			return nil, err
		}
		var p lf.PSome
		if p.Binder, err = d.msgName(&pm, 1); err != nil {
			return nil, err
		}
		return p, nil
	default: // 9
		if err := split(raw, "CaseAlt.Enum", &pm); err != nil {
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
	if err := split(b, name, &m); err != nil {
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
	if err := split(b, "Expr.Experimental", &m); err != nil {
		return nil, err
	}
	var name string
	if m.has[1] {
		var err error
		if name, err = m.f[1].Text(); err != nil {
			return nil, fmt.Errorf("Expr.Experimental: %w", err)
		}
	}
	t, err := d.msgType(&m, 2, "type")
	if err != nil {
		return nil, err
	}
	return &lf.EExperimental{Name: name, Type: t}, nil
}
