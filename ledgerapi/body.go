package ledgerapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// BodyError is a request body that does not decode. Canton answers it with
// HTTP 400 and a text/plain body (not a JsCantonError); Error() is that text,
// "Invalid value for: body (<detail>)".
type BodyError struct {
	Detail string
}

func (e *BodyError) Error() string { return "Invalid value for: body (" + e.Detail + ")" }

// DecodeBody decodes a JSON request body into v. Trailing data after the
// JSON value and an empty body are errors; every failure is a *BodyError
// whose detail names what is wrong (field path, type, position).
func DecodeBody(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &BodyError{"the request body is empty; send a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return &BodyError{describeDecodeError(err)}
	}
	if dec.More() {
		return &BodyError{fmt.Sprintf("unexpected data after the JSON value at byte %d", dec.InputOffset())}
	}
	return nil
}

func describeDecodeError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %s: expected %s, got JSON %s", te.Field, te.Type, te.Value)
		}
		return fmt.Sprintf("expected %s, got JSON %s", te.Type, te.Value)
	case err.Error() == "unexpected EOF":
		return "malformed JSON: unexpected end of input"
	}
	return err.Error()
}
