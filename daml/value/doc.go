// Package value is the one representation of Daml-LF values in this
// repository: the interpreter computes with it, the typed JSON codec reads
// and writes it, and the transaction builder stores it in nodes.
//
// # Values
//
// Value is a small interface (Kind and String); each kind of value is a Go
// type of this package:
//
//	Unit, Bool, Int64, Text, Party      scalars, by value
//	Numeric                             38-digit decimal with its scale (numeric.go)
//	Timestamp, Date                     µs and days since the Unix epoch (time.go)
//	ContractID                          lower-case hex of the id's bytes (contractid.go)
//	*List                               immutable list, O(1) cons and uncons; nil is []
//	Optional                            None (Value nil) or Some
//	*TextMap, *GenMap                   immutable maps, entries sorted by key; nil is empty
//	*Record                             type constructor and labelled fields, in type order
//	*Variant, *Enum                     type constructor, constructor name and rank
//	*Struct, *Any, TypeRep              non-serializable values of the interpreter
//
// Functions, partially applied builtins and updates are values of the
// interpreter (package interp) of KindFunction; they are not comparable.
//
// A Variant's and an Enum's Rank is the 0-based position of the constructor
// in its data type: Daml orders constructors by it, so whoever builds such a
// value from outside the interpreter (the JSON codec) must set it from the
// package's data type. Record fields must be in the order of the record
// type; labels are the field names.
//
// All values are immutable once built: a *List, map or record may be shared
// by many values and by concurrent interpretations. Constructors that take a
// slice (NewList, NewTextMap, NewGenMap) keep it; do not modify it afterwards.
//
// # Order and equality
//
// Equal and Compare implement Daml's generic equality and order (the
// EQUAL/LESS_EQ builtins, GenMap keys), with Canton's two failure cases:
// ErrNotComparable for functions, and *ComparabilityError for the
// contract-id comparability rule of contract-id.rst (a local id and a
// suffixed id with the same prefix). Types of Any and TypeRep values are
// ordered by CompareTypes, which follows Canton's TypeOrdering.
//
// # Numeric arithmetic
//
// Numeric holds an unscaled integer (int64 when it fits, math/big
// otherwise) and a scale 0–37. AddNumeric, SubNumeric, MulNumeric,
// DivNumeric, RoundNumeric, CastNumeric, ShiftNumeric, NumericFromInt64 and
// Numeric.Int64 follow Canton's data.Numeric: at most 38 digits, half-even
// rounding for multiplication, division and ROUND_NUMERIC, failure on
// overflow or loss of precision. math/big was chosen over
// github.com/cockroachdb/apd: apd rounds to a precision (significant
// digits) set in a context, while Daml rounds to a scale fixed by the type
// and bounds the precision separately, so each apd operation would still
// need a Quantize and an explicit 38-digit check; math/big's QuoRem gives
// the exact half-even division directly, with no new dependency.
//
// # Text forms
//
// String methods give the forms Canton prints: Numeric.String is the
// canonical scaled text ("1.5000000000", "3."), which values, transactions
// and hashes use, and Numeric.Unpadded the NUMERIC_TO_TEXT form ("1.5");
// Timestamp.String is Java's Instant text ("2026-07-24T11:59:01.123456Z",
// the fraction in groups of three digits); Date.String is "YYYY-MM-DD".
// For records, variants, lists and the rest, String renders Canton's
// error-message form of a value (its prettyValue, on one line):
// `Canton.Internal.Ping:Ping@de2cc2f9{ id = "x", initiator = 'alice' }`.
package value
