package lf

// BuiltinFunction is a builtin function of Daml-LF 2 (EBuiltinFun). Its
// String is the name the Daml-LF protobuf gives it.
type BuiltinFunction int

// The builtin functions of LF 2.1, then those added in 2.3, then the 2.dev
// ones. The Go values are this package's own, not the protobuf's.
const (
	BuiltinTrace BuiltinFunction = iota
	BuiltinError
	BuiltinFailWithStatus
	BuiltinAnyExceptionMessage

	BuiltinEqual
	BuiltinLessEq
	BuiltinLess
	BuiltinGreaterEq
	BuiltinGreater
	BuiltinEqualList

	BuiltinAddInt64
	BuiltinSubInt64
	BuiltinMulInt64
	BuiltinDivInt64
	BuiltinModInt64
	BuiltinExpInt64

	BuiltinAddNumeric
	BuiltinSubNumeric
	BuiltinMulNumeric
	BuiltinDivNumeric
	BuiltinRoundNumeric
	BuiltinCastNumeric
	BuiltinShiftNumeric
	BuiltinInt64ToNumeric
	BuiltinNumericToInt64

	BuiltinInt64ToText
	BuiltinNumericToText
	BuiltinTimestampToText
	BuiltinDateToText
	BuiltinPartyToText
	BuiltinContractIDToText
	BuiltinTextToParty
	BuiltinTextToInt64
	BuiltinTextToNumeric
	BuiltinCodePointsToText
	BuiltinTextToCodePoints
	BuiltinAppendText
	BuiltinExplodeText
	BuiltinImplodeText
	BuiltinSHA256Text
	BuiltinSHA256Hex
	BuiltinKeccak256Text
	BuiltinSecp256k1Bool
	BuiltinSecp256k1WithECDSABool
	BuiltinHexToText
	BuiltinTextToHex

	BuiltinDateToUnixDays
	BuiltinUnixDaysToDate
	BuiltinTimestampToUnixMicroseconds
	BuiltinUnixMicrosecondsToTimestamp

	BuiltinCoerceContractID

	BuiltinFoldl
	BuiltinFoldr

	BuiltinTextMapEmpty
	BuiltinTextMapInsert
	BuiltinTextMapLookup
	BuiltinTextMapDelete
	BuiltinTextMapToList
	BuiltinTextMapSize

	BuiltinGenMapEmpty
	BuiltinGenMapInsert
	BuiltinGenMapLookup
	BuiltinGenMapDelete
	BuiltinGenMapKeys
	BuiltinGenMapValues
	BuiltinGenMapSize

	// Since LF 2.3.
	BuiltinSecp256k1ValidateKey

	// LF 2.dev only.
	BuiltinScaleBigNumeric
	BuiltinPrecisionBigNumeric
	BuiltinAddBigNumeric
	BuiltinSubBigNumeric
	BuiltinMulBigNumeric
	BuiltinDivBigNumeric
	BuiltinShiftRightBigNumeric
	BuiltinBigNumericToNumeric
	BuiltinNumericToBigNumeric
	BuiltinBigNumericToText
	BuiltinTypeRepTyConName
	BuiltinExternalCall
	// BuiltinTextToContractID is the 2.dev builtin that 2025 dev compilers
	// wrote as tag 71 (daml-stdlib's DA.Crypto.Text fromHex of a contract
	// id); Canton has since given 71 to SHA256_HEX.
	BuiltinTextToContractID

	numBuiltinFunctions
)

