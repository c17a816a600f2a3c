package auth

import (
	"errors"
	"fmt"
)

// Kind says how the server must answer an authentication failure. The
// mapping to HTTP and Canton error bodies lives in the server, in one place.
type Kind int

const (
	// Unauthenticated: no token, or one that does not parse or verify.
	// Canton answers 401, category 6 (AuthInterceptorInvalidAuthenticationCredentials),
	// with the details redacted.
	Unauthenticated Kind = iota + 1
	// PermissionDenied: a valid token that may not be used here (another
	// participant, a user id other than the token's). Canton answers 403,
	// category 7 (InsufficientPermission), redacted.
	PermissionDenied
	// InvalidToken: the request and the claims together lack a user id
	// (wildcard auth without userId). Canton answers 400 INVALID_TOKEN,
	// category 8, not redacted.
	InvalidToken
)

func (k Kind) String() string {
	switch k {
	case Unauthenticated:
		return "unauthenticated"
	case PermissionDenied:
		return "permission denied"
	case InvalidToken:
		return "invalid token"
	}
	return fmt.Sprintf("auth.Kind(%d)", int(k))
}

// Error is the only error type Authenticate returns. Reason is meant for the
// server log; it never contains the token or any part of it.
type Error struct {
	Kind   Kind
	Reason string
}

func (e *Error) Error() string { return e.Kind.String() + ": " + e.Reason }

// KindOf returns the Kind of err, or 0 when err is not an *Error.
func KindOf(err error) Kind {
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Kind
	}
	return 0
}

func unauthenticated(reason string) *Error { return &Error{Kind: Unauthenticated, Reason: reason} }

func denied(reason string) *Error { return &Error{Kind: PermissionDenied, Reason: reason} }
