package ledgerapi

import (
	"strings"
	"testing"
)

func TestDamlLFPartyReason(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Alice", ""},
		{"a:b-c_d e", ""},
		{"", "Daml-LF Party is empty"},
		{strings.Repeat("a", 255), ""},
		{strings.Repeat("a", 256), "Daml-LF Party is too long (max: 255)"},
		{"bad/hint", `non expected character 0x2f in Daml-LF Party "bad/hint"`},
		{"\U0001F600", `non expected character 0xd83d in Daml-LF Party "` + "\U0001F600" + `"`},
	} {
		if got := DamlLFPartyReason(tt.in); got != tt.want {
			t.Errorf("DamlLFPartyReason(%.20q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