var builtinFunctionNames = [numBuiltinFunctions]string{
	BuiltinTrace:                       "TRACE",
	BuiltinError:                       "ERROR",
	BuiltinFailWithStatus:              "FAIL_WITH_STATUS",
	BuiltinAnyExceptionMessage:         "ANY_EXCEPTION_MESSAGE",
	BuiltinEqual:                       "EQUAL",
	BuiltinLessEq:                      "LESS_EQ",
	BuiltinLess:                        "LESS",
	BuiltinGreaterEq:                   "GREATER_EQ",
	BuiltinGreater:                     "GREATER",
	BuiltinEqualList:                   "EQUAL_LIST",
	BuiltinAddInt64:                    "ADD_INT64",
	BuiltinSubInt64:                    "SUB_INT64",
	BuiltinMulInt64:                    "MUL_INT64",
	BuiltinDivInt64:                    "DIV_INT64",
	BuiltinModInt64:                    "MOD_INT64",
	BuiltinExpInt64:                    "EXP_INT64",
	BuiltinAddNumeric:                  "ADD_NUMERIC",
	BuiltinSubNumeric:                  "SUB_NUMERIC",
	BuiltinMulNumeric:                  "MUL_NUMERIC",
	BuiltinDivNumeric:                  "DIV_NUMERIC",
	BuiltinRoundNumeric:                "ROUND_NUMERIC",
	BuiltinCastNumeric:                 "CAST_NUMERIC",
	BuiltinShiftNumeric:                "SHIFT_NUMERIC",
	BuiltinInt64ToNumeric:              "INT64_TO_NUMERIC",
	BuiltinNumericToInt64:              "NUMERIC_TO_INT64",
	BuiltinInt64ToText:                 "INT64_TO_TEXT",
	BuiltinNumericToText:               "NUMERIC_TO_TEXT",
	BuiltinTimestampToText:             "TIMESTAMP_TO_TEXT",
	BuiltinDateToText:                  "DATE_TO_TEXT",
	BuiltinPartyToText:                 "PARTY_TO_TEXT",
	BuiltinContractIDToText:            "CONTRACT_ID_TO_TEXT",
	BuiltinTextToParty:                 "TEXT_TO_PARTY",
	BuiltinTextToInt64:                 "TEXT_TO_INT64",
	BuiltinTextToNumeric:               "TEXT_TO_NUMERIC",
	BuiltinCodePointsToText:            "CODE_POINTS_TO_TEXT",
	BuiltinTextToCodePoints:            "TEXT_TO_CODE_POINTS",
	BuiltinAppendText:                  "APPEND_TEXT",
	BuiltinExplodeText:                 "EXPLODE_TEXT",
	BuiltinImplodeText:                 "IMPLODE_TEXT",
	BuiltinSHA256Text:                  "SHA256_TEXT",
	BuiltinSHA256Hex:                   "SHA256_HEX",
	BuiltinKeccak256Text:               "KECCAK256_TEXT",
	BuiltinSecp256k1Bool:               "SECP256K1_BOOL",
	BuiltinSecp256k1WithECDSABool:      "SECP256K1_WITH_ECDSA_BOOL",
	BuiltinHexToText:                   "HEX_TO_TEXT",
	BuiltinTextToHex:                   "TEXT_TO_HEX",
	BuiltinDateToUnixDays:              "DATE_TO_UNIX_DAYS",
	BuiltinUnixDaysToDate:              "UNIX_DAYS_TO_DATE",
	BuiltinTimestampToUnixMicroseconds: "TIMESTAMP_TO_UNIX_MICROSECONDS",
	BuiltinUnixMicrosecondsToTimestamp: "UNIX_MICROSECONDS_TO_TIMESTAMP",
	BuiltinCoerceContractID:            "COERCE_CONTRACT_ID",
	BuiltinFoldl:                       "FOLDL",
	BuiltinFoldr:                       "FOLDR",
	BuiltinTextMapEmpty:                "TEXTMAP_EMPTY",
	BuiltinTextMapInsert:               "TEXTMAP_INSERT",
	BuiltinTextMapLookup:               "TEXTMAP_LOOKUP",
	BuiltinTextMapDelete:               "TEXTMAP_DELETE",
	BuiltinTextMapToList:               "TEXTMAP_TO_LIST",
	BuiltinTextMapSize:                 "TEXTMAP_SIZE",
	BuiltinGenMapEmpty:                 "GENMAP_EMPTY",
	BuiltinGenMapInsert:                "GENMAP_INSERT",
	BuiltinGenMapLookup:                "GENMAP_LOOKUP",
	BuiltinGenMapDelete:                "GENMAP_DELETE",
	BuiltinGenMapKeys:                  "GENMAP_KEYS",
	BuiltinGenMapValues:                "GENMAP_VALUES",
	BuiltinGenMapSize:                  "GENMAP_SIZE",
	BuiltinSecp256k1ValidateKey:        "SECP256K1_VALIDATE_KEY",
	BuiltinScaleBigNumeric:             "SCALE_BIGNUMERIC",
	BuiltinPrecisionBigNumeric:         "PRECISION_BIGNUMERIC",
	BuiltinAddBigNumeric:               "ADD_BIGNUMERIC",
	BuiltinSubBigNumeric:               "SUB_BIGNUMERIC",
	BuiltinMulBigNumeric:               "MUL_BIGNUMERIC",
	BuiltinDivBigNumeric:               "DIV_BIGNUMERIC",
	BuiltinShiftRightBigNumeric:        "SHIFT_RIGHT_BIGNUMERIC",
	BuiltinBigNumericToNumeric:         "BIGNUMERIC_TO_NUMERIC",
	BuiltinNumericToBigNumeric:         "NUMERIC_TO_BIGNUMERIC",
	BuiltinBigNumericToText:            "BIGNUMERIC_TO_TEXT",
	BuiltinTypeRepTyConName:            "TYPE_REP_TYCON_NAME",
	BuiltinExternalCall:                "EXTERNAL_CALL",
	BuiltinTextToContractID:            "TEXT_TO_CONTRACT_ID",
}

