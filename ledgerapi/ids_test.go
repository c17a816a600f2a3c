package ledgerapi

import (
	"errors"
	"strings"
	"testing"
)

func TestIdentifierValidators(t *testing.T) {
	fp := "1220" + strings.Repeat("ab", 32)
	tests := []struct {
		name  string
		check func(string, string) error
		in    string
		ok    bool
	}{
		{"ledger plain", ValidateLedgerString, "cmd-1", true},
		{"ledger all extras", ValidateLedgerString, "a#b:c-d_e/f g", true},
		{"ledger 255", ValidateLedgerString, strings.Repeat("x", 255), true},
		{"ledger 256", ValidateLedgerString, strings.Repeat("x", 256), false},
		{"ledger empty", ValidateLedgerString, "", false},
		{"ledger dot", ValidateLedgerString, "v1.2", false},
		{"ledger at", ValidateLedgerString, "a@b", false},
		{"ledger unicode", ValidateLedgerString, "caf\u00e9", false},
		{"party full", ValidatePartyID, "Alice::" + fp, true},
		{"party space", ValidatePartyID, "Alice Smith::1220", true},
		{"party slash", ValidatePartyID, "a/b", false},
		{"party hash", ValidatePartyID, "a#b", false},
		{"party 256", ValidatePartyID, strings.Repeat("p", 256), false},
		{"user email", ValidateUserID, "alice@acme.example", true},
		{"user extras", ValidateUserID, "a@^$.!`-#+'~_|:()z", true},
		{"user 128", ValidateUserID, strings.Repeat("u", 128), true},
		{"user 129", ValidateUserID, strings.Repeat("u", 129), false},
		{"user space", ValidateUserID, "alice smith", false},
		{"user slash", ValidateUserID, "a/b", false},
		{"user empty", ValidateUserID, "", false},
		{"hint", ValidatePartyHint, "Alice-1_x:y z", true},
		{"hint double colon", ValidatePartyHint, "a::b", false},
		{"hint 185", ValidatePartyHint, strings.Repeat("h", 185), true},
		{"hint 186", ValidatePartyHint, strings.Repeat("h", 186), false},
		{"hint dot", ValidatePartyHint, "a.b", false},
		{"fingerprint", ValidateFingerprint, fp, true},
		{"fingerprint upper", ValidateFingerprint, strings.ToUpper(fp), false},
		{"fingerprint short", ValidateFingerprint, "1220ab", false},
		{"fingerprint prefix", ValidateFingerprint, "1221" + fp[4:], false},
	}
	for _, tt := range tests {
		err := tt.check("field", tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("%s: %q: err = %v, want ok=%v", tt.name, tt.in, err, tt.ok)
		}
		var fe *FieldError
		if err != nil && (!errors.As(err, &fe) || fe.Field != "field" || !strings.HasPrefix(err.Error(), "field ")) {
			t.Errorf("%s: error does not name the field: %v", tt.name, err)
		}
	}
}

func TestSplitParty(t *testing.T) {
	h, ns, err := SplitParty("Alice::1220abcd")
	if err != nil || h != "Alice" || ns != "1220abcd" || JoinParty(h, ns) != "Alice::1220abcd" {
		t.Errorf("SplitParty = %q %q %v", h, ns, err)
	}
	for _, bad := range []string{"Alice", "::1220", "Alice::", "a::b::c", "a/b::c", ""} {
		if _, _, err := SplitParty(bad); err == nil {
			t.Errorf("SplitParty(%q) accepted", bad)
		}
	}
}

func TestAnnotations(t *testing.T) {
	keys := []struct {
		key string
		ok  bool
	}{
		{"team", true},
		{"acme.example/desk", true},
		{"a-b.c_d", true},
		{"sub.acme-corp.example/x.y", true},
		{"", false},
		{"-team", false},
		{"team-", false},
		{"a/b/c", false},
		{"/name", false},
		{"acme..example/x", false},
		{"-acme.example/x", false},
		{"acme_x.example/x", false},
		{strings.Repeat("n", 63), true},
		{strings.Repeat("n", 64), false},
		{strings.Repeat("p", 63) + "." + strings.Repeat("q", 63) + "/x", true},
		{strings.Repeat("p.", 127) + "p/x", false}, // prefix of 255 characters
		{"na me", false},
	}
	for _, tt := range keys {
		if err := ValidateAnnotationKey(tt.key); (err == nil) != tt.ok {
			t.Errorf("key %q: err = %v, want ok=%v", tt.key, err, tt.ok)
		}
	}
	if err := ValidateAnnotations(map[string]string{"k": ""}, true); err != nil {
		t.Errorf("update with deletion refused: %v", err)
	}
	if err := ValidateAnnotations(map[string]string{"k": ""}, false); err == nil {
		t.Error("empty value accepted at creation")
	}
	if err := ValidateAnnotations(map[string]string{"k": "\xff"}, true); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
	// 256 KiB exactly passes, one byte more fails; deletions do not count.
	exact := map[string]string{"k": strings.Repeat("v", MaxAnnotationsSize-1), "gone": ""}
	if AnnotationsSize(exact) != MaxAnnotationsSize {
		t.Fatalf("size = %d", AnnotationsSize(exact))
	}
	if err := ValidateAnnotations(exact, true); err != nil {
		t.Errorf("256 KiB refused: %v", err)
	}
	exact["k2"] = "v"
	if err := ValidateAnnotations(exact, true); err == nil || !strings.Contains(err.Error(), "262144") {
		t.Errorf("over limit: %v", err)
	}
}

func TestParseTemplateID(t *testing.T) {
	tests := []struct {
		in   string
		want TemplateID
		ok   bool
	}{
		{"9a8b7c:Acme.Payment:Invoice", TemplateID{PackageID: "9a8b7c", Module: "Acme.Payment", Entity: "Invoice"}, true},
		{"#acme-payments:Acme.Payment:Invoice", TemplateID{PackageName: "acme-payments", Module: "Acme.Payment", Entity: "Invoice"}, true},
		{"#ns:pkg:Main:T", TemplateID{PackageName: "ns:pkg", Module: "Main", Entity: "T"}, true},
		{"p:M:Outer.Inner", TemplateID{PackageID: "p", Module: "M", Entity: "Outer.Inner"}, true},
		{"p:M:$_x9", TemplateID{PackageID: "p", Module: "M", Entity: "$_x9"}, true},
		{"Main:T", TemplateID{}, false},
		{"p:M:", TemplateID{}, false},
		{":M:T", TemplateID{}, false},
		{"#:M:T", TemplateID{}, false},
		{"p:M..N:T", TemplateID{}, false},
		{"p:9M:T", TemplateID{}, false},
		{"p:M:T-x", TemplateID{}, false},
		{"p.q:M:T", TemplateID{}, false},
		{strings.Repeat("a", 65) + ":M:T", TemplateID{}, false},
		{"#pkg/x:M:T", TemplateID{}, false},
	}
	for _, tt := range tests {
		got, err := ParseTemplateID(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("%q: err = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && (got != tt.want || got.String() != tt.in || got.ByName() != (tt.want.PackageName != "")) {
			t.Errorf("%q = %+v (%s)", tt.in, got, got)
		}
		if !tt.ok && !strings.HasPrefix(err.Error(), "templateId ") {
			t.Errorf("%q: error does not name the field: %v", tt.in, err)
		}
	}
}
