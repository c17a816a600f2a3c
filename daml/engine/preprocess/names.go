package preprocess

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// MaxNameLength bounds record labels and choice names (Daml-LF names).
const MaxNameLength = 1000

// CheckName accepts a Daml-LF name: [A-Za-z$_][A-Za-z0-9$_]*.
func CheckName(s string) error {
	if s == "" {
		return errors.New("name is empty")
	}
	if len(s) > MaxNameLength {
		return fmt.Errorf("name is longer than %d characters", MaxNameLength)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '$' || c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9'
		if !ok {
			return fmt.Errorf("name %q is not a Daml identifier ([A-Za-z$_][A-Za-z0-9$_]*)", Clip(s))
		}
	}
	return nil
}

// ChoiceField checks a command's choice field.
func ChoiceField(choice string) error {
	if choice == "" {
		return ledgerapi.MissingCommandField("choice")
	}
	if err := CheckName(choice); err != nil {
		return ledgerapi.InvalidCommandField("choice", "%v", err)
	}
	return nil
}

// ValidateContractID checks Canton's V1 contract id syntax: "00", a 32-byte
// discriminator and an optional suffix of at most 94 bytes, all lower-case
// hex.
func ValidateContractID(s string) error {
	if len(s) < 66 || len(s)%2 != 0 || len(s) > 66+2*94 {
		return fmt.Errorf("contract id %q is not a Canton V1 contract id (00, a 32-byte discriminator and an optional suffix, in lower-case hex)", Clip(s))
	}
	if !strings.HasPrefix(s, "00") {
		return fmt.Errorf("contract id %q does not start with the V1 version byte 00", Clip(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return fmt.Errorf("contract id %q is not lower-case hex", Clip(s))
		}
	}
	return nil
}

// Clip shortens an input quoted in an error to 64 bytes and an ellipsis
// when it is longer than 80.
func Clip(s string) string {
	if len(s) > 80 {
		return s[:64] + "…"
	}
	return s
}