func (b BuiltinFunction) String() string {
	if b < 0 || b >= numBuiltinFunctions {
		return "BuiltinFunction(?)"
	}
	return builtinFunctionNames[b]
}

// BuiltinFunctions returns every builtin function, in the order of the
// constants.
func BuiltinFunctions() []BuiltinFunction {
	fs := make([]BuiltinFunction, numBuiltinFunctions)
	for i := range fs {
		fs[i] = BuiltinFunction(i)
	}
	return fs
}

// BuiltinCon is a builtin constructor: (), False or True. It is both an
// expression (EBuiltinCon) and a case pattern (PBuiltinCon).
type BuiltinCon int

// The builtin constructors.
const (
	ConUnit BuiltinCon = iota
	ConFalse
	ConTrue
)

func (c BuiltinCon) String() string {
	switch c {
	case ConUnit:
		return "()"
	case ConFalse:
		return "False"
	case ConTrue:
		return "True"
	}
	return "BuiltinCon(?)"
}

// RoundingMode is a rounding mode literal (2.dev, for BigNumeric), with
// java.math.RoundingMode's meanings.
type RoundingMode int

// The rounding modes.
const (
	RoundingUp RoundingMode = iota
	RoundingDown
	RoundingCeiling
	RoundingFloor
	RoundingHalfUp
	RoundingHalfDown
	RoundingHalfEven
	RoundingUnnecessary
)

var roundingModeNames = [...]string{"ROUNDING_UP", "ROUNDING_DOWN", "ROUNDING_CEILING",
	"ROUNDING_FLOOR", "ROUNDING_HALF_UP", "ROUNDING_HALF_DOWN", "ROUNDING_HALF_EVEN",
	"ROUNDING_UNNECESSARY"}

func (m RoundingMode) String() string {
	if m < 0 || int(m) >= len(roundingModeNames) {
		return "RoundingMode(?)"
	}
	return roundingModeNames[m]
}

// FailureCategory is the category literal of FAIL_WITH_STATUS.
type FailureCategory int

// The failure categories.
const (
	InvalidIndependentOfSystemState FailureCategory = iota
	InvalidGivenCurrentSystemStateOther
)

func (c FailureCategory) String() string {
	switch c {
	case InvalidIndependentOfSystemState:
		return "InvalidIndependentOfSystemState"
	case InvalidGivenCurrentSystemStateOther:
		return "InvalidGivenCurrentSystemStateOther"
	}
	return "FailureCategory(?)"
}
