package contract

import (
	"errors"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/value"
)

// TestAuthenticateRefuses runs Authenticate on contracts that must not
// authenticate, each named by why.
func TestAuthenticateRefuses(t *testing.T) {
	_, env := pingTypes(t)
	good, err := NewSuffixer(V11, nil).Suffix(pingContract(t, "", 5), Salt{3})
	if err != nil {
		t.Fatal(err)
	}
	if err := Authenticate(good, env, ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(c *Contract)
		types  bool
		want   string
	}{
		{"fail_local_id", func(c *Contract) { c.ID = c.ID[:66] }, true, "has no suffix"},
		{"fail_v2_id", func(c *Contract) { c.ID = "01" + c.ID[2:] }, true, "not a V1 contract id"},
		{"fail_unknown_suffix_version", func(c *Contract) { c.ID = c.ID[:66] + "ca13" + c.ID[70:] }, true, "not a Canton V1 suffix"},
		{"fail_other_version", func(c *Contract) { c.ID = c.ID[:66] + "ca10" + c.ID[70:] }, true, "Mismatching contract id suffixes"},
		{"fail_created_now", func(c *Contract) { c.CreatedAt = CreatedAtNow }, true, "creation time Now"},
		{"fail_created_later", func(c *Contract) { c.CreatedAt++ }, true, "Mismatching contract id suffixes"},
		{"fail_observer_added", func(c *Contract) { c.Stakeholders = append(c.Stakeholders, "carol::1220") }, true, "Mismatching"},
		{"fail_signatory_moved", func(c *Contract) { c.Signatories = []string{"bob::1220"} }, true, "Mismatching"},
		{"fail_auth_version", func(c *Contract) { c.AuthenticationData[len(c.AuthenticationData)-1] = 31 }, true, "unknown version 31"},
		{"fail_auth_short_salt", func(c *Contract) { c.AuthenticationData = c.AuthenticationData[:0] }, true, "unknown version 0"},
		{"fail_package_name", func(c *Contract) { c.PackageName += "-x" }, true, "Mismatching"},
		// Int64 0 and Text "" are both left out of an UpgradeFriendly
		// record: only the type check tells this argument from Ping's.
		{"fail_ill_typed_same_hash", func(c *Contract) {
			r := c.Argument.(*value.Record)
			r.Fields[0].Value = value.Int64(0)
		}, true, "expected a value of type Text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := *good
			c.AuthenticationData = append([]byte(nil), good.AuthenticationData...)
			r := *good.Argument.(*value.Record)
			r.Fields = append([]value.Field(nil), r.Fields...)
			c.Argument = &r
			tc.mutate(&c)
			err := Authenticate(&c, env, "")
			var ae *AuthenticationError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want an AuthenticationError with %q", err, tc.want)
			}
			if ae.ContractID != c.ID {
				t.Errorf("error names %s, want %s", ae.ContractID, c.ID)
			}
		})
	}
	// Without types, the ill-typed argument of the same UpgradeFriendly hash
	// authenticates: that is why Authenticate type-checks when it can.
	c := *good
	r := *good.Argument.(*value.Record)
	r.Fields = append([]value.Field(nil), r.Fields...)
	r.Fields[0].Value = value.Int64(0)
	c.Argument = &r
	if err := Authenticate(&c, nil, ""); err != nil {
		t.Errorf("hash-only authentication: %v", err)
	}
}
