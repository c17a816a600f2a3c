package ledgerapi

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// FieldError says which request field holds a malformed value and why. A
// server answers it as INVALID_FIELD or INVALID_ARGUMENT; a client prints it.
type FieldError struct {
	Field  string // e.g. "commandId", "actAs[1]"
	Value  string
	Reason string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%q: %s", truncate(e.Value, 80), e.Reason)
	}
	return fmt.Sprintf("%s %q: %s", e.Field, truncate(e.Value, 80), e.Reason)
}

// Identifier limits (Daml-LF value.proto and Canton).
const (
	MaxLedgerStringLength = 255
	MaxPartyIDLength      = 255
	MaxUserIDLength       = 128
	MaxPartyHintLength    = 185 // 255 - len("::") - len(fingerprint)
	MaxPackageIDLength    = 64
	FingerprintLength     = 68 // "1220" + 64 hex digits

	MaxAnnotationsSize        = 256 * 1024
	maxAnnotationNameLength   = 63
	maxAnnotationPrefixLength = 253
)

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func checkChars(field, s string, max int, extra string, what string) error {
	if s == "" {
		return &FieldError{field, s, "must not be empty"}
	}
	if len(s) > max {
		return &FieldError{field, s, fmt.Sprintf("is %d characters long, at most %d allowed", len(s), max)}
	}
	for i, r := range s {
		if !isAlnum(r) && !strings.ContainsRune(extra, r) {
			return &FieldError{field, s, fmt.Sprintf("character %q at position %d is not allowed in %s (letters, digits and %s only)", r, i, what, describeChars(extra))}
		}
	}
	return nil
}

func describeChars(extra string) string {
	var parts []string
	for _, r := range extra {
		if r == ' ' {
			parts = append(parts, "space")
		} else {
			parts = append(parts, string(r))
		}
	}
	return strings.Join(parts, " ")
}

const (
	ledgerStringExtra = "#:-_/ "
	partyIDExtra      = ":-_ "
	userIDExtra       = "@^$.!`-#+'~_|:()"
	packageIDExtra    = "-_ "
	packageNameExtra  = "-_"
)

// ValidateLedgerString checks a LedgerString (command, submission, workflow,
// synchronizer and contract ids): 1–255 characters of [A-Za-z0-9#:-_/ ].
func ValidateLedgerString(field, s string) error {
	return checkChars(field, s, MaxLedgerStringLength, ledgerStringExtra, "a ledger string")
}

// ValidatePartyID checks a PartyIdString: 1–255 characters of
// [A-Za-z0-9:-_ ]. It does not require the hint::namespace structure; use
// SplitParty for that.
func ValidatePartyID(field, s string) error {
	return checkChars(field, s, MaxPartyIDLength, partyIDExtra, "a party id")
}

// ValidateUserID checks a UserIdString: 1–128 characters of
// [a-zA-Z0-9@^$.!`-#+'~_|:()] (parentheses since Canton 3.5.1).
func ValidateUserID(field, s string) error {
	return checkChars(field, s, MaxUserIDLength, userIDExtra, "a user id")
}

// ValidatePartyHint checks a party id hint (the part before "::"): 1–185
// characters of [A-Za-z0-9:-_ ] without "::", so that hint::fingerprint
// stays a valid 255-character party id.
func ValidatePartyHint(field, s string) error {
	if err := checkChars(field, s, MaxPartyHintLength, partyIDExtra, "a party hint"); err != nil {
		return err
	}
	if strings.Contains(s, "::") {
		return &FieldError{field, s, `must not contain "::", which separates the hint from the namespace`}
	}
	return nil
}

// SplitParty splits a party id "hint::namespace" at its single "::". Both
// parts must be non-empty; the whole must be a valid party id.
func SplitParty(party string) (hint, namespace string, err error) {
	if err := ValidatePartyID("party", party); err != nil {
		return "", "", err
	}
	hint, namespace, ok := strings.Cut(party, "::")
	switch {
	case !ok:
		return "", "", &FieldError{"party", party, `must have the form hint::namespace`}
	case hint == "" || namespace == "":
		return "", "", &FieldError{"party", party, `hint and namespace around "::" must not be empty`}
	case strings.Contains(namespace, "::"):
		return "", "", &FieldError{"party", party, `must contain "::" exactly once`}
	}
	return hint, namespace, nil
}

// JoinParty builds "hint::namespace".
func JoinParty(hint, namespace string) string { return hint + "::" + namespace }

