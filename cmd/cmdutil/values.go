package cmdutil

// Flag values shared by several commands.

import (
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// ValidateParties checks every party id a flag gave (a usage error names
// the flag and the position of the bad value).
func ValidateParties(flag string, ps []string) error {
	for i, p := range ps {
		if err := ledgerapi.ValidatePartyID(flag, p); err != nil {
			return UsageError("%s value %d: %s", flag, i+1, err)
		}
	}
	return nil
}

// ParseAnnotations reads KEY=VALUE pairs (set) and KEY (unset: value "").
func ParseAnnotations(set, unset []string, forUpdate bool) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, UsageError("annotation %q: write KEY=VALUE", kv)
		}
		if v == "" {
			return nil, UsageError("annotation %q has an empty value: to remove a key use --unset %s", kv, k)
		}
		m[k] = v
	}
	for _, k := range unset {
		if _, dup := m[k]; dup {
			return nil, UsageError("annotation %q is both set and unset", k)
		}
		m[k] = ""
	}
	if err := ledgerapi.ValidateAnnotations(m, forUpdate); err != nil {
		return nil, UsageError("annotations: %s", err)
	}
	return m, nil
}

// MissingParties are the parties of want that got has no details for, in
// the order of want: a node answers a read of unknown parties with
// nothing rather than an error.
func MissingParties(want []string, got []ledgerapi.PartyDetails) []string {
	known := map[string]bool{}
	for _, p := range got {
		known[p.Party] = true
	}
	var missing []string
	for _, p := range want {
		if !known[p] {
			missing = append(missing, p)
		}
	}
	return missing
}
