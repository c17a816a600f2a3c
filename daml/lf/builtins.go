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

// NumBuiltinFunctions is the number of builtin functions, to size tables
// indexed by them.
const NumBuiltinFunctions = int(numBuiltinFunctions)

// BuiltinInfo is one row of the builtin table: what Daml-LF says of a
// builtin function. The decoder, the type checker, the resolver and the
// interpreter all read it here, so nothing is kept in step elsewhere.
type BuiltinInfo struct {
	// Name is the name the Daml-LF protobuf gives it.
	Name string
	// Arity is the number of value arguments: type arguments are erased,
	// and the numeric witness of MUL_NUMERIC and its kind is counted.
	Arity int
	// Since is the first minor version of Daml-LF 2 that has it; DevMinor
	// for a builtin of 2.dev only.
	Since int
}

var builtinTable = [numBuiltinFunctions]BuiltinInfo{
	BuiltinTrace:                       {"TRACE", 2, 1},
	BuiltinError:                       {"ERROR", 1, 1},
	BuiltinFailWithStatus:              {"FAIL_WITH_STATUS", 4, 1},
	BuiltinAnyExceptionMessage:         {"ANY_EXCEPTION_MESSAGE", 1, 1},
	BuiltinEqual:                       {"EQUAL", 2, 1},
	BuiltinLessEq:                      {"LESS_EQ", 2, 1},
	BuiltinLess:                        {"LESS", 2, 1},
	BuiltinGreaterEq:                   {"GREATER_EQ", 2, 1},
	BuiltinGreater:                     {"GREATER", 2, 1},
	BuiltinEqualList:                   {"EQUAL_LIST", 3, 1},
	BuiltinAddInt64:                    {"ADD_INT64", 2, 1},
	BuiltinSubInt64:                    {"SUB_INT64", 2, 1},
	BuiltinMulInt64:                    {"MUL_INT64", 2, 1},
	BuiltinDivInt64:                    {"DIV_INT64", 2, 1},
	BuiltinModInt64:                    {"MOD_INT64", 2, 1},
	BuiltinExpInt64:                    {"EXP_INT64", 2, 1},
	BuiltinAddNumeric:                  {"ADD_NUMERIC", 2, 1},
	BuiltinSubNumeric:                  {"SUB_NUMERIC", 2, 1},
	BuiltinMulNumeric:                  {"MUL_NUMERIC", 3, 1},
	BuiltinDivNumeric:                  {"DIV_NUMERIC", 3, 1},
	BuiltinRoundNumeric:                {"ROUND_NUMERIC", 2, 1},
	BuiltinCastNumeric:                 {"CAST_NUMERIC", 2, 1},
	BuiltinShiftNumeric:                {"SHIFT_NUMERIC", 2, 1},
	BuiltinInt64ToNumeric:              {"INT64_TO_NUMERIC", 2, 1},
	BuiltinNumericToInt64:              {"NUMERIC_TO_INT64", 1, 1},
	BuiltinInt64ToText:                 {"INT64_TO_TEXT", 1, 1},
	BuiltinNumericToText:               {"NUMERIC_TO_TEXT", 1, 1},
	BuiltinTimestampToText:             {"TIMESTAMP_TO_TEXT", 1, 1},
	BuiltinDateToText:                  {"DATE_TO_TEXT", 1, 1},
	BuiltinPartyToText:                 {"PARTY_TO_TEXT", 1, 1},
	BuiltinContractIDToText:            {"CONTRACT_ID_TO_TEXT", 1, 1},
	BuiltinTextToParty:                 {"TEXT_TO_PARTY", 1, 1},
	BuiltinTextToInt64:                 {"TEXT_TO_INT64", 1, 1},
	BuiltinTextToNumeric:               {"TEXT_TO_NUMERIC", 2, 1},
	BuiltinCodePointsToText:            {"CODE_POINTS_TO_TEXT", 1, 1},
	BuiltinTextToCodePoints:            {"TEXT_TO_CODE_POINTS", 1, 1},
	BuiltinAppendText:                  {"APPEND_TEXT", 2, 1},
	BuiltinExplodeText:                 {"EXPLODE_TEXT", 1, 1},
	BuiltinImplodeText:                 {"IMPLODE_TEXT", 1, 1},
	BuiltinSHA256Text:                  {"SHA256_TEXT", 1, 1},
	BuiltinSHA256Hex:                   {"SHA256_HEX", 1, 1},
	BuiltinKeccak256Text:               {"KECCAK256_TEXT", 1, 1},
	BuiltinSecp256k1Bool:               {"SECP256K1_BOOL", 3, 1},
	BuiltinSecp256k1WithECDSABool:      {"SECP256K1_WITH_ECDSA_BOOL", 3, 1},
	BuiltinHexToText:                   {"HEX_TO_TEXT", 1, 1},
	BuiltinTextToHex:                   {"TEXT_TO_HEX", 1, 1},
	BuiltinDateToUnixDays:              {"DATE_TO_UNIX_DAYS", 1, 1},
	BuiltinUnixDaysToDate:              {"UNIX_DAYS_TO_DATE", 1, 1},
	BuiltinTimestampToUnixMicroseconds: {"TIMESTAMP_TO_UNIX_MICROSECONDS", 1, 1},
	BuiltinUnixMicrosecondsToTimestamp: {"UNIX_MICROSECONDS_TO_TIMESTAMP", 1, 1},
	BuiltinCoerceContractID:            {"COERCE_CONTRACT_ID", 1, 1},
	BuiltinFoldl:                       {"FOLDL", 3, 1},
	BuiltinFoldr:                       {"FOLDR", 3, 1},
	BuiltinTextMapEmpty:                {"TEXTMAP_EMPTY", 0, 1},
	BuiltinTextMapInsert:               {"TEXTMAP_INSERT", 3, 1},
	BuiltinTextMapLookup:               {"TEXTMAP_LOOKUP", 2, 1},
	BuiltinTextMapDelete:               {"TEXTMAP_DELETE", 2, 1},
	BuiltinTextMapToList:               {"TEXTMAP_TO_LIST", 1, 1},
	BuiltinTextMapSize:                 {"TEXTMAP_SIZE", 1, 1},
	BuiltinGenMapEmpty:                 {"GENMAP_EMPTY", 0, 1},
	BuiltinGenMapInsert:                {"GENMAP_INSERT", 3, 1},
	BuiltinGenMapLookup:                {"GENMAP_LOOKUP", 2, 1},
	BuiltinGenMapDelete:                {"GENMAP_DELETE", 2, 1},
	BuiltinGenMapKeys:                  {"GENMAP_KEYS", 1, 1},
	BuiltinGenMapValues:                {"GENMAP_VALUES", 1, 1},
	BuiltinGenMapSize:                  {"GENMAP_SIZE", 1, 1},
	BuiltinSecp256k1ValidateKey:        {"SECP256K1_VALIDATE_KEY", 1, 3},
	BuiltinScaleBigNumeric:             {"SCALE_BIGNUMERIC", 1, DevMinor},
	BuiltinPrecisionBigNumeric:         {"PRECISION_BIGNUMERIC", 1, DevMinor},
	BuiltinAddBigNumeric:               {"ADD_BIGNUMERIC", 2, DevMinor},
	BuiltinSubBigNumeric:               {"SUB_BIGNUMERIC", 2, DevMinor},
	BuiltinMulBigNumeric:               {"MUL_BIGNUMERIC", 2, DevMinor},
	BuiltinDivBigNumeric:               {"DIV_BIGNUMERIC", 4, DevMinor},
	BuiltinShiftRightBigNumeric:        {"SHIFT_RIGHT_BIGNUMERIC", 2, DevMinor},
	BuiltinBigNumericToNumeric:         {"BIGNUMERIC_TO_NUMERIC", 2, DevMinor},
	BuiltinNumericToBigNumeric:         {"NUMERIC_TO_BIGNUMERIC", 1, DevMinor},
	BuiltinBigNumericToText:            {"BIGNUMERIC_TO_TEXT", 1, DevMinor},
	BuiltinTypeRepTyConName:            {"TYPE_REP_TYCON_NAME", 1, DevMinor},
	BuiltinExternalCall:                {"EXTERNAL_CALL", 5, DevMinor},
	BuiltinTextToContractID:            {"TEXT_TO_CONTRACT_ID", 1, DevMinor},
}

// Info is b's row of the builtin table.
func (b BuiltinFunction) Info() BuiltinInfo {
	if b < 0 || b >= numBuiltinFunctions {
		return BuiltinInfo{Name: "BuiltinFunction(?)"}
	}
	return builtinTable[b]
}

// Arity is the number of value arguments b takes.
func (b BuiltinFunction) Arity() int { return builtinTable[b].Arity }

// DevOnly reports whether b exists only in Daml-LF 2.dev.
func (b BuiltinFunction) DevOnly() bool { return b.Info().Since == DevMinor }

func (b BuiltinFunction) String() string { return b.Info().Name }

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
