package hashing

import (
	"errors"
	"fmt"
	"strings"
)

// Error reports input the encoder refuses, with where it was found.
type Error struct {
	// Node is the node id, or "" outside any node.
	Node string
	// Path is the field path inside the node or message, e.g.
	// "exercise.chosen_value.record.fields[1].value".
	Path string
	Err  error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Node != "" {
		b.WriteString("node ")
		b.WriteString(e.Node)
		if e.Path != "" {
			b.WriteString(", ")
		}
	}
	b.WriteString(e.Path)
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrMalformed is wrapped by every error about bytes that do not decode as
// the protobuf schema says.
var ErrMalformed = errors.New("malformed protobuf")

func errorf(format string, args ...any) error { return &Error{Err: fmt.Errorf(format, args...)} }

func malformed(format string, args ...any) error {
	return &Error{Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)}
}

// at prefixes the field path of err with field as the error travels up.
func at(err error, field string) error {
	if err == nil {
		return nil
	}
	return prefixPath(err, field)
}

func prefixPath(err error, field string) error {
	var e *Error
	if errors.As(err, &e) {
		if e.Node != "" {
			// The path is relative to the node that failed; a parent adds nothing.
			return e
		}
		switch {
		case e.Path == "":
			e.Path = field
		case strings.HasPrefix(e.Path, "["):
			e.Path = field + e.Path
		default:
			e.Path = field + "." + e.Path
		}
		return e
	}
	return &Error{Path: field, Err: err}
}

// atIndex is at with a list index.
func atIndex(err error, field string, i int) error {
	if err == nil {
		return nil
	}
	return prefixPath(err, fmt.Sprintf("%s[%d]", field, i))
}

// inNode records the node id on err if none is set yet.
func inNode(err error, id string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Node == "" {
			e.Node = id
		}
		return e
	}
	return &Error{Node: id, Err: err}
}