// ValidateFingerprint checks a SHA-256 key fingerprint as Canton prints it:
// "1220" followed by 64 lower-case hex digits.
func ValidateFingerprint(field, s string) error {
	if len(s) != FingerprintLength || !strings.HasPrefix(s, "1220") {
		return &FieldError{field, s, `must be "1220" followed by 64 hex digits`}
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return &FieldError{field, s, "must be lower-case hex"}
		}
	}
	return nil
}

// ValidateAnnotationKey checks a metadata annotation key: an optional
// DNS-subdomain prefix (≤253 characters, dot-separated labels of
// [A-Za-z0-9-] that start and end alphanumeric) and "/", then a name of 1–63
// characters of [A-Za-z0-9._-] that starts and ends alphanumeric.
func ValidateAnnotationKey(key string) error {
	// The reasons are Canton's (ResourceAnnotationValidator), which the JSON
	// API answers as they are.
	field := "annotation key"
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		name = key
	}
	if strings.Contains(name, "/") {
		return &FieldError{field, key, fmt.Sprintf("Key '%s' contains more than one forward slash ('/') character", shortenKey(key))}
	}
	if hasPrefix {
		if len(prefix) > maxAnnotationPrefixLength {
			return &FieldError{field, key, fmt.Sprintf("Key prefix segment '%s' exceeds maximum length of %d characters", shortenKey(prefix), maxAnnotationPrefixLength)}
		}
		for _, label := range strings.Split(prefix, ".") {
			if !validLabel(label, "-") {
				return &FieldError{field, key, fmt.Sprintf("Key prefix segment '%s' has invalid syntax", shortenKey(prefix))}
			}
		}
	}
	if len(name) > maxAnnotationNameLength {
		return &FieldError{field, key, fmt.Sprintf("Key name segment '%s' exceeds maximum length of %d characters", shortenKey(name), maxAnnotationNameLength)}
	}
	if !validLabel(name, "._-") {
		return &FieldError{field, key, fmt.Sprintf("Key name segment '%s' has invalid syntax", shortenKey(name))}
	}
	return nil
}

// shortenKey is a key or segment as Canton quotes it in its reasons: at
// most 53 characters, else its first 50 and "...".
func shortenKey(s string) string {
	if len(s) > 53 {
		return s[:50] + "..."
	}
	return s
}

func validLabel(s, extra string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if isAlnum(r) {
			continue
		}
		if !strings.ContainsRune(extra, r) || i == 0 || i == len(s)-1 {
			return false
		}
	}
	return true
}

// AnnotationsSize is the total UTF-8 size of the keys and values of the
// entries with a non-empty value (empty values mean "delete" in updates).
func AnnotationsSize(m map[string]string) int {
	n := 0
	for k, v := range m {
		if v != "" {
			n += len(k) + len(v)
		}
	}
	return n
}

// ValidateAnnotations checks every key, UTF-8 validity, and the 256 KiB size
// limit. With forUpdate, empty values are allowed (they delete the key);
// otherwise (allocate party, create user) they are refused. The caller
// checks the limit again after merging an update.
func ValidateAnnotations(m map[string]string, forUpdate bool) error {
	// Canton's order: the size, then the keys, then empty values.
	if n := AnnotationsSize(m); n > MaxAnnotationsSize {
		return &FieldError{"annotations", "", fmt.Sprintf("total size %d bytes exceeds the limit of %d bytes (256 KiB)", n, MaxAnnotationsSize)}
	}
	for k, v := range m {
		if err := ValidateAnnotationKey(k); err != nil {
			return err
		}
		if !utf8.ValidString(v) {
			return &FieldError{"annotations[" + k + "]", "", "value is not valid UTF-8"}
		}
	}
	if !forUpdate {
		for k, v := range m {
			if v == "" {
				return &FieldError{"annotations[" + k + "]", v, fmt.Sprintf("The value of an annotation is empty for key: '%s'", shortenKey(k))}
			}
		}
	}
	return nil
}

// TemplateID is a parsed Daml identifier. Exactly one of PackageID (the
// "pkg:Module:Entity" form) and PackageName (the "#name:Module:Entity" form)
// is set. Module and Entity are dotted names.
type TemplateID struct {
	PackageID   string
	PackageName string
	Module      string
	Entity      string
}

// ByName reports whether the identifier names its package by name.
func (t TemplateID) ByName() bool { return t.PackageName != "" }

