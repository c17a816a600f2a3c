package cmdutil

import (
	"errors"
	"fmt"
)

// Exit codes, documented in README.md.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
	// ExitHashMismatch: the transaction is not what it claims to be — its
	// hash is not the node's, or it is not what its Daml code makes.
	ExitHashMismatch = 3
	ExitRejected     = 4
)

// ExitError carries the exit status a command wants alongside its error.
// A nil Err means the command already printed everything it had to say.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// WithExit wraps err so that the process exits with code.
func WithExit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// UsageError marks a mistake in how the command was called (exit 2).
func UsageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// ExitCode returns the status a command's error maps to.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitFailure
}
