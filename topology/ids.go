package topology

import (
	"fmt"
	"strings"
)

// Limits of a unique identifier "identifier::namespace": Canton gives the
// identifier (a party hint) at most 185 characters and the namespace (a
// fingerprint) at most 68, so the whole fits a 255-character party id.
const (
	maxIdentifierLength = 185
	maxNamespaceLength  = 68
	uidDelimiter        = "::"
)

// ValidatePartyHint checks a party hint as Canton checks the identifier of a
// unique identifier: 1 to 185 characters out of letters, digits, space, ':',
// '-' and '_', without the delimiter "::".
func ValidatePartyHint(hint string) error {
	if hint == "" {
		return fmt.Errorf("party hint is empty")
	}
	return validateIdentifier("party hint", hint)
}

func validateIdentifier(what, s string) error {
	if len(s) > maxIdentifierLength {
		return fmt.Errorf("%s %q has %d characters; at most %d are allowed", what, abbreviate(s), len(s), maxIdentifierLength)
	}
	for i, r := range s {
		if !isPartyIDChar(r) {
			return fmt.Errorf("%s %q has %q at byte %d; only letters, digits, space, ':', '-' and '_' are allowed", what, abbreviate(s), r, i)
		}
	}
	if strings.Contains(s, uidDelimiter) {
		return fmt.Errorf("%s %q contains the reserved delimiter %q", what, abbreviate(s), uidDelimiter)
	}
	return nil
}

func isPartyIDChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == ' ' || r == ':' || r == '-' || r == '_'
}

// SplitUID splits a unique identifier "identifier::namespace" (a party id, or
// a participant uid) into its two parts and checks both.
func SplitUID(uid string) (identifier, namespace string, err error) {
	i := strings.Index(uid, uidDelimiter)
	switch {
	case uid == "":
		return "", "", fmt.Errorf("unique identifier is empty")
	case i < 0:
		return "", "", fmt.Errorf("unique identifier %q has no %q separating identifier and namespace", abbreviate(uid), uidDelimiter)
	case i == 0:
		return "", "", fmt.Errorf("unique identifier %q has an empty identifier", abbreviate(uid))
	}
	identifier, namespace = uid[:i], uid[i+len(uidDelimiter):]
	if err := validateIdentifier("identifier", identifier); err != nil {
		return "", "", fmt.Errorf("unique identifier %q: %w", abbreviate(uid), err)
	}
	if err := validateNamespace(namespace); err != nil {
		return "", "", fmt.Errorf("unique identifier %q: %w", abbreviate(uid), err)
	}
	return identifier, namespace, nil
}

func validateNamespace(ns string) error {
	if ns == "" {
		return fmt.Errorf("namespace is empty")
	}
	if len(ns) > maxNamespaceLength {
		return fmt.Errorf("namespace has %d characters; at most %d are allowed", len(ns), maxNamespaceLength)
	}
	for _, r := range ns {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return fmt.Errorf("namespace %q has %q; a fingerprint is letters and digits only", ns, r)
		}
	}
	return nil
}

// participantUID accepts a participant id with or without Canton's "PAR::"
// member prefix and returns the bare uid that topology mappings carry.
func participantUID(id string) (string, error) {
	uid := strings.TrimPrefix(id, "PAR::")
	if _, _, err := SplitUID(uid); err != nil {
		return "", err
	}
	return uid, nil
}

// abbreviate keeps error messages readable when an input is huge.
func abbreviate(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:77] + "..."
}
