package ledgerapi

import "testing"

func TestWithDefiniteAnswer(t *testing.T) {
	for _, tt := range []struct {
		code ErrorCode
		want string // "" when the error carries none
	}{
		{CodeContractNotFound, "false"},
		{CodeInvalidArgument, "false"},
		{CodeDamlAuthorizationError, "false"},
		{CodeInvalidExternalSignature, "true"},
		{CodeNegativeOffset, ""},
		{CodeConcurrentUserUpdate, ""},
		{CodeDarParseError, ""},
	} {
		e := NewError(tt.code, "c", nil).WithDefiniteAnswer()
		got, ok := e.Context[DefiniteAnswerKey]
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%s: definite_answer %q (present %v), want %q", tt.code.ID, got, ok, tt.want)
		}
		if e.DefiniteAnswer != nil {
			t.Errorf("%s: definiteAnswer field set; Canton's JSON layer leaves it null for gRPC errors", tt.code.ID)
		}
	}
	// A value the raiser set is kept; a redacted error stays empty.
	e := NewError(CodeDuplicateCommand, "c", map[string]string{DefiniteAnswerKey: "true"}).WithDefiniteAnswer()
	if e.Context[DefiniteAnswerKey] != "true" {
		t.Errorf("raiser's definite answer replaced: %v", e.Context)
	}
	if r := Redacted(NewError(CodePermissionDenied, "c", nil)).WithDefiniteAnswer(); len(r.Context) != 0 {
		t.Errorf("redacted error got context %v", r.Context)
	}
}
