package typed

import (
	"sort"
	"strings"
)

// ErrorKind tells which of Canton's refusals an Error is; the node turns
// each into Canton's error id (see the package documentation).
type ErrorKind uint8

// The kinds of Error.
const (
	// ErrMissingFields: a record lacks non-optional fields
	// (COMMAND_PREPROCESSING_FAILED in Canton).
	ErrMissingFields ErrorKind = iota + 1
	// ErrUnexpectedFields: a record has fields its type does not declare,
	// with a value other than null (INVALID_ARGUMENT).
	ErrUnexpectedFields
	// ErrVariant: a variant is not {"tag","value"}, or names no constructor
	// of its type; an enum names no constructor (INVALID_ARGUMENT).
	ErrVariant
	// ErrInvalidValue: a JSON value of the wrong sort for its type, or text
	// that is not a valid value of the type: party, contract id, numeric,
	// int64, date, timestamp (INVALID_ARGUMENT).
	ErrInvalidValue
	// ErrTypeMismatch: a well-formed value that does not fit its type, as a
	// numeric of a greater scale or beyond 38 digits
	// (COMMAND_PREPROCESSING_FAILED).
	ErrTypeMismatch
	// ErrMalformedJSON: the input is not JSON.
	ErrMalformedJSON
	// ErrTooLarge: the value nests deeper than Daml's limit of 100, or
	// holds more values than the decoder's budget.
	ErrTooLarge
	// ErrIllegalContractID: a contract id without its suffix, refused
	// with DecodeOptions.RefuseLocalIDs (COMMAND_PREPROCESSING_FAILED).
	ErrIllegalContractID
)

// Error is a JSON value that does not decode by its type. Path names the
// value the way the JSON request writes it: "createArguments.owner",
// "choiceArgument.items[2]", "m[\"key\"]".
type Error struct {
	Kind ErrorKind
	Path string
	// Message is Canton's message for the problem, without the path.
	Message string
	// Fields are the missing or unexpected field names, sorted.
	Fields []string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Message + " at " + e.Path
}

// missingFieldsMessage renders names as Canton does: "Missing non-optional
// fields: Set(a, b)".
func missingFieldsMessage(names []string) string {
	sort.Strings(names)
	return "Missing non-optional fields: Set(" + strings.Join(names, ", ") + ")"
}

func unexpectedFieldsMessage(names []string) string {
	sort.Strings(names)
	return "Unexpected fields: " + strings.Join(names, ", ")
}
