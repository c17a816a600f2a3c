// Package ledgerapi defines the JSON wire types of Canton's JSON Ledger API
// v2 (/v2/...) once, for both our client and `ledger serve`: requests and
// responses, commands and events, completions, party and user records,
// rights, the error body and its categories, and the identifier rules.
//
// # Encoding
//
// The JSON is Canton's own mapping, not proto3's canonical JSON:
//
//   - Field names are the lowerCamelCase proto names. Output writes every
//     field: absent optionals as null (pointer fields), empty lists as []
//     (List), empty maps as {} (Map), scalars at their defaults. A handful of
//     request-only fields are omitted when unset because Canton would read an
//     explicit value differently (noted on the field).
//   - 64- and 32-bit integers (offsets, traffic costs, node ids) are JSON
//     numbers (Int64, Int32). Input also takes numeric strings ("42") and
//     whole numbers written with a fraction or exponent; nothing passes
//     through float64, so values beyond 2^53 stay exact.
//   - Timestamps (Timestamp) are UTC strings as Java's Instant prints them,
//     with 0, 3, 6 or 9 fraction digits as needed; input is any RFC 3339
//     string, truncated to the microseconds the ledger keeps.
//   - Durations are {"seconds","nanos"} objects, field masks {"paths":[…]};
//     on output both carry Canton's "unknownFields":{"fields":{}}, on input
//     only seconds / paths matter.
//   - bytes (Bytes) are padded standard Base64 on output; input may omit the
//     padding. The one exception, Transaction.ExternalTransactionHash, is
//     hex and a plain string.
//   - Enums are the proto constant names; the zero Go value prints as the
//     _UNSPECIFIED name. Decoding refuses unknown names with an EnumError
//     listing the valid ones (UNRECOGNIZED is accepted, as Canton does).
//   - Proto oneofs are single-key objects named after the arm with the arm's
//     value under "value": {"DeduplicationOffset":{"value":12}}; an unset
//     oneof is {"Empty":{}}. Commands and the events of a Transaction have no
//     "value" wrapper ({"CreateCommand":{…}}, {"ArchivedEvent":{…}}), tree
//     events do ({"CreatedTreeEvent":{"value":{…}}}). Decoding treats null
//     and {} as Empty and refuses objects with several keys (Canton would
//     silently keep one of them).
//   - Daml values (create and choice arguments, keys, results, view values)
//     are Daml-LF JSON and stay json.RawMessage.
//
// Unknown JSON fields are ignored everywhere. Decoding never requires a
// field: the server decides what is missing and answers with Canton's error
// ids (MISSING_FIELD, INVALID_FIELD, …), which is more lenient than Canton's
// decoder for the hand-written Js* requests (see docs/json-api.md §1.4). For the
// same reason a client sends every field of those requests.
//
// # Errors
//
// JsCantonError is the error body. NewError fills the category, gRPC code,
// retry text and context["category"] from ErrorCategories; HTTPStatus maps
// it to the status code (413 for the list-size error); Redacted gives the
// "NA" form Canton shows for security-sensitive categories (4, 5, 6, 7, 14);
// Status and ErrorFromStatus convert to and from the google.rpc.Status of a
// completion, whose message reads "ID(category,corr): cause" with corr the
// first 8 characters of the correlation id or 0.
//
// # Identifiers
//
// Choices where the sources leave room, checked against Canton's and
// Daml-LF's definitions:
//
//   - LedgerString: 1–255 characters of [A-Za-z0-9#:-_/ ].
//   - PartyIdString: 1–255 characters of [A-Za-z0-9:-_ ]; a party id is
//     hint::namespace with "::" exactly once (SplitParty). A hint has the
//     party characters, no "::", and at most 185 characters, so that hint,
//     "::" and a 68-character fingerprint fit in 255.
//   - UserIdString: 1–128 characters of [a-zA-Z0-9@^$.!`-#+'~_|:()] —
//     parentheses as accepted since Canton 3.5.1.
//   - Annotation keys: [prefix/]name, name 1–63 of [A-Za-z0-9._-] starting
//     and ending alphanumeric, prefix ≤253 characters of DNS-style labels;
//     the total size of non-empty keys and values is at most 256 KiB.
//   - Template ids: "pkg:Module.Path:Entity" or "#package-name:Module:Entity",
//     split at the last two colons.
package ledgerapi
