package display

import (
	"bytes"
	"testing"
)

func TestTableAndFields(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, []string{"USER", "ACTIVE", "PRIMARY PARTY"}, [][]string{
		{"participant_admin", "yes", ""},
		{"alice", "no", "alice::1220"},
		{"bob", "yes", "two\nlines"},
	}); err != nil {
		t.Fatal(err)
	}
	want := `USER               ACTIVE  PRIMARY PARTY
participant_admin  yes
alice              no      alice::1220
bob                yes     two
                           lines
`
	if b.String() != want {
		t.Errorf("Table:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := Fields(&b, [][2]string{{"User", "alice"}, {"Primary party", "alice::1220"}, {"Rights", "none"}}); err != nil {
		t.Fatal(err)
	}
	want = `User:           alice
Primary party:  alice::1220
Rights:         none
`
	if b.String() != want {
		t.Errorf("Fields:\n%q\nwant\n%q", b.String(), want)
	}
}
