package ledgerapi

// The errors of Canton's request validation, raised where a request field
// is checked: by the HTTP layer as it reads a request, and by the node as it
// applies one.

// MissingField is MISSING_FIELD for a proto field name.
func MissingField(field string) *JsCantonError {
	return Errorf(CodeMissingField,
		"The submitted command is missing a mandatory field: %s", field)
}

// InvalidField is INVALID_FIELD for a proto field name.
func InvalidField(field, reason string) *JsCantonError {
	return Errorf(CodeInvalidField,
		"The submitted command has a field with invalid value: Invalid field %s: %s", field, reason)
}

// InvalidArgument is INVALID_ARGUMENT.
func InvalidArgument(format string, args ...any) *JsCantonError {
	return Errorf(CodeInvalidArgument,
		"The submitted request has invalid arguments: "+format, args...)
}
