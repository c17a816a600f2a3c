// Package typed reads and writes Daml-LF values by the types of their
// packages: the JSON encoding of Canton's JSON Ledger API (its "transcode"
// JSON codec, community/transcode/codec-json in digital-asset/canton) and
// the protobuf Value of Canton's transactions.
//
// An Env is a set of decoded packages (package lf). Env.Plan compiles a
// closed serializable type once — synonyms expanded, type parameters
// instantiated, data types looked up — into a Plan, which decodes JSON into
// a value of package value (DecodeJSON), writes a value as JSON (AppendJSON),
// and converts to and from damlpb.Value (ToProto, FromProto).
//
// # The JSON encoding
//
//	Unit                {} on output; any JSON on input
//	Bool                true, false
//	Int64               "42"; a JSON number is accepted on input
//	Numeric n           "1.5000000000" (Canton's canonical text, scale n; "3." at
//	                    scale 0); on input a string or a number matching
//	                    [+-]?\d{1,38}(\.\d{0,37})? (a number may use an exponent)
//	Text, Party         "…"
//	ContractId t        "00…" (lower-case hex)
//	Date                "2026-07-24"
//	Timestamp           "2026-07-24T11:59:01.1234Z": Java's ISO_DATE_TIME in UTC,
//	                    the fraction without trailing zeros; any offset on input,
//	                    digits below the microsecond dropped
//	Optional a          null or the value; when a is itself written Optional …,
//	                    every level is an array: [] None, [x] Some x, so that
//	                    Optional (Optional Int64) writes [], [[]], [["5"]]
//	List a              [x, …]
//	TextMap a           {"k": x, …}
//	GenMap k v          [[k, v], …]
//	records             {"label": x, …} in the type's order on output, any order
//	                    on input; a field of Optional type may be omitted (None),
//	                    and trailing fields whose JSON is null are left out on
//	                    output; an unknown field is refused unless its value is null
//	variants            {"tag": "Constructor", "value": x}
//	enums               "Constructor"
//
// Decoded records hold every field of their type, in order; variants and
// enums carry their rank; text and generic maps are sorted by key, and of
// two equal keys the later one wins, as when Canton reads them.
//
// # Errors
//
// A value that does not decode is an *Error whose Path names it the way the
// request writes it ("createArguments.owner", "choiceArgument.items[2]",
// "m[\"k\"]") and whose Kind says which of Canton's refusals it is: missing
// non-optional fields are COMMAND_PREPROCESSING_FAILED ("Missing
// non-optional fields: Set(owner)"); unexpected fields ("Unexpected fields:
// foo"), a malformed variant ("Variant type json must have 'tag' and 'value'
// fields.", "Unexpected variant tag: Foo") and a malformed party, contract
// id, numeric ("Could not read Numeric string \"x\""), Int64, date or
// timestamp are INVALID_ARGUMENT; a numeric that does not fit its scale
// ("Cannot represent 1.55 as (Numeric 1) without loss of precision") is
// COMMAND_PREPROCESSING_FAILED. Where Canton's codec fails with an internal
// error (a JSON value of the wrong sort, an unknown enum constructor) this
// package answers INVALID_ARGUMENT naming the expected type.
package typed
