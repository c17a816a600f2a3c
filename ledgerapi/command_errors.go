package ledgerapi

import "fmt"

// The errors of Canton's command validation, raised where a command field
// is checked: by the node's participant pipeline and by the engine's
// command preprocessing, which must answer alike.

// MissingCommandField is MISSING_FIELD for a field of a submitted command.
func MissingCommandField(field string) *JsCantonError {
	return NewError(CodeMissingField,
		"The submitted command is missing a mandatory field: "+field,
		map[string]string{"field_name": field})
}

// InvalidCommandField is INVALID_FIELD for a field of a submitted command.
func InvalidCommandField(field, format string, args ...any) *JsCantonError {
	return NewError(CodeInvalidField,
		fmt.Sprintf("The submitted command has a field with invalid value: Invalid field %s: %s", field, fmt.Sprintf(format, args...)),
		map[string]string{"field_name": field})
}

// InvalidCommandArgument is INVALID_ARGUMENT for a submitted command.
func InvalidCommandArgument(format string, args ...any) *JsCantonError {
	return NewError(CodeInvalidArgument,
		"The submitted request has invalid arguments: "+fmt.Sprintf(format, args...), nil)
}

// PreprocessingFailed is COMMAND_PREPROCESSING_FAILED: a command does not
// fit the packages it names.
func PreprocessingFailed(format string, args ...any) *JsCantonError {
	return Errorf(CodeCommandPreprocessingFailed, format, args...)
}
