package validate

import "github.com/ledger-cli/ledger/daml/lf"

// builtinFunctionTypes is the type of each builtin function, as Canton's
// Typing.typeOfBuiltinFunction gives it.
var builtinFunctionTypes = func() map[lf.BuiltinFunction]lf.Type {
	a, b, c := lf.TVar{Name: "$alpha$"}, lf.TVar{Name: "$beta$"}, lf.TVar{Name: "$gamma$"}
	forall := func(v lf.TVar, k lf.Kind, body lf.Type) lf.Type {
		return lf.TForall{Var: lf.TypeVar{Name: v.Name, Kind: k}, Body: body}
	}
	binop := func(t lf.Type) lf.Type { return arrows(t, t, t) }
	numBinop := forall(a, kNat, binop(tNumeric(a)))
	multiNumBinop := forall(a, kNat, forall(b, kNat, forall(c, kNat,
		arrows(tNumeric(c), tNumeric(a), tNumeric(b), tNumeric(c)))))
	numConversion := forall(a, kNat, forall(b, kNat, arrows(tNumeric(b), tNumeric(a), tNumeric(b))))
	comparison := forall(a, kStar, arrows(a, a, tBool))
	textMapA := tTextMap(a)
	genMapAB := tGenMap(a, b)
	forall2 := func(body lf.Type) lf.Type { return forall(a, kStar, forall(b, kStar, body)) }
	keyValue := lf.TStruct{Fields: []lf.Field{{Name: "key", Type: tText}, {Name: "value", Type: a}}}

	return map[lf.BuiltinFunction]lf.Type{
		lf.BuiltinTrace:               forall(a, kStar, arrows(tText, a, a)),
		lf.BuiltinError:               forall(a, kStar, arrows(tText, a)),
		lf.BuiltinFailWithStatus:      forall(a, kStar, arrows(tText, tFailureCategory, tText, tTextMap(tText), a)),
		lf.BuiltinAnyExceptionMessage: arrows(tAnyException, tText),

		lf.BuiltinEqual:     comparison,
		lf.BuiltinLessEq:    comparison,
		lf.BuiltinLess:      comparison,
		lf.BuiltinGreaterEq: comparison,
		lf.BuiltinGreater:   comparison,
		lf.BuiltinEqualList: forall(a, kStar, arrows(arrows(a, a, tBool), tList(a), tList(a), tBool)),

		lf.BuiltinAddInt64: binop(tInt64),
		lf.BuiltinSubInt64: binop(tInt64),
		lf.BuiltinMulInt64: binop(tInt64),
		lf.BuiltinDivInt64: binop(tInt64),
		lf.BuiltinModInt64: binop(tInt64),
		lf.BuiltinExpInt64: binop(tInt64),

		lf.BuiltinAddNumeric:     numBinop,
		lf.BuiltinSubNumeric:     numBinop,
		lf.BuiltinMulNumeric:     multiNumBinop,
		lf.BuiltinDivNumeric:     multiNumBinop,
		lf.BuiltinRoundNumeric:   forall(a, kNat, arrows(tInt64, tNumeric(a), tNumeric(a))),
		lf.BuiltinCastNumeric:    numConversion,
		lf.BuiltinShiftNumeric:   numConversion,
		lf.BuiltinInt64ToNumeric: forall(a, kNat, arrows(tNumeric(a), tInt64, tNumeric(a))),
		lf.BuiltinNumericToInt64: forall(a, kNat, arrows(tNumeric(a), tInt64)),

		lf.BuiltinInt64ToText:            arrows(tInt64, tText),
		lf.BuiltinNumericToText:          forall(a, kNat, arrows(tNumeric(a), tText)),
		lf.BuiltinTimestampToText:        arrows(tTimestamp, tText),
		lf.BuiltinDateToText:             arrows(tDate, tText),
		lf.BuiltinPartyToText:            arrows(tParty, tText),
		lf.BuiltinContractIDToText:       forall(a, kStar, arrows(tContractID(a), tOptional(tText))),
		lf.BuiltinTextToParty:            arrows(tText, tOptional(tParty)),
		lf.BuiltinTextToInt64:            arrows(tText, tOptional(tInt64)),
		lf.BuiltinTextToNumeric:          forall(a, kNat, arrows(tNumeric(a), tText, tOptional(tNumeric(a)))),
		lf.BuiltinCodePointsToText:       arrows(tList(tInt64), tText),
		lf.BuiltinTextToCodePoints:       arrows(tText, tList(tInt64)),
		lf.BuiltinAppendText:             binop(tText),
		lf.BuiltinExplodeText:            arrows(tText, tList(tText)),
		lf.BuiltinImplodeText:            arrows(tList(tText), tText),
		lf.BuiltinSHA256Text:             arrows(tText, tText),
		lf.BuiltinSHA256Hex:              arrows(tText, tText),
		lf.BuiltinKeccak256Text:          arrows(tText, tText),
		lf.BuiltinSecp256k1Bool:          arrows(tText, tText, tText, tBool),
		lf.BuiltinSecp256k1WithECDSABool: arrows(tText, tText, tText, tBool),
		lf.BuiltinSecp256k1ValidateKey:   arrows(tText, tBool),
		lf.BuiltinHexToText:              arrows(tText, tText),
		lf.BuiltinTextToHex:              arrows(tText, tText),

		lf.BuiltinDateToUnixDays:              arrows(tDate, tInt64),
		lf.BuiltinUnixDaysToDate:              arrows(tInt64, tDate),
		lf.BuiltinTimestampToUnixMicroseconds: arrows(tTimestamp, tInt64),
		lf.BuiltinUnixMicrosecondsToTimestamp: arrows(tInt64, tTimestamp),

		lf.BuiltinCoerceContractID: forall2(arrows(tContractID(a), tContractID(b))),

		lf.BuiltinFoldl: forall2(arrows(arrows(b, a, b), b, tList(a), b)),
		lf.BuiltinFoldr: forall2(arrows(arrows(a, b, b), b, tList(a), b)),

		lf.BuiltinTextMapEmpty:  forall(a, kStar, textMapA),
		lf.BuiltinTextMapInsert: forall(a, kStar, arrows(tText, a, textMapA, textMapA)),
		lf.BuiltinTextMapLookup: forall(a, kStar, arrows(tText, textMapA, tOptional(a))),
		lf.BuiltinTextMapDelete: forall(a, kStar, arrows(tText, textMapA, textMapA)),
		lf.BuiltinTextMapToList: forall(a, kStar, arrows(textMapA, tList(keyValue))),
		lf.BuiltinTextMapSize:   forall(a, kStar, arrows(textMapA, tInt64)),

		lf.BuiltinGenMapEmpty:  forall2(genMapAB),
		lf.BuiltinGenMapInsert: forall2(arrows(a, b, genMapAB, genMapAB)),
		lf.BuiltinGenMapLookup: forall2(arrows(a, genMapAB, tOptional(b))),
		lf.BuiltinGenMapDelete: forall2(arrows(a, genMapAB, genMapAB)),
		lf.BuiltinGenMapKeys:   forall2(arrows(genMapAB, tList(a))),
		lf.BuiltinGenMapValues: forall2(arrows(genMapAB, tList(b))),
		lf.BuiltinGenMapSize:   forall2(arrows(genMapAB, tInt64)),

		lf.BuiltinScaleBigNumeric:      arrows(tBigNumeric, tInt64),
		lf.BuiltinPrecisionBigNumeric:  arrows(tBigNumeric, tInt64),
		lf.BuiltinAddBigNumeric:        binop(tBigNumeric),
		lf.BuiltinSubBigNumeric:        binop(tBigNumeric),
		lf.BuiltinMulBigNumeric:        binop(tBigNumeric),
		lf.BuiltinDivBigNumeric:        arrows(tInt64, tRoundingMode, tBigNumeric, tBigNumeric, tBigNumeric),
		lf.BuiltinShiftRightBigNumeric: arrows(tInt64, tBigNumeric, tBigNumeric),
		lf.BuiltinBigNumericToNumeric:  forall(a, kNat, arrows(tNumeric(a), tBigNumeric, tNumeric(a))),
		lf.BuiltinNumericToBigNumeric:  forall(a, kNat, arrows(tNumeric(a), tBigNumeric)),
		lf.BuiltinBigNumericToText:     arrows(tBigNumeric, tText),
		lf.BuiltinTypeRepTyConName:     arrows(tTypeRep, tOptional(tText)),
		lf.BuiltinExternalCall:         arrows(tText, tText, tText, tText, tUpdate(tText)),
		lf.BuiltinTextToContractID:     forall(a, kStar, arrows(tText, tContractID(a))),
	}
}()
