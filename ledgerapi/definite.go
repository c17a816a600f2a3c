package ledgerapi

// Canton adds `definite_answer` to an error's metadata when the error says
// whether the command it answers is settled: every error raised as a
// DamlErrorWithDefiniteAnswer (request validation, command execution,
// consistency, authorization, the index) or as a TransactionError (the
// protocol's rejections) carries it, "false" unless the error is one that
// settles the command for good. Errors raised as plain errors (the package
// service, the party and user update services, offsets below zero, topology
// changes) carry none. Over the JSON API the key reaches the client in the
// error's context (the JSON layer decodes the gRPC status; definiteAnswer
// stays null), so the context is where the node puts it.

// DefiniteAnswerKey is the context key of the definite answer.
const DefiniteAnswerKey = "definite_answer"

// noDefiniteAnswer are the codes Canton raises without a definite answer
// (ContextualizedDamlError, CantonError; Canton 3.5).
var noDefiniteAnswer = map[string]bool{
	"NEGATIVE_OFFSET":                             true,
	"NON_POSITIVE_OFFSET":                         true,
	"DESCENDING_ORDER_MISSING_END":                true,
	"CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED":    true,
	"INVALID_PARTY_DETAILS_UPDATE_REQUEST":        true,
	"MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED": true,
	"CONCURRENT_USER_UPDATE_DETECTED":             true,
	"INVALID_USER_UPDATE_REQUEST":                 true,
	"MAX_USER_ANNOTATIONS_SIZE_EXCEEDED":          true,
	"INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST":    true,
	"INVALID_DAR":                                 true,
	"INVALID_DAR_FILE_NAME":                       true,
	"INVALID_ZIP_ENTRY":                           true,
	"INVALID_LEGACY_DAR":                          true,
	"ZIP_BOMB":                                    true,
	"DAR_PARSE_ERROR":                             true,
	"DAR_VALIDATION_ERROR":                        true,
	"DAR_DEPENDENCIES_NOT_VALID":                  true,
	"MAIN_PACKAGE_IN_DAR_DOES_NOT_MATCH_EXPECTED": true,
	"PACKAGE_SERVICE_INTERNAL_ERROR":              true,
	"KNOWN_PACKAGE_VERSION":                       true,
	"NOT_VALID_UPGRADE_PACKAGE":                   true,
	"TOPOLOGY_DEPENDENCIES_NOT_VETTED":            true,
	"TOPOLOGY_SERIAL_MISMATCH":                    true,
	"UNRESOLVED_VETTING_REFERENCE":                true,
	"AMBIGUOUS_VETTING_REFERENCE":                 true,
}

// definitelyAnswered are the codes whose definite answer is "true": the
// external signature or transaction was refused before anything was
// sequenced (TransactionProcessor's rejections of an execute).
var definitelyAnswered = map[string]bool{
	"INVALID_EXTERNAL_SIGNATURE":   true,
	"INVALID_EXTERNAL_TRANSACTION": true,
}

// DefiniteAnswer is the definite answer Canton gives errors with code, and
// false when they carry none.
func DefiniteAnswer(code string) (definite, carried bool) {
	if noDefiniteAnswer[code] || code == RedactedCode {
		return false, false
	}
	return definitelyAnswered[code], true
}

// WithDefiniteAnswer sets context[definite_answer] as Canton does for the
// error's code, unless the error already says or carries none.
func (e *JsCantonError) WithDefiniteAnswer() *JsCantonError {
	definite, carried := DefiniteAnswer(e.Code)
	if !carried {
		return e
	}
	if e.Context == nil {
		e.Context = Map[string]{}
	}
	if _, ok := e.Context[DefiniteAnswerKey]; !ok {
		e.Context[DefiniteAnswerKey] = "false"
		if definite {
			e.Context[DefiniteAnswerKey] = "true"
		}
	}
	return e
}