// String prints the identifier in the form it was parsed from.
func (t TemplateID) String() string {
	if t.ByName() {
		return "#" + t.PackageName + ":" + t.Module + ":" + t.Entity
	}
	return t.PackageID + ":" + t.Module + ":" + t.Entity
}

// ParseTemplateID parses "pkg:Module.Path:Entity" or
// "#package-name:Module.Path:Entity". The string is split at its last two
// colons, so package names may themselves contain colons. Module and entity
// are dotted names whose segments match [A-Za-z$_][A-Za-z0-9$_]*; package ids
// are 1–64 characters of [A-Za-z0-9-_ ]; package names are
// [A-Za-z0-9:-_]+.
func ParseTemplateID(s string) (TemplateID, error) {
	const field = "templateId"
	last := strings.LastIndexByte(s, ':')
	if last < 0 {
		return TemplateID{}, &FieldError{field, s, `must have the form "<package-id>:<Module>:<Entity>" or "#<package-name>:<Module>:<Entity>"`}
	}
	mid := strings.LastIndexByte(s[:last], ':')
	if mid < 0 {
		return TemplateID{}, &FieldError{field, s, `must have the form "<package-id>:<Module>:<Entity>" or "#<package-name>:<Module>:<Entity>"`}
	}
	pkg, module, entity := s[:mid], s[mid+1:last], s[last+1:]
	var t TemplateID
	if name, ok := strings.CutPrefix(pkg, "#"); ok {
		if name == "" || !allChars(name, packageNameExtra+":") {
			return TemplateID{}, &FieldError{field, s, "package name must be letters, digits, '-', '_' and ':'"}
		}
		t.PackageName = name
	} else {
		if pkg == "" || len(pkg) > MaxPackageIDLength || !allChars(pkg, packageIDExtra) {
			return TemplateID{}, &FieldError{field, s, "package id must be 1–64 letters, digits, '-', '_' or spaces"}
		}
		t.PackageID = pkg
	}
	if !validDottedName(module) {
		return TemplateID{}, &FieldError{field, s, fmt.Sprintf("module %q is not a dotted name (segments of letters, digits, '_' and '$', not starting with a digit)", module)}
	}
	if !validDottedName(entity) {
		return TemplateID{}, &FieldError{field, s, fmt.Sprintf("entity %q is not a dotted name (segments of letters, digits, '_' and '$', not starting with a digit)", entity)}
	}
	t.Module, t.Entity = module, entity
	return t, nil
}

func allChars(s, extra string) bool {
	for _, r := range s {
		if !isAlnum(r) && !strings.ContainsRune(extra, r) {
			return false
		}
	}
	return true
}

func validDottedName(s string) bool {
	if s == "" || len(s) > 1000 {
		return false
	}
	for _, seg := range strings.Split(s, ".") {
		if seg == "" {
			return false
		}
		for i, r := range seg {
			ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r == '$' || i > 0 && r >= '0' && r <= '9'
			if !ok {
				return false
			}
		}
	}
	return true
}

// DamlLFPartyReason is why s is not a Daml-LF Party string, in Canton's
// words (Ref.Party.fromString), or "" when it is one.
func DamlLFPartyReason(s string) string {
	return damlLFStringReason("Party", s, MaxPartyIDLength, partyIDExtra)
}

// DamlLFPackageNameReason is why s is not a Daml-LF package name, in
// Canton's words (Ref.PackageName.fromString: 1–255 of [A-Za-z0-9-_]), or
// "" when it is one.
func DamlLFPackageNameReason(s string) string {
	return damlLFStringReason("Package Name", s, 255, packageNameExtra)
}

// damlLFStringReason is why s is not a Daml-LF string of kind what (at
// most max characters, ASCII letters and digits and those of extra), in
// Canton's words, or "". Canton counts and reports in UTF-16 units, so a
// character outside the BMP is reported by its high surrogate, as Canton
// does.
func damlLFStringReason(what, s string, max int, extra string) string {
	units := utf16.Encode([]rune(s))
	switch {
	case len(units) == 0:
		return "Daml-LF " + what + " is empty"
	case len(units) > max:
		return fmt.Sprintf("Daml-LF %s is too long (max: %d)", what, max)
	}
	for _, u := range units {
		if u > 0x7f || !isAlnum(rune(u)) && !strings.ContainsRune(extra, rune(u)) {
			return fmt.Sprintf("non expected character 0x%x in Daml-LF %s %q", u, what, s)
		}
	}
	return ""
}
