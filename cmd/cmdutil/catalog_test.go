package cmdutil

import "testing"

// FuzzExplainReceived: whatever arrives on standard input, `ledger errors -`
// answers with an explanation or an error, never a panic; an explanation
// names an id and, for a known one, its meaning.
func FuzzExplainReceived(f *testing.F) {
	for _, s := range []string{
		`{"code":"UNKNOWN_SUBMITTERS","cause":"c","correlationId":"x","context":{"unknownSubmitters":"a,b","tid":"t"},"cmdutil.ExplainedCategory":11,"grpcCodeValue":5,"retryInfo":null}`,
		`{"code":"NA","cause":"A security-sensitive error has been received","cmdutil.ExplainedCategory":-1,"grpcCodeValue":7}`,
		`{"code":"DAML_FAILURE","cmdutil.ExplainedCategory":9,"context":{"error_id":"UNHANDLED_EXCEPTION/X"}}`,
		`{"code":"FAILED_TO_EXECUTE_TRANSACTION","cause":"did not provide an external signature","cmdutil.ExplainedCategory":8}`,
		"LOCAL_VERDICT_TIMEOUT(2,abc): late", "duplicate_command", "{", "", "(", "{\"code\":null}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		x, err := ExplainReceived(in)
		if err != nil {
			return
		}
		if x.ID == "" && x.Received == nil {
			t.Fatalf("an explanation of nothing for %q: %+v", in, x)
		}
		if x.Known && x.Meaning == "" {
			t.Fatalf("a known id without its meaning: %+v", x)
		}
	})
}
